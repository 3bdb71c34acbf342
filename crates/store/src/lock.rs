//! The run lock: exclusive `File::try_lock`s on the state folder and `state/.lock`, held for the run.

use crate::clock::Clock;
use crate::error::{Error, Kind};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Held while a run, retry, mark or adopt changes state; released on drop (or process death).
/// The folder's lock keeps other runs out even if `.lock` is removed under this one (a
/// cleaner, `git clean -X`); the file's lock keeps out runners that lock only the file (0.5.0).
/// The file says who holds it while it is held, and nothing once it is let go.
#[derive(Debug)]
pub struct RunLock {
    file: File,
    /// Declared after `file`, so dropped after it: the folder is let go last.
    _dir: File,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Still held here: no other run can be writing the file. (A run that dies leaves its
        // line, which the next run overwrites; the lock itself goes with the process.)
        let _ = self.file.set_len(0);
    }
}

/// Take the lock in `dir` (created if missing). A held lock is `Kind::Busy` (exit 75).
pub fn acquire(dir: &Path, shown: &Path, clock: &Clock) -> Result<RunLock, Error> {
    let shown_lock = shown.join(".lock");
    let cannot = |doing: &str, e: std::io::Error, at: &Path| {
        Error::io(Kind::State, at, doing, &e)
            .hint("the state folder must exist and be writable; nothing was done")
    };
    std::fs::create_dir_all(dir).map_err(|e| cannot("create the state folder", e, shown))?;
    // The folder's own descriptor (through a symlink, the real folder's): it holds the state,
    // so a cleaner that removes `.lock` under this run leaves it, and its lock, in place.
    let folder = File::open(dir).map_err(|e| cannot("open the state folder", e, shown))?;
    let path = dir.join(".lock");
    match folder.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            // Only to name the holder: read, never made, not through a link, never waiting.
            let file = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(&path);
            return Err(busy(file.ok(), &shown_lock));
        }
        Err(TryLockError::Error(e)) => return Err(cannot("lock", e, shown)),
    }
    let mut file = crate::fsutil::open_own(&path, false)
        .map_err(|e| cannot("open the lock file", e, &shown_lock))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(busy(Some(file), &shown_lock)),
        Err(TryLockError::Error(e)) => return Err(cannot("lock", e, &shown_lock)),
    }
    // The lock is ours: say who holds it, and prove the folder takes new files before any
    // side effect (a read-only folder with an old lock file would otherwise get this far).
    let stamp = clock.stamp();
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| {
            file.write_all(format!("pid {} since {stamp}\n", std::process::id()).as_bytes())
        })
        .map_err(|e| cannot("write the lock file", e, &shown_lock))?;
    let probe = dir.join(format!(".probe.{}", std::process::id()));
    // No fsync: an empty file has no data to sync, and a no-op run would pay for it.
    File::create(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| cannot("write in the state folder", e, shown))?;
    Ok(RunLock { file, _dir: folder })
}

/// The lock is held by another run: `Kind::Busy`, naming the holder `file` says (if any).
fn busy(file: Option<File>, shown_lock: &Path) -> Error {
    let mut holder = String::new();
    if let Some(file) = file {
        let _ = file.take(4096).read_to_string(&mut holder);
    }
    let holder = holder.trim();
    let who = if holder.is_empty() {
        "pid unknown"
    } else {
        holder
    };
    Error::new(
        Kind::Busy,
        format!("another dayrun run holds {} ({who})", shown_lock.display()),
    )
    .hint("wait for it to finish; this run did nothing")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> Clock {
        Clock::new(jiff::tz::TimeZone::UTC, None)
    }

    /// A fresh folder for one test, removed first if an earlier run left it.
    fn scratch(name: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("dayrun-lock-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    fn busy_message(dir: &Path) -> String {
        let err = acquire(dir, Path::new("state"), &clock()).unwrap_err();
        assert_eq!(err.kind, Kind::Busy, "{err:?}");
        err.message
    }

    #[test]
    fn a_held_lock_keeps_others_out_when_its_file_is_removed() {
        let root = scratch("removed");
        let state = root.join("state");
        let held = acquire(&state, Path::new("state"), &clock()).unwrap();
        let pid = format!("(pid {} since ", std::process::id());
        assert!(busy_message(&state).contains(&pid));
        std::fs::remove_file(state.join(".lock")).unwrap();
        assert_eq!(
            busy_message(&state),
            "another dayrun run holds state/.lock (pid unknown)"
        );
        assert!(!state.join(".lock").exists(), "a busy run made a lock file");
        drop(held);
        drop(acquire(&state, Path::new("state"), &clock()).unwrap());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_symlinked_state_folder_is_locked_where_it_is() {
        let root = scratch("symlink");
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("state")).unwrap();
        let held = acquire(&root.join("state"), Path::new("state"), &clock()).unwrap();
        std::fs::remove_file(root.join("elsewhere/.lock")).unwrap();
        busy_message(&root.join("elsewhere"));
        busy_message(&root.join("state"));
        drop(held);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
