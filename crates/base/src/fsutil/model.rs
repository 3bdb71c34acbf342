//! A model of power loss, for tests: while a recorder is on (on this thread only), every
//! durability point dayrun reaches (an fsync of a file, of a folder, a `syncfs`) is recorded
//! as what it made durable, read from the real files at that moment. `Recorder::disk_at(n)`
//! then gives the disk as a power cut right after the n-th sync would leave it: each file as
//! of its last sync (empty if its data was never synced), each folder's entries as of its last
//! sync (as at the start if never synced). Writes, renames and removals that no sync covered
//! are lost: the worst a file system may do, short of damaging synced data.
//!
//! Off, it costs one thread-local check per sync (next to the sync itself, nothing).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Inode → content.
type Data = BTreeMap<u64, Vec<u8>>;
/// Folder → (name → inode).
type Entries = BTreeMap<PathBuf, BTreeMap<String, u64>>;

/// What was durable after one sync.
#[derive(Debug, Clone, Default)]
pub struct Durable {
    data: Data,
    entries: Entries,
    /// What the sync was, for messages: `fsync state/outbox.journal`.
    pub what: String,
}

/// The files of a durable disk: relative path → content.
pub type Disk = BTreeMap<PathBuf, Vec<u8>>;

#[derive(Debug, Default)]
pub struct Recorder {
    /// The folders modelled (their files; sub-folders are not).
    folders: Vec<PathBuf>,
    root: PathBuf,
    /// What was on disk when recording started (all of it counts as durable).
    initial: Durable,
    now: Durable,
    /// One entry per sync, in order.
    pub syncs: Vec<Durable>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

impl Recorder {
    /// Start recording syncs of files in `folders` (below `root`); what is there now counts as
    /// durable.
    pub fn start(root: &Path, folders: &[&str]) {
        let mut recorder = Recorder {
            root: root.to_path_buf(),
            folders: folders.iter().map(|f| root.join(f)).collect(),
            ..Recorder::default()
        };
        for folder in recorder.folders.clone() {
            recorder.take_folder(&folder, true);
        }
        recorder.initial = recorder.now.clone();
        RECORDER.with(|r| *r.borrow_mut() = Some(recorder));
    }

    /// Stop recording and hand the record over.
    pub fn stop() -> Recorder {
        RECORDER
            .with(|r| r.borrow_mut().take())
            .expect("a recorder was started")
    }

    /// The disk after a power cut right after sync `n` (0: before the first sync).
    pub fn disk_at(&self, n: usize) -> Disk {
        let durable = match n {
            0 => &self.initial,
            n => &self.syncs[n - 1],
        };
        let mut disk = Disk::new();
        for (folder, names) in &durable.entries {
            let relative = folder.strip_prefix(&self.root).unwrap_or(folder);
            for (name, ino) in names {
                let data = durable.data.get(ino).cloned().unwrap_or_default();
                disk.insert(relative.join(name), data);
            }
        }
        disk
    }

    /// A folder's entries (and, with `data`, its files' contents) as they are now.
    fn take_folder(&mut self, folder: &Path, data: bool) {
        let mut names = BTreeMap::new();
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            names.insert(entry.file_name().to_string_lossy().into_owned(), meta.ino());
            if data && let Ok(bytes) = std::fs::read(entry.path()) {
                self.now.data.insert(meta.ino(), bytes);
            }
        }
        self.now.entries.insert(folder.to_path_buf(), names);
    }

    fn modelled(&self, path: &Path) -> bool {
        let folder = super::folder_of(path);
        self.folders.iter().any(|f| same(f, folder))
    }

    fn record(&mut self, what: String) {
        self.now.what = what;
        self.syncs.push(self.now.clone());
    }
}

/// A file's data was synced.
pub(super) fn file_synced(path: &Path) {
    RECORDER.with(|r| {
        let mut r = r.borrow_mut();
        let Some(r) = r.as_mut() else { return };
        if !r.modelled(path) {
            return;
        }
        if let (Ok(meta), Ok(bytes)) = (std::fs::metadata(path), std::fs::read(path)) {
            r.now.data.insert(meta.ino(), bytes);
        }
        r.record(format!("fsync {}", shown(&r.root, path)));
    });
}

/// A folder's entries were synced.
pub(super) fn folder_synced(dir: &Path) {
    RECORDER.with(|r| {
        let mut r = r.borrow_mut();
        let Some(r) = r.as_mut() else { return };
        let Some(folder) = r.folders.iter().find(|f| same(f, dir)).cloned() else {
            return;
        };
        r.take_folder(&folder, false);
        r.record(format!("fsync folder {}", shown(&r.root, dir)));
    });
}

/// Everything on the file system of `dir` was synced: every modelled folder, data and entries.
pub(super) fn fs_synced(dir: &Path) {
    RECORDER.with(|r| {
        let mut r = r.borrow_mut();
        let Some(r) = r.as_mut() else { return };
        for folder in r.folders.clone() {
            r.take_folder(&folder, true);
        }
        r.record(format!("syncfs {}", shown(&r.root, dir)));
    });
}

fn same(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok() == b.canonicalize().ok()
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
