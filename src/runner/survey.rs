//! The survey before a target's pass: which keys the pass will look up on the target, judged
//! from their lines alone, and, when there are two or more, one read of the target for all of
//! them (`Find::survey`), so that a lookup it provably covers costs no request of its own.
//! When a lookup may be answered from it is `targets::survey`'s rule, for every target.

use super::TargetRun;
use crate::life::Key;

impl TargetRun<'_> {
    /// Survey the target for the keys of `keys` (the run's walk) that this pass will look up.
    /// A failed survey is traced and changes nothing: every lookup is then made live.
    pub(crate) fn survey(&mut self, keys: impl Iterator<Item = (Key, bool)>) {
        if self.run.plan.dry_run || !self.book.rules.can_find {
            return;
        }
        let wanted: Vec<Key> = keys
            .filter(|&(key, has_post)| self.book.will_look(key, has_post))
            .map(|(key, _)| key)
            .collect();
        let (Some(&first), Some(&last), true) = (wanted.first(), wanted.last(), wanted.len() > 1)
        else {
            return;
        };
        let now = self.run.clock.instant();
        let Some(find) = self.finder() else {
            return;
        };
        let (result, said) = match find.survey(&wanted, now) {
            Ok(None) => return,
            Ok(Some(said)) => ("read", said),
            Err(err) => (
                "lookup-error",
                format!("{}; each key is looked up on its own", err.reason()),
            ),
        };
        let keys = wanted.len();
        self.voice.trace(
            first,
            "survey",
            result,
            &format!("keys={keys} {first}..{last}: {said}"),
        );
    }
}
