//! Telling, the runner's side: each step of a key's life handed to the pass's voice with
//! where its copies are; what an attempt sent, kept for its lookup.

use super::TargetRun;
use crate::error::{Class, Error};
use crate::failed::Failed;
use crate::life::Key;
use crate::life::{self, Exit, Phase, Step};
use crate::tell;
use crate::voice::Told;
use std::time::Duration;
use store::sent::{Kept, Sent};

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

    /// What this target's keys keep beside their state (`state/<target>.sent/`).
    pub(super) fn sent(&self) -> Sent {
        Sent::of(self.run.state_dir, &self.cfg.name)
    }

    /// The exact document of the key's latest attempt, for a target whose lookup is handed
    /// what was sent (`Find::keeps_payload`; kept durably before the attempt).
    pub(super) fn kept_payload(&self, key: Key) -> Option<serde_json::Value> {
        if !self.here.keeps_payload {
            return None;
        }
        let bytes = self.sent().kept(key, Kept::Payload)?;
        serde_json::from_slice(&bytes).ok()
    }

    /// A post that cannot be read or derived: recorded once (an attempt that may have landed
    /// before the file broke stays on the line), reported every run until fixed.
    pub(super) fn local_error(&mut self, key: Key, err: Error) -> Result<(), Error> {
        let reason = self.voice.redact(&err.reason());
        let line = self.book.line(key);
        let same = line.as_ref().is_some_and(|l| {
            matches!(l.phase, Phase::Failed(Class::Local, _))
                && l.reason.as_deref() == Some(life::reason(&reason).as_str())
        });
        // The post's error, not the target's: told in full once a run, then "as above".
        let first = self.run.told.borrow_mut().insert(err.located());
        if same || self.run.plan.dry_run {
            self.voice.local(key, &err, first);
            return Ok(());
        }
        let failed = Failed::of(&err, reason, None, None, Duration::ZERO);
        self.book
            .answered_failed(key, &failed, line.as_ref(), u32::MAX)?;
        (self.voice).trace(key, "read", "failed", &tell::failure::detail(&err));
        self.voice.outcome.exit.merge(Exit::NeedsHuman);
        self.voice.local(key, &err, first);
        Ok(())
    }
}
