//! Two sides of one key's line merged (`merge-state`): the same result whichever side is
//! "ours", no live id ever dropped, no attempt that may have landed forgotten.

use super::{Copies, KeyLine, MAX_MARKS, Op, Part, Phase};
use crate::Key;

/// A key that holds two different live copies of one generation: a human must settle it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub key: Key,
    pub ids: [String; 2],
}

/// How strongly a line says what happened to its copy.
fn rank(line: &KeyLine) -> u8 {
    match line.phase {
        Phase::Retracted { .. } => 5,
        // A retract on its way: its outcome must be found, or the copy stays out unnoticed.
        Phase::Pending(Op::Retract) => 4,
        Phase::Done => 3,
        // An update in place is harmless to send again, and the edit is found again from the
        // file: a done line loses nothing by winning over it.
        Phase::Pending(Op::Update) => 2,
        Phase::Pending(Op::Publish) => 1,
        Phase::Failed(..) => 0,
    }
}

/// The merge's total order: the later copy, then `rank`, then the later time, then the text.
fn order(line: &KeyLine) -> (u32, u8, Option<jiff::Timestamp>, String) {
    (
        line.copies.current.generation,
        rank(line),
        line.time(),
        line.record().to_line().to_string(),
    )
}

/// Whether a side's own copy (its `id=` and thread) is live: not taken back.
fn live(line: &KeyLine) -> bool {
    !matches!(line.phase, Phase::Retracted { .. })
}

/// The ids of a side that name a live copy of its own generation.
fn own_live(line: &KeyLine) -> Option<&String> {
    line.copies.current.id.as_ref().filter(|_| live(line))
}

/// `id` kept in `list`, once, unless it is the merged line's own `id=`. Every id either side
/// recorded survives (no cap here: dropping one would lose a copy).
fn keep(list: &mut Vec<String>, id: &String, own: Option<&String>) {
    if Some(id) != own && !list.contains(id) {
        list.push(id.clone());
    }
}

/// A line's thread as ids, in order: its `parts=`, or its `id=` alone when it lists none (a
/// copy that is one post is a thread of one part).
fn thread(line: &KeyLine) -> Vec<&String> {
    match (&line.copies.current.parts[..], &line.copies.current.id) {
        ([], Some(id)) => vec![id],
        (parts, _) => parts.iter().map(|p| &p.id).collect(),
    }
}

/// One copy's threads from both sides (`merged` is the winner's line, its `id=` settled): the
/// longer when one starts as the other does; else the winner's, every other part of the
/// loser's a duplicate (`copies=`), and a conflict on the first part they differ at.
fn merge_parts(
    merged: &mut KeyLine,
    win: &KeyLine,
    lose: &KeyLine,
    conflict: &mut Option<Conflict>,
) {
    if !live(lose) {
        return;
    }
    let (w, l) = (thread(win), thread(lose));
    if !live(win) {
        // The winner took its copy back, a thread whole from its first part: the loser's
        // thread from that part is that one, gone; from another part, another copy, live.
        if l.first().copied() != win.copies.current.id.as_ref() {
            for id in l {
                keep(
                    &mut merged.copies.duplicates,
                    id,
                    merged.copies.current.id.as_ref(),
                );
            }
        }
        return;
    }
    let same = w.iter().zip(&l).take_while(|(x, y)| x == y).count();
    if same == w.len() {
        // The winner's thread is where the loser's starts: the loser's went further.
        let tail: Vec<Part> = match win.copies.current.parts.is_empty() {
            true => lose.copies.current.parts.clone(),
            false => lose
                .copies
                .current
                .parts
                .iter()
                .skip(same)
                .cloned()
                .collect(),
        };
        merged.copies.current.parts.extend(tail);
    } else if same < l.len() {
        // Both sent a part `same`: two copies of it, and the parts after the loser's.
        let rest: Vec<&String> = l[same..]
            .iter()
            .filter(|id| !w.contains(id))
            .copied()
            .collect();
        for id in &rest {
            keep(
                &mut merged.copies.duplicates,
                id,
                merged.copies.current.id.as_ref(),
            );
        }
        if conflict.is_none() && rest.first() == Some(&l[same]) {
            let mut ids = [w[same].clone(), l[same].clone()];
            ids.sort();
            *conflict = Some(Conflict { key: win.key, ids });
        }
    }
}

