//! Edits after publishing: a done key whose payload changed is sent to its copy in place, with
//! the discipline of a publish (a `pending op=update` line first; a lost answer confirmed by
//! reading the copy back). An update is never turned into a create: resending one is harmless,
//! a second copy is not.

use super::carry::Carry;
use super::report::{payload_mark, payload_mark_before_images};
use super::{Posts, TargetRun};
use crate::error::{Class, Error, Kind};
use crate::post::Post;
use crate::signals;
use crate::state::{Record, Status};
use crate::targets::{Lookup, Media, Outgoing};
use jiff::civil::Date;
use std::time::Instant;

impl TargetRun<'_> {
    /// Whether edits of this done key go to its copy: the target updates (or `on_edit` says
    /// so), the copy's id is known, and the first publish is within `edit_days`.
    pub(super) fn may_update(&self, record: &Record) -> bool {
        // Cheap checks first: a no-op run asks this of every done key.
        if !self.policy.on_edit.unwrap_or_else(|| self.target.updates()) {
            return false;
        }
        // The first publish is no later than the line's own time (`published` is carried from
        // the first done line; the line's time is its latest change), so a line older than the
        // window, by more than a day of zone offset, is out of it without scanning its fields.
        let at = record.at().get(..10).and_then(crate::clock::parse_key);
        if at.is_some_and(|at| {
            crate::clock::days_between(at, self.today) > self.policy.edit_days + 1
        }) || !record.to_line().contains(" id=") // a field is always ` name=`
            || record.get("id").is_none()
        {
            return false;
        }
        let published = record
            .get("published")
            .map_or_else(|| record.at().to_string(), |p| p.into_owned());
        published
            .parse::<jiff::Timestamp>()
            .map(|t| t.to_zoned_datetime(self.clock.tz().clone()).date())
            .is_ok_and(|d| crate::clock::days_between(d, self.today) <= self.policy.edit_days)
    }

    /// Whether this done key's copy can be updated at all (the target updates, its id is
    /// known), whatever the edit window: `retry --force` updates such a copy, never adds one.
    pub(super) fn can_update(&self, record: &Record) -> bool {
        self.policy.on_edit.unwrap_or_else(|| self.target.updates()) && record.get("id").is_some()
    }

    /// A done key within its edit window: send the edit if the payload changed. A line from
    /// before payloads were recorded gets the current payload, without sending anything.
    pub(super) fn check_edit(
        &mut self,
        key: Date,
        posts: &mut Posts,
        forced: bool,
    ) -> Result<(), Error> {
        let record = self.state.get(key).cloned().expect("a done key");
        let Ok(post) = posts.get(key).cloned() else {
            return self.unchanged(key);
        };
        let new = payload_mark(&post);
        match record.get("payload") {
            None if !forced => {
                if !self.plan.dry_run {
                    self.state.put(record.clone().with("payload", &new));
                }
                return self.unchanged(key);
            }
            Some(old) if *old == new && !forced => return self.unchanged(key),
            // Published by dayrun 0.3, which sent no images: not an edit by itself (README,
            // Upgrading); the images go with the next edit, or with `retry --force`.
            Some(old) if !forced && *old == payload_mark_before_images(&post) => {
                if !self.plan.dry_run {
                    self.state.put(record.clone().with("payload", &new));
                }
                return self.unchanged(key);
            }
            _ if record.get("edit_failed").as_deref() == Some(new.as_str()) && !forced => {
                return self.unchanged(key);
            }
            _ => {}
        }
        if self.plan.dry_run {
            let id = record.get("id").unwrap_or_default().into_owned();
            self.say(
                key,
                "update",
                &format!(
                    "(edited since it was published) id={id} {}",
                    super::describe(&post)
                ),
            );
            self.images_for(&post);
            self.say_images(&post, record.get("media").as_deref());
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let post = self.images_for(&post);
        let out = match self.target.prepare(&post) {
            Ok(out) => out,
            Err(err) => {
                let err = Error::failure(
                    Class::Rejected,
                    format!("the edit cannot be sent: {}", err.reason()),
                );
                self.state.set(record.clone().with("edit_failed", &new))?;
                self.report(key, &err, true);
                return Ok(());
            }
        };
        self.update(&post, &out, &record)
    }

    fn unchanged(&mut self, key: Date) -> Result<(), Error> {
        let why = match self.plan.retry {
            true => "done; `dayrun retry --force` sends it again, in place",
            false => "done",
        };
        self.count("done", key, "skip", why);
        Ok(())
    }

    /// Send the update, pending line first; a lost answer is read back, and the update resent
    /// (never a create) while the copy does not hold it yet.
    fn update(&mut self, post: &Post, out: &Outgoing, was: &Record) -> Result<(), Error> {
        let key = post.key;
        let id = was.get("id").unwrap_or_default().into_owned();
        let mut was = was.clone();
        let was = &mut was;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let pending = keep(was, Record::new(key, Status::Pending, self.clock.stamp()))
                .with("op", "update")
                .with("fp", &post.fingerprint);
            self.state.set(pending.clone())?;
            let started = Instant::now();
            // New images are uploaded first (each on the pending line), then the copy updated.
            let mut carry = Carry {
                media: was.get("media").map(|m| m.into_owned()),
                ..Carry::default()
            };
            let uploaded = self.upload(post, &mut carry, &pending, true);
            if let Some(media) = carry.media {
                *was = was.clone().with("media", media);
            }
            let result = uploaded.and_then(|media| {
                let out = Outgoing {
                    media,
                    ..out.clone()
                };
                self.target.update(&id, post, &out)
            });
            let err = match result {
                Ok(receipt) => return self.updated(post, was, receipt.url, started),
                Err(err) => err,
            };
            if err.class() != Some(Class::Unknown) || err.kind == Kind::Config {
                // Nothing changed on the target: the copy keeps its last version.
                self.state.set(was.clone().with(
                    "edit_failed",
                    match err.class() {
                        Some(Class::Rejected) => payload_mark(post),
                        _ => String::new(),
                    },
                ))?;
                self.trace(key, "update", "failed", &super::detail(&err));
                self.report(key, &err, true);
                return Ok(());
            }
            self.trace(key, "update", "unknown", &super::detail(&err));
            signals::sleep(self.policy.confirm_delay + self.settle());
            let out = Outgoing {
                media: Media::on_copy(was.get("media").as_deref()),
                ..out.clone()
            };
            match self.target.read_back(&id, &out) {
                Ok(Lookup::Found(_)) => return self.updated(post, was, None, started),
                Ok(Lookup::Absent) if attempt <= self.policy.retries => continue,
                Ok(Lookup::Absent) => {
                    return self.not_updated(key, "the copy does not hold the edit yet");
                }
                Ok(Lookup::CannotTell(why)) => return self.not_updated(key, &why),
                Err(err) => return self.not_updated(key, &err.reason()),
            }
        }
    }

    /// A `pending op=update` from an earlier run: read the copy back; resend the update if it
    /// does not hold it (the latest version of the post, which is what the copy should show).
    pub(super) fn finish_update(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let was = self.state.get(key).cloned().expect("a pending update");
        let Ok(post) = posts.get(key).cloned() else {
            return self.not_updated(key, "the post cannot be read to compare");
        };
        let post = self.images_for(&post);
        let out = match self.target.prepare(&post) {
            Ok(out) => Outgoing {
                media: Media::on_copy(was.get("media").as_deref()),
                ..out
            },
            Err(err) => return self.not_updated(key, &err.reason()),
        };
        if self.plan.dry_run {
            self.say(
                key,
                "update",
                "(an interrupted update: would read the copy back, and send it again if needed)",
            );
            return Ok(());
        }
        let id = was.get("id").unwrap_or_default().into_owned();
        match self.target.read_back(&id, &out) {
            Ok(Lookup::Found(_)) => self.updated(&post, &was, None, Instant::now()),
            Ok(Lookup::Absent) => self.update(&post, &out, &was),
            Ok(Lookup::CannotTell(why)) => self.not_updated(key, &why),
            Err(err) => self.not_updated(key, &err.reason()),
        }
    }

    fn updated(
        &mut self,
        post: &Post,
        was: &Record,
        url: Option<String>,
        started: Instant,
    ) -> Result<(), Error> {
        let count = was
            .get("updated")
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
            + 1;
        let mut record = keep(was, Record::new(post.key, Status::Done, self.clock.stamp()))
            .with("fp", &post.fingerprint)
            .with("payload", payload_mark(post))
            .with("updated", count.to_string());
        if let Some(url) = url {
            record = record.with("url", self.target.redact(&url));
        }
        let media = self.unattached(post.key, post, was.get("media").as_deref());
        record = record.without("media").with("media", media);
        self.state.set(record)?;
        let id = was.get("id").unwrap_or_default().into_owned();
        let detail = format!(
            "id={id} duration_ms={} {:?}",
            started.elapsed().as_millis(),
            post.title
        );
        self.trace(post.key, "update", "done", &detail);
        self.count("updated", post.key, "updated", &detail);
        Ok(())
    }

    /// The copy may or may not hold the edit: the pending line stays, and the next run reads
    /// the copy back again (an update is resent, never turned into a create).
    fn not_updated(&mut self, key: Date, why: &str) -> Result<(), Error> {
        let text = format!(
            "the edit's outcome is unknown ({why}); the next run reads the copy back and sends it again if needed"
        );
        self.trace(key, "update", "not-yet", &text);
        self.count("unconfirmed", key, "unconfirmed", &text);
        self.outcome.retry_later = true;
        Ok(())
    }
}

/// The fields of a published line that an update keeps: the copy's id and url, and when it was
/// first published (the edit window counts from then).
fn keep(was: &Record, mut record: Record) -> Record {
    for field in [
        "id",
        "url",
        "published",
        "updated",
        "payload",
        "generation",
        "rkey",
        "media",
    ] {
        if let Some(value) = was.get(field) {
            record = record.with(field, value.into_owned());
        }
    }
    record
}
