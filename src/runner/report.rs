//! Telling, the runner's side: each step of a key's life counted, printed and traced as
//! `tell` words it; what a failure looks like to the rules; what an attempt sent, kept for its
//! lookup.

use super::TargetRun;
use crate::clock::stamp;
use crate::error::{Class, Error, Kind};
use crate::life::Key;
use crate::life::{self, Event, Exit, Phase, Step, Word};
use crate::outside::escape;
use crate::post::Post;
use crate::tally::Count;
use crate::tell;
use crate::tell::{Hints, Teller};
use std::path::Path;
use std::time::{Duration, Instant};
use store::sent::{Kept, Sent};

/// A failure, owned, as the key's life reads it (`life::Failure` borrows from this).
#[derive(Debug, Clone)]
pub(super) struct Failed {
    pub class: Class,
    reason: String,
    cred: Option<String>,
    fp: Option<String>,
    payload: Option<String>,
    setup: bool,
    wait: Option<Duration>,
    stop: bool,
    hint: Option<String>,
}

impl Failed {
    /// `reason`: the error's reason, already redacted.
    /// `payload`: the edit hash of the post it failed for (`TargetRun::edit_mark`).
    pub fn of(
        err: &Error,
        reason: String,
        post: Option<(&Post, String)>,
        cred: Option<String>,
        cap: Duration,
    ) -> Failed {
        let class = err.class().unwrap_or(Class::Unknown);
        let setup = err.kind == Kind::Config;
        let long = err.retry_after.is_some_and(|wait| wait > cap);
        Failed {
            class,
            reason,
            cred: cred.filter(|_| class == Class::Auth),
            fp: post.as_ref().map(|(p, _)| p.fingerprint.clone()),
            payload: post.map(|(_, payload)| payload),
            setup,
            wait: err.retry_after.filter(|_| !long),
            stop: setup || class == Class::Auth || long,
            hint: err.hint.clone(),
        }
    }

    pub fn borrow(&self) -> life::Failure<'_> {
        life::Failure {
            class: self.class,
            reason: &self.reason,
            cred: self.cred.as_deref(),
            fp: self.fp.as_deref(),
            payload: self.payload.as_deref(),
            setup: self.setup,
            wait: self.wait,
            stop: self.stop,
            hint: self.hint.as_deref(),
        }
    }
}

impl<'a> TargetRun<'a> {
    /// The hash of the target's template, part of its posts' edit hash; `None`: it has none.
    pub(super) fn template_mark(&self) -> Option<&'a str> {
        self.cfg
            .template
            .as_ref()
            .map(crate::template::Template::mark)
    }
}

