//! Telling, the runner's side: each step of a key's life handed to the pass's voice with
//! where its copies are.

use super::TargetRun;
use crate::error::Error;
use crate::life::Key;
use crate::life::{Exit, Step};
use crate::voice::Told;

impl TargetRun<'_> {
    /// The dry run's words for `key` on this target (`crate::preview`).
    pub(super) fn preview(&mut self, key: Key) -> crate::preview::Preview<'_, '_> {
        let copies = self.book.copies(key);
        crate::preview::Preview {
            voice: &self.voice,
            target: &mut *self.target,
            cfg: self.cfg,
            copies,
        }
    }

    /// Tell what a step of a key's life did (`Voice::step`).
    pub(super) fn tell(&mut self, key: Key, step: &Step, told: Told) -> Result<(), Error> {
        let line = step.written().cloned().or_else(|| self.book.line(key));
        let target = &*self.target;
        (self.voice).step(key, step, line.as_ref(), told, &|k| target.where_to_look(k));
        Ok(())
    }

    /// Print a failure: its class and reason (with the file and line, for a post's error),
    /// and what to do.
    pub(super) fn report(
        &mut self,
        key: Key,
        step: &Step,
        err: Option<&Error>,
    ) -> Result<(), Error> {
        let line = step.written().cloned().or_else(|| self.book.line(key));
        let target = &*self.target;
        (self.voice).failed(key, step, line.as_ref(), err, &|k| target.where_to_look(k));
        Ok(())
    }

    /// A post that cannot be read or derived: recorded once (`Book::local`), reported every
    /// run until fixed. The post's error, not the target's: told in full once a run, then "as
    /// above".
    pub(super) fn local_error(&mut self, key: Key, err: Error) -> Result<(), Error> {
        let first = self.run.told.borrow_mut().insert(err.located());
        if self.book.local(key, &err)? {
            self.voice.trace_failure(key, "read", "failed", &err);
            self.voice.outcome.exit.merge(Exit::NeedsHuman);
        }
        self.voice.local(key, &err, first);
        Ok(())
    }
}
