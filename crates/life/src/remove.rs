//! Retracting a key: every live copy, of every generation, goes one at a time (this
//! generation's own copy last); the line names what is left, so a run that dies half way
//! finishes the rest.

use super::{Change, Ctx, Exit, KeyLine, Op, Phase, Step, Then, escalated, reason};
use crate::Class;
use crate::Word;

/// The copy to remove next: duplicates and earlier generations first, then a thread's parts
/// from the last, this copy (the thread's first part) last.
pub fn next_id(line: &KeyLine) -> Option<String> {
    let own = line.copies.current.id.as_deref();
    let part = match line.phase {
        Phase::Retracted { .. } => None,
        _ => line
            .copies
            .current
            .parts
            .iter()
            .rev()
            .find(|p| Some(p.id.as_str()) != own),
    };
    line.copies
        .duplicates
        .last()
        .or(line.copies.older.last())
        .cloned()
        .or_else(|| part.map(|p| p.id.clone()))
        .or_else(|| match line.phase {
            Phase::Retracted { .. } => None,
            _ => line.copies.current.id.clone(),
        })
}

/// What a retract that removed `removed` from `line` (as it was before) adds to its
/// `retracted` line: a thread's parts counted as parts, other copies as copies; nothing
/// when it removed one.
pub fn removed_note(line: &KeyLine, removed: &[String]) -> String {
    if removed.len() < 2 {
        return String::new();
    }
    let thread = line.copies.current.parts.len();
    let part = |id: &String| thread > 1 && line.copies.current.parts.iter().any(|p| &p.id == id);
    let parts = removed.iter().filter(|id| part(id)).count();
    let copies = removed.len() - parts;
    let mut said = Vec::new();
    match parts {
        0 => {}
        n if n == thread => said.push(format!("a thread of {n} parts")),
        n => said.push(format!("{n} of the thread's {thread} parts")),
    }
    match (copies, parts > 0) {
        (0, _) => {}
        (1, true) => said.push("1 other copy".into()),
        (n, true) => said.push(format!("{n} other copies")),
        (n, false) => said.push(format!("{n} copies")),
    }
    format!(" ({} removed)", said.join(" and "))
}

/// The retract starts: the pending line, durable before the first removal.
pub(super) fn start(line: Option<&KeyLine>, ctx: &Ctx) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::NotPublished);
    };
    let Some(first) = next_id(line) else {
        return Step::stop(Change::Keep, Exit::Ok, Word::NotPublished);
    };
    let mut next = line.clone();
    next.phase = Phase::Pending(Op::Retract);
    next.at = ctx.stamp.clone();
    next.first_failure = None;
    next.reason = None;
    Step::write(next, Exit::Ok, Word::Nothing).then(Then::Remove(first))
}

/// One copy is gone: the line without it; the next one, or `retracted` when none is left.
/// (The runner removes what `Then::Remove` names, so this generation's own copy goes last.)
pub(super) fn removed(line: Option<&KeyLine>, id: &str, verified: bool, ctx: &Ctx) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let mut next = line.clone();
    next.copies.duplicates.retain(|c| c != id);
    next.copies.older.retain(|c| c != id);
    let own = next.copies.current.id.as_deref() == Some(id);
    next.copies.current.parts.retain(|p| p.id != id);
    // The runner removes this copy last; were a part left, it goes first.
    let rest = match own {
        true => next.copies.current.parts.last().map(|p| p.id.clone()),
        false => next_id(&next),
    };
    match rest {
        Some(more) => Step::write(next, Exit::Ok, Word::Nothing).then(Then::Remove(more)),
        None => {
            next.phase = Phase::Retracted { verified };
            next.at = ctx.stamp.clone();
            next.first_failure = None;
            next.tried = super::Tried::default();
            next.copies.current.media = None;
            Step::write(next, Exit::Ok, Word::Retracted)
        }
    }
}

/// A removal did not happen (`unsure`: its outcome is unknown and no lookup can tell; else
/// the target refused it, or still shows the copy). An unsure retract stays pending and the
/// next run or `retract` finishes it; a refused one leaves the copy published.
pub(super) fn not_removed(
    line: Option<&KeyLine>,
    class: Class,
    why: &str,
    unsure: bool,
    before: Option<&KeyLine>,
    ctx: &Ctx,
) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let exit = match class {
        Class::Auth => Exit::Auth,
        _ => Exit::NeedsHuman,
    };
    if let (Some(before), false) = (before, unsure) {
        // The line as it was before the retract, less the copies already removed.
        let live = line.live_ids();
        let mut next = before.clone();
        next.copies.older.retain(|id| live.contains(id));
        next.copies.duplicates.retain(|id| live.contains(id));
        next.copies.current.parts.retain(|p| live.contains(&p.id));
        return Step::write(next, exit, Word::Failed);
    }
    let mut next = line.clone();
    next.reason = Some(reason(why));
    if unsure {
        next.first_failure.get_or_insert_with(|| ctx.stamp.clone());
        let exit = match escalated(&next, ctx) {
            true => Exit::NeedsHuman,
            false => Exit::RetryLater,
        };
        return Step::write(next, exit, Word::Unconfirmed);
    }
    // Back to published: the copies not removed stay on the line, this one too.
    next.phase = match next.copies.current.id.is_some() {
        true => Phase::Done,
        false => Phase::Failed(Class::Rejected, super::Looked::Nothing),
    };
    next.first_failure = None;
    Step::write(next, exit, Word::Failed)
}