impl TargetRun<'_> {
    /// The edit hash of `post` on this target (`Post::edit_mark`, with its template's).
    pub(super) fn edit_mark(&self, post: &Post) -> String {
        post.edit_mark(self.template_mark())
    }

    /// Tell what a step of a key's life did: the printed line, the trace line, the tally.
    pub(super) fn tell(
        &mut self,
        key: Key,
        step: &Step,
        post: &Post,
        started: Instant,
        action: &'static str,
        note: Option<&str>,
    ) -> Result<(), Error> {
        self.tell_line(key, step, Some(&post.title), started, action, note)
    }

    /// `tell`, for a key whose post may be gone (`title`: `None`).
    pub(super) fn tell_line(
        &mut self,
        key: Key,
        step: &Step,
        title: Option<&str>,
        started: Instant,
        action: &'static str,
        note: Option<&str>,
    ) -> Result<(), Error> {
        match step.word {
            Word::Published | Word::Confirmed | Word::AlreadyThere => {
                let line = step.written().expect("a done line");
                let id = line.copies.current.id.as_deref().unwrap_or_default();
                let millis = started.elapsed().as_millis();
                let (action, detail) = tell::line::done(step.word, action, id, millis, note);
                self.trace(key, action, "done", &detail);
                let count = Count::of_done(step.word).expect("a done word");
                let word = step.word.text();
                self.count(count, key, word, &tell::line::titled(&detail, title));
                if let Some(text) = &step.say {
                    self.alert_duplicate(key, action, text);
                }
            }
            Word::Duplicate => {
                let text = step.say.clone().unwrap_or_default();
                self.alert_duplicate(key, action, &text);
            }
            Word::Failed => self.report(key, step, None)?,
            Word::Unconfirmed => {
                let text = step.say.clone().unwrap_or_default();
                self.count(Count::Unconfirmed, key, "unconfirmed", &text);
            }
            Word::HeldBack => {
                self.outcome.held.push(key);
                self.outcome.tally.add(Count::HeldBack);
                let text = step.say.as_deref().unwrap_or(tell::line::HELD_BACK);
                self.say(key, "held back", text);
            }
            Word::Forgotten => {
                let text = step.say.clone().unwrap_or_default();
                self.trace(key, action, "forgotten", &text);
                self.say(key, "forgotten", &text);
            }
            _ => {
                if let Some(text) = &step.say {
                    self.say(key, "note", text);
                }
            }
        }
        Ok(())
    }

    /// A DUPLICATE: traced, told on stderr with where to look, counted.
    fn alert_duplicate(&mut self, key: Key, action: &str, text: &str) {
        self.trace(key, action, "duplicate", text);
        let look = self.target.where_to_look(key);
        let text = self.shown(&tell::line::duplicate(text, &look));
        self.run.progress.err(&self.teller().duplicate(key, &text));
        self.outcome.tally.add(Count::Duplicate);
    }

    /// Print a failure: its class and reason (with the file and line, for a post's error),
    /// and what to do.
    pub(super) fn report(
        &mut self,
        key: Key,
        step: &Step,
        err: Option<&Error>,
    ) -> Result<(), Error> {
        let line = step.written().cloned().or_else(|| self.line(key));
        let told = tell::failure::told(step, line.as_ref(), err, &self.hints(key));
        self.outcome.tally.add(Count::Failed);
        self.say(key, "failed", &told.said);
        if let Some(hint) = told.hint {
            self.say_under(&hint);
        }
        Ok(())
    }

    /// What the hints for `key` on this target name.
    pub(super) fn hints(&self, key: Key) -> Hints<'_> {
        Hints {
            key,
            target: &self.cfg.name,
            look: self.target.where_to_look(key),
            credential: self.target.secrets().file().map(Path::to_path_buf),
            escalate_after: self.here.rules.escalate_after,
        }
    }

    /// Who tells on this target, and how much.
    pub(super) fn teller(&self) -> Teller<'_> {
        Teller {
            target: &self.cfg.name,
            dry_run: self.run.plan.dry_run,
            retry: matches!(self.run.plan.mode, life::Mode::Retry(_)),
        }
    }

    /// What this target's keys keep beside their state (`state/<target>.sent/`).
    pub(super) fn sent(&self) -> Sent {
        Sent::of(self.run.state_dir, &self.cfg.name)
    }

    /// The exact document of the key's latest attempt, for a target whose lookup is handed
    /// what was sent (`Find::keeps_payload`; kept durably before the attempt).
    pub(super) fn kept_payload(&self, key: Key) -> Option<serde_json::Value> {
        if !self.here.keeps_payload {
            return None;
        }
        let bytes = self.sent().kept(key, Kept::Payload)?;
        serde_json::from_slice(&bytes).ok()
    }

    /// A post that cannot be read or derived: recorded once (an attempt that may have landed
    /// before the file broke stays on the line), reported every run until fixed.
    pub(super) fn local_error(&mut self, key: Key, err: Error) -> Result<(), Error> {
        let reason = self.redact(&err.reason());
        let line = self.line(key);
        let same = line.as_ref().is_some_and(|l| {
            matches!(l.phase, Phase::Failed(Class::Local, _))
                && l.reason.as_deref() == Some(life::reason(&reason).as_str())
        });
        // The post's error, not the target's: told in full once a run, then "as above".
        let first = self.run.told.borrow_mut().insert(err.located());
        if same || self.run.plan.dry_run {
            self.outcome.tally.add(Count::Failed);
            self.tell_local(key, &err, first);
            return Ok(());
        }
        let failed = Failed::of(&err, reason, None, None, Duration::ZERO);
        let step = self.apply(
            key,
            &Event::Answered {
                answer: life::Answer::Failed(failed.borrow()),
                before: line.as_ref(),
                sends: u32::MAX,
            },
        )?;
        self.trace(key, "read", "failed", &tell::failure::detail(&err));
        self.outcome.exit.merge(Exit::NeedsHuman);
        let _ = step;
        self.outcome.tally.add(Count::Failed);
        self.tell_local(key, &err, first);
        Ok(())
    }

    /// A post's error: in full for the first target that meets it this run, then in short.
    fn tell_local(&self, key: Key, err: &Error, first: bool) {
        self.say(key, "failed", &tell::line::local(&err.located(), first));
        if let Some(hint) = err.hint.as_ref().filter(|_| first) {
            self.say_under(hint);
        }
    }

    pub(super) fn count(&mut self, count: Count, key: Key, word: &str, detail: &str) {
        self.outcome.tally.add(count);
        if self.teller().says(count) {
            self.say(key, word, detail);
        }
    }

    pub(super) fn say(&self, key: Key, word: &str, detail: &str) {
        let detail = (!detail.is_empty()).then(|| self.shown(detail));
        let line = self.teller().line(key, word, detail.as_deref());
        self.run.progress.out(&line);
    }

    /// A hint (or any line that explains the one before it), shown under it.
    pub(super) fn say_under(&self, text: &str) {
        self.run.progress.out(&tell::line::under(&self.shown(text)));
    }

    /// `text` with the target's secrets (and every secret of the run) masked.
    pub(super) fn redact(&self, text: &str) -> String {
        self.target.secrets().redact(text)
    }

    /// Text that may hold something from outside, as it may be shown or traced: redacted with
    /// the target's secrets, control characters escaped, bounded.
    pub(super) fn shown(&self, text: &str) -> String {
        escape(&self.redact(text), 4000)
    }

    pub(super) fn trace(&mut self, key: Key, action: &str, result: &str, detail: &str) {
        if !self.run.plan.dry_run {
            let detail = self.shown(detail);
            self.trace.line(
                &stamp(&self.run.clock.now()),
                &key.to_string(),
                action,
                result,
                &detail,
            );
        }
    }
}
