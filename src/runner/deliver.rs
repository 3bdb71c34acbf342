//! Sending a post: pre-submit dedup, a lookup before any send that could repeat an earlier one,
//! pacing, and in-run retries, each step as the key's life says. Nothing is sent again blind.

use super::judge::Ask;
use super::{Posts, TargetRun};
use crate::error::Error;
use crate::failed::Failed;
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, Before, Event, KeyLine, Looking, Op, Phase, Sending, Step, Then, Why};
use crate::post::Post;
use crate::signals;
use crate::tally::Count;
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
            self.voice.outcome.drafts.push(key);
            self.voice
                .count(Count::Draft, key, "draft", tell::skip::DRAFT);
            return Ok(());
        }
        let line = self.book.line(key);
        if let Some(err) = self.book.renamed(&read, line.as_ref()) {
            if !self.run.plan.dry_run {
                return self.not_sent(&read, &err, line.as_ref());
            }
            let text = tell::dry::would_fail(&err.message, &read);
            self.voice.say(key, "would fail", &text);
            return Ok(());
        }
        let post = self.images_for(&read);
        let sending = life::sending(line.as_ref(), look_first, new_copy, &self.book.ctx(key));
        if self.target.as_thread().is_some() {
            return self.attempt_thread(post, line, sending, why);
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
            Err(err) => return self.not_sent(&post, &err, line.as_ref()),
        };
        out.generation = generation;
        // What the platform chose for this copy (a record key), as the line keeps it, else
        // chosen now; a fresh copy starts with nothing of the last one's.
        if let Some(line) = line.as_ref().filter(|_| !sending.fresh) {
            out.native = line.copies.current.native.clone();
        }
        if let Some(names) = self.target.as_names() {
            out.native.fill(&names.choose(post.place(), generation));
        }
        if before == Before::OnWord {
            self.voice.trace(
                key,
                "retry",
                "absent",
                "retry --absent: sending on the human's word that the post is not on the target",
            );
        } else if before.looks() && !self.look_before_send(&post, &out, line.as_ref(), before)? {
            return Ok(());
        }
        self.send_or_queue(&post, &out, new_copy)
    }

    /// A thread target: its text may link to other targets' copies: a new thread waits for
    /// them like any post (`linked`); a resumed one sends the parts it kept.
    fn attempt_thread(
        &mut self,
        post: Post,
        line: Option<KeyLine>,
        sending: Sending,
        why: Why,
    ) -> Result<(), Error> {
        let resuming = life::started(line.as_ref(), sending.fresh);
        let post = match (self.run.plan.dry_run, resuming) {
            // The preview: a stand-in for each copy still coming, as the run would have it by
            // the time this target's turn comes.
            (true, _) => {
                self.preview(post.key).copies(post.key);
                self.book.copies(post.key).with_stand_ins(post)
            }
            (false, true) => self.book.copies(post.key).put_in(post),
            (false, false) => match self.linked(post, line.as_ref())? {
                Some(post) => post,
                None => return Ok(()),
            },
        };
        // Before any send of a new thread with dedup on, its first part is looked for too.
        let Sending {
            before,
            fresh,
            generation,
        } = sending;
        self.thread(&post, line, generation, fresh, before.looks(), why)
    }

    /// The look before a send (`Before::Look`: an earlier attempt may have landed; `Dedup`: a
    /// copy may be there already). `false`: the look decided against sending, and said why.
    fn look_before_send(
        &mut self,
        post: &Post,
        out: &Outgoing,
        line: Option<&KeyLine>,
        before: Before,
    ) -> Result<bool, Error> {
        let key = post.key;
        let dedup = before == Before::Dedup;
        let now = self.run.clock.now().timestamp();
        let (looking, kept, action) = match line.filter(|_| !dedup) {
            Some(line) => (
                self.here.landing.confirm(line, now),
                self.kept_payload(key),
                "confirm",
            ),
            None => (Looking::Dedup, None, "dedup"),
        };
        let kept = kept.map(|body| Outgoing {
            body,
            ..out.clone()
        });
        let ask = Ask {
            looking,
            out: kept.as_ref().unwrap_or(out),
            sends: 0,
            sendable: true,
        };
        let started = Instant::now();
        let step = self.judge(key, ask, self.book.keeps(post, line))?;
        let send = matches!(step.then, Then::Send(_));
        if !send {
            self.tell(key, &step, Told::new(Some(&post.title), started, action))?;
        } else if let Some(note) = step.say.as_deref().filter(|_| dedup) {
            self.voice.say(key, "note", note);
        }
        Ok(send)
    }

    /// A pending key whose post is gone: look; a copy found is recorded, a proved absence
    /// forgets the line (nothing is out and nothing is left to send). A done key whose line
    /// says `sent=maybe` (a merge): look for copies beside its own, whatever its post.
    pub(super) fn look_only(&mut self, key: Key) -> Result<(), Error> {
        let Some(line) = self.book.line(key) else {
            return Ok(());
        };
        if self.run.plan.dry_run {
            let text = match line.phase {
                Phase::Done => tell::dry::LOOK_BESIDE,
                Phase::Retracted { .. } => tell::dry::LOOK_RETRACTED,
                _ => tell::dry::LOOK_ONLY,
            };
            self.voice.say(key, "confirm", text);
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        let sent = Outgoing {
            body: self.kept_payload(key).unwrap_or_default(),
            native: line.copies.current.native.clone(),
            generation: line.copies.current.generation,
            ..Outgoing::default()
        };
        let now = self.run.clock.now().timestamp();
        let ask = Ask {
            looking: self.here.landing.confirm(&line, now),
            out: &sent,
            sends: 0,
            sendable: false,
        };
        let keeps = life::Keeps {
            fp: line.fp.clone().unwrap_or_default(),
            payload: String::new(),
            media: line.copies.current.media.clone(),
            copy: None,
        };
        let started = Instant::now();
        let step = self.judge(key, ask, keeps)?;
        self.tell(key, &step, Told::new(None, started, "confirm"))
    }

    /// Send, with in-run retries: retry-safe failures after a backoff, an unknown outcome only
    /// after the lookup proves the attempt did not land.
    pub(super) fn send(
        &mut self,
        post: &Post,
        out: &Outgoing,
        new_copy: bool,
    ) -> Result<(), Error> {
        let key = post.key;
        let mut sends = 0;
        let mut wait = Duration::ZERO;
        // The line before this run's first attempt: a failure that provably sent nothing
        // leaves what may have landed as it was then.
        let before = self.book.line(key);
        let payload = self.book.edit_mark(post);
        loop {
            if !wait.is_zero() && !signals::sleep(wait) {
                // Stopped while waiting: the line says what the last attempt did.
                return Ok(());
            }
            sends += 1;
            self.pace();
            let pending = self.book.apply(
                key,
                &Event::Attempt {
                    op: Op::Publish,
                    fp: &post.fingerprint,
                    marks: &out.marks,
                    payload: Some(&payload),
                    new_copy: new_copy && sends == 1,
                    native: &out.native,
                },
            )?;
            if pending.written().is_none() {
                // The rules refused the attempt (too many copies).
                return self.tell(
                    key,
                    &pending,
                    Told::new(Some(&post.title), Instant::now(), "publish"),
                );
            }
            if self.here.keeps_payload {
                let bytes = serde_json::to_vec(&out.body).expect("a JSON value serialises");
                self.sent().keep(key, Kept::Payload, &bytes)?;
            }
            let clock = Instant::now();
            let err = match self.publish_once(post, out) {
                Ok(receipt) => return self.published(post, receipt, before.as_ref(), sends, clock),
                Err(err) => err,
            };
            let detail = tell::failure::detail(&err);
            let Some(mut step) =
                self.send_failed(post, &err, (before.as_ref(), sends), ("publish", detail))?
            else {
                return Ok(());
            };
            if let Then::Look(_) = step.then {
                step = self.look_after(post, out, sends)?;
            }
            match step.then {
                Then::Send(next) => wait = next,
                _ => return self.tell(key, &step, Told::new(Some(&post.title), clock, "confirm")),
            }
        }
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

    /// The post landed: the done line, with what it uploaded and which copy it is; the kept
    /// payload goes.
    fn published(
        &mut self,
        post: &Post,
        receipt: Receipt,
        before: Option<&KeyLine>,
        sends: u32,
        clock: Instant,
    ) -> Result<(), Error> {
        let key = post.key;
        let copy = (self.target.as_names()).and_then(|n| n.copy_of(post.place(), &receipt.id));
        let receipts = [receipt];
        let keeps = life::Keeps {
            media: self.unattached(key, post),
            copy,
            ..self.book.keeps(post, None)
        };
        let step = self.book.land(
            key,
            (&keeps, &receipts),
            life::How::Published,
            before,
            sends,
        )?;
        if self.here.keeps_payload {
            self.sent().remove(key, Kept::Payload);
        }
        let note = receipts[0].note.clone();
        self.tell(
            key,
            &step,
            Told::new(Some(&post.title), clock, "publish").note(note.as_deref()),
        )
    }

    /// After an unknown outcome: look until the attempt is found, proved absent (then the
    /// step says to send again), or the rules say to stop.
    fn look_after(&mut self, post: &Post, out: &Outgoing, sends: u32) -> Result<Step, Error> {
        let now = self.run.clock.now().timestamp();
        let ask = Ask {
            looking: self.here.landing.after_lost(now),
            out,
            sends,
            sendable: true,
        };
        let line = self.book.line(post.key);
        self.judge(post.key, ask, self.book.keeps(post, line.as_ref()))
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

    /// A post that could not even be prepared (a local error, a refused term): recorded as a
    /// failure of this key that sent nothing.
    pub(super) fn not_sent(
        &mut self,
        post: &Post,
        err: &Error,
        line: Option<&KeyLine>,
    ) -> Result<(), Error> {
        self.stop_for(post.key, err);
        self.record_unsent(post, err, line, "failed")
    }

    /// A failure of a post of which this run sent nothing, recorded, traced (`result`) and
    /// told; not retried within the run.
    pub(super) fn record_unsent(
        &mut self,
        post: &Post,
        err: &Error,
        line: Option<&KeyLine>,
        result: &str,
    ) -> Result<(), Error> {
        let mut failed = self.failed(err, Some(post));
        // Nothing of the post itself was sent: a lost answer (preparing) left nothing of it out.
        if failed.class == crate::error::Class::Unknown {
            failed.class = crate::error::Class::RetrySafe;
        }
        let step = self
            .book
            .answered_failed(post.key, &failed, line, u32::MAX)?;
        self.voice
            .trace(post.key, "publish", result, &tell::failure::detail(err));
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
        let failed = self.failed(err, Some(post));
        let step = self.book.answered_failed(key, &failed, before, sends)?;
        self.stop_for(key, err);
        let (result, detail) = match step.then {
            Then::Send(next) => (
                "retry-safe",
                format!("{detail} next_in_ms={}", next.as_millis()),
            ),
            Then::Look(_) | Then::ReadBack(_) => ("unknown", detail),
            _ => ("failed", detail),
        };
        self.voice.trace(key, doing, result, &detail);
        if result == "failed" {
            self.report(key, &step, Some(err))?;
            return Ok(None);
        }
        Ok(Some(step))
    }

    /// The failure of a send, as the key's life reads it.
    pub(super) fn failed(&self, err: &Error, post: Option<&Post>) -> Failed {
        Failed::of(
            err,
            self.voice.redact(&err.reason()),
            post.map(|p| (p, self.book.edit_mark(p))),
            self.book.credential.clone(),
            self.cfg.policy.retry_after_cap,
        )
    }
}
