//! One key's row on one target: the state the run's rules leave it in and every flag `status`
//! shows beside it (stuck, edited, deleted, held back, blocked, a refused edit, renamed), as
//! `--json` writes it (schema 1) and every other form reads it.

use crate::content::Catalog;
use crate::life::{self, Decision, Key, KeyLine, Phase};
use crate::tally::Count;
use jiff::Timestamp;
use serde::Serialize;

/// A pending key older than this is flagged: its run died or hangs.
const STUCK_SECS: i64 = 5 * 60;

/// One key on one target (schema 1).
#[derive(Serialize)]
pub(crate) struct Row {
    pub(crate) key: String,
    /// Serialised as its word (`Count::word`).
    pub(crate) status: Count,
    pub(crate) at: Option<String>,
    pub(crate) age_secs: Option<i64>,
    pub(crate) id: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) class: Option<String>,
    pub(crate) reason: Option<String>,
    pub(crate) stuck: bool,
    /// Done, and the post's file changed since (its fingerprint is not the one published).
    pub(crate) edited: bool,
    /// Done, and the post's file is gone.
    pub(crate) deleted: bool,
    /// Failed, and past the catch-up window: not sent again until a human says.
    pub(crate) held_back: bool,
    /// Due, but its post cannot be made into this target's text until a person acts (its
    /// template fails on it, a copy its text links to will never come): why.
    pub(crate) blocked: Option<String>,
    /// Done, and the target refused the edit the post holds now: `reason` says what was
    /// refused and what to do. A run exits 1 until the post changes again, `retry --force`
    /// sends it or `mark done` accepts the copy as it is.
    pub(crate) edit_failed: bool,
    /// The exit code this key leaves a run with (0, 1, 3 or 75).
    pub(crate) exit: i32,
    /// A renamed post whose line the next run carries over: `from OLD` (this key takes it,
    /// its copies staying at OLD's place) or `to NEW` (this key's line goes to NEW).
    pub(crate) renamed: Option<String>,
}

/// The status of a key: its line's, or (no line) what the visit decided; `draft`: whether
/// its post is a draft, asked only where the decision leaves it open.
pub(super) fn status(
    line: Option<&KeyLine>,
    decision: &Decision,
    mut draft: impl FnMut() -> bool,
) -> Count {
    match (line, decision) {
        (Some(l), _) => Count::of_status(l.record().status),
        (None, Decision::Skip(life::Skip::Scheduled | life::Skip::Later(_))) => Count::Scheduled,
        (None, _) if draft() => Count::Draft,
        (None, Decision::Skip(life::Skip::Stale)) => Count::Stale,
        (None, _) => Count::Due,
    }
}

/// What the run's rules made of one key.
pub(super) struct Verdict {
    pub(super) status: Count,
    pub(super) decision: Decision,
    /// Why its post cannot be sent, if it is to be sent and cannot.
    pub(super) blocked: Option<String>,
    /// The exit code it leaves a run with.
    pub(super) exit: i32,
    pub(super) renamed: Option<Renamed>,
}

/// A renamed post, as the next run carries its line over (`rename.rs`).
#[derive(Clone, Copy)]
pub(super) enum Renamed {
    /// This key takes the line of the key its copies stay at over.
    From(Key),
    /// This key's line goes to that key.
    To(Key),
}

/// The row of `key`, from its line, its post (`has_post`: its file is there) and `verdict`.
pub(super) fn row(
    now: Timestamp,
    catalog: &Catalog,
    key: Key,
    line: Option<&KeyLine>,
    has_post: bool,
    verdict: Verdict,
) -> Row {
    let age = line
        .and_then(KeyLine::time)
        .map(|at| now.as_second() - at.as_second());
    let done = line.filter(|l| l.phase == Phase::Done);
    let deleted = done.is_some() && !has_post && verdict.renamed.is_none();
    let edited = !deleted
        && done
            .and_then(|l| l.fp.as_ref())
            .is_some_and(|fp| catalog.text(key).is_ok_and(|post| post.fingerprint != *fp));
    let class = line.and_then(|l| match l.phase {
        Phase::Failed(class, _) => Some(class.to_string()),
        _ => None,
    });
    Row {
        key: key.to_string(),
        status: verdict.status,
        at: line.map(|l| l.at.clone()),
        age_secs: age,
        id: line.and_then(|l| l.copies.current.id.clone()),
        url: line.and_then(|l| l.copies.current.url.clone()),
        class,
        reason: line.and_then(|l| l.reason.clone()),
        stuck: line.is_some_and(|l| matches!(l.phase, Phase::Pending(_)))
            && age.is_some_and(|a| a > STUCK_SECS),
        edited,
        deleted,
        held_back: verdict.decision == Decision::Hold,
        blocked: verdict.blocked,
        edit_failed: matches!(verdict.decision, Decision::EditFailed(_)),
        exit: verdict.exit,
        renamed: verdict.renamed.map(|r| match r {
            Renamed::From(old) => format!("from {old}"),
            Renamed::To(new) => format!("to {new}"),
        }),
    }
}
