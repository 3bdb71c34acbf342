//! Which key's line holds each id on one target, and which keys' attempts may be out with
//! which texts: read from the state file once, the first time a runner's lookup needs it, and
//! kept up to date as lines are written, so that a copy another key's line holds, or one a
//! same-text attempt of another key may have made, is never taken for this key's
//! (`life::copies::sift`).

use crate::state::StateFile;
use life::Key;
use life::KeyLine;
use std::collections::HashMap;

/// Every id a line of this target holds, with the keys whose lines hold it.
#[derive(Debug, Default)]
pub struct Owners {
    by_id: HashMap<Box<str>, Vec<Key>>,
    /// The marks (hashes of the texts sent) of each key whose attempt may be out.
    maybe: HashMap<Key, Vec<String>>,
}

impl Owners {
    /// The ids of every line in `state`.
    pub fn read(state: &StateFile) -> Owners {
        let mut owners = Owners::default();
        for record in state.records() {
            owners.note(&KeyLine::of(record));
        }
        owners
    }

    /// Add the ids `line` holds (an id once held stays: a retracted copy of another key is
    /// still not this key's).
    pub fn note(&mut self, line: &KeyLine) {
        match line.tried.maybe && !line.tried.marks.is_empty() {
            true => drop(self.maybe.insert(line.key, line.tried.marks.clone())),
            false => drop(self.maybe.remove(&line.key)),
        }
        for held in line.copies.held() {
            let keys = self.by_id.entry(held.id.into()).or_default();
            if !keys.contains(&line.key) {
                keys.push(line.key);
            }
        }
    }

    /// `key`'s line went to another key (a renamed post): it holds nothing any more.
    pub fn forget(&mut self, key: Key) {
        self.maybe.remove(&key);
        for keys in self.by_id.values_mut() {
            keys.retain(|k| *k != key);
        }
    }

    /// Whether a line of a key other than `key` holds `id`.
    pub fn other_than(&self, key: Key, id: &str) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|keys| keys.iter().any(|k| *k != key))
    }

    /// The keys other than `key` whose attempt may be out and sent one of `marks`.
    pub fn twins(&self, key: Key, marks: &[String]) -> Vec<Key> {
        let mut twins: Vec<Key> = (self.maybe.iter())
            .filter(|(k, theirs)| **k != key && theirs.iter().any(|m| marks.contains(m)))
            .map(|(k, _)| *k)
            .collect();
        twins.sort();
        twins
    }
}
