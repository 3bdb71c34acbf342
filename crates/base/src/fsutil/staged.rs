//! Files written for a group commit: many files, each written to a temp without a sync, then
//! made durable together. `sync` makes every temp's data durable with one `syncfs` per file
//! system (one fsync per file where there is no `syncfs`), `rename` puts each temp in place
//! in the order written, and `sync_folders` makes the renames durable with one fsync per
//! folder. A file is renamed only once its data is durable, so whatever a power cut keeps
//! under a final name is whole.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// An item whose files are not in place: what could not be done, and why.
pub type Unplaced<T> = (T, &'static str, io::Error);

/// Temps waiting to become their files, in the order they were written.
#[derive(Debug, Default)]
pub struct Staged {
    /// (temp, final path)
    files: Vec<(PathBuf, PathBuf)>,
}

impl Staged {
    /// Write `bytes` to a temp beside `path` (no sync); it becomes `path` at `rename`.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let temp = super::temp_path(super::folder_of(path), path);
        let written = super::create_temp(&temp).and_then(|mut file| file.write_all(bytes));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        self.files.push((temp, path.to_path_buf()));
        written
    }

    /// How many files were staged: a mark for `discard_from`.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Remove the temps staged from `mark` on (a key whose files cannot all be written).
    pub fn discard_from(&mut self, mark: usize) {
        for (temp, _) in self.files.drain(mark.min(self.files.len())..) {
            let _ = fs::remove_file(temp);
        }
    }

    /// Make every temp's data durable: one `syncfs` for each file system they are on.
    pub fn sync(&self) -> io::Result<()> {
        let folders: BTreeSet<&Path> = self
            .files
            .iter()
            .map(|(t, _)| super::folder_of(t))
            .collect();
        let mut devices = BTreeSet::new();
        for folder in folders {
            use std::os::unix::fs::MetadataExt;
            if devices.insert(fs::metadata(folder)?.dev()) {
                match super::sync_fs(folder) {
                    Err(e) if e.kind() == io::ErrorKind::Unsupported => return self.sync_each(),
                    other => other?,
                }
            }
        }
        Ok(())
    }

    /// One fsync per temp, where there is no `syncfs`.
    fn sync_each(&self) -> io::Result<()> {
        for (temp, _) in &self.files {
            super::sync_file(&fs::File::open(temp)?, temp)?;
        }
        Ok(())
    }

    /// Rename the temps from `from` to `to` (a key's files) over their files, in order. On an
    /// error the key's temps not yet renamed are removed.
    pub fn rename(&self, from: usize, to: usize) -> io::Result<()> {
        for (i, (temp, path)) in self.files[from..to].iter().enumerate() {
            if let Err(e) = fs::rename(temp, path) {
                for (temp, _) in &self.files[from + i..to] {
                    let _ = fs::remove_file(temp);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Make the renames durable: one fsync for each folder written to.
    pub fn sync_folders(&self) -> io::Result<()> {
        let folders: BTreeSet<&Path> = self
            .files
            .iter()
            .map(|(_, p)| super::folder_of(p))
            .collect();
        folders.into_iter().try_for_each(super::sync_dir)
    }

    /// Put the staged files of every item of `items` (each with the range of its temps) in
    /// place, durably: one `sync` of their data, each item's `rename`, one `sync_folders`. The
    /// items whose files are in place, and the others, each with what could not be done.
    pub fn commit<T>(&mut self, items: Vec<(T, Range<usize>)>) -> (Vec<T>, Vec<Unplaced<T>>) {
        let mut failed = Vec::new();
        if !self.is_empty()
            && let Err(e) = self.sync()
        {
            self.discard();
            let failed = items
                .into_iter()
                .map(|(t, _)| (t, "make the files durable", copy(&e)));
            return (Vec::new(), failed.collect());
        }
        let mut placed = Vec::new();
        for (item, range) in items {
            match self.rename(range.start, range.end) {
                Ok(()) => placed.push(item),
                Err(e) => failed.push((item, "put the files in place", e)),
            }
        }
        if !placed.is_empty()
            && let Err(e) = self.sync_folders()
        {
            let lost = placed
                .drain(..)
                .map(|t| (t, "make the renames durable", copy(&e)));
            failed.extend(lost);
        }
        (placed, failed)
    }

    /// Remove every temp still there (after a failed `sync`).
    pub fn discard(&mut self) {
        self.discard_from(0);
    }
}

/// An error said to each item it failed (`io::Error` is not `Clone`).
fn copy(e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), e.to_string())
}
