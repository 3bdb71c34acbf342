//! The book's one way to change a key's line: an event goes to `life::next` with the key's
//! line and the moment; what comes back is recorded (never in a dry run) and its exit code
//! folded into the pass's.

use super::Book;
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Change, Ctx, Event, KeyLine, Seen, Step, Then};
use crate::post::Post;

impl<'a> Book<'a> {
    /// The hash of the target's template, part of its posts' edit hash; `None`: it has none.
    pub(crate) fn template_mark(&self) -> Option<&'a str> {
        self.cfg
            .template
            .as_ref()
            .map(crate::template::Template::mark)
    }
}

/// A visit as `life` asks for it: without the post first, and once more with it, read by
/// `read`, when a rule needs it (`Then::Read`). `next` feeds the visit to the key's life (or
/// applies it); what was read comes back too.
pub fn visit<E>(
    mut next: impl FnMut(Option<&Seen>) -> Result<Step, E>,
    read: impl FnOnce() -> Seen,
) -> Result<(Step, Option<Seen>), E> {
    let step = next(None)?;
    if step.then != Then::Read {
        return Ok((step, None));
    }
    let seen = read();
    let step = next(Some(&seen))?;
    debug_assert!(step.then != Then::Read, "a visit with the post decides");
    Ok((step, Some(seen)))
}

