//! Sending a post: pre-submit dedup, a lookup before any send that could repeat an earlier one,
//! pacing, and in-run retries. Nothing is ever sent again blind.

use super::carry::Carry;
use super::confirm::Verdict;
use super::{Posts, TargetRun, describe, detail};
use crate::config::Dedup;
use crate::error::{Class, Error, Kind};
use crate::post::Post;
use crate::signals;
use crate::state::{Record, Status};
use crate::targets::{Attempts, Outgoing};
use jiff::Timestamp;
use jiff::civil::Date;
use std::time::{Duration, Instant};

impl TargetRun<'_> {
    /// Publish one key: look first when an earlier attempt may have landed (or, for a first
    /// attempt, when dedup is on), then send. `Err` only when state cannot be recorded.
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
            self.drafts.push(key);
            self.count("draft", key, "draft", "`draft: true`: not published");
            return Ok(());
        }
        let read = post;
        let post = self.images_for(&read);
        let record = self.state.get(key).cloned();
        let mut carry = Carry::of(record.as_ref());
        // A second copy of a published key (`retry --force --new`) is a new generation, with
        // its own idempotency and record key, and so is `retry --new` of a failed key that
        // nothing can have reached (a server that refused the record key). Any other attempt
        // keeps the copy its line names.
        let new_copy =
            |r: &Record| r.status == Status::Done || (r.status == Status::Failed && !carry.maybe);
        if self.plan.new && record.as_ref().is_some_and(new_copy) {
            carry = carry.next_copy();
        }
        if carry.rkey.is_none() {
            carry.rkey = self.target.record_key(key, carry.generation);
        }
        let look_first = carry.maybe && !self.plan.absent;
        if self.plan.dry_run {
            let look = match look_first {
                true => format!(
                    "an earlier attempt may have landed: would look on {} first, and send only if it is provably absent; ",
                    self.cfg.name
                ),
                false => String::new(),
            };
            self.say(
                key,
                "publish",
                &format!("({why}) {look}{}", describe(&post)),
            );
            self.say_images(&read, carry.media.as_deref());
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        if why != "due" {
            self.say(key, "retry", &format!("({why})"));
        }
        let mut out = match self.target.prepare(&post) {
            Ok(out) => out,
            Err(err) => return self.fail(&post, err, &carry, false),
        };
        out.generation = carry.generation;
        out.rkey = carry.rkey.clone();
        if carry.maybe && self.plan.absent {
            self.trace(
                key,
                "retry",
                "absent",
                "retry --absent: sending on the human's word that the post is not on the target",
            );
        } else if carry.maybe {
            let sent = self.kept_payload(key).unwrap_or_else(|| out.body.clone());
            let marks = carry.marks_and(&out.marks);
            let pending = record.as_ref().filter(|r| r.status == Status::Pending);
            let attempts = Attempts {
                key,
                marks: &marks,
                since: carry.since(),
                last: pending.and_then(|r| r.at().parse().ok()).or(carry.since()),
                sent: &sent,
                rkey: out.rkey.as_deref(),
            };
            let deadline = self.deadline(record.as_ref());
            let wait_first = Timestamp::now() < deadline;
            match self.confirm(&attempts, deadline, wait_first) {
                Verdict::Found(receipts) => return self.found(&post, receipts, "confirm"),
                Verdict::NotYet(until) => return self.not_yet(key, until),
                Verdict::CannotTell(err) => {
                    let was = record
                        .as_ref()
                        .and_then(|r| r.get("reason").map(|r| r.into_owned()))
                        .unwrap_or_else(|| "an earlier attempt was interrupted".into());
                    return self.cannot_tell(&post, err, &carry, &was);
                }
                Verdict::Absent => self.trace(
                    key,
                    "confirm",
                    "absent",
                    "the earlier attempt did not land; sending",
                ),
            }
        } else if record.is_none() && self.policy.dedup != Dedup::Off && self.target.can_find() {
            let attempts = Attempts {
                rkey: out.rkey.as_deref(),
                ..Attempts::none_yet(key, &out.marks, &out.body)
            };
            match self.look(&attempts) {
                Verdict::Found(receipts) => return self.found(&post, receipts, "dedup"),
                Verdict::Absent | Verdict::NotYet(_) => {}
                Verdict::CannotTell(err)
                    if err.class() == Some(Class::Auth) || err.kind == Kind::Config =>
                {
                    return self.fail(&post, err, &carry, false);
                }
                Verdict::CannotTell(err) if self.policy.dedup == Dedup::Strict => {
                    let err = Error::failure(
                        Class::Unknown,
                        format!(
                            "not sent: dedup = \"strict\" and {} cannot tell whether the post is already there ({})",
                            self.cfg.name,
                            err.reason()
                        ),
                    )
                    .hint(self.advice(key));
                    return self.fail(&post, err, &carry, false);
                }
                Verdict::CannotTell(err) => self.say(
                    key,
                    "note",
                    &format!(
                        "could not look for an existing copy ({}); sending",
                        err.reason()
                    ),
                ),
            }
        }
        self.send_or_queue(&post, &out, carry)
    }

    /// Send, with in-run retries: retry-safe failures after a backoff, an unknown outcome only
    /// after the lookup proves the attempt did not land.
    pub(super) fn send(
        &mut self,
        post: &Post,
        out: &Outgoing,
        mut carry: Carry,
    ) -> Result<(), Error> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.pace();
            let started = self.clock.stamp();
            let mut this = carry.with_attempt(&out.marks, &started);
            if self.target.keeps_payload() {
                self.keep_payload(post.key, &out.body)?;
            }
            let pending = Record::new(post.key, Status::Pending, started.clone())
                .with("fp", &post.fingerprint)
                .with("attempt", attempt.to_string());
            self.state.set(this.stamp(pending.clone()))?;
            let clock = Instant::now();
            // Images first, each answer on the pending line; then the post, which uses them.
            let uploaded = self.upload(post, &mut this, &pending, false);
            carry.media.clone_from(&this.media);
            let result = uploaded.and_then(|media| {
                let out = Outgoing {
                    media,
                    ..out.clone()
                };
                self.target.publish(post, &out)
            });
            self.last_write = Some(Instant::now());
            let err = match result {
                Ok(receipt) => return self.done(post, vec![receipt], "publish", clock),
                Err(err) => err,
            };
            let retries_left = attempt <= self.policy.retries;
            if err.kind == Kind::Config {
                // The target's setup refused the request before sending (a certificate).
                return self.fail(post, err, &carry, false);
            }
            match err.class().unwrap_or(Class::Unknown) {
                // Provably nothing was sent: the carry stays as it was before this attempt.
                Class::RetrySafe => {
                    let wait = match err.retry_after {
                        Some(wait) if wait > self.policy.retry_after_cap => {
                            self.stopped = Some(format!("rate limited for {} s", wait.as_secs()));
                            return self.fail(post, err, &carry, false);
                        }
                        Some(wait) => wait,
                        None => self.backoff(attempt),
                    };
                    if !retries_left {
                        return self.fail(post, err, &carry, false);
                    }
                    self.trace(
                        post.key,
                        "publish",
                        "retry-safe",
                        &format!("{} next_in_ms={}", detail(&err), wait.as_millis()),
                    );
                    if !signals::sleep(wait) {
                        return self.fail(post, err, &carry, false);
                    }
                }
                Class::Unknown => {
                    carry = this;
                    self.trace(post.key, "publish", "unknown", &detail(&err));
                    let marks = carry.marks.clone();
                    let attempts = Attempts {
                        key: post.key,
                        marks: &marks,
                        since: carry.since(),
                        last: started.parse().ok(),
                        sent: &out.body,
                        rkey: out.rkey.as_deref(),
                    };
                    let deadline = later(Timestamp::now(), self.settle());
                    match self.confirm(&attempts, deadline, true) {
                        Verdict::Found(receipts) => {
                            return self.found(post, receipts, "confirm");
                        }
                        Verdict::NotYet(until) => return self.not_yet(post.key, until),
                        Verdict::CannotTell(lookup) => {
                            return self.cannot_tell(post, lookup, &carry, &err.reason());
                        }
                        Verdict::Absent if retries_left && signals::received().is_none() => {
                            self.trace(
                                post.key,
                                "confirm",
                                "absent",
                                "the attempt did not land; sending again",
                            );
                            signals::sleep(self.backoff(attempt));
                        }
                        Verdict::Absent => {
                            let err = Error::failure(
                                Class::Unknown,
                                format!(
                                    "{}; looked up afterwards: not on the target ({attempt} attempt(s)); the next run looks again before sending",
                                    err.reason()
                                ),
                            );
                            return self.fail(post, err, &carry, true);
                        }
                    }
                }
                Class::Rejected | Class::Local | Class::Auth => {
                    return self.fail(post, err, &carry, false);
                }
            }
        }
    }

    /// When an attempt recorded on `record` can no longer land: a pending line's attempt may
    /// run for the target's timeout; any attempt may still show up for the settle time after.
    fn deadline(&self, record: Option<&Record>) -> Timestamp {
        let Some(record) = record else {
            return Timestamp::now();
        };
        let at = record.at().parse().unwrap_or_else(|_| Timestamp::now());
        let mut wait = self.settle() + Duration::from_secs(1); // stamps have whole seconds
        if record.status == Status::Pending {
            wait += self.target.timeout();
        }
        later(at, wait)
    }

    pub(super) fn settle(&self) -> Duration {
        self.policy.settle.unwrap_or_else(|| self.target.settle())
    }

    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        self.policy
            .backoff
            .saturating_mul(1 << (attempt - 1).min(10))
    }

    /// Keep `min_interval` between writes to this target.
    fn pace(&self) {
        if let Some(last) = self.last_write {
            let since = last.elapsed();
            if since < self.policy.min_interval {
                signals::sleep(self.policy.min_interval - since);
            }
        }
    }
}

fn later(at: Timestamp, wait: Duration) -> Timestamp {
    at.checked_add(wait).unwrap_or(Timestamp::MAX)
}
