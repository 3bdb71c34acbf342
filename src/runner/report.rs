//! Telling: the printed line, the trace line and the summary tally of each step of a key's
//! life; what a failure looks like to the rules; what an attempt sent, kept for its lookup.

use super::TargetRun;
use crate::clock::stamp;
use crate::error::{Class, Error, Kind, Server};
use crate::life::{self, Event, Exit, KeyLine, Looked, Phase, Step, Word};
use crate::outside::escape;
use crate::post::Post;
use jiff::civil::Date;
use std::fmt::Write as _;
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

pub(super) fn detail(err: &Error) -> String {
    let class = err.class().map_or("error", Class::as_str);
    format!("class={class} reason={:?}", err.reason())
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
        key: Date,
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
        key: Date,
        step: &Step,
        title: Option<&str>,
        started: Instant,
        action: &'static str,
        note: Option<&str>,
    ) -> Result<(), Error> {
        let title = title.map(|t| format!(" {t:?}")).unwrap_or_default();
        match step.word {
            Word::Published | Word::Confirmed | Word::AlreadyThere => {
                let line = step.written().expect("a done line");
                let id = line.copy.id.clone().unwrap_or_default();
                let mut detail = format!("id={id} duration_ms={}", started.elapsed().as_millis());
                if let Some(note) = note {
                    let _ = write!(detail, " note={note:?}");
                }
                let action = match step.word {
                    Word::AlreadyThere => "dedup",
                    Word::Confirmed => "confirm",
                    _ => action,
                };
                if action == "dedup" {
                    detail.push_str(" (found before sending: recorded as done, not sent again)");
                }
                self.trace(key, action, "done", &detail);
                let word = step.word.text();
                self.count(word, key, word, &format!("{detail}{title}"));
                if let Some(text) = &step.say {
                    self.trace(key, action, "duplicate", text);
                    let text = self.shown(&format!("{text} ({})", self.target.where_to_look(key)));
                    self.run
                        .progress
                        .err(&format!("dayrun: {key} {}: {text}", self.cfg.name));
                    self.outcome.tally.add("duplicate");
                }
            }
            Word::Failed => self.report(key, step, None)?,
            Word::Unconfirmed => {
                let text = step.say.clone().unwrap_or_default();
                self.count("unconfirmed", key, "unconfirmed", &text);
            }
            Word::HeldBack => {
                self.outcome.held.push(key);
                self.outcome.tally.add("held back");
                let text = step.say.clone().unwrap_or_else(|| {
                    "looked up: not on the target; held back (its date is past the catch-up window)"
                        .into()
                });
                self.say(key, "held back", &text);
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

    /// Print a failure: its class and reason (with the file and line, for a post's error),
    /// and what to do.
    pub(super) fn report(
        &mut self,
        key: Date,
        step: &Step,
        err: Option<&Error>,
    ) -> Result<(), Error> {
        let line = step.written().cloned().or_else(|| self.line(key));
        let (class, reason) = match line.as_ref().map(|l| l.phase) {
            Some(Phase::Failed(class, _)) => (class, line.as_ref().and_then(|l| l.reason.clone())),
            // A refused edit: its done line keeps the reason and the hint together; the hint
            // goes on a line of its own here.
            Some(Phase::Done) if err.is_some() => {
                (err.and_then(Error::class).unwrap_or(Class::Unknown), None)
            }
            _ => (
                err.and_then(Error::class).unwrap_or(Class::Unknown),
                line.as_ref().and_then(|l| l.reason.clone()),
            ),
        };
        self.outcome.tally.add("failed");
        // A failure the next run retries by itself, but that has lasted: a person must act.
        let escalated = step.exit == Exit::NeedsHuman
            && line
                .as_ref()
                .is_some_and(|l| matches!(l.phase, Phase::Failed(Class::RetrySafe, _)));
        let class_word = match err.map(|e| e.kind) {
            Some(Kind::Config) => "setup".to_string(),
            _ if escalated => format!("{class}, needs you now"),
            _ => class.to_string(),
        };
        let text = match err {
            Some(err) if err.path.is_some() => err.located(),
            _ => reason.unwrap_or_else(|| err.map(Error::located).unwrap_or_default()),
        };
        self.say(key, "failed", &format!("({class_word}): {text}"));
        let given = err
            .and_then(|e| e.hint.clone())
            .or_else(|| step.say.clone());
        let server = err.and_then(|e| e.server.as_deref());
        let hint = match (escalated, line.as_ref()) {
            (true, Some(line)) => Some(self.escalation(line, server)),
            _ => self.hint(key, line.as_ref(), given),
        };
        if let Some(hint) = hint {
            self.run.progress.out(&format!("  {}", self.shown(&hint)));
        }
        Ok(())
    }

    /// What a human does next about a failed line.
    pub(super) fn hint(
        &self,
        key: Date,
        line: Option<&KeyLine>,
        given: Option<String>,
    ) -> Option<String> {
        let name = &self.cfg.name;
        match line.map(|l| l.phase) {
            Some(Phase::Failed(Class::Unknown, Looked::Nothing))
                if line.is_some_and(|l| l.reason.as_deref().is_some_and(|r| r.contains("is not this post"))) =>
            {
                Some(format!(
                    "look at that copy on {name}: if it is this post, `dayrun mark {key} done --id ID --target {name}`; if it is not, `dayrun retry {key} --not-ours ID --target {name}` publishes beside it (and remembers it is not ours)"
                ))
            }
            Some(Phase::Failed(Class::Unknown, Looked::Nothing)) => Some(self.advice(key)),
            Some(Phase::Failed(Class::Auth, _)) => {
                given.or_else(|| {
                    Some(match self.target.secrets().file() {
                        Some(file) => format!(
                            "renew the credential in {}; the next run retries by itself once it changes",
                            file.display()
                        ),
                        None => "renew the credential where the script reads it".into(),
                    })
                })
            }
            Some(Phase::Failed(Class::Rejected, _)) => given.or_else(|| {
                Some(format!(
                    "fix and save the post (it is sent again once it changes), or `dayrun retry {key}` sends it as it is"
                ))
            }),
            _ => given,
        }
    }

    /// Why a failure the next run retries by itself now needs a person (it has lasted past
    /// `escalate_after`), where it fails, and what to do.
    fn escalation(&self, line: &KeyLine, server: Option<&Server>) -> String {
        let (key, name) = (line.key, &self.cfg.name);
        let since = line.first_failure.as_deref().unwrap_or(&line.at);
        let after = crate::clock::span(self.here.rules.escalate_after.as_secs() as i64);
        let check = match server {
            Some(server) => format!(
                "check that the server at {} is up and reachable from here",
                server.host
            ),
            None => format!("find out why {name} keeps failing (the reason above) and fix it"),
        };
        format!(
            "failing since {since}, past `escalate_after` ({after}): {check}; every run retries the key by itself, and `dayrun retry {key} --target {name}` sends it at once after the fix"
        )
    }

    /// What a human does with a key dayrun cannot confirm.
    pub(super) fn advice(&self, key: Date) -> String {
        let name = &self.cfg.name;
        format!(
            "look for {}; if it is there: `dayrun mark {key} done --id ID --target {name}`; if it is not: `dayrun retry {key} --absent --target {name}`",
            self.target.where_to_look(key)
        )
    }

    /// What this target's keys keep beside their state (`state/<target>.sent/`).
    pub(super) fn sent(&self) -> Sent {
        Sent::of(self.run.state_dir, &self.cfg.name)
    }

    /// The exact document of the key's latest attempt, for a target whose lookup is handed
    /// what was sent (`Find::keeps_payload`; kept durably before the attempt).
    pub(super) fn kept_payload(&self, key: Date) -> Option<serde_json::Value> {
        if !self.here.keeps_payload {
            return None;
        }
        let bytes = self.sent().kept(key, Kept::Payload)?;
        serde_json::from_slice(&bytes).ok()
    }

    /// A post that cannot be read or derived: recorded once (an attempt that may have landed
    /// before the file broke stays on the line), reported every run until fixed.
    pub(super) fn local_error(&mut self, key: Date, err: Error) -> Result<(), Error> {
        let reason = self.redact(&err.reason());
        let line = self.line(key);
        let same = line.as_ref().is_some_and(|l| {
            matches!(l.phase, Phase::Failed(Class::Local, _))
                && l.reason.as_deref() == Some(life::reason(&reason).as_str())
        });
        // The post's error, not the target's: told in full once a run, then "as above".
        let first = self.run.told.borrow_mut().insert(err.located());
        if same || self.run.plan.dry_run {
            self.outcome.tally.add("failed");
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
        self.trace(key, "read", "failed", &detail(&err));
        self.outcome.exit.merge(Exit::NeedsHuman);
        let _ = step;
        self.outcome.tally.add("failed");
        self.tell_local(key, &err, first);
        Ok(())
    }

    /// A post's error: in full for the first target that meets it this run, then in short.
    fn tell_local(&self, key: Date, err: &Error, first: bool) {
        match first {
            true => {
                self.say(key, "failed", &format!("(local): {}", err.located()));
                if let Some(hint) = &err.hint {
                    self.run.progress.out(&format!("  {}", self.shown(hint)));
                }
            }
            false => self.say(key, "failed", "(local): the post's error above"),
        }
    }

    pub(super) fn count(&mut self, tally: &'static str, key: Date, word: &str, detail: &str) {
        self.outcome.tally.add(tally);
        let quiet = matches!(
            tally,
            "done" | "stale" | "scheduled" | "draft" | "failed" | "retracted"
        ) && word != "retracted"
            && !self.run.plan.dry_run
            && !matches!(self.run.plan.mode, life::Mode::Retry(_));
        if !quiet {
            self.say(key, word, detail);
        }
    }

    pub(super) fn say(&self, key: Date, word: &str, detail: &str) {
        if detail.is_empty() {
            self.run
                .progress
                .out(&format!("{key} {} {word}", self.cfg.name));
        } else {
            let detail = self.shown(detail);
            self.run
                .progress
                .out(&format!("{key} {} {word} {detail}", self.cfg.name));
        }
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

    pub(super) fn trace(&mut self, key: Date, action: &str, result: &str, detail: &str) {
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
