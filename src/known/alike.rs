//! The marks every post of the catalog would be sent with to this target, read once a pass and
//! only the first time a lookup finds a copy no line holds: a copy is known by what was sent,
//! for which key, never by its text alone (`life::copies::sift`).

use super::Known;
use crate::content::Catalog;
use crate::life::Key;
use crate::targets::Find;
use std::collections::BTreeMap;

/// Each key of the catalog with the marks its post would be sent with here (`Find::marks_of`).
/// Posts that cannot be read, drafts, and posts whose marks cannot be worked out are left out:
/// they send nothing. One entry per key, each a few short hashes.
#[derive(Debug, Default)]
pub(super) struct Alike {
    marks: BTreeMap<Key, Vec<String>>,
}

impl Alike {
    /// Every post of `catalog` read (its text: marks compare no image) and marked as the
    /// target of `find` would send it.
    fn read(find: &mut dyn Find, catalog: &Catalog) -> Alike {
        let mut alike = Alike::default();
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

    /// The keys other than `key` whose post would be sent with one of `marks`.
    fn keys(&self, key: Key, marks: &[String]) -> Vec<Key> {
        (self.marks.iter())
            .filter(|(k, theirs)| **k != key && theirs.iter().any(|m| marks.contains(m)))
            .map(|(k, _)| *k)
            .collect()
    }
}

impl Known {
    /// The other keys of `catalog` whose post would be sent with one of `marks` by the target
    /// of `find`; the index is read at the first call of the pass.
    pub(super) fn alike(
        &mut self,
        find: &mut dyn Find,
        catalog: &Catalog,
        key: Key,
        marks: &[String],
    ) -> Vec<Key> {
        let alike = self.alike.get_or_insert_with(|| Alike::read(find, catalog));
        alike.keys(key, marks)
    }
}
