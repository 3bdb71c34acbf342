//! `dayrun retract`: take every live copy of a key back, with the same discipline as a publish:
//! a `pending op=retract` line first (naming what is left), then each removal, then a lookup
//! that proves it gone before the copy leaves the line. It works from the line alone, so a
//! post whose file was deleted can still be retracted.

use super::carry::{Job, Removing, What};
use super::{Posts, TargetRun};
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::{Event, KeyLine, Phase, Step, Word};
use crate::targets::{Outgoing, Removal, Removed};
use crate::tell;

impl TargetRun<'_> {
    /// Retract `key` from this target: every live copy the line knows.
    pub(super) fn retract(&mut self, key: Key, posts: &Posts) -> Result<(), Error> {
        let Some(line) = self.book.line(key) else {
            return Ok(());
        };
        let resume = matches!(line.phase, Phase::Pending(crate::life::Op::Retract));
        if self.run.plan.dry_run {
            self.preview(key).retract(&line, resume);
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let before = (!resume).then(|| line.clone());
        let step = self.book.apply(key, &Event::Retracting)?;
        let post = posts
            .has(key)
            .then(|| self.book.post(key, posts).ok())
            .flatten();
        let removing = Removing {
            resume,
            line,
            removed: Vec::new(),
        };
        let what = What::Retract(Box::new(removing));
        let mut job = Job::new(what, post, Outgoing::default(), before);
        self.carry_out(key, &mut job, step)
    }

    /// Remove the copy `id` the key's life names next (`Then::Remove`), look whether it is
    /// gone, and hand what became of it to the key's life. `None`: the copy is still there, or
    /// the outcome cannot be told (recorded and said).
    pub(super) fn remove(
        &mut self,
        key: Key,
        job: &mut Job,
        id: &str,
    ) -> Result<Option<Step>, Error> {
        let Some(verified) = self.removal(key, job, id)? else {
            return Ok(None);
        };
        if let What::Retract(removing) = &mut job.what {
            removing.removed.push(id.to_string());
        }
        self.voice.outcome.removed.insert(key);
        let step = (self.book).apply(key, &Event::Removed { id, verified })?;
        if step.word != Word::Retracted {
            self.voice
                .trace(key, "retract", "removed", &format!("id={id}"));
        }
        Ok(Some(step))
    }

    /// Remove the copy `id`, then look (`Retract::remove`): `Some(true)` gone, `Some(false)`
    /// accepted but no lookup can show it, `None` when it is still there or the outcome cannot
    /// be told (recorded and said).
    fn removal(&mut self, key: Key, job: &Job, id: &str) -> Result<Option<bool>, Error> {
        let What::Retract(removing) = &job.what else {
            unreachable!("a retract removes")
        };
        let (place, post, before) = (self.book.place(key), job.post.as_ref(), job.before.as_ref());
        let removal = match self.target.as_retract() {
            Ok(target) => target.remove(place, id, post, removing.resume),
            Err(err) => Removal {
                lost: None,
                outcome: Removed::Refused(err),
            },
        };
        if let Some(err) = &removal.lost {
            self.voice.trace_failure(key, "retract", "unknown", err);
        }
        match removal.outcome {
            Removed::Gone => Ok(Some(true)),
            Removed::Accepted => Ok(Some(false)),
            Removed::Refused(err) => {
                self.not_removed(key, &err, tell::failure::detail(&err), before)
            }
            Removed::StillThere => {
                let err = tell::retract::still_there(key, &self.cfg.name);
                let detail = format!("id={id}: {}", err.message);
                self.not_removed(key, &err, detail, before)
            }
            Removed::Unsure(why) => self.unsure(key, &self.voice.redact(&why)),
        }
    }

    /// The copy is still there after `err`: recorded, traced (`detail`) and reported; the
    /// target stops when the failure says so.
    fn not_removed(
        &mut self,
        key: Key,
        err: &Error,
        detail: String,
        before: Option<&KeyLine>,
    ) -> Result<Option<bool>, Error> {
        let reason = self.voice.redact(&err.reason());
        let step = self.book.apply(
            key,
            &Event::NotRemoved {
                class: err.class().unwrap_or(Class::Unknown),
                reason: &reason,
                unsure: false,
                before,
            },
        )?;
        self.stop_for(key, err);
        self.voice.trace(key, "retract", "failed", &detail);
        self.report(key, &step, Some(err))?;
        Ok(None)
    }

    /// The removal's outcome is unknown and no lookup can tell: the pending line stays, and the
    /// next `run` or `retract` finishes the job.
    fn unsure(&mut self, key: Key, why: &str) -> Result<Option<bool>, Error> {
        let why = format!("the removal's outcome is unknown and the lookup cannot tell ({why})");
        self.book.apply(
            key,
            &Event::NotRemoved {
                class: Class::Unknown,
                reason: &why,
                unsure: true,
                before: None,
            },
        )?;
        self.voice.retract_unsure(key, &why);
        Ok(None)
    }
}
