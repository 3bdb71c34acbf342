//! What a key keeps beside its state line, in `state/<target>.sent/`: the exact document of
//! its latest attempt (`<key>.json`, for targets whose lookup is handed what was sent) and a
//! thread's parts before its first send (`<key>.thread.json`). Written atomically before the
//! send that needs them, read back as bytes (the caller knows their form), and removed once the
//! key is done with them; the folder goes when it is empty.

use crate::error::{Error, Kind};
use crate::fsutil;
use life::Key;
use std::path::{Path, PathBuf};

/// One target's `state/<target>.sent/` folder.
#[derive(Debug, Clone)]
pub struct Sent {
    dir: PathBuf,
}

/// What a key keeps there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The document of the latest attempt (`<key>.json`).
    Payload,
    /// A thread's parts as prepared for its copy (`<key>.thread.json`).
    Thread,
}

impl Kept {
    fn file(self, key: Key) -> String {
        match self {
            Kept::Payload => format!("{key}.json"),
            Kept::Thread => format!("{key}.thread.json"),
        }
    }

    /// What keeping it is called in an error.
    fn doing(self) -> &'static str {
        match self {
            Kept::Payload => "keep what is sent",
            Kept::Thread => "keep a thread's parts",
        }
    }
}

impl Sent {
    /// The folder of `target` in the state folder `state_dir` (not created until a file is kept).
    pub fn of(state_dir: &Path, target: &str) -> Sent {
        Sent {
            dir: state_dir.join(format!("{target}.sent")),
        }
    }

    /// Where the key's `what` is kept.
    pub fn path(&self, key: Key, what: Kept) -> PathBuf {
        self.dir.join(what.file(key))
    }

    /// Keep `bytes` as the key's `what`, durably (the folder made if need be).
    pub fn keep(&self, key: Key, what: Kept, bytes: &[u8]) -> Result<(), Error> {
        let path = self.path(key, what);
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| fsutil::write_atomic(&path, bytes))
            .map_err(|e| Error::io(Kind::State, &path, what.doing(), &e))
    }

    /// The key's `what` as kept; `None` when there is none (or it cannot be read).
    pub fn kept(&self, key: Key, what: Kept) -> Option<Vec<u8>> {
        std::fs::read(self.path(key, what)).ok()
    }

    /// Keep what `old` keeps as `new`'s too (a renamed post's line carried over): its pending
    /// attempt's document and a thread's parts are what its lookups and parts need. The
    /// caller removes `old`'s once `new`'s line is written (`forget`).
    pub fn carry(&self, old: Key, new: Key) -> Result<(), Error> {
        for what in [Kept::Payload, Kept::Thread] {
            if let Some(bytes) = self.kept(old, what) {
                self.keep(new, what, &bytes)?;
            }
        }
        Ok(())
    }

    /// Forget everything `key` keeps.
    pub fn forget(&self, key: Key) {
        self.remove(key, Kept::Payload);
        self.remove(key, Kept::Thread);
    }

    /// Forget the key's `what`; the folder goes once it is empty (`remove_dir` leaves a folder
    /// that is not). Nothing to forget is no error.
    pub fn remove(&self, key: Key, what: Kept) {
        let _ = std::fs::remove_file(self.path(key, what));
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::{Kept, Sent};

    #[test]
    fn kept_beside_the_state_until_removed() {
        let dir = std::env::temp_dir().join(format!("dayrun-sent-{}", std::process::id()));
        let sent = Sent::of(&dir, "site");
        let key = life::Key::of_day(jiff::civil::date(2026, 11, 29));
        assert_eq!(sent.kept(key, Kept::Payload), None);
        sent.keep(key, Kept::Payload, b"{}").unwrap();
        sent.keep(key, Kept::Thread, b"[]").unwrap();
        assert_eq!(
            sent.path(key, Kept::Thread),
            dir.join("site.sent/2026-11-29.thread.json")
        );
        assert_eq!(sent.kept(key, Kept::Payload).as_deref(), Some(&b"{}"[..]));
        sent.remove(key, Kept::Payload);
        assert!(
            dir.join("site.sent").exists(),
            "the thread's parts are still there"
        );
        sent.remove(key, Kept::Thread);
        assert!(!dir.join("site.sent").exists(), "an empty folder goes");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_carried_key_keeps_what_the_old_one_kept() {
        let dir = std::env::temp_dir().join(format!("dayrun-sent-carry-{}", std::process::id()));
        let sent = Sent::of(&dir, "site");
        let old: life::Key = "2026-11-29-old".parse().unwrap();
        let new: life::Key = "2026-11-29-new".parse().unwrap();
        sent.keep(old, Kept::Thread, b"[1]").unwrap();
        sent.carry(old, new).unwrap();
        sent.forget(old);
        assert_eq!(sent.kept(new, Kept::Thread).as_deref(), Some(&b"[1]"[..]));
        assert_eq!(
            sent.kept(new, Kept::Payload),
            None,
            "nothing kept, nothing made"
        );
        assert_eq!(sent.kept(old, Kept::Thread), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
