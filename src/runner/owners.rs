//! Which key's line holds each id on one target: read from the state file once, the first
//! time a lookup needs it, and kept up to date as lines are written, so that a copy another
//! key's line holds is never taken for this key's (`life::copies::sift`).

use crate::life::KeyLine;
use crate::state::StateFile;
use jiff::civil::Date;
use std::collections::HashMap;

/// Every id a line of this target holds, with the keys whose lines hold it.
#[derive(Debug, Default)]
pub(super) struct Owners {
    by_id: HashMap<Box<str>, Vec<Date>>,
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
        for held in line.held() {
            let keys = self.by_id.entry(held.id.into()).or_default();
            if !keys.contains(&line.key) {
                keys.push(line.key);
            }
        }
    }

    /// Whether a line of a key other than `key` holds `id`.
    pub fn other_than(&self, key: Date, id: &str) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|keys| keys.iter().any(|k| *k != key))
    }
}