/// One key: the line that wins the order, keeping every live id of both sides and what the
/// other side's attempts may have left on the target.
pub fn merge(a: &KeyLine, b: &KeyLine) -> (KeyLine, Option<Conflict>) {
    let (win, lose) = match order(a) >= order(b) {
        true => (a, b),
        false => (b, a),
    };
    let mut merged = win.clone();
    let same_copy = win.copies.current.generation == lose.copies.current.generation;
    let conflict = match same_copy {
        true => same_copy_ids(&mut merged, win, lose),
        false => {
            earlier_copy_ids(&mut merged.copies, lose);
            None
        }
    };
    let current = merged.copies.current.id.clone();
    for id in &lose.copies.older {
        keep(&mut merged.copies.older, id, current.as_ref());
    }
    for id in &lose.copies.foreign {
        if !merged.copies.foreign.contains(id) {
            merged.copies.foreign.push(id.clone());
        }
    }
    // What the other side's attempts of this copy may have left on the target is never
    // forgotten, whatever the winner says of its own copy: a done or retracted line keeps it
    // too, and the next run looks for further copies (`send::looked::done_copy`). A retract
    // took back the copy its side knew, not one the other side's attempt may have made.
    if same_copy && lose.tried.maybe {
        merged.tried = tried_by_both(win, lose);
    }
    (merged, conflict)
}

/// Both sides are about one copy: the winner's ids, and the loser's as its id (when the winner
/// has none), its thread's parts and duplicates. Two ids of one copy are a conflict.
fn same_copy_ids(merged: &mut KeyLine, win: &KeyLine, lose: &KeyLine) -> Option<Conflict> {
    let mut conflict = None;
    let merged_id = merged.copies.current.id.clone();
    // Two different ids of one copy: the post exists twice, whatever the statuses.
    if let (Some(x), Some(y)) = (merged_id.as_ref(), lose.copies.current.id.as_ref())
        && x != y
        && (own_live(lose).is_some() || own_live(win).is_some())
    {
        if own_live(lose).is_some() {
            keep(&mut merged.copies.duplicates, y, merged_id.as_ref());
        }
        let mut ids = [x.clone(), y.clone()];
        ids.sort();
        conflict = Some(Conflict { key: win.key, ids });
    }
    if merged_id.is_none()
        && let Some(y) = own_live(lose)
    {
        let current = &mut merged.copies.current;
        current.id = Some(y.clone());
        current.url.clone_from(&lose.copies.current.url);
    }
    merge_parts(merged, win, lose, &mut conflict);
    let current = merged.copies.current.id.clone();
    for id in &lose.copies.duplicates {
        keep(&mut merged.copies.duplicates, id, current.as_ref());
    }
    conflict
}

/// The loser is about an earlier generation: its live copies, its thread's parts and its
/// duplicates are history, kept live (`older=`) until a retract removes them.
fn earlier_copy_ids(merged: &mut Copies, lose: &KeyLine) {
    let current = merged.current.id.clone();
    if let Some(y) = own_live(lose) {
        keep(&mut merged.older, y, current.as_ref());
    }
    // Every part of its thread, not only the first (`id=`).
    if live(lose) {
        for part in &lose.copies.current.parts {
            keep(&mut merged.older, &part.id, current.as_ref());
        }
    }
    for id in &lose.copies.duplicates {
        keep(&mut merged.older, id, current.as_ref());
    }
}

/// What the attempts of both sides may have left: the earliest start, and the marks of both.
fn tried_by_both(win: &KeyLine, lose: &KeyLine) -> super::Tried {
    let since = [win, lose]
        .iter()
        .filter_map(|l| l.tried.since.clone())
        .min_by_key(|s| (s.parse::<jiff::Timestamp>().ok(), s.clone()));
    let mut marks: Vec<String> = Vec::new();
    for l in [win, lose] {
        for m in &l.tried.marks {
            if !marks.contains(m) {
                marks.push(m.clone());
            }
        }
    }
    let extra = marks.len().saturating_sub(MAX_MARKS);
    marks.drain(..extra);
    super::Tried {
        maybe: true,
        since,
        marks,
    }
}
