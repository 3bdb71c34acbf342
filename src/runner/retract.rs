//! `dayrun retract`: take a published post back, with the same discipline as a publish: a
//! `pending op=retract` line first, then the removal, then a lookup that proves it gone before
//! the line says `retracted`.

use super::{Posts, TargetRun};
use crate::error::{Class, Error};
use crate::state::{Record, Status};
use crate::targets::Lookup;
use jiff::civil::Date;

impl TargetRun<'_> {
    /// Retract `key` from this target, when it is published there.
    pub(super) fn retract(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let Some(record) = self.state.get(key).cloned() else {
            self.count("skip", key, "skip", "not published (no record here)");
            return Ok(());
        };
        match record.status {
            Status::Done => {}
            Status::Pending if record.get("op").as_deref() == Some("retract") => {
                return self.finish_retract(key, posts);
            }
            other => {
                let why = format!("not published ({})", other.as_str());
                self.count("skip", key, "skip", &why);
                return Ok(());
            }
        }
        let Some(id) = record.get("id").map(|id| id.into_owned()) else {
            let err = Error::failure(
                Class::Rejected,
                "no id recorded for this post, so it cannot be found to remove",
            )
            .hint(format!(
                "remove it by hand, then `dayrun mark {key} done --id ID` records the id for next time"
            ));
            self.report(key, &err, true);
            return Ok(());
        };
        if self.plan.dry_run {
            self.say(
                key,
                "retract",
                &format!("id={id} (would remove it from {})", self.cfg.name),
            );
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        self.remove(key, &id, &record, posts)
    }

    /// Write the pending line, ask the target to remove the post, and prove it gone.
    fn remove(
        &mut self,
        key: Date,
        id: &str,
        was: &Record,
        posts: &mut Posts,
    ) -> Result<(), Error> {
        let pending = copy_fields(was, Record::new(key, Status::Pending, self.clock.stamp()))
            .with("op", "retract");
        self.state.set(pending)?;
        let post = posts.get(key).ok().cloned();
        match self.target.retract(key, id, post.as_ref()) {
            Ok(()) => self.verify(key, id, was, true),
            Err(err) if err.class() == Some(Class::Unknown) => {
                self.trace(key, "retract", "unknown", &super::detail(&err));
                self.verify(key, id, was, false)
            }
            Err(err) => {
                // Nothing was removed: the post is still published.
                self.state.set(was.clone())?;
                self.trace(key, "retract", "failed", &super::detail(&err));
                self.report(key, &err, true);
                Ok(())
            }
        }
    }

    /// A `pending op=retract` line from an earlier, interrupted retract: look, and remove the
    /// post again if it is still there (the human asked for it to go).
    fn finish_retract(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let was = self.state.get(key).cloned().expect("pending line");
        let Some(id) = was.get("id").map(|id| id.into_owned()) else {
            return Ok(());
        };
        if self.plan.dry_run {
            self.say(key, "retract", &format!("id={id} (an interrupted retract: would look, and remove it if it is still there)"));
            return Ok(());
        }
        match self.target.still_there(key, &id) {
            Ok(Lookup::Absent) => self.retracted(key, &was, true),
            Ok(Lookup::Found(_)) => self.remove(key, &id, &was, posts),
            Ok(Lookup::CannotTell(why)) => self.unsure(key, &why),
            Err(err) => self.unsure(key, &err.reason()),
        }
    }

    /// After a removal (`sure`: the target said it removed it): gone is `retracted`.
    fn verify(&mut self, key: Date, id: &str, was: &Record, sure: bool) -> Result<(), Error> {
        match self.target.still_there(key, id) {
            Ok(Lookup::Absent) => self.retracted(key, was, true),
            Ok(Lookup::Found(_)) => {
                self.state.set(was.clone())?;
                let err = Error::failure(
                    Class::Unknown,
                    format!("{} still shows the post after the removal", self.cfg.name),
                )
                .hint(format!(
                    "look at it on {}; `dayrun retract {key} --yes` tries again",
                    self.cfg.name
                ));
                self.report(key, &err, true);
                Ok(())
            }
            Ok(Lookup::CannotTell(_)) | Err(_) if sure => self.retracted(key, was, false),
            Ok(Lookup::CannotTell(why)) => self.unsure(key, &why),
            Err(err) => self.unsure(key, &err.reason()),
        }
    }

    fn retracted(&mut self, key: Date, was: &Record, verified: bool) -> Result<(), Error> {
        let mut record = copy_fields(was, Record::new(key, Status::Retracted, self.clock.stamp()));
        if !verified {
            record = record.with("verified", "no");
        }
        self.state.set(record)?;
        let id = was.get("id").unwrap_or_default().into_owned();
        let note = match verified {
            true => String::new(),
            false => format!(
                " (the removal was accepted, but {} cannot show that it is gone)",
                self.cfg.name
            ),
        };
        self.trace(key, "retract", "done", &format!("id={id}{note}"));
        self.count("retracted", key, "retracted", &format!("id={id}{note}"));
        Ok(())
    }

    /// The removal may or may not have happened and no lookup can tell: the pending line stays,
    /// and the next `run` or `retract` looks again.
    fn unsure(&mut self, key: Date, why: &str) -> Result<(), Error> {
        let err = Error::failure(
            Class::Unknown,
            format!("the removal's outcome is unknown and the lookup cannot tell ({why})"),
        )
        .hint(format!(
            "look for it on {}; `dayrun retract {key} --yes` finishes the retract",
            self.cfg.name
        ));
        self.trace(key, "retract", "unknown", why);
        self.report(key, &err, true);
        Ok(())
    }
}

/// The fields of a published post's line that stay with it through a retract.
fn copy_fields(was: &Record, mut record: Record) -> Record {
    for field in ["id", "url", "fp", "published", "generation", "rkey"] {
        if let Some(value) = was.get(field) {
            record = record.with(field, value.into_owned());
        }
    }
    record
}
