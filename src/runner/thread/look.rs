//! A part that may be out (a lost answer, a kill, a resumed run), looked for before it is
//! sent: by its own mark, through the key's lookups (`judge::look_for`); a post found is the
//! part when the thread says so (`Thread::own_part`), and then on the line, not sent again.

use crate::error::Error;
use crate::life::{self, Key, Part, Then};
use crate::look::Seen;
use crate::runner::TargetRun;
use crate::runner::judge::{Judged, Wanted};
use crate::signals;
use crate::targets::{Attempts, Owned};
use crate::tell;
use crate::thread::Piece;
use crate::voice::Told;
use std::time::Instant;

/// What the look at a part that may be out decided.
pub(super) enum Next {
    /// It is there: recorded.
    Landed,
    /// Provably not there: send it.
    Send,
    /// Stop here; the line says why.
    Stop,
}

impl TargetRun<'_> {
    /// Look for part `n`, which may be out (`judge::look_for`): found (recorded), absent (send
    /// it), or the rules stop here (cannot tell, a lookup that keeps failing, not yet).
    pub(super) fn look_part(
        &mut self,
        key: Key,
        generation: u32,
        n: usize,
        piece: &Piece,
        sends: u32,
        wait: bool,
    ) -> Result<Next, Error> {
        let line = self.book.line(key).expect("the pending line");
        // A part is looked for by its own mark, in the window of the thread's attempts.
        let marks = [piece.mark.clone()];
        let chosen = self.part_native(key, generation, n);
        let sought = line.sought(&[]);
        let attempts = Attempts {
            key: line.place_key(),
            marks: &marks,
            since: sought.since,
            last: sought.last,
            sent: &piece.body,
            native: &chosen,
            generation,
            deadline: Some(self.deadline(&line)),
        };
        let deadline = match wait {
            true => self.deadline(&line),
            false => self.run.clock.now().timestamp(),
        };
        let looking = life::Looking::Confirm {
            deadline,
            wait_first: false,
        };
        let step = match self.look_for(key, &attempts, looking, (sends, true), &Wanted::Part(n))? {
            Judged::PartFound => return Ok(Next::Landed),
            Judged::Step(step) => step,
        };
        if let Then::Send(wait) = step.then {
            return Ok(match signals::sleep(wait) {
                true => Next::Send,
                false => Next::Stop,
            });
        }
        let detail = tell::thread::at_part(n, step.say.as_deref().unwrap_or_default());
        self.voice.trace(key, "confirm", "stopped", &detail);
        self.tell(key, &step, Told::new(None, Instant::now(), "confirm"))
            .map(|()| Next::Stop)
    }

    /// What a look for part `n` that found posts with its text (`Found`), or a post at its
    /// place that is not it (`Foreign`), says: `None` when part `n` is one of them (then on the
    /// line, not sent again); else what the key's life is told.
    pub(in crate::runner) fn part_seen(
        &mut self,
        key: Key,
        n: usize,
        seen: &Seen,
    ) -> Result<Option<Seen>, Error> {
        let Seen::Found(receipts) = seen else {
            return Ok(Some(Seen::CannotTell(tell::thread::foreign(n))));
        };
        let line = self.book.line(key).expect("the pending line");
        let landed = &line.copies.current.parts;
        let owned = self.threads().own_part(n, receipts, landed);
        Ok(Some(match self.told_part(key, n, owned, landed) {
            Ok(Some((part, url))) if part.usable() => {
                let text = tell::thread::found(n, &part.id, false);
                self.voice.trace(key, "confirm", "part", &text);
                self.put_part(key, n, (&part, url.as_deref()), false)?;
                return Ok(None);
            }
            Ok(Some(_)) => Seen::CannotTell(tell::thread::unusable(n, "found")),
            Ok(None) => Seen::Absent,
            Err(err) => Seen::Transient(err.reason()),
        }))
    }

    /// Part `n` as the thread told it from the posts found (`Thread::own_part`), each post
    /// passed over traced with what it replies to (`landed`: the parts on the line).
    pub(super) fn told_part(
        &mut self,
        key: Key,
        n: usize,
        owned: Owned,
        landed: &[Part],
    ) -> Result<Option<(Part, Option<String>)>, Error> {
        let before = n.checked_sub(1).and_then(|p| landed.get(p));
        let before = before.map(|p| p.id.as_str());
        for (id, parent) in &owned.others {
            let text = tell::thread::not_this_part(n, id, parent.as_deref(), before);
            self.voice.trace(key, "confirm", "other", &text);
        }
        owned.part
    }
}
