//! What one target's pass says (`Voice`): each line it prints (beside the progress bar), each
//! trace line, and the tally, the keys by kind and the exit code it ends with. Every text from
//! outside is redacted, escaped and bounded before it is shown. The words are `tell`'s; the
//! runner decides nothing here and this decides nothing for the runner.

use crate::clock::{Clock, stamp};
use crate::config::TargetConfig;
use crate::error::Error;
use crate::images::Image;
use crate::life::{self, Decision, Exit, Key, KeyLine, Phase, Skip, Step, Then, Word};
use crate::look::Seen;
use crate::outside::escape;
use crate::post::Post;
use crate::progress::Progress;
use crate::redact::Redactor;
use crate::tally::{Count, Tally};
use crate::targets::{Media, Secrets};
use crate::tell::{self, Hints, Teller};
use crate::trace::Trace;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

/// One target's pass, as it is told.
pub struct Voice<'a> {
    teller: Teller<'a>,
    /// Masks the target's secrets and every secret of the run.
    redactor: Redactor,
    /// Where the target's credential lives, for the hint after an auth failure.
    credential: Option<PathBuf>,
    trace: Trace,
    clock: &'a Clock,
    progress: &'a Progress,
    /// The target's rules, for the windows the hints, skips and summary name.
    rules: life::Rules,
    pub outcome: Outcome,
}

/// What a target's pass tells at its end (`Voice::finish`).
#[derive(Default)]
pub struct Outcome {
    pub exit: Exit,
    pub tally: Tally,
    stale: Vec<Key>,
    pub drafts: Vec<Key>,
    /// Keys held back: they failed, and their date is past the catch-up window.
    held: Vec<Key>,
    /// Done keys whose post file is gone.
    pub deleted: Vec<Key>,
    /// Keys whose copies a retract removed (or found gone) here.
    pub removed: BTreeSet<Key>,
}

/// Where a person looks for a key's copy on the target (`Target::where_to_look`), asked only
/// when a line names it.
pub type Look<'l> = &'l dyn Fn(Key) -> String;

