//! Which keys a run walks, in key order: every post, and every key without one that some
//! target's pass looks at (`life::looks_at`), limited to `--key` when given. Walked from the catalog itself, so a no-op
//! run over 100k posts builds no set of keys.

use crate::content::Catalog;
use crate::life::Key;
use std::collections::BTreeSet;

/// Each key once, in order, with whether it has a post. `extra`: keys without a post that some
/// target must still look at; `only`: the keys named with `--key` (empty: all).
pub(super) fn walk<'a>(
    catalog: &'a Catalog,
    extra: &'a BTreeSet<Key>,
    only: &'a [Key],
) -> impl Iterator<Item = (Key, bool)> + 'a {
    let mut posts = catalog.files.keys().copied().peekable();
    let mut extra = extra.iter().copied().peekable();
    std::iter::from_fn(move || {
        loop {
            let next = match (posts.peek().copied(), extra.peek().copied()) {
                (Some(post), Some(other)) if other < post => (extra.next()?, false),
                (Some(post), Some(other)) if other == post => {
                    extra.next();
                    (posts.next()?, true)
                }
                (Some(_), _) => (posts.next()?, true),
                (None, Some(_)) => (extra.next()?, false),
                (None, None) => return None,
            };
            if only.is_empty() || only.contains(&next.0) {
                return Some(next);
            }
        }
    })
}
