//! A part that may be out (a lost answer, a kill, a resumed run), looked for before it is
//! sent: by its own mark, through the key's lookups (`judge::looked`); a post found is the
//! part when the thread says so (`Thread::own_part`), and then on the line, not sent again.

use crate::error::Error;
use crate::life::{self, Key, Step, Then};
use crate::look::{PartLooker, PartSeen};
use crate::runner::TargetRun;
use crate::runner::carry::Job;
use crate::targets::Attempts;
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
        let piece = &job.parts().prepared.pieces[n];
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
        let seen = self.see(key, |l| l.see(&attempts, looking));
        let landed = &line.copies.current.parts;
        let seen = self.part_looker(key).seen(n, seen, landed);
        let seen = match seen {
            // The part after one found out may be out too: it is looked for first.
            PartSeen::Part(part, url) => {
                self.book.part(key, n, (&part, url.as_deref()), false)?;
                job.looks = 0;
                job.parts_mut().found += 1;
                return Ok(Some(Step::to(Then::Look(Duration::ZERO))));
            }
            PartSeen::Seen(seen) => seen,
        };
        let failure = seen.failure(|err| self.book.failed(err, None));
        let verdict = seen.verdict(failure.as_ref().map(|f| f.borrow()));
        job.looking = looking;
        self.looked(key, job, &seen, verdict).map(Some)
    }

    /// This pass's lookups of `key`'s thread parts (`look::PartLooker`).
    pub(super) fn part_looker(&mut self, key: Key) -> PartLooker<'_> {
        let voice = &mut self.voice;
        PartLooker {
            thread: self.target.as_thread().expect("a thread target"),
            trace: Box::new(move |result, detail| voice.trace(key, "confirm", result, detail)),
        }
    }
}
