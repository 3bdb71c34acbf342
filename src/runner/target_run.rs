//! One target's pass over the keys: which keys it looks at, what it decides for each, and
//! the summary it prints.

use super::{Decision, Posts, TargetRun};
use crate::content::Catalog;
use crate::error::{Class, Error};
use crate::state::Status;
use jiff::civil::Date;
use std::collections::BTreeSet;

impl TargetRun<'_> {
    /// The keys this target looks at: every post, and every key whose state is not done.
    pub(super) fn keys(&mut self, catalog: &Catalog) -> BTreeSet<Date> {
        let mut keys: BTreeSet<Date> = catalog.files.keys().copied().collect();
        keys.extend(
            self.state
                .records()
                .filter(|r| r.status != Status::Done)
                .map(|r| r.key),
        );
        if !self.plan.keys.is_empty() {
            // A named key with neither file nor record was refused before the run (`known`).
            keys.retain(|k| self.plan.keys.contains(k));
        }
        keys
    }

    pub(super) fn step(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let decision = self.decide(key, posts);
        match decision {
            Decision::SkipDone if self.plan.retry => self.count(
                "done",
                key,
                "skip",
                "done; `dayrun retry --force` publishes it again",
            ),
            Decision::SkipDone => self.count("done", key, "skip", "done"),
            Decision::Scheduled => self.count("scheduled", key, "scheduled", "not due yet"),
            Decision::Stale => {
                self.stale.push(key);
                self.count("stale", key, "stale", "");
            }
            Decision::Waiting(why) => {
                self.count("waiting", key, "waiting", &why);
                if self.in_window(key) {
                    self.outcome.needs_human = true;
                }
            }
            Decision::Publish(why) => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, why)?;
                self.progress.advance();
            }
            Decision::Confirm => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, "pending from an earlier run")?;
                self.progress.advance();
            }
        }
        Ok(())
    }

    /// The stale note and the per-target summary line.
    pub(super) fn finish(&mut self) {
        if let (Some(first), Some(last)) = (self.stale.first(), self.stale.last())
            && !self.plan.dry_run
        {
            println!(
                "{} {}: {} stale key(s) skipped, {first}..{last}: older than {} days and never published; `dayrun run --backfill` publishes them, `dayrun adopt` records them as done",
                self.today,
                self.cfg.name,
                self.stale.len(),
                self.catchup_days
            );
        }
        if !self.plan.dry_run {
            let parts: Vec<String> = self.tally.iter().map(|(k, n)| format!("{n} {k}")).collect();
            println!(
                "{}: {}",
                self.cfg.name,
                if parts.is_empty() {
                    "nothing to do".into()
                } else {
                    parts.join(", ")
                }
            );
        }
    }

    /// After an auth failure or a long rate limit nothing more goes to this target in this run.
    pub(super) fn skip_if_stopped(&mut self, key: Date) -> bool {
        let Some(why) = self.stopped.clone() else {
            return false;
        };
        self.count(
            "not attempted",
            key,
            "skip",
            &format!("target stopped for this run: {why}"),
        );
        true
    }

    pub(super) fn in_window(&self, key: Date) -> bool {
        self.plan.keys.contains(&key) || !self.is_stale(key)
    }

    pub(super) fn is_stale(&self, key: Date) -> bool {
        crate::clock::days_between(key, self.today) > self.catchup_days
    }

    pub(super) fn decide(&self, key: Date, posts: &mut Posts) -> Decision {
        let record = self.state.get(key);
        let Some(record) = record else {
            if key > self.today {
                return Decision::Scheduled;
            }
            let named = self.plan.keys.contains(&key);
            if self.is_stale(key) && !self.plan.backfill && !named {
                return Decision::Stale;
            }
            return Decision::Publish("due");
        };
        match record.status {
            Status::Done if self.plan.force => Decision::Publish("forced"),
            Status::Done => Decision::SkipDone,
            Status::Pending => Decision::Confirm,
            Status::Failed => {
                let class = record.class().unwrap_or(Class::Unknown);
                let reason = record.get("reason").unwrap_or("no reason recorded".into());
                let looked_absent = record.get("lookup").as_deref() == Some("absent");
                match class {
                    Class::RetrySafe => Decision::Publish("retry-safe failure earlier"),
                    Class::Local => Decision::Publish("re-read after a content error"),
                    Class::Unknown if looked_absent => {
                        Decision::Publish("the last lookup found it absent")
                    }
                    _ if self.plan.retry && self.plan.absent => Decision::Publish("retry --absent"),
                    _ if self.plan.retry => Decision::Publish("retry asked"),
                    Class::Unknown => Decision::Waiting(format!(
                        "outcome unknown ({reason}); {}",
                        self.advice(key)
                    )),
                    Class::Rejected | Class::Auth => {
                        let changed = posts
                            .get(key)
                            .map(|p| Some(p.fingerprint.as_str()) != record.get("fp").as_deref())
                            .unwrap_or(false);
                        let renewed = class == Class::Auth
                            && self.target.credential().as_deref() != record.get("cred").as_deref();
                        if changed {
                            Decision::Publish("content changed since it failed")
                        } else if renewed {
                            Decision::Publish("credential changed since it failed")
                        } else {
                            Decision::Waiting(format!(
                                "failed ({class}: {reason}); fix and save the post, or `dayrun retry {key}`"
                            ))
                        }
                    }
                }
            }
        }
    }
}
