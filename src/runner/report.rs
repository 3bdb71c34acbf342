//! Recording and telling: the state transition, the trace line, the printed line and the
//! exit-code outcome of each action.

use super::{TargetRun, detail};
use crate::clock::stamp;
use crate::error::{Class, Error};
use crate::post::Post;
use crate::state::{Record, Status};
use crate::targets::Receipt;
use jiff::civil::Date;
use std::time::Instant;

impl TargetRun<'_> {
    pub(super) fn done(
        &mut self,
        post: &Post,
        receipt: Receipt,
        action: &'static str,
        started: Instant,
    ) -> Result<(), Error> {
        let mut record = Record::new(post.key, Status::Done, self.clock.stamp())
            .with("id", &receipt.id)
            .with("fp", &post.fingerprint);
        if let Some(url) = &receipt.url {
            record = record.with("url", url);
        }
        if action == "dedup" {
            record = record.with("dedup", "1");
        }
        self.state.set(record)?;
        let mut detail = format!(
            "id={} duration_ms={}",
            receipt.id,
            started.elapsed().as_millis()
        );
        if let Some(note) = &receipt.note {
            detail.push_str(&format!(" note={note:?}"));
        }
        let word = match action {
            "publish" => "published",
            "confirm" => "confirmed",
            _ => "already there",
        };
        self.trace(post.key, action, "done", &detail);
        self.count(word, post.key, word, &format!("{detail} {:?}", post.title));
        Ok(())
    }

    pub(super) fn fail(&mut self, post: &Post, err: Error) -> Result<(), Error> {
        let class = err.class().unwrap_or(Class::Unknown);
        let mut record = Record::new(post.key, Status::Failed, self.clock.stamp())
            .with("class", class.as_str())
            .with("reason", err.reason())
            .with("fp", &post.fingerprint);
        if class == Class::Auth
            && let Some(cred) = self.target.credential()
        {
            record = record.with("cred", cred);
        }
        self.state.set(record)?;
        self.trace(post.key, "publish", "failed", &detail(&err));
        self.report(post.key, &err, true);
        Ok(())
    }

    /// A post that cannot be read or derived: recorded once, reported every run until fixed.
    pub(super) fn local_error(&mut self, key: Date, err: Error) -> Result<(), Error> {
        let same = self.state.get(key).is_some_and(|r| {
            r.status == Status::Failed && r.get("reason").as_deref() == Some(err.reason().as_str())
        });
        if !same && !self.plan.dry_run {
            let record = Record::new(key, Status::Failed, self.clock.stamp())
                .with("class", Class::Local.as_str())
                .with("reason", err.reason());
            self.state.set(record)?;
            self.trace(key, "read", "failed", &detail(&err));
        }
        self.report(key, &err, !same);
        Ok(())
    }

    /// Print a failure and fold it into the exit code. A failure seen before (`fresh` false)
    /// still needs a human while its key is within the catch-up window, as a waiting key does.
    pub(super) fn report(&mut self, key: Date, err: &Error, fresh: bool) {
        let class = err.class().unwrap_or(Class::Unknown);
        match class {
            Class::Auth => {
                self.outcome.auth = true;
                self.stopped = Some(format!("credentials rejected: {}", err.message));
            }
            Class::RetrySafe => self.outcome.retry_later = true,
            _ => {
                if fresh || self.in_window(key) {
                    self.outcome.needs_human = true;
                }
            }
        }
        *self.tally.entry("failed").or_default() += 1;
        self.progress.err(&format!(
            "dayrun: {key} {}: failed ({class}): {err}",
            self.cfg.name
        ));
    }

    pub(super) fn count(&mut self, tally: &'static str, key: Date, word: &str, detail: &str) {
        *self.tally.entry(tally).or_default() += 1;
        let quiet = matches!(tally, "done" | "stale" | "scheduled")
            && !self.plan.dry_run
            && !self.plan.retry;
        if !quiet {
            self.say(key, word, detail);
        }
    }

    pub(super) fn say(&self, key: Date, word: &str, detail: &str) {
        if detail.is_empty() {
            self.progress
                .out(&format!("{key} {} {word}", self.cfg.name));
        } else {
            self.progress
                .out(&format!("{key} {} {word} {detail}", self.cfg.name));
        }
    }

    pub(super) fn trace(&mut self, key: Date, action: &str, result: &str, detail: &str) {
        if !self.plan.dry_run {
            self.trace.line(
                &stamp(&self.clock.now()),
                &key.to_string(),
                action,
                result,
                detail,
            );
        }
    }
}
