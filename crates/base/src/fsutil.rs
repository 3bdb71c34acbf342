//! Files, carefully: reads that refuse anything but a regular file and never block (a FIFO
//! named like a post), writes that never follow a symbolic link, and atomic replace (temp,
//! fsync, rename, folder fsync).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The power-loss model (tests only: the `model` feature, which the root package's
/// dev-dependencies turn on; a release build has neither the model nor its hooks).
#[cfg(feature = "model")]
pub mod model;
mod mtime;
mod staged;

pub use mtime::Mtimes;
pub use staged::Staged;

/// Open `path` for reading without blocking; `follow`: whether a symbolic link may lead to it
/// (credential files mounted by Kubernetes are links). Anything but a regular file is refused.
pub fn open_regular(path: &Path, follow: bool) -> io::Result<File> {
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(link_error)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device)",
        ));
    }
    Ok(file)
}

/// Read a regular file of at most `limit` bytes; the limit is checked on what is read.
pub fn read_regular(path: &Path, limit: u64, follow: bool) -> io::Result<Vec<u8>> {
    let file = open_regular(path, follow)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {limit} bytes"),
        ));
    }
    Ok(bytes)
}

/// Open (creating) a file dayrun writes, for appending or for read-write; never through a
/// symbolic link, so a link planted there cannot make dayrun write to another file.
pub fn open_own(path: &Path, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    match append {
        true => options.append(true),
        false => options.read(true).write(true).truncate(false),
    };
    options.open(path).map_err(link_error)
}

/// An error if `path` is a symbolic link (for files dayrun will write later in the run).
pub fn refuse_link(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            Err(link_error(io::Error::from_raw_os_error(libc::ELOOP)))
        }
        _ => Ok(()),
    }
}

fn link_error(err: io::Error) -> io::Error {
    match err.raw_os_error() {
        Some(libc::ELOOP) => io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a symbolic link; dayrun never writes through a link (replace it with a plain file, or link the whole state folder instead)",
        ),
        _ => err,
    }
}

/// Replace `path` with `bytes` so that a crash leaves either the old or the new file, whole.
/// The folder a file is in: `.` for a bare name (git hands its merge driver `.merge_file_X`,
/// whose parent is the empty path, which cannot be opened).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_all(&[(path, bytes)])
}

/// Replace several files of one folder, each atomically: all are written and fsync'd, then
/// renamed in the order given, then the folder is fsync'd once for all the renames.
pub fn write_atomic_all(files: &[(&Path, &[u8])]) -> io::Result<()> {
    let Some((first, _)) = files.first() else {
        return Ok(());
    };
    let dir = folder_of(first);
    let result = (|| {
        for (path, bytes) in files {
            let temp = temp_path(dir, path);
            let mut file = create_temp(&temp)?;
            file.write_all(bytes)?;
            sync_file(&file, &temp)?;
        }
        for (path, _) in files {
            fs::rename(temp_path(dir, path), path)?;
        }
        sync_dir(dir)
    })();
    if result.is_err() {
        for (path, _) in files {
            let _ = fs::remove_file(temp_path(dir, path));
        }
    }
    result
}

/// The temp file that becomes `path`: hidden, in the same folder, named by our pid.
pub fn temp_path(dir: &Path, path: &Path) -> PathBuf {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let pid = PID.get_or_init(std::process::id);
    dir.join(format!(".{name}.{pid}.tmp"))
}

/// Create a temp file afresh: an old one (a crashed run with our pid) is removed, and nothing
/// already there (a link) is ever opened. (Removed only when there: a backfill creates two
/// temps per key.)
pub fn create_temp(path: &Path) -> io::Result<File> {
    let create = || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
    };
    match create() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(path)?;
            create()
        }
        other => other,
    }
}

/// Make a folder's entries (a rename, a new or removed file) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()?;
    #[cfg(feature = "model")]
    model::folder_synced(dir);
    Ok(())
}

/// Make a file's data and metadata durable (`path`: where it is, for the power-loss model).
pub fn sync_file(file: &File, path: &Path) -> io::Result<()> {
    file.sync_all()?;
    #[cfg(feature = "model")]
    model::file_synced(path);
    #[cfg(not(feature = "model"))]
    let _ = path;
    Ok(())
}

/// Make a file's data durable (its size too; not its times).
pub fn sync_file_data(file: &File, path: &Path) -> io::Result<()> {
    file.sync_data()?;
    #[cfg(feature = "model")]
    model::file_synced(path);
    #[cfg(not(feature = "model"))]
    let _ = path;
    Ok(())
}

/// Make everything written on the file system that holds `dir` durable, with one call
/// (Linux's `syncfs`; elsewhere `Unsupported`, and callers sync file by file).
#[cfg(not(target_os = "linux"))]
pub fn sync_fs(_: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Make everything written on the file system that holds `dir` durable, with one call.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn sync_fs(dir: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let folder = File::open(dir)?;
    // SAFETY: syncfs(2) takes an open descriptor, which `folder` keeps open for the call; it
    // touches no memory of ours.
    if unsafe { libc::syncfs(folder.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    #[cfg(feature = "model")]
    model::fs_synced(dir);
    Ok(())
}
