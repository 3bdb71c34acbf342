//! A target stopped for the rest of a run (`tell::Stop` says why): after a broken setup,
//! refused credentials, a long rate limit or a server that cannot be reached, nothing more goes
//! to it. Each key it would have tried says why; a key that nothing of reached is recorded as
//! not tried when the server cannot be reached, so it fails, escalates and is held back as a
//! tried key would.

use super::TargetRun;
use crate::error::Error;
use crate::life::Key;
use crate::life::KeyLine;
use crate::post::Post;
use crate::tally::Count;
use crate::tell::Stop;

impl TargetRun<'_> {
    /// After a broken setup, refused credentials, a long rate limit, or a failure of `key`
    /// that shows the server cannot be reached, nothing more goes to this target in this run.
    /// The first reason stands.
    pub(super) fn stop_for(&mut self, key: Key, err: &Error) {
        if self.pace.stopped.is_some() {
            return;
        }
        let cap = self.cfg.policy.retry_after_cap;
        let reason = self.voice.redact(&err.reason());
        self.pace.stopped = Stop::of(key, err, cap, reason);
    }

    /// Whether the target is stopped for this run; if so, the key is counted and told why,
    /// and its line stays as it is.
    pub(super) fn skip_if_stopped(&mut self, key: Key) -> bool {
        let Some(stop) = &self.pace.stopped else {
            return false;
        };
        let detail = stop.skipped();
        self.voice.count(Count::NotAttempted, key, "skip", &detail);
        true
    }

    /// `skip_if_stopped`, for a post about to be sent (`line`: its line before; `unsent`:
    /// nothing of it may be out): recorded as not tried when the stop says so (`Stop::unsent`).
    pub(super) fn skip_send_if_stopped(
        &mut self,
        post: &Post,
        line: Option<&KeyLine>,
        unsent: bool,
    ) -> Result<bool, Error> {
        let Some(err) = (self.pace.stopped.as_ref()).and_then(|s| s.unsent(line, unsent)) else {
            return Ok(self.skip_if_stopped(post.key));
        };
        self.unsent(post, &err, line, "not-tried")?;
        Ok(true)
    }
}
