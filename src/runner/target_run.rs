//! One target's pass over the keys: which keys it looks at, what it decides for each, and
//! the summary it prints.

use super::{Decision, Posts, TargetRun};
use crate::content::Catalog;
use crate::error::{Class, Error};
use crate::state::Status;
use jiff::civil::Date;

impl TargetRun<'_> {
    /// The keys this target looks at besides the posts (every run looks at every post): keys
    /// whose line is not done and that have no post. Notes done keys whose post is gone.
    pub(super) fn keys_without_post(&mut self, catalog: &Catalog) -> Vec<Date> {
        // Both are in key order: one walk side by side, no lookup per key.
        let mut posts = catalog.files.keys().peekable();
        let (mut deleted, mut other) = (Vec::new(), Vec::new());
        for record in self.state.records() {
            while posts.next_if(|k| **k < record.key).is_some() {}
            if posts.peek() == Some(&&record.key) {
                continue;
            }
            // Published posts whose file is gone: never retracted by themselves, but said.
            match record.status {
                Status::Done => deleted.push(record.key),
                _ => other.push(record.key),
            }
        }
        self.deleted = deleted;
        other
    }

    /// Whether this target looks at `key`: a post, or a key whose line is not done.
    pub(super) fn looks_at(&self, key: Date, has_post: bool) -> bool {
        has_post
            || self
                .state
                .get(key)
                .is_some_and(|r| r.status != Status::Done)
    }

    pub(super) fn step(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        if self.plan.retract {
            return self.retract(key, posts);
        }
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
                self.count(
                    "stale",
                    key,
                    "stale",
                    "never published; `--backfill` would publish it",
                );
            }
            Decision::Draft => {
                self.drafts.push(key);
                self.count("draft", key, "draft", "`draft: true`: not published");
            }
            // Put aside by a human (`mark KEY failed`): quiet, no alert.
            Decision::Waiting(why)
                if self
                    .state
                    .get(key)
                    .is_some_and(|r| r.get("by").as_deref() == Some("hand")) =>
            {
                self.count("failed", key, "waiting", &why);
            }
            Decision::Waiting(why) => {
                // An old failure outside the window needs no daily line: it is in the summary.
                match self.in_window(key) {
                    true => {
                        *self.tally.entry("failed").or_default() += 1;
                        self.say(key, "waiting", &why);
                        self.outcome.needs_human = true;
                    }
                    false => self.count("failed", key, "waiting", &why),
                }
            }
            Decision::Publish(why) => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, why)?;
                self.progress.advance();
            }
            Decision::Confirm
                if self.state.get(key).and_then(|r| r.get("op")).as_deref() == Some("retract") =>
            {
                self.retract(key, posts)?;
            }
            Decision::Confirm
                if self.state.get(key).and_then(|r| r.get("op")).as_deref() == Some("update") =>
            {
                self.finish_update(key, posts)?;
            }
            Decision::CheckEdit(forced) => self.check_edit(key, posts, forced)?,
            Decision::Confirm => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, "pending from an earlier run")?;
                self.progress.advance();
            }
            Decision::Retracted => self.count("retracted", key, "skip", "retracted"),
        }
        Ok(())
    }

    /// The target's one summary line: what happened today and where the keys stand, in the
    /// words `status` uses; keys that need nothing (drafts, stale) as a count and a range.
    pub(super) fn finish(&mut self) {
        if self.plan.dry_run {
            return;
        }
        let range = |keys: &[Date]| match (keys.first(), keys.last()) {
            (Some(first), Some(last)) if first != last => format!(" {first}..{last}"),
            (Some(first), _) => format!(" {first}"),
            _ => String::new(),
        };
        let mut parts: Vec<String> = self
            .tally
            .iter()
            .map(|(word, n)| match *word {
                "stale" => format!(
                    "{n} stale{} (`run --backfill` publishes them)",
                    range(&self.stale)
                ),
                "draft" => format!("{n} draft{}", range(&self.drafts)),
                word => format!("{n} {word}"),
            })
            .collect();
        if !self.deleted.is_empty() {
            parts.push(format!(
                "{} published with the file gone{} (`dayrun retract` removes the copies)",
                self.deleted.len(),
                range(&self.deleted)
            ));
        }
        if parts.is_empty() {
            parts.push("nothing to do".into());
        }
        println!("{}: {}", self.cfg.name, parts.join(", "));
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
            // A draft is a draft, and a broken post an error, whatever its age.
            match posts.get(key) {
                Ok(post) if post.draft => return Decision::Draft,
                Err(_) => return Decision::Publish("due"),
                Ok(_) => {}
            }
            let named = self.plan.keys.contains(&key);
            if self.is_stale(key) && !self.plan.backfill && !named {
                return Decision::Stale;
            }
            return Decision::Publish("due");
        };
        match record.status {
            Status::Done if self.plan.force && !self.plan.new && self.can_update(record) => {
                Decision::CheckEdit(true)
            }
            Status::Done if self.plan.force => Decision::Publish("forced: a second copy"),
            Status::Done if self.may_update(record) => Decision::CheckEdit(false),
            Status::Done => Decision::SkipDone,
            Status::Retracted if self.plan.force => {
                Decision::Publish("the retracted copy is gone; publishing a new one")
            }
            Status::Retracted => Decision::Retracted,
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
                        let renew = match self.target.credential_file() {
                            Some(file) => format!("renew the credential in {}", file.display()),
                            None => "renew the credential where the script reads it".into(),
                        };
                        if changed {
                            Decision::Publish("content changed since it failed")
                        } else if renewed {
                            Decision::Publish("credential changed since it failed")
                        } else if class == Class::Auth {
                            Decision::Waiting(format!(
                                "failed ({class}: {reason}); {renew}, then `dayrun retry {key}`"
                            ))
                        } else if record.get("by").as_deref() == Some("hand") {
                            Decision::Waiting(format!(
                                "put aside by hand; `dayrun retry {key}` publishes it"
                            ))
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
