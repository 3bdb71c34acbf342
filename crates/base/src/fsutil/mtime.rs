//! Modification times of many files, cheaply: each file is `fstatat`'d against its folder, kept
//! open while the next file is in the same folder, so the path is not walked again per file.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The folder of the last file asked about, open.
#[derive(Default)]
pub struct Mtimes {
    folder: Option<(PathBuf, File)>,
}

impl Mtimes {
    /// When the file at `path` was last modified (through a symbolic link, as the catalog
    /// reads posts: the time of the file it names);
    /// `None` when it cannot be told (no such file, a time before 1970).
    pub fn of(&mut self, path: &Path) -> Option<SystemTime> {
        let (parent, name) = (path.parent()?, path.file_name()?);
        if self.folder.as_ref().is_none_or(|(open, _)| open != parent) {
            let folder = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
                .open(parent)
                .ok()?;
            self.folder = Some((parent.to_path_buf(), folder));
        }
        let (_, folder) = self.folder.as_ref()?;
        let name = CString::new(name.as_bytes()).ok()?;
        let (secs, nanos) = fstatat(folder, &name)?;
        let secs = u64::try_from(secs).ok()?;
        let nanos = u32::try_from(nanos).ok()?;
        Some(SystemTime::UNIX_EPOCH + Duration::new(secs, nanos))
    }
}

/// The modification time (seconds, nanoseconds) of `name` in `folder`, following a link.
#[allow(unsafe_code)]
fn fstatat(folder: &File, name: &CString) -> Option<(i64, i64)> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is a NUL-terminated string and `stat` a buffer of the right type, which
    // the call fills when it returns 0; the descriptor is open for the whole call.
    let done = unsafe { libc::fstatat(folder.as_raw_fd(), name.as_ptr(), stat.as_mut_ptr(), 0) };
    if done != 0 {
        return None;
    }
    // SAFETY: the call returned 0, so it filled `stat`.
    let stat = unsafe { stat.assume_init() };
    #[allow(clippy::unnecessary_cast)]
    Some((stat.st_mtime as i64, stat.st_mtime_nsec as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_is_the_files_and_none_without_a_file() {
        let dir = std::env::temp_dir().join(format!("dayrun-mtime-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-11-29.md");
        std::fs::write(&file, "# x\n").unwrap();
        let want = std::fs::metadata(&file).unwrap().modified().unwrap();
        let mut mtimes = Mtimes::default();
        assert_eq!(mtimes.of(&file), Some(want));
        assert_eq!(mtimes.of(&dir.join("gone.md")), None);
        assert_eq!(mtimes.of(&file), Some(want));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
