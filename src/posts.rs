//! The post of the key being worked on, read on demand and once, whatever the number of
//! targets that look at it, and dropped at the next key: the run builds it, every target's
//! pass reads from it.

use crate::content::Catalog;
use crate::error::Error;
use crate::life::Key;
use crate::post::Post;
use std::cell::RefCell;
use std::rc::Rc;

/// A post as read: shared by every target that looks at its key.
type Read = Rc<Result<Post, Error>>;

/// The post of the key being worked on, read on demand, once, whatever the number of targets.
pub(crate) struct Posts<'a> {
    catalog: &'a Catalog,
    current: RefCell<Option<(Key, Read)>>,
    /// The modification time of the key being worked on (`Catalog::modified`), stat'd once,
    /// and the folder it was stat'd in, kept open for the next.
    modified: RefCell<Modified>,
}

/// The last key's modification time, and the folder of its post, open.
#[derive(Default)]
struct Modified {
    of: Option<(Key, Option<std::time::SystemTime>)>,
    mtimes: crate::fsutil::Mtimes,
}

impl<'a> Posts<'a> {
    /// Nothing read yet.
    pub(crate) fn new(catalog: &'a Catalog) -> Self {
        Posts {
            catalog,
            modified: RefCell::default(),
            current: RefCell::new(None),
        }
    }

    /// Whether the post's file was modified after `at`, in a later second (a line's time is cut
    /// to the second). A file the system gives no time for counts as modified.
    pub(crate) fn touched_after(&self, key: Key, at: jiff::Timestamp) -> bool {
        let Modified { of, mtimes } = &mut *self.modified.borrow_mut();
        if of.as_ref().is_none_or(|(k, _)| *k != key) {
            *of = Some((key, self.catalog.modified(key, mtimes)));
        }
        let when = of.as_ref().and_then(|(_, when)| *when);
        let when = when.and_then(|when| jiff::Timestamp::try_from(when).ok());
        when.is_none_or(|when| when.as_second() > at.as_second())
    }

    /// Whether the key has a post file in the catalog.
    pub(crate) fn has(&self, key: Key) -> bool {
        self.catalog.files.contains_key(&key)
    }

    pub(crate) fn get(&self, key: Key) -> Rc<Result<Post, Error>> {
        let mut current = self.current.borrow_mut();
        if current.as_ref().is_none_or(|(k, _)| *k != key) {
            *current = Some((key, Rc::new(self.catalog.post(key))));
        }
        Rc::clone(&current.as_ref().expect("set above").1)
    }
}
