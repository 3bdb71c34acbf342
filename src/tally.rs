//! The counts a run and `status` end each target with: one vocabulary, in one order.

use crate::life::{Status, Word};
use std::collections::BTreeMap;

/// Every word a count may carry, in the order they are printed: what happened in this run
/// first, then where the other keys stand. A published key whose file is gone counts as
/// `deleted`, not also as `done`; a key held back counts as `held back`, not also as `failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Count {
    Published,
    Confirmed,
    AlreadyThere,
    Updated,
    Retracted,
    Failed,
    HeldBack,
    Pending,
    Unconfirmed,
    NotAttempted,
    Duplicate,
    Due,
    Done,
    Edited,
    Dedup,
    Deleted,
    Scheduled,
    Draft,
    Stale,
    EditFailed,
    Skip,
}

/// A count is written as its word (`status --json`'s `status`).
impl serde::Serialize for Count {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.word())
    }
}

impl Count {
    /// The word the summary and `status` print.
    pub fn word(self) -> &'static str {
        match self {
            Count::Published => "published",
            Count::Confirmed => "confirmed",
            Count::AlreadyThere => "already there",
            Count::Updated => "updated",
            Count::Retracted => "retracted",
            Count::Failed => "failed",
            Count::HeldBack => "held back",
            Count::Pending => "pending",
            Count::Unconfirmed => "unconfirmed",
            Count::NotAttempted => "not attempted",
            Count::Duplicate => "duplicate",
            Count::Due => "due",
            Count::Done => "done",
            Count::Edited => "edited",
            Count::Dedup => "dedup",
            Count::Deleted => "deleted",
            Count::Scheduled => "scheduled",
            Count::Draft => "draft",
            Count::Stale => "stale",
            Count::EditFailed => "edit failed",
            Count::Skip => "skip",
        }
    }

    /// The count of a key whose line says `status`.
    pub fn of_status(status: Status) -> Count {
        match status {
            Status::Pending => Count::Pending,
            Status::Done => Count::Done,
            Status::Failed => Count::Failed,
            Status::Retracted => Count::Retracted,
        }
    }

    /// The count of a step that leaves the key done: `None` for any other word.
    pub fn of_done(word: Word) -> Option<Count> {
        match word {
            Word::Published => Some(Count::Published),
            Word::Confirmed => Some(Count::Confirmed),
            Word::AlreadyThere => Some(Count::AlreadyThere),
            _ => None,
        }
    }
}

/// Counts by word.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<Count, usize>);

impl Tally {
    pub fn add(&mut self, count: Count) {
        *self.0.entry(count).or_default() += 1;
    }

    /// How many keys were counted as `count`.
    pub fn get(&self, count: Count) -> usize {
        self.0.get(&count).copied().unwrap_or_default()
    }

    /// The counts in print order, each through `show` (which may add a range or advice).
    pub fn parts(&self, show: impl Fn(Count, usize) -> String) -> Vec<String> {
        self.0.iter().map(|(count, n)| show(*count, *n)).collect()
    }
}

/// What each target's pass of this process counted, by target (`passed`): a run's metrics
/// read it after the passes.
static PASSES: std::sync::Mutex<Vec<(String, Tally)>> = std::sync::Mutex::new(Vec::new());

/// Keep what `target`'s pass counted, for the run's metrics (`passes`).
pub fn passed(target: &str, tally: &Tally) {
    let mut passes = PASSES.lock().unwrap_or_else(|e| e.into_inner());
    passes.push((target.to_string(), Tally(tally.0.clone())));
}

/// How many keys `target`'s passes in this process counted as `count`.
pub fn passes(target: &str, count: Count) -> usize {
    let passes = PASSES.lock().unwrap_or_else(|e| e.into_inner());
    passes
        .iter()
        .filter(|(name, _)| name == target)
        .map(|(_, tally)| tally.get(count))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_out_in_the_one_order_whoever_counted_first() {
        let mut tally = Tally::default();
        for count in [
            Count::Stale,
            Count::Deleted,
            Count::Done,
            Count::Done,
            Count::Published,
        ] {
            tally.add(count);
        }
        let parts = tally.parts(|count, n| format!("{n} {}", count.word()));
        assert_eq!(parts, ["1 published", "2 done", "1 deleted", "1 stale"]);
    }
}
