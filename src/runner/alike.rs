//! The marks every post of the catalog would be sent with to this target, read once a pass and
//! only the first time a lookup finds a copy no line holds: a copy is known by what was sent,
//! for which key, never by its text alone (`life::copies::sift`).

use super::TargetRun;
use crate::life::Key;
use std::collections::BTreeMap;

/// Each key of the catalog with the marks its post would be sent with here (`Find::marks_of`).
/// Posts that cannot be read, drafts, and posts whose marks cannot be worked out are left out:
/// they send nothing. One entry per key, each a few short hashes.
#[derive(Debug, Default)]
pub(super) struct Alike {
    marks: BTreeMap<Key, Vec<String>>,
}

impl Alike {
    /// The keys other than `key` whose post would be sent with one of `marks`.
    pub(super) fn keys(&self, key: Key, marks: &[String]) -> Vec<Key> {
        (self.marks.iter())
            .filter(|(k, theirs)| **k != key && theirs.iter().any(|m| marks.contains(m)))
            .map(|(k, _)| *k)
            .collect()
    }
}

impl TargetRun<'_> {
    /// The other keys of the catalog whose post would be sent here with one of `marks`; the
    /// index is read at the first call of the pass.
    pub(super) fn alike(&mut self, key: Key, marks: &[String]) -> Vec<Key> {
        if self.known.alike.is_none() {
            self.known.alike = Some(self.read_alike());
        }
        (self.known.alike.as_ref()).map_or_else(Vec::new, |a| a.keys(key, marks))
    }

    /// Every post of the catalog read (its text: marks compare no image) and marked as this
    /// target would send it.
    fn read_alike(&mut self) -> Alike {
        let catalog = self.run.catalog;
        let mut alike = Alike::default();
        let Some(find) = self.target.as_find() else {
            return alike;
        };
        for key in catalog.files.keys() {
            let Ok(post) = catalog.text(*key) else {
                continue;
            };
            if post.draft {
                continue;
            }
            if let Some(marks) = find.marks_of(&post) {
                alike.marks.insert(*key, marks);
            }
        }
        alike
    }
}
