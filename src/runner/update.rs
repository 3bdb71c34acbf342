//! Edits after publishing: a done key whose payload changed is sent to its copy in place, with
//! the discipline of a publish (a `pending op=update` line first; a lost answer confirmed by
//! reading the copy back). An update is never turned into a create: resending one is harmless,
//! a second copy is not.

use super::carry::{Job, What};
use super::{Posts, TargetRun};
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, Copy, Event, KeyLine, Step, Then, Verdict, Word};
use crate::look::Seen;
use crate::post::Post;
use crate::targets::{Edited, Media, Outgoing};
use crate::tell;
use std::time::{Duration, Instant};

impl TargetRun<'_> {
    /// A done key within its edit window: send the edit if the payload changed. A line from
    /// before payloads were recorded gets the current payload, without sending anything.
    pub(super) fn check_edit(
        &mut self,
        key: Key,
        posts: &Posts,
        forced: bool,
    ) -> Result<(), Error> {
        let line = self.book.line(key).expect("a done key");
        let post = match self.book.post(key, posts) {
            Ok(post) => post,
            Err(_) => return self.unchanged(key),
        };
        // (A refused edit the post still holds never gets here: its life says `EditFailed`.)
        if !self.book.edit_to_send(&line, &post, forced)? {
            return self.unchanged(key);
        }
        if self.run.plan.dry_run {
            let id = line.copies.current.id.clone().unwrap_or_default();
            self.voice
                .say(key, "update", &tell::dry::update(&id, &post));
            self.images_for(&post);
            let media = line.copies.current.media.as_deref();
            self.preview(key).images(&post, media);
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let post = self.images_for(&post);
        let post = self.book.copies(key).put_in(post);
        match self.prepare_edit(key, &line, &post) {
            Ok(out) => {
                let mut job = Job::new(What::Update, Some(post), out, Some(line));
                self.carry_out(key, &mut job, Step::to(Then::Send(Duration::ZERO)))
            }
            Err(err) => self.edit_not_sent(key, &line, &post, err),
        }
    }

    /// What the edit sends to the copy, or why it cannot be sent in place.
    fn prepare_edit(&mut self, key: Key, line: &KeyLine, post: &Post) -> Result<Outgoing, Error> {
        // A thread published before the target went back to `long = "cut"`.
        let parts = line.copies.current.parts.len();
        match life::edits_in_place(parts, self.target.as_thread().is_some()) {
            false => Err(tell::edit::thread_now_cut(key, parts, &self.cfg.name)),
            true => self.target.prepare(post),
        }
    }

    /// The edit cannot be sent: recorded as a refused edit on the line, traced and said.
    fn edit_not_sent(
        &mut self,
        key: Key,
        line: &KeyLine,
        post: &Post,
        err: Error,
    ) -> Result<(), Error> {
        let err = tell::edit::advice(key, &self.cfg.name, tell::edit::not_sent(&err));
        let step = self.book.fail(&err, post, (Some(line), u32::MAX))?;
        self.voice.trace_failure(key, "update", "failed", &err);
        self.report(key, &step, Some(&err))
    }

    /// A done key whose edit is not sent: the copy holds the post as it is.
    fn unchanged(&mut self, key: Key) -> Result<(), Error> {
        self.voice.unchanged(key);
        Ok(())
    }

    /// Send the update once (`Then::Send`), pending line first. A lost answer is read back
    /// (`Then::ReadBack`, after the time the copy may take to show it), and the update sent
    /// again (never a create) while the copy does not hold it yet. `None`: told, nothing more.
    pub(super) fn send_update(&mut self, key: Key, job: &mut Job) -> Result<Option<Step>, Error> {
        (job.sends, job.started) = (job.sends + 1, Instant::now());
        let post = job.post();
        let before = self.book.updating(post)?;
        let copy = before.as_ref().map(|l| l.copies.current.clone());
        let copy = copy.unwrap_or_default();
        let id = copy.id.clone().unwrap_or_default();
        // New images are uploaded first (each on the pending line), then the copy updated,
        // with what only the platform reads of it (the version Ghost wants back).
        let uploaded = self.upload(post, true);
        let result = uploaded.and_then(|media| {
            let out = Outgoing {
                media,
                native: copy.native.clone(),
                ..job.out.clone()
            };
            self.edit_copy(key, &copy, (post, &out))
        });
        let err = match result {
            Ok(receipt) => {
                let receipt = life::checked(&receipt).unwrap_or_else(|_| Receipt::id(&id));
                let how = (life::How::Published, None);
                return self.landed(job, receipt, how).map(|()| None);
            }
            Err(err) => tell::edit::advice(key, &self.cfg.name, err),
        };
        let detail = tell::failure::detail(&err);
        let failed =
            self.send_failed(post, &err, (before.as_ref(), job.sends), ("update", detail))?;
        let settle = self.cfg.policy.confirm_delay + self.here.landing.settle;
        Ok(failed.map(|step| Step {
            then: Then::ReadBack(settle),
            ..step
        }))
    }

    /// Read the copy back (`Then::ReadBack`) and hand the answer to the key's life: it holds
    /// the edit (done), or the update is sent again, or the rules stop here (told).
    pub(super) fn read_back(&mut self, key: Key, job: &mut Job) -> Result<Option<Step>, Error> {
        let copy = self
            .book
            .line(key)
            .expect("the pending update")
            .copies
            .current;
        let id = copy.id.clone().unwrap_or_default();
        let out = Outgoing {
            media: Media::on_copy(copy.media.as_deref()),
            ..job.out.clone()
        };
        let post = job.post();
        let answer = self.target.read_back_copy(&copy, (post, &out));
        let seen = Seen::read_back(&answer);
        if let Seen::Found(found) = &seen {
            // The copy's own receipt when it names this copy: its version (Ghost's
            // `updated_at`) is what the next update must send back.
            let receipt = (found.iter().find(|r| r.id == id))
                .and_then(|r| life::checked(r).ok())
                .unwrap_or_else(|| Receipt::id(&id));
            let how = (life::How::Published, None);
            return self.landed(job, receipt, how).map(|()| None);
        }
        let failure = seen.failure(|err| self.book.failed(err, Some(post)));
        let step = self.book.apply(
            key,
            &Event::Looked {
                verdict: seen.verdict(failure.as_ref().map(|f| f.borrow())),
                first: false,
                looks: 0,
                sends: job.sends,
                sendable: true,
            },
        )?;
        if let Err(err) = &answer {
            self.stop_for(key, err);
        }
        if let Then::Send(_) = step.then {
            return Ok(Some(step));
        }
        match step.word {
            Word::Unconfirmed => (self.voice).update_unsure(key, step.say.as_deref()),
            _ => self.report(key, &step, answer.as_ref().err())?,
        }
        Ok(None)
    }

    /// A `pending op=update` from an earlier run: read the copy back; resend the update if it
    /// does not hold it (the latest version of the post, which is what the copy should show).
    pub(super) fn finish_update(
        &mut self,
        key: Key,
        has_post: bool,
        posts: &Posts,
    ) -> Result<(), Error> {
        let line = self.book.line(key).expect("a pending update");
        let post = match has_post {
            true => self.book.post(key, posts).ok(),
            false => None,
        };
        if self.run.plan.dry_run {
            self.voice.say(key, "update", tell::dry::FINISH_UPDATE);
            return Ok(());
        }
        let Some(post) = post else {
            return self.update_unsure(key, "the post cannot be read to compare", false);
        };
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let post = self.images_for(&post);
        let post = self.book.copies(key).put_in(post);
        let out = match self.target.prepare(&post) {
            Ok(out) => out,
            Err(err) => return self.update_unsure(key, &err.reason(), true),
        };
        let mut job = Job::new(What::Update, Some(post), out, Some(line));
        self.carry_out(key, &mut job, Step::to(Then::ReadBack(Duration::ZERO)))
    }

    /// An update that may or may not be on its copy, and cannot be told now (`why`): the line
    /// stays pending for the next run; `sendable`: the post is there to send again.
    fn update_unsure(&mut self, key: Key, why: &str, sendable: bool) -> Result<(), Error> {
        let looked = Event::Looked {
            verdict: Verdict::CannotTell(why),
            first: false,
            looks: 0,
            sends: 0,
            sendable,
        };
        let step = self.book.apply(key, &looked)?;
        self.voice.update_unsure(key, step.say.as_deref());
        Ok(())
    }

    /// Edit `copy` in place (`Target::edit_copy`), a thread's each part traced as soon as it
    /// holds the edit; refused (rejected) with nothing changed when the post no longer splits
    /// into as many parts.
    fn edit_copy(
        &mut self,
        key: Key,
        copy: &Copy,
        sent: (&Post, &Outgoing),
    ) -> Result<Receipt, Error> {
        let parts = copy.published_parts();
        let (voice, total) = (&mut self.voice, parts.len());
        let mut traced = |n: usize| {
            let text = tell::thread::part(n, total, &parts[n].id);
            voice.trace(key, "update", "part", &text);
        };
        match self.target.edit_copy(copy, sent, &mut traced)? {
            Edited::Updated(receipt) => receipt,
            Edited::Splits(now) => {
                let why = tell::thread::splits_other(now, total);
                let hint = tell::thread::as_new_thread(key, &self.cfg.name);
                Err(Error::failure(Class::Rejected, why).hint(hint))
            }
        }
    }
}