impl Book<'_> {
    /// The key's line, typed (`None`: no line).
    pub(crate) fn line(&self, key: Key) -> Option<KeyLine> {
        self.state.get(key).map(KeyLine::of)
    }

    /// Where the key's copies are here: its own place, or the key its line was carried over
    /// from (`place=`).
    pub(crate) fn place(&self, key: Key) -> Key {
        self.line(key).map_or(key, |l| l.place_key())
    }

    /// The key's post as read, at its place here (`Post::place`).
    pub(crate) fn post(&self, key: Key, posts: &crate::posts::Posts) -> Result<Post, Error> {
        let mut post = posts.get(key).as_ref().clone()?;
        post.place = self.line(key).and_then(|l| l.place);
        Ok(post)
    }

    /// The moment a key is judged in, from the instant its post is due when it has a time.
    pub(crate) fn ctx(&self, key: Key) -> Ctx<'_> {
        let (clock, plan) = (self.run.clock, self.run.plan);
        Ctx {
            today: self.run.today,
            named: plan.keys.contains(&key),
            pinned: clock.pinned(),
            credential: self.credential.as_deref(),
            due: self.known.due.get(&key).copied(),
            ..Ctx::at(
                key,
                &clock.now(),
                clock.tz(),
                self.run.today,
                &self.rules,
                &plan.mode,
            )
        }
    }

    /// Feed `event` to the key's life and record the line it returns. The exit code of every
    /// event but a visit is folded into the pass's (a visit's is what the key leaves if nothing
    /// answers otherwise; the caller folds it in when nothing more is done).
    pub(crate) fn apply(&mut self, key: Key, event: &Event) -> Result<Step, Error> {
        let line = self.line(key);
        let step = life::next(line.as_ref(), event, &self.ctx(key));
        self.record(key, event, &step)?;
        Ok(step)
    }

    /// Record the line `step` returns for `event` (never in a dry run), and fold its exit in.
    pub(crate) fn record(&mut self, key: Key, event: &Event, step: &Step) -> Result<(), Error> {
        if !self.run.plan.dry_run {
            match &step.line {
                // An edit hash or a day seen gone, recorded without sending anything, needs no
                // sync of its own: the fold at the end of the run makes it durable (a crash
                // only repeats it).
                // (A baseline changes no id, so the owners of ids stay as they are.)
                Change::Write(line) if matches!(event, Event::Baseline(_) | Event::SeenGone) => {
                    self.state.put(line.record())
                }
                Change::Write(line) => {
                    self.known.note(line);
                    self.state.set(line.record())?
                }
                Change::Drop => self.state.forget(key),
                Change::Keep => {}
            }
        }
        if !matches!(event, Event::Visit(_)) {
            self.exit.merge(step.exit);
        }
        Ok(())
    }

    /// A post that cannot be read or derived (`err`), recorded once: an attempt that may have
    /// landed before the file broke stays on the line; the same error already on the line is
    /// not written again, nor is anything in a dry run. Whether it was written.
    pub(crate) fn local(&mut self, key: Key, err: &Error) -> Result<bool, Error> {
        let reason = self.redactor.redact(&err.reason());
        let line = self.line(key);
        let same = line.as_ref().is_some_and(|l| {
            matches!(l.phase, life::Phase::Failed(life::Class::Local, _))
                && l.reason.as_deref() == Some(life::reason(&reason).as_str())
        });
        if same || self.run.plan.dry_run {
            return Ok(false);
        }
        let failed = crate::failed::Failed::of(err, reason, None, None, std::time::Duration::ZERO);
        self.answered_failed(key, &failed, line.as_ref(), u32::MAX)?;
        Ok(true)
    }

    /// The failure of a send of `post` (`None`: of a lookup), as the key's life reads it: its
    /// reason redacted, the credential it was refused with, the wait it asks within the cap.
    pub(crate) fn failed(&self, err: &Error, post: Option<&Post>) -> crate::failed::Failed {
        crate::failed::Failed::of(
            err,
            self.redactor.redact(&err.reason()),
            post.map(|p| (p, self.edit_mark(p))),
            self.credential.clone(),
            self.cfg.policy.retry_after_cap,
        )
    }

    /// `err`, a failure of a send of `post`, recorded as the key's life reads it (`failed`;
    /// `before`, `sends`: as for `answered_failed`).
    pub(crate) fn fail(
        &mut self,
        err: &Error,
        post: &Post,
        (before, sends): (Option<&KeyLine>, u32),
    ) -> Result<Step, Error> {
        let failed = self.failed(err, Some(post));
        self.answered_failed(post.key, &failed, before, sends)
    }

    /// `err`, a failure of `post` of which this run sent nothing (it could not be prepared, or
    /// the target was not tried), recorded: a lost answer while preparing left nothing of the
    /// post out, so it is retry-safe.
    pub(crate) fn unsent(
        &mut self,
        err: &Error,
        post: &Post,
        line: Option<&KeyLine>,
    ) -> Result<Step, Error> {
        let mut failed = self.failed(err, Some(post));
        if failed.class == life::Class::Unknown {
            failed.class = life::Class::RetrySafe;
        }
        self.answered_failed(post.key, &failed, line, u32::MAX)
    }

    /// A send's failure, as the key's life reads it (`failed`), recorded: `before` the line
    /// before this run's first attempt, `sends` this run's sends (`u32::MAX`: nothing of the
    /// post was sent).
    pub(crate) fn answered_failed(
        &mut self,
        key: Key,
        failed: &crate::failed::Failed,
        before: Option<&KeyLine>,
        sends: u32,
    ) -> Result<Step, Error> {
        let answer = life::Answer::Failed(failed.borrow());
        self.apply(
            key,
            &Event::Answered {
                answer,
                before,
                sends,
            },
        )
    }

    /// The copy of `receipts` is there, learnt `how`: the done line, keeping what `keeps`
    /// says. `before`: the line before this run's first attempt; `sends`: this run's sends.
    pub(crate) fn land(
        &mut self,
        key: Key,
        (keeps, receipts): (&life::Keeps, &[life::Receipt]),
        how: life::How,
        before: Option<&KeyLine>,
        sends: u32,
    ) -> Result<Step, Error> {
        let landed = keeps.landed(receipts, how, false);
        let answer = life::Answer::Landed(landed);
        let answered = Event::Answered {
            answer,
            before,
            sends,
        };
        self.apply(key, &answered)
    }

    /// `retry --not-ours ID`: the human's word on the key's line first, so that the lookup that
    /// follows leaves that copy out; `names`: the platform's names of its copies, which say
    /// whether ID is this generation's. The ID, when it was recorded.
    pub(crate) fn not_ours(
        &mut self,
        key: Key,
        names: Option<&dyn crate::targets::Names>,
    ) -> Result<Option<String>, Error> {
        let plan = self.run.plan;
        let (life::Mode::Retry(life::Lever::NotOurs(id)), false, Some(line)) =
            (&plan.mode, plan.dry_run, self.line(key))
        else {
            return Ok(None);
        };
        let here = (names.and_then(|n| n.copy_of(line.place_key(), id)))
            .is_some_and(|(g, _)| g == line.copies.current.generation);
        let act = life::Act::NotOurs {
            id: id.clone(),
            here,
        };
        self.apply(key, &Event::Human(&act))?;
        Ok(Some(id.clone()))
    }

    /// Part `n` of the key's thread (with its link, for part 0) on the line: sent, or found by
    /// a lookup (`cut_off`: after its thread was cut off, by what it replies to;
    /// `Event::PartLanded`).
    pub(crate) fn part(
        &mut self,
        key: Key,
        n: usize,
        (part, url): (&life::Part, Option<&str>),
        cut_off: bool,
    ) -> Result<Step, Error> {
        let landed = Event::PartLanded {
            n,
            part,
            url,
            cut_off,
        };
        self.apply(key, &landed)
    }

    /// Whether the edit of `post` is sent to the copy `line` records (`life::check_edit`;
    /// `forced`: `retry --force`): its edit hash now against the line's, and under the older
    /// rules (before images were sent; before this target had a template, when it has one now).
    /// A line from before edit hashes were recorded gets the current one, and nothing is sent.
    pub(crate) fn edit_to_send(
        &mut self,
        line: &KeyLine,
        post: &Post,
        forced: bool,
    ) -> Result<bool, Error> {
        let new = self.edit_mark(post);
        let before_template = self.cfg.template.is_some().then(|| post.edit_mark(None));
        let earlier = life::Earlier {
            before_images: &post.edit_mark_before_images(),
            before_template: before_template.as_deref(),
        };
        match life::check_edit(line.edits.payload.as_deref(), &new, earlier, forced) {
            life::EditCheck::Baseline => {
                self.apply(line.key, &Event::Baseline(&new))?;
                Ok(false)
            }
            life::EditCheck::Unchanged => Ok(false),
            life::EditCheck::Send => Ok(true),
        }
    }

    /// The edit hash of `post` on this target (`Post::edit_mark`, with its template's).
    pub(crate) fn edit_mark(&self, post: &Post) -> String {
        post.edit_mark(self.template_mark())
    }

    /// What the done line of `post`'s copy keeps: its fingerprint and edit hash, and the
    /// uploads `line` records.
    pub(crate) fn keeps(&self, post: &Post, line: Option<&KeyLine>) -> life::Keeps {
        life::Keeps {
            fp: post.fingerprint.clone(),
            payload: self.edit_mark(post),
            media: line.and_then(|l| l.copies.current.media.clone()),
            copy: None,
        }
    }
}
