//! Sending a post: pacing, in-run retries of retry-safe failures, and confirmation on the
//! target whenever the outcome is unknown (never a blind resend).

use super::{Confirmation, Posts, TargetRun, describe, detail};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::state::{Record, Status};
use jiff::civil::Date;
use std::time::{Duration, Instant};

impl TargetRun<'_> {
    /// Publish one key, with in-run retries for retry-safe failures and confirmation for
    /// unknown outcomes. `Err` only when state cannot be recorded: the run must stop.
    pub(super) fn attempt(
        &mut self,
        key: Date,
        posts: &mut Posts,
        why: &'static str,
    ) -> Result<(), Error> {
        let post = match posts.get(key) {
            Ok(post) => post.clone(),
            Err(err) => return self.local_error(key, err.clone()),
        };
        if post.draft {
            self.count("draft", key, "draft", "draft: true; not published");
            return Ok(());
        }
        if self.plan.dry_run {
            self.say(key, "publish", &format!("({why}) {}", describe(&post)));
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        if why != "due" {
            self.say(key, "retry", &format!("({why})"));
        }
        let first = self.state.get(key).is_none();
        if first && self.policy.dedup && self.target.can_find() {
            match self.target.find(&post) {
                Ok(Some(receipt)) => {
                    self.progress.err(&format!(
                        "dayrun: warning: {key} is already on {} (id={}); recorded as done, not sent again",
                        self.cfg.name, receipt.id
                    ));
                    return self.done(&post, receipt, "dedup", Instant::now());
                }
                Ok(None) => {}
                Err(err) if err.class() == Some(Class::Auth) => return self.fail(&post, err),
                Err(err) => self.progress.err(&format!(
                    "dayrun: warning: {key}: could not look for an existing copy on {}: {}; sending",
                    self.cfg.name,
                    err.reason()
                )),
            }
        }
        self.send(&post)
    }

    pub(super) fn send(&mut self, post: &Post) -> Result<(), Error> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.pace();
            let pending = Record::new(post.key, Status::Pending, self.clock.stamp())
                .with("fp", &post.fingerprint)
                .with("attempt", attempt.to_string());
            self.state.set(pending)?;
            let started = Instant::now();
            let result = self.target.publish(post);
            self.last_write = Some(Instant::now());
            let err = match result {
                Ok(receipt) => return self.done(post, receipt, "publish", started),
                Err(err) => err,
            };
            let class = err.class().unwrap_or(Class::Unknown);
            let retries_left = attempt <= self.policy.retries;
            match class {
                Class::RetrySafe => {
                    let wait = match err.retry_after {
                        Some(wait) if wait > self.policy.retry_after_cap => {
                            self.stopped = Some(format!("rate limited for {} s", wait.as_secs()));
                            return self.fail(post, err);
                        }
                        Some(wait) => wait,
                        None => self.backoff(attempt),
                    };
                    if !retries_left {
                        return self.fail(post, err);
                    }
                    self.trace(
                        post.key,
                        "publish",
                        "retry-safe",
                        &format!("{} next_in_ms={}", detail(&err), wait.as_millis()),
                    );
                    std::thread::sleep(wait);
                }
                Class::Unknown => {
                    self.trace(post.key, "publish", "unknown", &detail(&err));
                    let confirmation = self.confirm(post, self.policy.confirm_polls, true);
                    if let Some(receipt) = confirmation.found {
                        return self.done(post, receipt, "confirm", started);
                    }
                    if let Some(unsure) = confirmation.unsure {
                        return self.fail(post, self.unknown(post.key, &err.reason(), &unsure));
                    }
                    if !retries_left {
                        let err = Error::failure(
                            Class::RetrySafe,
                            format!(
                                "{}; confirmed absent after {attempt} attempt(s)",
                                err.reason()
                            ),
                        );
                        return self.fail(post, err);
                    }
                    self.trace(
                        post.key,
                        "confirm",
                        "absent",
                        "confirmed absent; sending again",
                    );
                    std::thread::sleep(self.backoff(attempt));
                }
                Class::Rejected | Class::Local | Class::Auth => return self.fail(post, err),
            }
        }
    }

    /// A key found pending at start: the earlier attempt's outcome is unknown. Look first.
    pub(super) fn confirm_pending(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let post = match posts.get(key) {
            Ok(post) => post.clone(),
            Err(err) => {
                let why = format!(
                    "its outcome is unknown and the post cannot be read to confirm it: {}",
                    err
                );
                self.count("waiting", key, "waiting", &why);
                self.outcome.needs_human = true;
                return Ok(());
            }
        };
        if self.plan.dry_run {
            self.say(
                key,
                "confirm",
                &format!(
                    "pending from an earlier run: would look on the target first; {}",
                    describe(&post)
                ),
            );
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        // A record older than the confirmation window needs one look; a fresh one the full wait.
        let record = self.state.get(key).expect("pending key has a record");
        let window = self.policy.confirm_delay * self.policy.confirm_polls;
        let age = record
            .at()
            .parse::<jiff::Timestamp>()
            .ok()
            .and_then(|at| jiff::Timestamp::now().duration_since(at).try_into().ok())
            .unwrap_or(Duration::MAX);
        let (polls, wait_first) = if age > window {
            (1, false)
        } else {
            (self.policy.confirm_polls, true)
        };
        let was = record
            .get("reason")
            .unwrap_or("earlier attempt interrupted".into())
            .to_string();
        let confirmation = self.confirm(&post, polls, wait_first);
        if let Some(receipt) = confirmation.found {
            return self.done(&post, receipt, "confirm", Instant::now());
        }
        if let Some(unsure) = confirmation.unsure {
            return self.fail(&post, self.unknown(key, &was, &unsure));
        }
        self.trace(
            key,
            "confirm",
            "absent",
            "pending from an earlier run; confirmed absent; sending",
        );
        self.send(&post)
    }

    pub(super) fn confirm(&mut self, post: &Post, polls: u32, wait_first: bool) -> Confirmation {
        if !self.target.can_find() {
            return Confirmation {
                found: None,
                unsure: Some(format!("{} cannot look posts up", self.cfg.name)),
            };
        }
        let polls = if self.target.immediate() { 1 } else { polls };
        let wait_first = wait_first && !self.target.immediate();
        for poll in 0..polls {
            if wait_first || poll > 0 {
                std::thread::sleep(self.policy.confirm_delay);
            }
            match self.target.find(post) {
                Ok(Some(receipt)) => {
                    return Confirmation {
                        found: Some(receipt),
                        unsure: None,
                    };
                }
                Ok(None) => {}
                Err(err) => {
                    return Confirmation {
                        found: None,
                        unsure: Some(err.reason()),
                    };
                }
            }
        }
        Confirmation {
            found: None,
            unsure: None,
        }
    }

    pub(super) fn unknown(&self, key: Date, what: &str, unsure: &str) -> Error {
        Error::failure(
            Class::Unknown,
            format!("outcome unknown ({what}) and could not confirm ({unsure}); not sent again"),
        )
        .hint(format!(
            "check {}, then `dayrun mark {key} done --id …` or `dayrun retry {key}`",
            self.cfg.name
        ))
    }

    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        self.policy
            .backoff
            .saturating_mul(1 << (attempt - 1).min(10))
    }

    /// Keep `min_interval` between writes to this target.
    pub(super) fn pace(&self) {
        if let Some(last) = self.last_write {
            let since = last.elapsed();
            if since < self.policy.min_interval {
                std::thread::sleep(self.policy.min_interval - since);
            }
        }
    }
}
