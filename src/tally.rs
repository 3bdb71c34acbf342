//! The counts a run and `status` end each target with: one vocabulary, in one order.

use std::collections::BTreeMap;

/// Every word a count may carry, in the order they are printed: what happened in this run
/// first, then where the other keys stand. A published key whose file is gone counts as
/// `deleted`, not also as `done`; a key held back counts as `held back`, not also as `failed`.
const ORDER: [&str; 20] = [
    "published",
    "confirmed",
    "already there",
    "updated",
    "retracted",
    "failed",
    "held back",
    "pending",
    "unconfirmed",
    "not attempted",
    "duplicate",
    "due",
    "done",
    "edited",
    "dedup",
    "deleted",
    "scheduled",
    "draft",
    "stale",
    "forgotten",
];

/// Counts by word.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<&'static str, usize>);

impl Tally {
    pub fn add(&mut self, word: &'static str) {
        *self.0.entry(word).or_default() += 1;
    }

    /// The counts in print order, each through `show` (which may add a range or advice).
    pub fn parts(&self, show: impl Fn(&str, usize) -> String) -> Vec<String> {
        let place = |word: &str| ORDER.iter().position(|w| *w == word).unwrap_or(usize::MAX);
        let mut counts: Vec<(&&str, &usize)> = self.0.iter().collect();
        counts.sort_by_key(|(word, _)| (place(word), **word));
        counts.into_iter().map(|(word, n)| show(word, *n)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_out_in_the_one_order_whoever_counted_first() {
        let mut tally = Tally::default();
        for word in ["stale", "deleted", "done", "done", "published"] {
            tally.add(word);
        }
        let parts = tally.parts(|word, n| format!("{n} {word}"));
        assert_eq!(parts, ["1 published", "2 done", "1 deleted", "1 stale"]);
    }
}
