//! The run lock: an exclusive `File::try_lock` on `state/.lock`, held by a guard for the whole run.

use crate::clock::Clock;
use crate::error::{Error, Kind};
use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Held while a run, retry, mark or adopt changes state; released on drop (or process death).
/// The file says who holds it while it is held, and nothing once it is let go.
#[derive(Debug)]
pub struct RunLock {
    file: File,
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
    let path = dir.join(".lock");
    let mut file = crate::fsutil::open_own(&path, false)
        .map_err(|e| cannot("open the lock file", e, &shown_lock))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "pid unknown".to_string()
            } else {
                holder.to_string()
            };
            return Err(Error::new(
                Kind::Busy,
                format!("another dayrun run holds {} ({who})", shown_lock.display()),
            )
            .hint("wait for it to finish; this run did nothing"));
        }
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
    Ok(RunLock { file })
}
