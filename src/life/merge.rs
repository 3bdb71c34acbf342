//! Two sides of one key's line merged (`merge-state`): the same result whichever side is
//! "ours", no live id ever dropped, no attempt that may have landed forgotten.

use super::{KeyLine, MAX_MARKS, Op, Phase};
use jiff::civil::Date;

/// A key that holds two different live copies of one generation: a human must settle it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub key: Date,
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
        line.copy.generation,
        rank(line),
        line.time(),
        line.record().to_line().to_string(),
    )
}

/// The ids of a side that name a live copy of its own generation.
fn own_live(line: &KeyLine) -> Option<&String> {
    match line.phase {
        Phase::Retracted { .. } => None,
        _ => line.copy.id.as_ref(),
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
    let same_copy = win.copy.generation == lose.copy.generation;
    let mut conflict = None;
    let add = |list: &mut Vec<String>, id: &String, merged_id: Option<&String>| {
        // Every id either side recorded survives (no cap here: dropping one would lose a copy).
        if Some(id) != merged_id && !list.contains(id) {
            list.push(id.clone());
        }
    };
    let merged_id = merged.copy.id.clone();
    if same_copy {
        // Two different ids of one copy: the post exists twice, whatever the statuses.
        if let (Some(x), Some(y)) = (merged_id.as_ref(), lose.copy.id.as_ref())
            && x != y
            && (own_live(lose).is_some() || own_live(win).is_some())
        {
            if own_live(lose).is_some() {
                add(&mut merged.copies, y, merged_id.as_ref());
            }
            let mut ids = [x.clone(), y.clone()];
            ids.sort();
            conflict = Some(Conflict { key: win.key, ids });
        }
        if merged_id.is_none()
            && let Some(y) = own_live(lose)
        {
            merged.copy.id = Some(y.clone());
            merged.copy.url.clone_from(&lose.copy.url);
        }
        for id in &lose.copies {
            add(&mut merged.copies, id, merged.copy.id.as_ref());
        }
    } else {
        // An earlier generation's copies: history, kept live until a retract removes them.
        if let Some(y) = own_live(lose) {
            add(&mut merged.older, y, merged.copy.id.as_ref());
        }
        for id in &lose.copies {
            add(&mut merged.older, id, merged.copy.id.as_ref());
        }
    }
    for id in &lose.older {
        add(&mut merged.older, id, merged.copy.id.as_ref());
    }
    for id in &lose.foreign {
        if !merged.foreign.contains(id) {
            merged.foreign.push(id.clone());
        }
    }
    let unfinished = matches!(merged.phase, Phase::Pending(_) | Phase::Failed(..));
    if unfinished && same_copy && lose.tried.maybe {
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
        merged.tried = super::Tried {
            maybe: true,
            since,
            marks,
        };
    }
    (merged, conflict)
}
