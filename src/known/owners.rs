//! What the other keys say of the copies one lookup found: the ids their lines hold and the
//! keys whose attempt may be out with the same text, from the owners of ids read from the state
//! at the first copy found (and kept up to date as lines are written); and, once a copy is on
//! no line, the keys of the catalog whose post would be sent with the same text (`alike.rs`).

use super::Known;
use crate::content::Catalog;
use crate::life::copies::Elsewhere;
use crate::life::{Key, KeyLine, Receipt};
use crate::state::StateFile;
use crate::targets::Find;
use store::owners::Owners;

/// What one lookup of `key` found (`receipts`), for the attempts that sent one of `marks`;
/// `line`: the key's line.
#[derive(Clone, Copy)]
pub(crate) struct Found<'f> {
    pub key: Key,
    pub line: Option<&'f KeyLine>,
    pub receipts: &'f [Receipt],
    pub marks: &'f [String],
}

/// What the other keys say of the copies one lookup found (`Known::others`).
#[derive(Default)]
pub(crate) struct Others {
    held: Vec<String>,
    twins: Vec<Key>,
    alike: Vec<Key>,
}

impl Others {
    /// As `copies::sift` reads it.
    pub(crate) fn elsewhere(&self) -> Elsewhere<'_> {
        Elsewhere {
            held: &self.held,
            twins: &self.twins,
            alike: &self.alike,
        }
    }
}

impl Known {
    /// What the other keys say of the copies `found` (`copies::Elsewhere`): the ids their
    /// lines hold and the keys whose attempt with one of its marks may be out, read from
    /// `state` at the first copy found; and, once a copy is on no line, the keys of `catalog`
    /// whose post the target of `find` would send with one of its marks (`alike.rs`).
    pub(crate) fn others(
        &mut self,
        found: Found,
        state: &StateFile,
        catalog: &Catalog,
        find: &mut dyn Find,
    ) -> Others {
        let Found {
            key,
            line,
            receipts,
            marks,
        } = found;
        if receipts.is_empty() {
            return Others::default();
        }
        let owners = self.owners.get_or_insert_with(|| Owners::read(state));
        let held: Vec<String> = (receipts.iter())
            .filter(|r| owners.other_than(key, &r.id))
            .map(|r| r.id.clone())
            .collect();
        let twins = owners.twins(key, marks);
        let on_line = |id: &str| {
            held.iter().any(|h| h == id)
                || line.is_some_and(|l| l.copies.held().iter().any(|h| h.id == id))
        };
        let unheld = receipts.iter().any(|r| !on_line(&r.id));
        let alike = match unheld {
            true => self.alike(find, catalog, key, marks),
            false => Vec::new(),
        };
        Others { held, twins, alike }
    }

    /// A line written here (`line`): once the owners of ids are read, they hold its ids too.
    pub(crate) fn note(&mut self, line: &KeyLine) {
        if let Some(owners) = &mut self.owners {
            owners.note(line);
        }
    }
}
