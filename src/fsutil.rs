//! Durable file writes: atomic replace (temp, fsync, rename, folder fsync) and folder fsync.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replace `path` with `bytes` so that a crash leaves either the old or the new file, whole.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_all(&[(path, bytes)])
}

/// Replace several files of one folder, each atomically: all are written and fsync'd, then
/// renamed in the order given, then the folder is fsync'd once for all the renames.
pub fn write_atomic_all(files: &[(&Path, &[u8])]) -> io::Result<()> {
    let Some((first, _)) = files.first() else {
        return Ok(());
    };
    let dir = first.parent().unwrap_or(Path::new("."));
    let tmp = |path: &Path| -> PathBuf {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        dir.join(format!(".{name}.{}.tmp", std::process::id()))
    };
    let result = (|| {
        for (path, bytes) in files {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(tmp(path))?;
            file.write_all(bytes)?;
            file.sync_all()?;
        }
        for (path, _) in files {
            fs::rename(tmp(path), path)?;
        }
        sync_dir(dir)
    })();
    if result.is_err() {
        for (path, _) in files {
            let _ = fs::remove_file(tmp(path));
        }
    }
    result
}

/// Make a folder's entries (a rename, a new or removed file) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