impl<'a> Voice<'a> {
    /// The voice of the pass of `cfg` (`rules`: its rules) in the run `run`: its secrets
    /// masked (`secrets`), its trace beside its state.
    pub(crate) fn of(
        cfg: &'a TargetConfig,
        secrets: &Secrets,
        run: crate::book::Shared<'a>,
        rules: life::Rules,
    ) -> Voice<'a> {
        let plan = run.plan;
        Voice {
            teller: Teller {
                target: &cfg.name,
                dry_run: plan.dry_run,
                retry: matches!(plan.mode, life::Mode::Retry(_)),
            },
            redactor: secrets.redactor.clone(),
            credential: secrets.file().map(std::path::Path::to_path_buf),
            trace: Trace::new(run.state_dir, &cfg.name),
            clock: run.clock,
            progress: run.progress,
            rules,
            outcome: Outcome::default(),
        }
    }

    /// The run's progress bar, made once every pass is built (it counts their keys).
    pub fn show_progress(&mut self, progress: &'a Progress) {
        self.progress = progress;
    }

    /// The progress bar shows `key` on this target while it is sent or looked up.
    pub fn start(&self, key: Key) {
        self.progress.start(&key.to_string(), self.teller.target);
    }

    /// The progress bar moves past the key it showed.
    pub fn advance(&self) {
        self.progress.advance();
    }

    /// A line about `key`: counted, and printed when the run says such lines.
    pub fn count(&mut self, count: Count, key: Key, word: &str, detail: &str) {
        self.outcome.tally.add(count);
        if self.teller.says(count) {
            self.say(key, word, detail);
        }
    }

    pub fn say(&self, key: Key, word: &str, detail: &str) {
        let detail = (!detail.is_empty()).then(|| self.shown(detail));
        let line = self.teller.line(key, word, detail.as_deref());
        self.progress.out(&line);
    }

    /// A hint (or any line that explains the one before it), shown under it.
    pub fn say_under(&self, text: &str) {
        self.progress.out(&tell::line::under(&self.shown(text)));
    }

    /// `text` with the target's secrets (and every secret of the run) masked.
    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact(text)
    }

    /// Text that may hold something from outside, as it may be shown or traced: redacted,
    /// control characters escaped, bounded.
    pub fn shown(&self, text: &str) -> String {
        escape(&self.redact(text), 4000)
    }

    /// One trace line (none in a dry run, which changes nothing).
    pub fn trace(&mut self, key: Key, action: &str, result: &str, detail: &str) {
        if !self.teller.dry_run {
            let detail = self.shown(detail);
            let key = key.to_string();
            let stamp = stamp(&self.clock.now());
            self.trace.line(&stamp, &key, action, result, &detail);
        }
    }

    /// What the hints for `key` on this target name; `look`: where its copy is.
    pub fn hints(&self, key: Key, look: Look) -> Hints<'_> {
        Hints {
            key,
            target: self.teller.target,
            look: look(key),
            credential: self.credential.clone(),
            escalate_after: self.rules.escalate_after,
        }
    }

    /// What a step of a key's life did: the printed line, the trace line, the tally.
    /// `line`: the key's line the step wrote or left.
    pub fn step(&mut self, key: Key, step: &Step, line: Option<&KeyLine>, told: Told, look: Look) {
        match step.word {
            Word::Published | Word::Confirmed | Word::AlreadyThere => {
                let line = step.written().expect("a done line");
                let id = line.copies.current.id.as_deref().unwrap_or_default();
                let millis = told.started.elapsed().as_millis();
                let (action, detail) =
                    tell::line::done(step.word, told.action, id, millis, told.note);
                self.trace(key, action, "done", &detail);
                let count = Count::of_done(step.word).expect("a done word");
                let titled = tell::line::titled(&detail, told.title);
                self.count(count, key, step.word.text(), &titled);
                if let Some(text) = &step.say {
                    self.duplicate(key, action, text, look);
                }
            }
            Word::Updated => {
                let id = line.and_then(|l| l.copies.current.id.as_deref());
                let millis = told.started.elapsed().as_millis();
                let detail = format!("id={} duration_ms={millis}", id.unwrap_or_default());
                let detail = tell::line::titled(&detail, told.title);
                self.trace(key, "update", "done", &detail);
                self.count(Count::Updated, key, "updated", &detail);
            }
            Word::Duplicate => {
                let text = step.say.clone().unwrap_or_default();
                self.duplicate(key, told.action, &text, look);
            }
            Word::Failed => self.failed(key, step, line, None, look),
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
                self.trace(key, told.action, "forgotten", &text);
                self.say(key, "forgotten", &text);
            }
            _ => {
                if let Some(text) = &step.say {
                    self.say(key, "note", text);
                }
            }
        }
    }

    /// A DUPLICATE: traced, told on stderr with where to look, counted.
    fn duplicate(&mut self, key: Key, action: &str, text: &str, look: Look) {
        self.trace(key, action, "duplicate", text);
        let text = self.shown(&tell::line::duplicate(text, &look(key)));
        self.progress.err(&self.teller.duplicate(key, &text));
        self.outcome.tally.add(Count::Duplicate);
    }

    /// A failure: its class and reason (with the file and line, for a post's error), and what
    /// to do. `line`: the key's line the step wrote or left.
    pub fn failed(
        &mut self,
        key: Key,
        step: &Step,
        line: Option<&KeyLine>,
        err: Option<&Error>,
        look: Look,
    ) {
        let told = tell::failure::told(step, line, err, &self.hints(key, look));
        self.outcome.tally.add(Count::Failed);
        self.say(key, "failed", &told.said);
        if let Some(hint) = told.hint {
            self.say_under(&hint);
        }
    }

    /// A post's error: in full for the first target that meets it this run, then in short.
    pub fn local(&mut self, key: Key, err: &Error, first: bool) {
        self.outcome.tally.add(Count::Failed);
        self.say(key, "failed", &tell::line::local(&err.located(), first));
        if let Some(hint) = err.hint.as_ref().filter(|_| first) {
            self.say_under(hint);
        }
    }

    /// A decision that sends nothing and looks nothing up: said, counted and traced.
    /// `line`: the key's line.
    pub fn decision(&mut self, key: Key, decision: Decision, line: Option<&KeyLine>, look: Look) {
        match decision {
            Decision::Skip(skip) => self.skip(key, skip, line),
            Decision::Wait(why) => {
                self.outcome.tally.add(Count::Failed);
                self.say(key, "waiting", &why);
                if let Some(hint) = self.hints(key, look).hint(line, None) {
                    self.say_under(&hint);
                }
            }
            Decision::EditFailed(why) => {
                self.outcome.tally.add(Count::EditFailed);
                self.say(key, "edit failed", &tell::skip::edit_failed(&why));
            }
            Decision::Hold => {
                self.outcome.held.push(key);
                self.outcome.tally.add(Count::HeldBack);
            }
            Decision::Drop => {
                self.say(key, "forgotten", tell::skip::DROPPED);
                self.trace(key, "forget", "done", tell::skip::DROPPED);
            }
            // A published copy with no id: the retract fails for it, naming what to do.
            Decision::NothingToRetract(why) if line.is_some_and(|l| l.phase == Phase::Done) => {
                self.outcome.tally.add(Count::Failed);
                self.say(key, "failed", &tell::skip::cannot_retract(&why));
            }
            Decision::NothingToRetract(why) => self.count(Count::Skip, key, "skip", &why),
            _ => unreachable!("sent or looked up by the runner"),
        }
    }

    /// A skip: counted and said as `tell::skip` words it; a late edit is said whatever the
    /// run, and traced.
    fn skip(&mut self, key: Key, skip: Skip, line: Option<&KeyLine>) {
        let has_id =
            skip == Skip::CannotUpdate && line.is_some_and(|l| l.copies.current.id.is_some());
        let at = tell::skip::Skipping {
            key,
            target: self.teller.target,
            rules: &self.rules,
            has_id,
        };
        let said = tell::skip::skip(&skip, at);
        match skip {
            Skip::LateEdit => {
                self.outcome.tally.add(said.tally);
                self.say(key, said.word, &said.detail);
                self.trace(key, "edit", "late", &said.detail);
                return;
            }
            Skip::Stale => self.outcome.stale.push(key),
            Skip::Draft => self.outcome.drafts.push(key),
            _ => {}
        }
        self.count(said.tally, key, said.word, &said.detail);
    }

    /// The trace line of one lookup's answer (`tell::look`; `first`: before any attempt), as
    /// the key's life took it (`step`); a copy found is told with the step that records it.
    pub(crate) fn looked(&mut self, key: Key, seen: &Seen, step: &Step, first: bool) {
        use crate::tell::look::{self, Answer};
        let answer = match seen {
            Seen::Found(_) => return,
            Seen::Absent => Answer::Absent {
                sending: matches!(step.then, Then::Send(_)),
            },
            Seen::NotYet(_) => Answer::NotYet(step.say.as_deref()),
            Seen::CannotTell(why) | Seen::Whose(why) => Answer::CannotTell(why),
            Seen::Transient(why) => Answer::Transient(why),
            Seen::Foreign(receipts) => {
                Answer::Foreign(receipts.iter().map(|r| r.id.as_str()).collect())
            }
            Seen::Refused(err) => Answer::Refused(err.reason()),
        };
        if let Some(line) = look::look(answer, first) {
            self.trace(key, line.action, line.result, &line.detail);
        }
    }

    /// Every copy is removed (`now`: the retracted line; `before`: the line as the retract
    /// began): traced and counted with its id, whether a lookup showed it gone, and the other
    /// ids `removed` this time. Said whatever the run: the retract is what was asked.
    pub fn retracted(
        &mut self,
        key: Key,
        before: &KeyLine,
        now: Option<&KeyLine>,
        removed: &[String],
    ) {
        let id = now.and_then(|l| l.copies.current.id.as_deref());
        let verified = !matches!(
            now.map(|l| l.phase),
            Some(Phase::Retracted { verified: false })
        );
        let more = life::removed_note(before, removed);
        let (id, target) = (id.unwrap_or_default(), self.teller.target);
        let text = tell::retract::removed(id, verified, target, &more);
        self.trace(key, "retract", "done", &text);
        self.outcome.tally.add(Count::Retracted);
        self.say(key, "retracted", &text);
    }

    /// The warnings of `post`'s images on this target: each without alt text (the post's, not
    /// the target's: said once a run, `told`), then those left out past the platform's limit
    /// (`rest`, beside the `sent` it takes; `who`: the platform), traced too.
    pub fn images(
        &mut self,
        post: &Post,
        (sent, rest, who): (usize, &[Image], &str),
        told: &mut BTreeSet<String>,
    ) {
        let key = post.key;
        for image in post.images.iter().filter(|i| i.alt.is_empty()) {
            let text = tell::images::no_alt(&post.path, image.line, &image.srcs[0]);
            if told.insert(text.clone()) {
                self.say(key, "warning", &text);
            }
        }
        if !rest.is_empty() {
            let names: Vec<String> = rest.iter().map(|i| i.path.display().to_string()).collect();
            let text = tell::images::left_out(&names, rest.len() + sent, who);
            self.say(key, "warning", &text);
            self.trace(key, "image", "left-out", &text);
        }
    }

    /// Trace a failure (`err`) of `action` as the trace keeps it (`tell::failure::detail`).
    pub fn trace_failure(&mut self, key: Key, action: &str, result: &str, err: &Error) {
        self.trace(key, action, result, &tell::failure::detail(err));
    }

    /// A removal whose outcome is unknown and that no lookup can tell (`why`): traced, and
    /// counted unconfirmed.
    pub fn retract_unsure(&mut self, key: Key, why: &str) {
        self.trace(key, "retract", "unknown", why);
        let text = tell::retract::unsure(key, why);
        self.count(Count::Unconfirmed, key, "unconfirmed", &text);
    }

    /// A post found a draft as it is read to be sent: skipped, counted.
    pub fn draft(&mut self, key: Key) {
        self.outcome.drafts.push(key);
        self.count(Count::Draft, key, "draft", tell::skip::DRAFT);
    }

    /// The images of `post` that `media` (the uploads the key's line records) holds already:
    /// each traced as uploaded earlier.
    pub fn reused(&mut self, key: Key, post: &Post, media: &Media) {
        for image in &post.images {
            if let Some(value) = media.get(image) {
                let line = format!("{} {value}: uploaded earlier", image.sha16());
                self.trace(key, "image", "reused", &line);
            }
        }
    }

    /// An update whose outcome cannot be told now (`said`: why): the next run reads the copy
    /// back.
    pub fn update_unsure(&mut self, key: Key, said: Option<&str>) {
        let text = said.unwrap_or_default();
        self.trace(key, "update", "not-yet", text);
        self.count(Count::Unconfirmed, key, "unconfirmed", text);
    }

    /// `post` published in a batch of `landed` keys that took `took` milliseconds, as copy
    /// `id`: traced and counted with the batch's time, said as such (each key did not take it
    /// alone).
    pub fn batched(&mut self, post: &Post, id: &str, (landed, took): (usize, u128)) {
        let detail = format!("id={id} batch_keys={landed} batch_ms={took}");
        self.trace(post.key, "publish", "done", &detail);
        let said = tell::line::titled(&detail, Some(&post.title));
        self.count(Count::Published, post.key, "published", &said);
    }

    /// A key that waits for a copy its text links to (`err`: which, and for how long): counted
    /// as failed, and said with the reason its line (`line`) keeps.
    pub fn waiting(&mut self, key: Key, line: Option<&KeyLine>, err: &Error) {
        self.outcome.tally.add(Count::Failed);
        let reason = line.and_then(|l| l.reason.as_deref());
        self.say(key, "waiting", reason.unwrap_or(&err.message));
    }

    /// A done key whose edit is not sent: the copy holds the post as it is (in place, for a
    /// retry, which asked for it).
    pub fn unchanged(&mut self, key: Key) {
        let why = match self.teller.retry {
            true => tell::skip::DONE_IN_PLACE,
            false => "done",
        };
        self.count(Count::Done, key, "skip", why);
    }

    /// `key` took over `old`'s line (its post renamed; its copies at `place`): no deleted
    /// post's copy any more. Traced and said (a dry run says what the run would do).
    pub fn carried(&mut self, key: Key, old: Key, place: Key) {
        self.outcome.deleted.retain(|k| *k != old);
        let detail = format!("from={old} place={place}");
        self.trace(key, "carry", "renamed", &detail);
        let said = tell::line::carried(old, self.teller.dry_run);
        self.say(key, "renamed", &said);
    }

    /// The target's one summary line (`tell::summary`); deleted keys are counted here, where
    /// their range and advice are known. The exit of the pass.
    pub fn finish(&mut self) -> Exit {
        if self.teller.dry_run {
            return self.outcome.exit;
        }
        for _ in &self.outcome.deleted {
            self.outcome.tally.add(Count::Deleted);
        }
        let outcome = &self.outcome;
        let ranges = tell::summary::Ranges {
            stale: &outcome.stale,
            drafts: &outcome.drafts,
            held: &outcome.held,
            deleted: &outcome.deleted,
        };
        let line = tell::summary::pass(
            self.teller.target,
            &outcome.tally,
            ranges,
            self.rules.catchup_days,
        );
        crate::say::out(&line);
        crate::tally::passed(self.teller.target, &self.outcome.tally);
        self.outcome.exit
    }
}

/// What a step's line says besides the step: the post's title (`None`: its post is gone),
/// when the action began, what the trace calls it, and a note from the target.
#[derive(Clone, Copy)]
pub struct Told<'t> {
    pub title: Option<&'t str>,
    pub started: Instant,
    pub action: &'static str,
    pub note: Option<&'t str>,
}

impl<'t> Told<'t> {
    /// A step of `action` that began at `started`, for the post titled `title`.
    pub fn new(title: Option<&'t str>, started: Instant, action: &'static str) -> Told<'t> {
        Told {
            title,
            started,
            action,
            note: None,
        }
    }

    /// With the target's note on the line.
    pub fn note(self, note: Option<&'t str>) -> Told<'t> {
        Told { note, ..self }
    }
}
