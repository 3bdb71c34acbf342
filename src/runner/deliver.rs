//! Publishing a post: what it is sent as, then, carried out by the one loop (`carry.rs`) as the
//! key's life says: pre-submit dedup or a lookup before any send that could repeat an earlier
//! one, each send (its pending line first, paced), in-run retries. Nothing is sent again blind.

use super::carry::{Job, What};
use super::{Posts, TargetRun};
use crate::error::Error;
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, Before, KeyLine, Looking, Step, Then, Why};
use crate::post::Post;
use crate::signals;
use crate::targets::Outgoing;
use crate::tell;
use crate::voice::Told;
use jiff::Timestamp;
use std::time::{Duration, Instant};
use store::sent::Kept;

impl TargetRun<'_> {
    /// Publish one key: look first when an earlier attempt may have landed (or, for a first
    /// attempt, when dedup is on), then send. `Err` only when state cannot be recorded.
    pub(super) fn attempt(
        &mut self,
        key: Key,
        posts: &Posts,
        why: Why,
        look_first: bool,
        new_copy: bool,
    ) -> Result<(), Error> {
        let read = match self.book.post(key, posts) {
            Ok(post) => post,
            Err(err) => return self.local_error(key, err),
        };
        if read.draft {
            self.voice.draft(key);
            return Ok(());
        }
        let line = self.book.line(key);
        if let Some(err) = self.book.renamed(&read, line.as_ref()) {
            if !self.run.plan.dry_run {
                return self.unsent(&read, &err, line.as_ref(), "failed");
            }
            let text = tell::dry::would_fail(&err.message, &read);
            self.voice.say(key, "would fail", &text);
            return Ok(());
        }
        let post = self.images_for(&read);
        let sending = life::sending(line.as_ref(), look_first, new_copy, &self.book.ctx(key));
        if self.target.as_thread().is_some() {
            return self.thread(post, line, sending, why);
        }
        let (before, generation) = (sending.before, sending.generation);
        if self.run.plan.dry_run {
            let media = line.as_ref().and_then(|l| l.copies.current.media.clone());
            let looks = before == Before::Look;
            let mut preview = self.preview(key);
            preview.publish((&read, &post), media.as_deref(), looks, why);
            return Ok(());
        }
        let unsent = matches!(before, Before::Send | Before::Dedup);
        if self.skip_send_if_stopped(&post, line.as_ref(), unsent)? {
            return Ok(());
        }
        // A copy the text links to that is not there: the key waits (or fails), nothing sent.
        let Some(post) = self.linked(post, line.as_ref())? else {
            return Ok(());
        };
        if why != Why::Due {
            self.voice.say(key, "retry", &tell::line::retry(why));
        }
        let mut out = match self.target.prepare(&post) {
            Ok(out) => out,
            Err(err) => return self.unsent(&post, &err, line.as_ref(), "failed"),
        };
        out.generation = generation;
        // What the platform chose for this copy (a record key), as the line keeps it, else
        // chosen now.
        let chosen = (self.target.as_names()).map(|n| n.choose(post.place(), generation));
        out.native = sending.native(line.as_ref(), &chosen.unwrap_or_default());
        let what = What::Post {
            new_copy,
            alone: false,
        };
        self.publish((post, out), line, sending.before, what)
    }

    /// Carry out the publish of `post` as `out` (`what`: `What::Post`; `line`: the key's line
    /// now): look first (`Before::Look`: an earlier attempt may have landed; `Dedup`: a copy may
    /// be there already), or send at once. A look that decides against sending says why.
    pub(super) fn publish(
        &mut self,
        (post, out): (Post, Outgoing),
        line: Option<KeyLine>,
        before: Before,
        what: What,
    ) -> Result<(), Error> {
        let key = post.key;
        let mut job = Job::new(what, Some(post), out, line);
        match (before, &job.before) {
            (Before::OnWord, _) => self.voice.trace(key, "retry", "absent", tell::line::ABSENT),
            (Before::Look, Some(line)) => job.looking = self.confirming(line),
            _ => {}
        }
        self.carry_out(key, &mut job, Step::to(before.first()))
    }

    /// A pending key whose post is gone: look; a copy found is recorded, a proved absence
    /// forgets the line (nothing is out and nothing is left to send). A done key whose line
    /// says `sent=maybe` (a merge): look for copies beside its own, whatever its post.
    pub(super) fn look_only(&mut self, key: Key) -> Result<(), Error> {
        let Some(line) = self.book.line(key) else {
            return Ok(());
        };
        if self.run.plan.dry_run {
            self.preview(key).look(&line);
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let sent = Outgoing {
            native: line.copies.current.native.clone(),
            generation: line.copies.current.generation,
            ..Outgoing::default()
        };
        let looking = self.confirming(&line);
        let mut job = Job::new(What::Look, None, sent, Some(line));
        job.looking = looking;
        self.carry_out(key, &mut job, Step::to(Then::Look(Duration::ZERO)))
    }

    /// Send the post once (`Then::Send`), or queue it for the next batch: its pending line
    /// first, durable before the request; then the request, and its answer handed to the
    /// key's life: a retry-safe failure is sent again after a backoff, an unknown outcome only
    /// after a lookup proves the attempt did not land. `None`: told, nothing more.
    pub(super) fn send(&mut self, key: Key, job: &mut Job) -> Result<Option<Step>, Error> {
        let What::Post { new_copy, alone } = job.what else {
            unreachable!("a post is sent")
        };
        let post = job.post.clone().expect("a post to send");
        if job.sends == 0 && !alone && self.queue(&post, &job.out, new_copy)? {
            return Ok(None);
        }
        job.sends += 1;
        self.pace();
        let new_copy = new_copy && job.sends == 1;
        let pending = self.book.publishing(&post, &job.out, new_copy)?;
        if pending.written().is_none() {
            // The rules refused the attempt (too many copies).
            let told = Told::new(Some(&post.title), Instant::now(), "publish");
            return self.tell(key, &pending, told).map(|()| None);
        }
        if self.here.keeps_payload {
            self.book.keep_payload(key, &job.out.body)?;
        }
        job.started = Instant::now();
        let err = match self.publish_once(&post, &job.out) {
            Ok(receipt) => {
                let (note, how) = (receipt.note.clone(), life::How::Published);
                return self
                    .landed(job, receipt, (how, note.as_deref()))
                    .map(|()| None);
            }
            Err(err) => err,
        };
        let detail = tell::failure::detail(&err);
        let before = (job.before.as_ref(), job.sends);
        let step = self.send_failed(&post, &err, before, ("publish", detail))?;
        // After an unknown outcome: look until the attempt is found, proved absent (then the
        // step says to send again), or the rules say to stop.
        if let Some(Then::Look(_)) = step.as_ref().map(|s| &s.then) {
            let now = self.run.clock.now().timestamp();
            (job.looking, job.looks) = (self.here.landing.after_lost(now), 0);
        }
        Ok(step)
    }

    /// One publish of `post`: its images first, each answer on the pending line; then the
    /// post, which uses them. A receipt the key's life cannot use is an unknown outcome.
    fn publish_once(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let uploaded = self.upload(post, false);
        let result = uploaded.and_then(|media| {
            let out = Outgoing {
                media,
                ..out.clone()
            };
            let (target, mut line) = self.noting(post.key);
            target.publish_noting(post, &out, &mut line)
        });
        self.pace.last_write = Some(Instant::now());
        result.and_then(|receipt| {
            life::checked(&receipt).map_err(|why| {
                Error::failure(
                    crate::error::Class::Unknown,
                    format!("published, but {why}"),
                )
            })
        })
    }

    /// The copy holds what the job sent (`receipt`; `how` it came to be known): the done line,
    /// with what it keeps (the post's marks, or a thread's as it was split; the uploads the
    /// post uses; which copy it is, when the platform names it); what was kept beside the
    /// line for the attempt goes; told (`note`: what the platform said).
    pub(super) fn landed(
        &mut self,
        job: &Job,
        receipt: Receipt,
        (how, note): (life::How, Option<&str>),
    ) -> Result<(), Error> {
        let post = job.post();
        let key = post.key;
        let mut keeps = self.book.keeps(post, None);
        keeps.media = self.unattached(key, post);
        let payload = self.here.keeps_payload.then_some(Kept::Payload);
        let (before, sends, action, kept) = match &job.what {
            What::Post { .. } => {
                keeps.copy = self.copy_of(post.place(), &receipt.id);
                (job.before.as_ref(), job.sends, "publish", payload)
            }
            What::Thread(parts) => {
                let prepared = &parts.prepared;
                (keeps.fp, keeps.payload) = (prepared.fp.clone(), prepared.payload.clone());
                (None, 0, "publish", Some(Kept::Thread))
            }
            _ => (None, 0, "update", None),
        };
        let step = (self.book).land(key, (&keeps, &[receipt]), how, before, sends)?;
        if let Some(kept) = kept {
            self.book.sent().remove(key, kept);
        }
        let told = Told::new(Some(&post.title), job.started, action).note(note);
        self.tell(key, &step, told)
    }

    /// How a look for the attempts `line` records is made: until they can no longer land
    /// (`life::Landing::confirm`).
    fn confirming(&self, line: &KeyLine) -> Looking {
        let now = self.run.clock.now().timestamp();
        self.here.landing.confirm(line, now)
    }

    /// When an attempt recorded on `line` can no longer land (`life::Landing::deadline`).
    pub(super) fn deadline(&self, line: &KeyLine) -> Timestamp {
        self.here
            .landing
            .deadline(line, self.run.clock.now().timestamp())
    }

    /// Keep `min_interval` between writes to this target.
    pub(super) fn pace(&self) {
        if let Some(last) = self.pace.last_write {
            let since = last.elapsed();
            if since < self.cfg.policy.min_interval {
                signals::sleep(self.cfg.policy.min_interval - since);
            }
        }
    }

    /// A failure of a post of which this run sent nothing (it could not even be prepared: a
    /// local error, a refused term; or not tried), recorded, traced (`result`) and told; not
    /// retried within the run. The target stops for the run when the failure says so.
    pub(super) fn unsent(
        &mut self,
        post: &Post,
        err: &Error,
        line: Option<&KeyLine>,
        result: &str,
    ) -> Result<(), Error> {
        self.stop_for(post.key, err);
        let step = self.book.unsent(err, post, line)?;
        self.voice.trace_failure(post.key, "publish", result, err);
        self.report(post.key, &step, Some(err))
    }

    /// A send (of a post, a part or an update: `doing`) that failed, recorded as the key's
    /// life says (`before`: the line before this run's first attempt; `sends`: this run's) and
    /// traced with `detail`; the target stops for the run when the failure says so (auth, a
    /// long rate limit). The step to go on with (`Then::Send`: again after its wait; `Look`,
    /// `ReadBack`: the outcome is unknown), or `None`: reported, nothing more this run.
    pub(super) fn send_failed(
        &mut self,
        post: &Post,
        err: &Error,
        (before, sends): (Option<&KeyLine>, u32),
        (doing, detail): (&str, String),
    ) -> Result<Option<Step>, Error> {
        let key = post.key;
        let step = self.book.fail(err, post, (before, sends))?;
        self.stop_for(key, err);
        let (result, detail) = tell::failure::sent(&step.then, detail);
        self.voice.trace(key, doing, result, &detail);
        match step.then {
            Then::Send(_) | Then::Look(_) | Then::ReadBack(_) => Ok(Some(step)),
            _ => self.report(key, &step, Some(err)).map(|()| None),
        }
    }
}
