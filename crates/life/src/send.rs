//! Publishing a key: the pending line before the send, what each answer and each lookup makes
//! of the line, and whether to send or look again within the run.

use crate::Word;
mod looked;
pub(crate) use looked::still_out;

use super::Receipt;
use super::{
    Change, Ctx, Exit, KeyLine, Looked, MAX_GENERATION, MAX_IDS, MAX_MARKS, Op, Phase, Step, Then,
    escalated, past_window, reason,
};
use crate::Class;
use jiff::Timestamp;
use std::time::Duration;

/// What a send answered.
#[derive(Debug, Clone)]
pub enum Answer<'a> {
    /// Published (or, for an update, applied): the receipts and what the line keeps of them.
    Landed(Landed<'a>),
    /// It failed, in this class.
    Failed(Failure<'a>),
}

/// A copy that is there: the receipts (the first is recorded; more are duplicates), how it was
/// learnt, and what the done line keeps.
#[derive(Debug, Clone)]
pub struct Landed<'a> {
    pub receipts: &'a [Receipt],
    pub how: How,
    /// The post's fingerprint and edit hash now.
    pub fp: &'a str,
    pub payload: &'a str,
    /// The uploads the copy uses (the others were traced as unattached).
    pub media: Option<&'a str>,
    /// The copy the target recognises in the id (its generation and what its platform chose
    /// for it), for a copy found with no line behind it.
    pub copy: Option<(u32, &'a super::Native)>,
}

/// How a copy came to be known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Published,
    Confirmed,
    /// Found before the first send (pre-submit dedup).
    AlreadyThere,
}

/// A failed send.
#[derive(Debug, Clone)]
pub struct Failure<'a> {
    pub class: Class,
    pub reason: &'a str,
    /// The refused credential's fingerprint (auth).
    pub cred: Option<&'a str>,
    pub fp: Option<&'a str>,
    /// The edit hash of the post an update failed for (a refused edit is not sent again
    /// until the post changes again).
    pub payload: Option<&'a str>,
    /// The target's setup refused the request before sending (a certificate): recorded
    /// retry-safe, and the run exits 2.
    pub setup: bool,
    /// How long the server asked to wait before a retry (within the cap); `None`: the backoff.
    pub wait: Option<Duration>,
    /// The target stops for this run (auth, a rate limit longer than the cap): no retry now.
    pub stop: bool,
    /// What to do about it, when the target knows (a lookup refused for good says it).
    pub hint: Option<&'a str>,
}

