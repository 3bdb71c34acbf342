//! Recording and telling: the state transition, the trace line, the printed line and the
//! exit-code outcome of each action.

use super::carry::Carry;
use super::{TargetRun, detail};
use crate::clock::stamp;
use crate::error::{Class, Error, Kind};
use crate::outside::escape;
use crate::post::Post;
use crate::state::{Record, Status};
use crate::targets::{Receipt, mark};
use jiff::civil::Date;
use std::fmt::Write as _;
use std::time::Instant;

/// How a "cannot tell" reason begins, and what follows the earlier reason in it.
const UNKNOWN: &str = "outcome unknown (";
const CANNOT_TELL: &str = ") and the lookup cannot tell (";

impl TargetRun<'_> {
    /// Record what a lookup found: the first copy is the receipt. More than one copy means the
    /// post exists twice: said loudly, and a human is needed (nothing more is sent).
    pub(super) fn found(
        &mut self,
        post: &Post,
        receipts: Vec<Receipt>,
        action: &'static str,
    ) -> Result<(), Error> {
        self.done(post, receipts, action, Instant::now())
    }

    /// Record the key done: the receipt, when it was first published (kept by updates), and a
    /// hash of the payload sent, by which a later edit is noticed.
    pub(super) fn done(
        &mut self,
        post: &Post,
        receipts: Vec<Receipt>,
        action: &'static str,
        started: Instant,
    ) -> Result<(), Error> {
        let receipt = &receipts[0];
        let copies: Vec<&str> = receipts[1..].iter().map(|r| r.id.as_str()).collect();
        let mut record = Record::new(post.key, Status::Done, self.clock.stamp())
            .with("id", self.target.redact(&receipt.id))
            .with("fp", &post.fingerprint);
        if let Some(url) = &receipt.url {
            record = record.with("url", self.target.redact(url));
        }
        if action == "dedup" {
            record = record.with("dedup", "1");
        }
        // Which copy this is (`retry --force --new`) and its record key: the copy the target
        // recognises in the id (one found with no line behind it, after a lost state file), or
        // the attempt's pending line (or the line the lookup confirmed).
        match self.target.copy_of(post.key, &receipt.id) {
            Some((generation, rkey)) => {
                if generation > 0 {
                    record = record.with("generation", generation.to_string());
                }
                record = record.with("rkey", rkey);
            }
            None => {
                if let Some(line) = self.state.get(post.key) {
                    for field in ["generation", "rkey"] {
                        if let Some(value) = line.get(field) {
                            record = record.with(field, value.into_owned());
                        }
                    }
                }
            }
        }
        // The uploads the copy uses (an edit reuses them); the others are listed in the trace.
        let media = self
            .state
            .get(post.key)
            .and_then(|l| l.get("media").map(|m| m.into_owned()));
        if media.is_some() {
            let kept = self.unattached(post.key, post, media.as_deref());
            record = record.with("media", kept);
        }
        record = record
            .with("copies", self.target.redact(&copies.join(",")))
            .with("published", self.clock.stamp())
            .with("payload", payload_mark(post));
        self.state.set(record)?;
        self.drop_payload(post.key);
        let mut detail = format!(
            "id={} duration_ms={}",
            receipt.id,
            started.elapsed().as_millis()
        );
        if let Some(note) = &receipt.note {
            detail.push_str(&format!(" note={note:?}"));
        }
        let word = match action {
            "publish" => "published",
            "confirm" => "confirmed",
            _ => "already there",
        };
        if action == "dedup" {
            detail.push_str(" (found before sending: recorded as done, not sent again)");
        }
        self.trace(post.key, action, "done", &detail);
        self.count(word, post.key, word, &format!("{detail} {:?}", post.title));
        if !copies.is_empty() {
            let all: Vec<&str> = receipts.iter().map(|r| r.id.as_str()).collect();
            let text = format!(
                "DUPLICATE: {} holds {} copies of this post (ids {}); recorded id={} and sent nothing; delete the extra copies on {} by hand",
                self.cfg.name,
                receipts.len(),
                all.join(", "),
                receipt.id,
                self.cfg.name
            );
            self.trace(post.key, action, "duplicate", &text);
            let text = self.shown(&text);
            self.progress
                .err(&format!("dayrun: {} {}: {text}", post.key, self.cfg.name));
            *self.tally.entry("duplicate").or_default() += 1;
            self.outcome.needs_human = true;
        }
        Ok(())
    }

    /// Record a failure. `carry` is what earlier attempts may have left on the target; it stays
    /// on the line. `absent`: the last lookup proved the post absent (the next run looks again).
    pub(super) fn fail(
        &mut self,
        post: &Post,
        err: Error,
        carry: &Carry,
        absent: bool,
    ) -> Result<(), Error> {
        // A target whose setup is broken failed before sending: the key retries by itself.
        let class = match err.kind {
            Kind::Config => Class::RetrySafe,
            _ => err.class().unwrap_or(Class::Unknown),
        };
        let mut record = Record::new(post.key, Status::Failed, self.clock.stamp())
            .with("class", class.as_str())
            .with("reason", self.target.redact(&err.reason()))
            .with("fp", &post.fingerprint);
        if class == Class::Auth
            && let Some(cred) = self.target.credential()
        {
            record = record.with("cred", cred);
        }
        record = carry.stamp(record);
        if absent {
            record = record.with("lookup", "absent");
        }
        self.state.set(record)?;
        self.trace(post.key, "publish", "failed", &detail(&err));
        self.report(post.key, &err, true);
        Ok(())
    }

    /// An attempt may have landed and the lookup cannot say: never send; tell the human what
    /// to check and which command sends the post after they have looked.
    pub(super) fn cannot_tell(
        &mut self,
        post: &Post,
        lookup: Error,
        carry: &Carry,
        was: &str,
    ) -> Result<(), Error> {
        if lookup.class() == Some(Class::Auth) || lookup.kind == Kind::Config {
            return self.fail(post, lookup, carry, false);
        }
        // A reason that already says so is not wrapped again: a key a timer meets every
        // morning would grow its line by one wrapping a day.
        let mut was = was;
        while let Some(inner) = was
            .strip_prefix(UNKNOWN)
            .and_then(|rest| rest.rfind(CANNOT_TELL).map(|end| &rest[..end]))
        {
            was = inner;
        }
        let err = Error::failure(
            Class::Unknown,
            format!(
                "{UNKNOWN}{was}{CANNOT_TELL}{}); not sent again",
                lookup.reason()
            ),
        )
        .hint(self.advice(post.key));
        self.fail(post, err, carry, false)
    }

    /// What a human does with a key dayrun cannot confirm.
    pub(super) fn advice(&self, key: Date) -> String {
        let name = &self.cfg.name;
        format!(
            "look for {}; if it is there: `dayrun mark {key} done --id ID --target {name}`; if it is not: `dayrun retry {key} --absent --target {name}`",
            self.target.where_to_look(key)
        )
    }

    /// The lookup found nothing yet, but the attempt could still land: the key stays pending
    /// and the next run looks again.
    pub(super) fn not_yet(&mut self, key: Date, until: jiff::Timestamp) -> Result<(), Error> {
        let until = stamp(&until.to_zoned_datetime(self.clock.tz().clone()));
        let text = format!(
            "the outcome is unknown and {} cannot prove the post absent before {until}; the next run looks again",
            self.cfg.name
        );
        self.trace(key, "confirm", "not-yet", &text);
        self.count("unconfirmed", key, "unconfirmed", &text);
        self.outcome.retry_later = true;
        Ok(())
    }

    /// `state/<target>.sent/<key>.json`: the exact document of the latest attempt, for targets
    /// whose lookup is handed what was sent (written durably before the attempt).
    fn payload_path(&self, key: Date) -> std::path::PathBuf {
        self.state_dir
            .join(format!("{}.sent", self.cfg.name))
            .join(format!("{key}.json"))
    }

    pub(super) fn keep_payload(&self, key: Date, body: &serde_json::Value) -> Result<(), Error> {
        let path = self.payload_path(key);
        let bytes = serde_json::to_vec(body).expect("a JSON value serialises");
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::fsutil::write_atomic(&path, &bytes))
            .map_err(|e| Error::io(crate::error::Kind::State, &path, "keep what is sent", &e))
    }

    pub(super) fn kept_payload(&self, key: Date) -> Option<serde_json::Value> {
        if !self.target.keeps_payload() {
            return None;
        }
        let bytes = std::fs::read(self.payload_path(key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn drop_payload(&self, key: Date) {
        if self.target.keeps_payload() {
            let _ = std::fs::remove_file(self.payload_path(key));
        }
    }

    /// A post that cannot be read or derived: recorded once, reported every run until fixed.
    pub(super) fn local_error(&mut self, key: Date, err: Error) -> Result<(), Error> {
        let same = self.state.get(key).is_some_and(|r| {
            r.status == Status::Failed && r.get("reason").as_deref() == Some(err.reason().as_str())
        });
        if !same && !self.plan.dry_run {
            // An attempt that may have landed before the file broke stays on the line.
            let carry = Carry::of(self.state.get(key));
            let record = Record::new(key, Status::Failed, self.clock.stamp())
                .with("class", Class::Local.as_str())
                .with("reason", self.target.redact(&err.reason()));
            self.state.set(carry.stamp(record))?;
            self.trace(key, "read", "failed", &detail(&err));
        }
        self.report(key, &err, !same);
        Ok(())
    }

    /// Print a failure and fold it into the exit code. A failure seen before (`fresh` false)
    /// still needs a human while its key is within the catch-up window, as a waiting key does.
    pub(super) fn report(&mut self, key: Date, err: &Error, fresh: bool) {
        let class = err.class().unwrap_or(Class::Unknown);
        match class {
            _ if err.kind == Kind::Config => {
                self.outcome.config = true;
                self.stopped = Some(format!("its setup is broken: {}", err.message));
            }
            Class::Auth => {
                self.outcome.auth = true;
                self.stopped = Some(format!("credentials rejected: {}", err.message));
            }
            Class::RetrySafe => self.outcome.retry_later = true,
            _ => {
                if fresh || self.in_window(key) {
                    self.outcome.needs_human = true;
                }
            }
        }
        *self.tally.entry("failed").or_default() += 1;
        let class = match err.kind {
            Kind::Config => "setup".to_string(),
            _ => class.to_string(),
        };
        self.say(key, "failed", &format!("({class}): {}", err.located()));
        if let Some(hint) = &err.hint {
            self.progress.out(&format!("  {}", self.shown(hint)));
        }
    }

    pub(super) fn count(&mut self, tally: &'static str, key: Date, word: &str, detail: &str) {
        *self.tally.entry(tally).or_default() += 1;
        let quiet = matches!(
            tally,
            "done" | "stale" | "scheduled" | "draft" | "failed" | "retracted"
        ) && word != "retracted"
            && !self.plan.dry_run
            && !self.plan.retry;
        if !quiet {
            self.say(key, word, detail);
        }
    }

    pub(super) fn say(&self, key: Date, word: &str, detail: &str) {
        if detail.is_empty() {
            self.progress
                .out(&format!("{key} {} {word}", self.cfg.name));
        } else {
            let detail = self.shown(detail);
            self.progress
                .out(&format!("{key} {} {word} {detail}", self.cfg.name));
        }
    }

    /// Text that may hold something from outside, as it may be shown or traced: redacted with
    /// the target's secrets, control characters escaped, bounded.
    pub(super) fn shown(&self, text: &str) -> String {
        escape(&self.target.redact(text), 4000)
    }

    pub(super) fn trace(&mut self, key: Date, action: &str, result: &str, detail: &str) {
        if !self.plan.dry_run {
            let detail = self.shown(detail);
            self.trace.line(
                &stamp(&self.clock.now()),
                &key.to_string(),
                action,
                result,
                &detail,
            );
        }
    }
}

/// A hash of what a post says (title, body, summary, tags, and each image's bytes, alt text
/// and place, left out by a limit or not): a later one that differs is an edit. Taken from the post, not from a target's
/// request (which holds things that vary, such as WordPress's term ids), so an unchanged post
/// costs no request at all. A post without images hashes as dayrun 0.3 hashed it.
pub(super) fn payload_mark(post: &Post) -> String {
    let mut text = words(post);
    if !post.images.is_empty() {
        text.push_str("\nimages");
        // Those a target's limit left out count too: the mark is the post's, whatever the
        // target takes, so a post over the limit is not an edit at every run.
        for image in post.images.iter().chain(&post.left_out) {
            let _ = write!(
                text,
                "\n{} {} {}",
                image.sha256,
                u8::from(image.cover),
                image.alt
            );
        }
    }
    mark(&text)
}

/// The mark dayrun 0.3 recorded, which knew nothing of images: a done line that holds it for
/// a post with images was published before images were sent, and is not an edit by itself.
pub(super) fn payload_mark_before_images(post: &Post) -> String {
    mark(&words(post))
}

fn words(post: &Post) -> String {
    format!(
        "{}\n{}\n{}\n{}",
        post.fingerprint,
        post.summary,
        post.tags.join("\n"),
        post.title
    )
}
