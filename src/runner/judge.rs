//! A key's lookups, judged by its life: each look the loop makes (`Then::Look`; a look with
//! this pass's lookup, the key's line and what the pass knows of other lines: `look::Looker`)
//! is handed to `life::next`, which says whether to look again; each answer is traced.

use super::TargetRun;
use super::carry::{Job, What};
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Event, KeyLine, Looking, Step, Then};
use crate::look::{Looked, Looker, Seen};

impl TargetRun<'_> {
    /// This pass's lookups of `key` (`look::Looker`).
    fn looker(&mut self, key: Key) -> Looker<'_> {
        Looker {
            key,
            find: match self.book.rules.can_find {
                true => self.target.as_find(),
                false => None,
            },
            target: &self.cfg.name,
            state: self.book.state,
            catalog: self.run.catalog,
            known: &mut self.book.known,
            polls: self.cfg.policy.confirm_polls,
            delay: self.cfg.policy.confirm_delay,
            immediate: self.here.immediate,
            clock: self.run.clock,
        }
    }

    /// Look for `key` as `look` says (`Looker`); a server that cannot be reached is not
    /// looked at again for the other keys (`stop_for`).
    pub(super) fn see(&mut self, key: Key, look: impl FnOnce(&mut Looker) -> Looked) -> Seen {
        let looked = look(&mut self.looker(key));
        if let Some(err) = &looked.unreachable {
            self.stop_for(key, err);
        }
        looked.seen
    }

    /// Look for the key's copy (`Then::Look`) as the job says (`Job::looking`; `Looker::post`),
    /// and hand the answer to its life: a look again waits no more first. A copy found is
    /// judged with what its done line keeps.
    pub(super) fn look(&mut self, key: Key, job: &mut Job) -> Result<Option<Step>, Error> {
        let first = job.looking == Looking::Dedup;
        let kept = (self.here.keeps_payload && !first)
            .then(|| self.book.kept_payload(key))
            .flatten();
        let line = self.book.line(key);
        let keeps = match (&job.post, &line) {
            (Some(post), line) => self.book.keeps(post, line.as_ref()),
            (None, line) => line.as_ref().map(life::Keeps::of_line).unwrap_or_default(),
        };
        let place = line.as_ref().map_or(key, KeyLine::place_key);
        let seen = self.see(key, |l| l.post(&job.out, kept.as_ref(), job.looking));
        let failure = seen.failure(|err| self.book.failed(err, None));
        let found;
        let verdict = match &seen {
            Seen::Found(receipts) => {
                found = life::Keeps {
                    copy: self.copy_of(place, &receipts[0].id),
                    ..keeps
                };
                life::Verdict::Found(found.landed(receipts, life::How::Confirmed, first))
            }
            seen => seen.verdict(failure.as_ref().map(|f| f.borrow())),
        };
        let step = self.looked(key, job, &seen, verdict)?;
        self.voice.looked(key, &seen, &step, first);
        if let (true, Then::Send(_), Some(note)) = (first, &step.then, &step.say) {
            self.voice.say(key, "note", note);
        }
        Ok(Some(step))
    }

    /// What one look `seen` (a failed one counted) is to the key's life (`verdict`), handed to
    /// it; a lookup refused stops the target for the run. A look again waits no more first.
    pub(super) fn looked(
        &mut self,
        key: Key,
        job: &mut Job,
        seen: &Seen,
        verdict: life::Verdict,
    ) -> Result<Step, Error> {
        if matches!(seen, Seen::Transient(_)) {
            job.looks += 1;
        }
        let step = self.book.apply(
            key,
            &Event::Looked {
                verdict,
                first: job.looking == Looking::Dedup,
                looks: job.looks,
                sends: job.sends,
                sendable: !matches!(job.what, What::Look),
            },
        )?;
        if let Seen::Refused(err) = seen {
            self.stop_for(key, err);
        }
        if let Looking::Confirm { wait_first, .. } = &mut job.looking {
            *wait_first = false;
        }
        Ok(step)
    }

    /// Which copy a found `id` at `key`'s place is, when the platform named it
    /// (`Names::copy_of`).
    pub(super) fn copy_of(&self, key: Key, id: &str) -> Option<(u32, life::Native)> {
        self.target.as_names().and_then(|n| n.copy_of(key, id))
    }
}
