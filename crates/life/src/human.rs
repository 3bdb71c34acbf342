//! What a human says of a key: `mark KEY done|failed|retracted`, `adopt`, and
//! `retry --not-ours ID`.
//! Each keeps everything the line knows (every live id, every attempt that may have landed).

use super::{Change, Ctx, Exit, KeyLine, Looked, MAX_IDS, Phase, Step};
use crate::Class;
use crate::Word;

/// A human's word on a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    /// `mark KEY done [--id ID]`: published, by hand or found by hand. `fp`: the post's
    /// fingerprint now (empty without a post).
    MarkDone { id: Option<String>, fp: String },
    /// `mark KEY failed`: put aside; quiet until the post changes or a human retries it.
    MarkFailed { fp: String },
    /// `mark KEY retracted`: taken back by hand, every copy of it, or looked for by hand and
    /// not there; nothing of it is sent again.
    MarkRetracted,
    /// `adopt`: published some other way before dayrun ran (a key that is not done yet).
    Adopt { fp: String },
    /// `retry --not-ours ID`: the copy ID is not this post. `here`: it sits where this
    /// generation's copy would (a record key the server holds for it), so the next send is
    /// the key's next copy.
    NotOurs { id: String, here: bool },
}

/// Rule on a key as a human said: the line after it, or why it cannot be.
pub(super) fn act(line: Option<&KeyLine>, act: &Act, ctx: &Ctx) -> Step {
    // Nothing to rule on: no copy is recorded, and the next lookup asks again.
    if line.is_none() && matches!(act, Act::NotOurs { .. }) {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    }
    let mut next = line
        .cloned()
        .unwrap_or_else(|| KeyLine::new(ctx.key, &ctx.stamp, Phase::Done));
    next.at = ctx.stamp.clone();
    // The copy of a retracted line is gone: what a person records now is about the next one.
    let keeps_copy = matches!(act, Act::NotOurs { .. } | Act::MarkRetracted);
    if matches!(next.phase, Phase::Retracted { .. }) && !keeps_copy {
        start_next_copy(&mut next);
        next.edits = super::Edits::default();
    }
    match act {
        Act::MarkDone { id, fp } => mark_done(next, id.as_ref(), fp),
        Act::MarkFailed { fp } => mark_failed(next, fp),
        Act::MarkRetracted => mark_retracted(next),
        Act::Adopt { fp } => adopt(next, fp),
        Act::NotOurs { id, here } => not_ours(next, id, *here),
    }
}

/// Move the line on to its next copy: a new generation, with nothing sent for it yet.
fn start_next_copy(next: &mut KeyLine) {
    next.copies.current = super::Copy {
        generation: next.copies.current.generation + 1,
        ..super::Copy::default()
    };
    next.tried = super::Tried::default();
    next.attempt = 0;
}

/// `mark KEY done`: the line is done, with the id given (if any) as its copy.
fn mark_done(mut next: KeyLine, id: Option<&String>, fp: &str) -> Step {
    if let Some(id) = id {
        // An id the line held for this copy stays: both are live as far as dayrun
        // knows, and retract removes both.
        if let Some(old) = next.copies.current.id.take().filter(|old| old != id)
            && !next.copies.duplicates.contains(&old)
            && next.copies.duplicates.len() <= MAX_IDS / 2
            && !matches!(next.phase, Phase::Retracted { .. })
        {
            next.copies.duplicates.push(old);
        }
        next.copies.duplicates.retain(|c| c != id);
        next.copies.older.retain(|c| c != id);
        next.copies.current.id = Some(id.clone());
    }
    // The copy is accepted as it is: a refused edit is no longer one to send (a
    // later change of the post is).
    if let Some(refused) = next.edits.edit_failed.take() {
        next.edits.payload = Some(refused);
    }
    next.phase = Phase::Done;
    next.copies.current.holds = None;
    next.reason = Some("marked by hand".into());
    next.fp = Some(fp.to_string()).filter(|f| !f.is_empty()).or(next.fp);
    next.tried = super::Tried::default();
    next.first_failure = None;
    next.by_hand = false;
    next.cred = None;
    next.attempt = 0;
    Step::write(next, Exit::Ok, Word::MarkedDone)
}

/// `mark KEY failed`: the line is put aside by hand.
fn mark_failed(mut next: KeyLine, fp: &str) -> Step {
    // What attempts may have left stays on the line: a later retry looks first. The copy out
    // keeps what it holds, since `fp=` now says the post as it was put aside.
    next.keep_what_the_copy_holds();
    next.phase = Phase::Failed(Class::Rejected, Looked::Nothing);
    next.reason = Some("marked failed by hand".into());
    next.by_hand = true;
    next.fp = Some(fp.to_string()).filter(|f| !f.is_empty()).or(next.fp);
    next.first_failure = None;
    Step::write(next, Exit::Ok, Word::MarkedFailed)
}

/// `mark KEY retracted`: the line is retracted, unverified (a person's word, not a lookup's);
/// what attempts may have left is settled by that word. Ids the line holds beside its copy
/// stay, so `retract` still removes them.
fn mark_retracted(mut next: KeyLine) -> Step {
    next.phase = Phase::Retracted { verified: false };
    next.reason = Some("retracted by hand".into());
    next.tried = super::Tried::default();
    next.first_failure = None;
    next.by_hand = false;
    next.cred = None;
    next.attempt = 0;
    Step::write(next, Exit::Ok, Word::MarkedRetracted)
}

/// `adopt`: the line is done, published some other way.
fn adopt(mut next: KeyLine, fp: &str) -> Step {
    next.phase = Phase::Done;
    next.reason = Some("adopted".into());
    next.fp = Some(fp.to_string()).filter(|f| !f.is_empty());
    next.tried = super::Tried::default();
    next.first_failure = None;
    Step::write(next, Exit::Ok, Word::Adopted)
}

/// `retry --not-ours ID`: the copy ID is ruled not this post, and leaves the line's ids.
fn not_ours(mut next: KeyLine, id: &String, here: bool) -> Step {
    if !next.copies.foreign.contains(id) {
        if next.copies.foreign.len() >= MAX_IDS / 2 {
            return Step::stop(Change::Keep, Exit::NeedsHuman, Word::Failed).say(format!(
                "{} copies are already ruled not this post; remove some from `foreign=` by hand",
                MAX_IDS / 2
            ));
        }
        next.copies.foreign.push(id.clone());
    }
    // A copy recorded as ours that is not: the key is not out.
    let was_ours = next.copies.current.id.as_deref() == Some(id.as_str());
    next.copies.duplicates.retain(|c| c != id);
    next.copies.older.retain(|c| c != id);
    if was_ours {
        next.copies.current.id = None;
        next.copies.current.url = None;
        next.copies.current.holds = None;
    }
    if was_ours {
        next.phase = Phase::Failed(Class::Unknown, Looked::Nothing);
    }
    if here {
        // The record key holds someone else's record: no attempt of ours is there.
        start_next_copy(&mut next);
    }
    next.reason = Some(format!("copy {id} ruled not this post by hand"));
    Step::write(next, Exit::Ok, Word::NotOurs)
}
