//! A renamed post's line, carried over to its new key: the copies stay where they are on the
//! target (`place=`), so lookups, edits and removals keep finding them there, and nothing is
//! sent again. Which line a new key takes over is the caller's fact (`Facts::carry`); what the
//! new line is, and when a visit takes it, are ruled here.

use crate::Key;
use crate::{Change, Exit, KeyLine, Step, Word};

impl KeyLine {
    /// The key whose place on the target holds this line's copies: its own, or the key it was
    /// renamed from (`place=`).
    pub fn place_key(&self) -> Key {
        self.place.unwrap_or(self.key)
    }

    /// This line as the line of `key`, the post renamed to it, written at `at`: everything it
    /// says of its copies and attempts stays, and they stay at this line's place.
    pub fn carried_to(&self, key: Key, at: &str) -> KeyLine {
        let mut line = self.clone();
        line.place = Some(self.place_key()).filter(|place| *place != key);
        line.gone = None;
        line.key = key;
        line.at = at.to_string();
        line
    }
}

/// A run saw the line's post file gone, and no new post it visited may be that post renamed:
/// the day is noted (`gone=`), once; nothing else of the line changes.
pub(super) fn seen_gone(line: Option<&KeyLine>, today: jiff::civil::Date) -> Step {
    match line.filter(|l| l.gone.is_none()) {
        Some(line) => {
            let mut next = line.clone();
            next.gone = Some(today);
            Step::stop(Change::Write(Box::new(next)), Exit::Ok, Word::Nothing)
        }
        None => Step::stop(Change::Keep, Exit::Ok, Word::Nothing),
    }
}

/// A visit of a key with no line whose post is another key's renamed: `step`, the visit of
/// `line` (that key's line carried over), which it writes first. (The runner tells the carry.)
pub(super) fn carried(line: KeyLine, mut step: Step) -> Step {
    if step.line == Change::Keep {
        step.line = Change::Write(Box::new(line));
    }
    step
}
