//! What a lookup's answer makes of a line when it does not simply send or wait: each verdict
//! that records a failure or holds the key for a later run.

use super::super::{Change, Ctx, Exit, KeyLine, Looked, Phase, Step, Then, escalated, reason};
use super::{Failure, Verdict, attempt_said, record_failure, waiting};
use crate::Class;
use crate::Receipt;
use crate::Word;
use jiff::Timestamp;

/// The lookup finds nothing after this run's sends: recorded, and the next run looks again.
pub(super) fn still_absent(line: Option<&KeyLine>, sends: u32, ctx: &Ctx) -> Step {
    let text = format!(
        "looked up after {sends} attempt(s): not on the target; the next run looks again before sending"
    );
    let next = record_failure(line, line, Class::Unknown, Looked::Absent, &text, ctx);
    let exit = waiting(&next, ctx);
    Step::write(next, exit, Word::Failed)
}

/// The target cannot prove the post absent until `until`: the key waits for a later run.
pub(super) fn not_yet(line: Option<&KeyLine>, until: &Timestamp, ctx: &Ctx) -> Step {
    let text = format!(
        "the outcome is unknown and the target cannot prove the post absent before {until}; the next run looks again"
    );
    // A wait that comes on top of failures older than `escalate_after` is still red.
    let exit = match line.is_some_and(|l| escalated(l, ctx)) {
        true => Exit::NeedsHuman,
        false => Exit::RetryLater,
    };
    Step::stop(Change::Keep, Exit::Ok, Word::Nothing)
        .exit(exit, Word::Unconfirmed)
        .say(text)
}

/// The lookup failed past its retries: recorded, red once the failures have lasted too long.
pub(super) fn lookup_failed(line: Option<&KeyLine>, why: &str, ctx: &Ctx) -> Step {
    let text = format!("the lookup failed ({why}); the next run looks again");
    let mut next = record_failure(line, line, Class::Unknown, Looked::Error, &text, ctx);
    if escalated(&next, ctx) {
        let since = next.first_failure.clone().unwrap_or_default();
        next.phase = Phase::Failed(Class::Unknown, Looked::Nothing);
        next.reason = Some(reason(&format!(
            "the lookup has failed since {since} ({why}): dayrun cannot tell whether the post is out"
        )));
        return Step::write(next, Exit::NeedsHuman, Word::Failed);
    }
    Step::write(next, Exit::RetryLater, Word::Failed)
}

/// The lookup cannot tell whether the post is there: not sent, and a human decides.
pub(super) fn cannot_tell(line: Option<&KeyLine>, why: &str, first: bool, ctx: &Ctx) -> Step {
    let text = match (first, line.filter(|l| l.tried.maybe)) {
        (true, _) => format!(
            "not sent: dedup = \"strict\" and the target cannot tell whether the post is already there ({why})"
        ),
        (false, Some(l)) => format!(
            "outcome unknown ({}), and the lookup cannot tell ({why}); not sent again",
            attempt_said(l)
        ),
        (false, None) => format!("the lookup cannot tell ({why}); not sent"),
    };
    let next = record_failure(line, line, Class::Unknown, Looked::Nothing, &text, ctx);
    Step::write(next, Exit::NeedsHuman, Word::Failed)
}

/// A copy found may be this key's or another's of the same text: not sent (a first send
/// neither: the copy may be this post, made by another runner), and a person says whose it is.
pub(super) fn whose(line: Option<&KeyLine>, why: &str, ctx: &Ctx) -> Step {
    let text = match line.filter(|l| l.tried.maybe) {
        Some(l) => format!(
            "outcome unknown ({}), and {why}; not sent again",
            attempt_said(l)
        ),
        None => format!("{why}; not sent"),
    };
    let next = record_failure(line, line, Class::Unknown, Looked::Nothing, &text, ctx);
    Step::write(next, Exit::NeedsHuman, Word::Failed)
}

/// A copy at the key's place is someone else's: not sent, and a human decides.
pub(super) fn foreign(line: Option<&KeyLine>, receipts: &[Receipt], ctx: &Ctx) -> Step {
    let ids: Vec<&str> = receipts.iter().map(|r| r.id.as_str()).collect();
    let text = format!(
        "a copy at this key's place is not this post (id {}): its content is not what any attempt sent; not sent",
        ids.join(", ")
    );
    let next = record_failure(line, line, Class::Unknown, Looked::Nothing, &text, ctx);
    Step::write(next, Exit::NeedsHuman, Word::Failed)
}

/// The target refused the lookup: recorded with the exit its refusal calls for.
pub(super) fn refused(line: Option<&KeyLine>, failure: &Failure, ctx: &Ctx) -> Step {
    let class = match failure.setup {
        true => Class::RetrySafe,
        false => failure.class,
    };
    let mut next = record_failure(line, line, class, Looked::Nothing, failure.reason, ctx);
    next.cred = failure.cred.map(str::to_string);
    let exit = match (class, failure.setup) {
        (_, true) => Exit::Usage,
        (Class::Auth, _) => Exit::Auth,
        _ => Exit::NeedsHuman,
    };
    let step = Step::write(next, exit, Word::Failed);
    match failure.hint {
        Some(hint) => step.say(hint),
        None => step,
    }
}