/// What a lookup said.
#[derive(Debug, Clone)]
pub enum Verdict<'a> {
    /// This post is there (its content is what an attempt sent).
    Found(Landed<'a>),
    /// Provably not there, and no attempt can still land.
    Absent,
    /// Not there yet, but an attempt could still land until then.
    NotYet(Timestamp),
    /// The lookup cannot say, by its nature (no exact lookup, a list cut short).
    CannotTell(&'a str),
    /// A copy found is on no line and another key sent or would send the same text: whose
    /// it is cannot be told (`copies::Sifted::Whose`). Not even a first send goes past it.
    Whose(&'a str),
    /// The lookup failed (a 503, a timeout): look again, later if need be.
    Transient(&'a str),
    /// Copies at this key's place whose content is not what was sent: not provably ours.
    Foreign(&'a [Receipt]),
    /// The lookup was refused for good (auth, a broken setup).
    Refused(Failure<'a>),
}

/// What an attempt sends: the post's fingerprint, the marks a lookup compares, and the edit
/// hash of the copy it makes.
pub(super) struct Sent<'a> {
    pub fp: &'a str,
    pub marks: &'a [String],
    pub payload: Option<&'a str>,
}

/// A send starts: the pending line, from the line before it. Everything on the line carries
/// over; a new copy moves the live ids of the old one to `older`.
pub(super) fn attempt(
    line: Option<&KeyLine>,
    op: Op,
    sent: &Sent,
    new_copy: bool,
    chosen: &super::Native,
    ctx: &Ctx,
) -> Step {
    let (fp, marks) = (sent.fp, sent.marks);
    let mut next = line
        .cloned()
        .unwrap_or_else(|| KeyLine::new(ctx.key, &ctx.stamp, Phase::Pending(op)));
    let before = next.phase;
    let retracted = matches!(before, Phase::Retracted { .. });
    if new_copy || retracted {
        if next.copies.current.generation >= MAX_GENERATION {
            return Step::stop(Change::Keep, Exit::NeedsHuman, Word::Failed).say(format!(
                "this key has had {MAX_GENERATION} copies; retract some before making another"
            ));
        }
        let live: Vec<String> = next
            .live_ids()
            .into_iter()
            .filter(|id| !next.copies.older.contains(id))
            .collect();
        if next.copies.older.len() + live.len() > MAX_IDS {
            return Step::stop(Change::Keep, Exit::NeedsHuman, Word::Failed).say(format!(
                "this key already has {} live copies; retract them before making another",
                next.copies.older.len() + live.len()
            ));
        }
        next.copies.older.extend(live);
        next.copies.current = super::Copy {
            generation: next.copies.current.generation + 1,
            ..super::Copy::default()
        };
        next.copies.duplicates.clear();
        next.tried = super::Tried::default();
        next.edits = super::Edits::default();
        next.attempt = 0;
        next.dedup = false;
    }
    if op == Op::Publish {
        next.keep_what_the_copy_holds();
        next.copies.current.native.fill(chosen);
    }
    next.phase = Phase::Pending(op);
    next.at = ctx.stamp.clone();
    next.fp = Some(fp.to_string());
    next.reason = None;
    next.by_hand = false;
    next.cred = None;
    if op == Op::Publish {
        next.attempt += 1;
        next.tried.maybe = true;
        next.tried.since.get_or_insert_with(|| ctx.stamp.clone());
        next.tried.marks.retain(|m| !marks.contains(m));
        next.tried.marks.extend(marks.iter().cloned());
        let extra = next.tried.marks.len().saturating_sub(MAX_MARKS);
        next.tried.marks.drain(..extra);
        if let Some(payload) = sent.payload {
            next.edits.payload = Some(payload.to_string());
        }
    }
    Step::write(next, Exit::Ok, Word::Nothing).then(Then::Send(Duration::ZERO))
}

/// An upload's answer, on the pending line at once. The line takes the upload's time: the
/// send goes out after it, and an attempt's deadline counts from the line's time (a run
/// killed during a create after minutes of uploads must not find its deadline already past).
pub(super) fn uploaded(line: Option<&KeyLine>, media: &str, ctx: &Ctx) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let mut next = line.clone();
    if matches!(next.phase, Phase::Pending(_)) {
        next.at = ctx.stamp.clone();
    }
    next.copies.current.media = Some(media.to_string()).filter(|m| !m.is_empty());
    Step::write(next, Exit::Ok, Word::Nothing)
}

/// What the platform made mid-send (`Event::Noted`), on the pending publish's line at once,
/// with the line's time, as an upload's answer is; values that cannot be kept are not known.
/// Any other line is left alone: nothing is in flight for it.
pub(super) fn noted(line: Option<&KeyLine>, native: &super::Native, ctx: &Ctx) -> Step {
    let Some(line) = line.filter(|l| l.phase == Phase::Pending(Op::Publish)) else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let mut next = line.clone();
    next.copies.current.native.answered(&native.checked());
    next.at = ctx.stamp.clone();
    Step::write(next, Exit::Ok, Word::Nothing)
}

/// A send answered.
pub(super) fn answered(
    line: Option<&KeyLine>,
    answer: &Answer,
    before: Option<&KeyLine>,
    sends: u32,
    ctx: &Ctx,
) -> Step {
    match answer {
        Answer::Landed(landed) => done(line, landed, ctx),
        Answer::Failed(failure) => failed(line, failure, before, sends, ctx),
    }
}

/// The copy is there: the done line.
pub(super) fn done(line: Option<&KeyLine>, landed: &Landed, ctx: &Ctx) -> Step {
    let mut next = line
        .cloned()
        .unwrap_or_else(|| KeyLine::new(ctx.key, &ctx.stamp, Phase::Done));
    let first = &landed.receipts[0];
    let (fp, payload) = kept_fingerprint(&next, landed);
    let copies = kept_copies(&mut next, landed);
    next.phase = Phase::Done;
    next.at = ctx.stamp.clone();
    next.copies.current.id = Some(first.id.clone());
    next.copies.current.url = first.url.clone();
    next.copies.current.native.answered(&first.native);
    if let Some((generation, native)) = landed.copy {
        next.copies.current.generation = generation;
        next.copies.current.native.answered(native);
    }
    next.copies.current.media = landed.media.map(str::to_string).filter(|m| !m.is_empty());
    // The split a thread was sent as matters only while it goes out.
    next.copies.current.split = None;
    next.copies.older.retain(|id| *id != first.id);
    next.copies.duplicates = copies;
    next.copies.current.holds = None;
    next.fp = Some(fp);
    next.reason = None;
    next.by_hand = false;
    next.cred = None;
    next.dedup = landed.how == How::AlreadyThere;
    next.tried = super::Tried::default();
    next.attempt = 0;
    next.first_failure = None;
    next.edits = super::Edits {
        published: Some(ctx.stamp.clone()),
        payload,
        updated: 0,
        edit_failed: None,
        edit_late: None,
    };
    done_step(next, landed)
}

/// What the done line says its copy holds. A copy a lookup found is what an attempt sent,
/// not the file as it is now: the copy this line recorded before the attempt keeps what it
/// held (`holds=`), and another keeps that attempt's fingerprint and edit hash; so an edit made
/// meanwhile goes out afterwards, even when a send answers with it (a server that
/// deduplicated the send). A copy a send just made holds the post as it is now.
fn kept_fingerprint(line: &KeyLine, landed: &Landed) -> (String, Option<String>) {
    let now = (landed.fp.to_string(), Some(landed.payload.to_string()));
    // The copy the line recorded, answered again: found, or a send the server deduplicated
    // (an Idempotency-Key it still knows) and answered with that copy as it is.
    if let Some(holds) = line.holds_of(&landed.receipts[0].id) {
        return (holds.fp.clone(), holds.payload.clone());
    }
    if landed.how == How::Published {
        return now;
    }
    match (landed.how, line.tried.maybe, &line.fp, &line.edits.payload) {
        (How::Confirmed, true, Some(fp), Some(payload)) => (fp.clone(), Some(payload.clone())),
        _ => now,
    }
}

/// The copies of a done line other than its copy: the line's duplicates, a lookup's extra
/// copies, and the id the line held for this copy if the answer names another. Takes that id.
fn kept_copies(next: &mut KeyLine, landed: &Landed) -> Vec<String> {
    let first = &landed.receipts[0];
    // Duplicates the line already names stay (no id is ever dropped); a lookup's extra copies
    // join them.
    let mut copies: Vec<String> = next
        .copies
        .duplicates
        .iter()
        .filter(|id| **id != first.id)
        .cloned()
        .collect();
    for id in landed.receipts[1..].iter().map(|r| r.id.clone()) {
        if id != first.id && !copies.contains(&id) && copies.len() < MAX_IDS / 2 {
            copies.push(id);
        }
    }
    // An id the line held for this copy that the answer does not name stays, as a duplicate:
    // no id is ever dropped.
    if let Some(old) = next.copies.current.id.take()
        && old != first.id
        && !copies.contains(&old)
        && !matches!(next.phase, Phase::Retracted { .. })
    {
        copies.push(old);
    }
    copies
}

/// Write the done line, and tell a human when the target holds duplicates of the post.
fn done_step(next: KeyLine, landed: &Landed) -> Step {
    let first = &landed.receipts[0];
    let word = match landed.how {
        How::Published => Word::Published,
        How::Confirmed => Word::Confirmed,
        How::AlreadyThere => Word::AlreadyThere,
    };
    match next.copies.duplicates.is_empty() {
        true => Step::write(next, Exit::Ok, word),
        false => {
            let all: Vec<&str> = landed.receipts.iter().map(|r| r.id.as_str()).collect();
            let text = format!(
                "DUPLICATE: the target holds {} copies of this post (ids {}); recorded id={} and sent nothing; delete the extra copies on the target by hand",
                landed.receipts.len(),
                all.join(", "),
                first.id
            );
            Step::write(next, Exit::NeedsHuman, word).say(text)
        }
    }
}

/// A failed send: retried within the run while that is safe and allowed, else recorded.
fn failed(
    line: Option<&KeyLine>,
    failure: &Failure,
    before: Option<&KeyLine>,
    sends: u32,
    ctx: &Ctx,
) -> Step {
    let retries_left = sends <= ctx.rules.retries && !failure.stop && !failure.setup;
    let class = match failure.setup {
        true => Class::RetrySafe,
        false => failure.class,
    };
    match class {
        Class::RetrySafe if retries_left => {
            let wait = failure.wait.unwrap_or_else(|| backoff(ctx, sends));
            return Step::stop(Change::Keep, Exit::Ok, Word::Nothing)
                .then(Then::Send(wait))
                .say(format!("{}; sending again", failure.reason));
        }
        // The outcome is unknown: look before anything else. The pending line says why.
        Class::Unknown => {
            let Some(line) = line else {
                return Step::stop(Change::Keep, Exit::Ok, Word::Nothing)
                    .then(Then::Look(Duration::ZERO));
            };
            let mut next = line.clone();
            next.reason = Some(reason(failure.reason));
            next.first_failure.get_or_insert_with(|| ctx.stamp.clone());
            return Step::write(next, Exit::Ok, Word::Nothing).then(Then::Look(Duration::ZERO));
        }
        _ => {}
    }
    let exit_of = |next: &KeyLine| match (class, failure.setup) {
        (_, true) => Exit::Usage,
        (Class::Auth, _) => Exit::Auth,
        (Class::RetrySafe, _) if past_window(ctx.key, ctx) => Exit::NeedsHuman,
        (Class::RetrySafe, _) if escalated(next, ctx) => Exit::NeedsHuman,
        (Class::RetrySafe, _) => Exit::RetryLater,
        _ => Exit::NeedsHuman,
    };
    // Nothing was attempted (the post could not be prepared) and the key is published or
    // retracted: its line stays as it is; the failure is told.
    if line.is_some_and(|l| matches!(l.phase, Phase::Done | Phase::Retracted { .. })) {
        return Step::stop(Change::Keep, exit_of(line.expect("a line")), Word::Failed);
    }
    // Provably nothing was sent by this run's attempts: the pending line with this failure,
    // and what may have landed is what was known before them (`before`).
    let mut next = record_failure(line, line, class, Looked::Nothing, failure.reason, ctx);
    if line.is_some_and(|l| matches!(l.phase, Phase::Pending(Op::Publish))) {
        let same = before.filter(|b| b.copies.current.generation == next.copies.current.generation);
        next.tried = same.map(|b| b.tried.clone()).unwrap_or_default();
        // The attempt's edit hash goes with it: nothing of this attempt is out.
        next.edits = same.map(|b| b.edits.clone()).unwrap_or_default();
    }
    next.cred = failure.cred.map(str::to_string);
    if let Some(fp) = failure.fp {
        next.fp = Some(fp.to_string());
    }
    let exit = exit_of(&next);
    Step::write(next, exit, Word::Failed)
}

/// The failed line: `base`'s fields (the line before the attempt, or the pending line when the
/// attempt may have landed), the attempt count of `attempt`'s line, this failure, and the start
/// of the run of failures it belongs to.
fn record_failure(
    base: Option<&KeyLine>,
    attempt: Option<&KeyLine>,
    class: Class,
    looked: Looked,
    why: &str,
    ctx: &Ctx,
) -> KeyLine {
    let mut next = base
        .cloned()
        .unwrap_or_else(|| KeyLine::new(ctx.key, &ctx.stamp, Phase::Failed(class, looked)));
    // The key's first failure stands until it goes out or a person decides (`mark`).
    let first = [base, attempt]
        .into_iter()
        .flatten()
        .find_map(|l| l.first_failure.clone());
    if let Some(attempt) = attempt {
        next.attempt = next.attempt.max(attempt.attempt);
        next.copies.current.media = attempt
            .copies
            .current
            .media
            .clone()
            .or(next.copies.current.media);
        next.copies
            .current
            .native
            .fill(&attempt.copies.current.native);
    }
    next.phase = Phase::Failed(class, looked);
    next.at = ctx.stamp.clone();
    next.reason = Some(reason(why));
    next.by_hand = false;
    next.cred = None;
    next.first_failure = Some(first.unwrap_or_else(|| ctx.stamp.clone()));
    next
}

/// A lookup answered: after an unknown outcome (this run's or an earlier one's), before the
/// first send, or for a key that may have been sent before.
pub(super) fn looked(
    line: Option<&KeyLine>,
    verdict: &Verdict,
    first: bool,
    looks: u32,
    sends: u32,
    sendable: bool,
    ctx: &Ctx,
) -> Step {
    let keep = || Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    let beside = |l: &&KeyLine| matches!(l.phase, Phase::Done | Phase::Retracted { .. });
    if let Some(line) = line.filter(|l| beside(l) && l.tried.maybe && !first) {
        return looked::done_copy(line, verdict, looks, ctx);
    }
    match verdict {
        Verdict::Found(landed) => done(line, landed, ctx),
        Verdict::Absent | Verdict::NotYet(_) if first => keep().then(Then::Send(Duration::ZERO)),
        Verdict::Absent if !sendable => gone_absent(line, ctx),
        Verdict::Absent if past_window(ctx.key, ctx) => {
            let text =
                "looked up: not on the target; held back (its date is past the catch-up window)";
            let next = record_failure(line, line, Class::Unknown, Looked::Absent, text, ctx);
            Step::write(next, Exit::NeedsHuman, Word::HeldBack)
        }
        Verdict::Absent if sends == 0 => keep().then(Then::Send(Duration::ZERO)),
        Verdict::Absent if sends <= ctx.rules.retries => {
            keep().then(Then::Send(backoff(ctx, sends)))
        }
        Verdict::Absent => looked::still_absent(line, sends, ctx),
        Verdict::NotYet(until) => looked::not_yet(line, until, ctx),
        Verdict::Transient(_) if looks <= ctx.rules.retries => {
            keep().then(Then::Look(backoff(ctx, looks.max(1))))
        }
        Verdict::Transient(why) if first && !ctx.rules.strict => {
            keep().then(Then::Send(Duration::ZERO)).say(format!(
                "could not look for an existing copy ({why}); sending"
            ))
        }
        Verdict::Transient(why) => looked::lookup_failed(line, why, ctx),
        Verdict::CannotTell(why) if first && !ctx.rules.strict => {
            keep().then(Then::Send(Duration::ZERO)).say(format!(
                "could not look for an existing copy ({why}); sending"
            ))
        }
        Verdict::CannotTell(why) => looked::cannot_tell(line, why, first, ctx),
        Verdict::Whose(why) => looked::whose(line, why, ctx),
        Verdict::Foreign(receipts) => looked::foreign(line, receipts, ctx),
        Verdict::Refused(failure) => looked::refused(line, failure, ctx),
    }
}

/// The lookup proves this attempt absent and the post's file is gone: nothing is left to send.
/// A line that names no live copy goes; one that still names copies (an earlier generation's,
/// a thread's parts, a duplicate) stays, since it is how `retract` finds them, and a person
/// decides what becomes of them.
fn gone_absent(line: Option<&KeyLine>, ctx: &Ctx) -> Step {
    let live = line.map(KeyLine::live_ids).unwrap_or_default();
    if live.is_empty() {
        return Step::stop(Change::Drop, Exit::Ok, Word::Forgotten).say(
            "the lookup proves the post absent and its file is gone: nothing is out, nothing to send; the line goes",
        );
    }
    let key = ctx.key;
    let since = line
        .and_then(|l| l.tried.since.clone())
        .unwrap_or_else(|| ctx.stamp.clone());
    let text = format!(
        "the post's file is gone, and the lookup proves the attempt begun {since} absent: nothing is sent. Copies of this key are still live (ids {}): `dayrun retract {key} --yes` takes them back, or `dayrun mark {key} done --id ID` keeps one as the key's copy",
        live.join(", ")
    );
    let mut next = record_failure(line, line, Class::Unknown, Looked::Nothing, &text, ctx);
    next.tried = super::Tried::default();
    Step::write(next, Exit::NeedsHuman, Word::Failed).say(text)
}

/// What the last attempt of a key that may have landed said: its pending line's reason, or
/// what is known of it. Never an earlier lookup's words (reasons do not nest).
fn attempt_said(line: &KeyLine) -> String {
    match (line.phase, &line.reason) {
        (Phase::Pending(Op::Publish), Some(reason)) => reason.clone(),
        (Phase::Pending(Op::Publish), None) => {
            format!("the attempt of {} was interrupted", line.at)
        }
        _ => match &line.tried.since {
            Some(since) => format!("an attempt since {since} may have landed"),
            None => "an earlier attempt may have landed".into(),
        },
    }
}

/// The exit of a key the next run retries by itself: 75, or 1 once that has lasted.
fn waiting(line: &KeyLine, ctx: &Ctx) -> Exit {
    match escalated(line, ctx) || past_window(line.key, ctx) {
        true => Exit::NeedsHuman,
        false => Exit::RetryLater,
    }
}

/// The wait before the next send or look of this run: `backoff`, doubling.
pub(super) fn backoff(ctx: &Ctx, nth: u32) -> Duration {
    ctx.rules
        .backoff
        .saturating_mul(1 << nth.saturating_sub(1).min(10))
}

impl Step {
    fn exit(mut self, exit: Exit, word: Word) -> Step {
        self.exit = exit;
        self.word = word;
        self
    }
}
