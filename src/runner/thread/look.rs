//! A part that may be out (a lost answer, a kill, a resumed run), looked for before it is
//! sent: by its own mark, through the key's lookups (`judge::looked`); a post found is the
//! part when the thread says so (`Thread::own_part`), and then on the line, not sent again.

use crate::error::Error;
use crate::life::{self, Key, Part, Step, Then};
use crate::look::Seen;
use crate::runner::TargetRun;
use crate::runner::carry::{Job, What};
use crate::signals;
use crate::targets::{Attempts, Owned};
use crate::tell;
use std::time::Duration;

impl TargetRun<'_> {
    /// Look for the thread's next part, which may be out (`Then::Look`): found (on the line,
    /// and the part after it is looked for too), absent (send it), or the rules stop here
    /// (cannot tell, a lookup that keeps failing, not yet). A part is looked for by its own
    /// mark, in the window of the thread's attempts.
    pub(in crate::runner) fn look_part(
        &mut self,
        key: Key,
        job: &mut Job,
    ) -> Result<Option<Step>, Error> {
        let Some(n) = self.next_part(key, job)? else {
            return Ok(None);
        };
        let line = self.book.line(key).expect("the pending line");
        let What::Thread(parts) = &job.what else {
            unreachable!("a thread's parts")
        };
        let piece = &parts.prepared.pieces[n];
        let (marks, generation) = ([piece.mark.clone()], job.out.generation);
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
        // With no line before this run and no send of this part yet, nothing can be in flight:
        // the look (dedup) need not wait for a late landing. After this run's own send whose
        // answer was lost, it waits for the part's deadline, as a post's look does.
        let deadline = match job.before.is_some() || job.sends > 0 {
            true => self.deadline(&line),
            false => self.run.clock.now().timestamp(),
        };
        let looking = life::Looking::Confirm {
            deadline,
            wait_first: false,
        };
        let seen = self.see(key, &attempts, looking);
        let failure = seen.failure(|err| self.book.failed(err, None));
        let as_part;
        let verdict = match &seen {
            Seen::Found(_) | Seen::Foreign(_) => match self.part_seen(key, n, &seen)? {
                Some(seen) => {
                    as_part = seen;
                    as_part.verdict(None)
                }
                // The part after one found out may be out too: it is looked for first.
                None => {
                    job.looks = 0;
                    if let What::Thread(parts) = &mut job.what {
                        parts.found += 1;
                    }
                    return Ok(Some(Step::to(Then::Look(Duration::ZERO))));
                }
            },
            seen => seen.verdict(failure.as_ref().map(|f| f.borrow())),
        };
        job.looking = looking;
        let step = self.looked(key, job, &seen, verdict)?;
        Ok(match step.then {
            Then::Send(wait) => signals::sleep(wait).then(|| Step::to(Then::Send(Duration::ZERO))),
            _ => Some(step),
        })
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
                self.book.part(key, n, (&part, url.as_deref()), false)?;
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