/// A lookup of a `done` line that still says `sent=maybe` (a merge keeps the other side's
/// attempt that may have landed): copies of this generation beyond the ones the line names.
/// Found: they are its duplicates (a DUPLICATE, exit 1), or there are none; absent once the
/// attempt can no longer land: nothing more is out. Either way `sent=maybe` goes, and the line
/// stays done: nothing is ever sent for it. A failed lookup keeps it for the next run (75, red
/// once it lasts); one that cannot tell, or a refusal, is recorded as for a pending line.
pub(super) fn done_copy(line: &KeyLine, verdict: &Verdict, looks: u32, ctx: &Ctx) -> Step {
    let keep = || Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    match verdict {
        Verdict::Found(landed) => found_beside(line, landed.receipts, ctx),
        Verdict::Absent => {
            Step::write(settled(line, ctx), Exit::Ok, Word::Done)
        }
        Verdict::NotYet(until) => keep().exit(still_out(line, ctx), Word::Unconfirmed).say(format!(
            "a copy another runner's attempt may have made is not on the target yet, and the target cannot prove it absent before {until}; the next run looks again"
        )),
        Verdict::Transient(_) if looks <= ctx.rules.retries => {
            keep().then(Then::Look(super::backoff(ctx, looks.max(1))))
        }
        Verdict::Transient(why) => {
            let mut next = line.clone();
            next.first_failure.get_or_insert_with(|| ctx.stamp.clone());
            let exit = still_out(&next, ctx);
            Step::write(next, exit, Word::Unconfirmed).say(format!(
                "the lookup for further copies failed ({why}); the next run looks again"
            ))
        }
        Verdict::CannotTell(why) => unsettled(line, why, Exit::NeedsHuman, ctx),
        Verdict::Whose(why) => unsettled(line, why, Exit::NeedsHuman, ctx),
        Verdict::Foreign(receipts) => {
            let ids: Vec<&str> = receipts.iter().map(|r| r.id.as_str()).collect();
            let why = format!("copies at its place are not this post (id {})", ids.join(", "));
            unsettled(line, &why, Exit::NeedsHuman, ctx)
        }
        Verdict::Refused(failure) => {
            let exit = match (failure.setup, failure.class) {
                (true, _) => Exit::Usage,
                (false, Class::Auth) => Exit::Auth,
                _ => Exit::NeedsHuman,
            };
            unsettled(line, failure.reason, exit, ctx)
        }
    }
}

/// The look for further copies did not settle it: the line stays done (its copy is out, and
/// nothing is ever sent for it) and keeps `sent=maybe`, with why on it, until a look settles
/// it or a person does (`mark KEY done`).
fn unsettled(line: &KeyLine, why: &str, exit: Exit, ctx: &Ctx) -> Step {
    let mut next = line.clone();
    next.first_failure.get_or_insert_with(|| ctx.stamp.clone());
    let key = line.key;
    let act = match line.phase {
        Phase::Retracted { .. } => format!(
            "remove any copy of it there by hand, then `dayrun mark {key} retracted` (or `dayrun mark {key} done --id ID` for a copy you find, then `dayrun retract {key} --yes`)"
        ),
        _ => format!("then `dayrun mark {key} done` (with `--id ID` for a copy to keep)"),
    };
    let text = format!(
        "another runner's attempt of this copy may have landed, and the look for it did not settle it ({why}); nothing sent: look on the target, {act}"
    );
    next.reason = Some(reason(&text));
    Step::write(next, exit, Word::Unconfirmed).say(text)
}

/// The done line with nothing more out: `sent=maybe` and its lookups' failures gone.
fn settled(line: &KeyLine, ctx: &Ctx) -> KeyLine {
    let mut next = line.clone();
    next.tried = crate::Tried::default();
    next.first_failure = None;
    next.reason = None;
    next.at = ctx.stamp.clone();
    next
}

/// The copies found beside the ones the line names: its duplicates. The line keeps its copy.
fn found_beside(line: &KeyLine, receipts: &[Receipt], ctx: &Ctx) -> Step {
    let mut next = settled(line, ctx);
    let own = line.own_ids();
    for receipt in receipts.iter().filter(|r| !own.contains(&r.id)) {
        let copies = &mut next.copies.duplicates;
        if copies.contains(&receipt.id) {
            continue;
        }
        if copies.len() >= crate::MAX_IDS / 2 {
            // An id the line cannot keep: not settled, a person looks.
            let why = format!(
                "more further copies than the {} a line keeps",
                crate::MAX_IDS / 2
            );
            return unsettled(line, &why, Exit::NeedsHuman, ctx);
        }
        copies.push(receipt.id.clone());
    }
    if next.copies.duplicates.is_empty() {
        return Step::write(next, Exit::Ok, Word::Done);
    }
    let id = next.copies.current.id.clone().unwrap_or_default();
    let ids = next.copies.duplicates.join(", ");
    let text = match next.phase {
        Phase::Retracted { .. } => format!(
            "DUPLICATE: the target holds copies of this retracted post (ids {ids}): an attempt another runner made of it landed; recorded them in copies= and sent nothing; `dayrun retract {} --yes` removes them",
            line.key
        ),
        _ => format!(
            "DUPLICATE: the target holds further copies of this post (ids {ids}) beside id={id}: an attempt another runner made of this copy landed too; recorded them in copies= and sent nothing; delete the extra copies on the target by hand"
        ),
    };
    Step::write(next, Exit::NeedsHuman, Word::Duplicate).say(text)
}

/// The exit of a done line whose other copies are still to be looked for: 75, or 1 once its
/// lookups have failed past `escalate_after` (counted from the first failed one).
pub(crate) fn still_out(line: &KeyLine, ctx: &Ctx) -> Exit {
    let lasted = line.first_failure_time().is_some_and(|t| {
        ctx.now
            .duration_since(t)
            .try_into()
            .is_ok_and(|d: std::time::Duration| d > ctx.rules.escalate_after)
    });
    match lasted {
        true => Exit::NeedsHuman,
        false => Exit::RetryLater,
    }
}
