//! Per-target state: `state/<target>.state`, one line per key, plus an append-only journal.
//!
//! At rest the state file holds one sorted line per key: `KEY STATUS TIMESTAMP [name=value ...]`.
//! During a run every transition is appended to `state/<target>.journal` and fsync'd, so its cost
//! does not grow with the number of keys; the journal is folded back into the state file (temp,
//! fsync, rename, folder fsync) at the start and end of each run.

use crate::clock::Clock;
use crate::error::Error;
use crate::error::Kind;
use crate::fsutil;
use crate::lock::{self, RunLock};
use life::Key;
use life::Record;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read as _, Seek as _, SeekFrom, Write};
use std::path::{Path, PathBuf};

mod group;
mod load;

/// The longest line a state file or journal may hold; a longer one is an error, found at once.
pub const MAX_LINE: usize = 64 * 1024;

/// The state file's format: 2 added `retracted`; 3 (dayrun 0.5) added the fields of a key's
/// whole life (`older=`, `foreign=`, `first_failure=`, `lookup=error`), which a dayrun that
/// knows only 2 would drop on a rewrite. Written as the first line of every file dayrun
/// rewrites, so that a dayrun that knows less refuses the file clearly instead of calling it
/// damaged; a file without the line is format 1. Older formats are read as they are and
/// written as this one on the first write.
pub const FORMAT: u32 = 3;
const FORMAT_LINE: &str = "# dayrun state format ";

/// A run of comment and blank lines in the state file as last read or written, by byte range:
/// copied byte for byte when the file is rewritten, never held in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u64,
    len: u64,
}

/// One target's state: the state file, folded with its journal.
#[derive(Debug)]
pub struct StateFile {
    pub target: String,
    path: PathBuf,
    journal_path: PathBuf,
    records: BTreeMap<Key, Record>,
    /// Comment and blank lines found before a key's line, kept with it on rewrite.
    comments: BTreeMap<Key, Span>,
    /// Comment lines after the last key.
    tail: Option<Span>,
    /// Whether records changed since the state file was read (journal replayed, `set`, `put`):
    /// an unchanged file is never rewritten, so a re-run leaves it byte for byte as it was.
    dirty: bool,
    journal_exists: bool,
    journal: Option<File>,
    /// Whether `set` leaves the fsync to the next synced append (see `group.rs`).
    unsynced: bool,
    /// A torn last journal record that was dropped (shown to the user).
    pub torn: Option<String>,
}

impl StateFile {
    pub fn path_for(dir: &Path, target: &str) -> PathBuf {
        dir.join(format!("{target}.state"))
    }

    /// Read `dir/<target>.state` and replay `dir/<target>.journal` over it, line by line (the
    /// files are never held whole, and comments not at all). Any malformed line is an error
    /// naming file and line; only a torn last journal record is dropped. Neither file may be a
    /// symbolic link, a FIFO or a device.
    pub fn load(dir: &Path, target: &str, shown_dir: &Path) -> Result<StateFile, Error> {
        StateFile::read(dir, target, shown_dir, None)
    }

    /// `load` for a command that only reads (`status`): a malformed line is left out and said
    /// (its error is pushed to `problems`), and the rest is read; the file is never written.
    pub fn load_readable(
        dir: &Path,
        target: &str,
        shown_dir: &Path,
        problems: &mut Vec<Error>,
    ) -> Result<StateFile, Error> {
        StateFile::read(dir, target, shown_dir, Some(problems))
    }

    /// Whether records changed since the file was last read or written.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn get(&self, key: Key) -> Option<&Record> {
        self.records.get(&key)
    }

    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.values()
    }

    /// Write the state file's text to `out`: comments copied from `source` (the file the spans
    /// refer to) in place, one sorted line per key. Returns where the comments are in `out`.
    fn write_to(
        &self,
        out: &mut impl Write,
        mut source: Option<&mut File>,
    ) -> std::io::Result<(BTreeMap<Key, Span>, Option<Span>)> {
        let marker = format!("{FORMAT_LINE}{FORMAT}\n");
        out.write_all(marker.as_bytes())?;
        let mut at = marker.len() as u64;
        // Comment lines byte for byte, but a CRLF becomes LF (the file keeps one line end).
        let mut copy = |span: &Span, out: &mut dyn Write, at: &mut u64| -> std::io::Result<Span> {
            let source = source.as_mut().ok_or(std::io::ErrorKind::NotFound)?;
            source.seek(SeekFrom::Start(span.start))?;
            let mut lines = BufReader::new(source.take(span.len));
            let mut line = Vec::new();
            let start = *at;
            while lines.read_until(b'\n', &mut line)? > 0 {
                let mut end = line.len();
                if line.ends_with(b"\n") {
                    end -= 1;
                }
                if line[..end].ends_with(b"\r") {
                    end -= 1;
                }
                out.write_all(&line[..end])?;
                out.write_all(b"\n")?;
                *at += end as u64 + 1;
                line.clear();
            }
            Ok(Span {
                start,
                len: *at - start,
            })
        };
        let mut comments = BTreeMap::new();
        // Comments of a forgotten key stay in its place, with the next key's (or the tail).
        let mut orphans = self
            .comments
            .iter()
            .filter(|(key, _)| !self.records.contains_key(key))
            .peekable();
        for (key, record) in &self.records {
            let start = at;
            while let Some((_, span)) = orphans.next_if(|(slot, _)| *slot < key) {
                copy(span, out, &mut at)?;
            }
            if let Some(span) = self.comments.get(key) {
                copy(span, out, &mut at)?;
            }
            if at > start {
                comments.insert(
                    *key,
                    Span {
                        start,
                        len: at - start,
                    },
                );
            }
            out.write_all(record.to_line().as_bytes())?;
            out.write_all(b"\n")?;
            at += record.to_line().len() as u64 + 1;
        }
        let start = at;
        for (_, span) in orphans {
            copy(span, out, &mut at)?;
        }
        if let Some(span) = &self.tail {
            copy(span, out, &mut at)?;
        }
        let tail = (at > start).then_some(Span {
            start,
            len: at - start,
        });
        Ok((comments, tail))
    }

    /// The state file as last read or written, when comments must be copied from it.
    fn source(&self) -> Result<Option<File>, Error> {
        if self.comments.is_empty() && self.tail.is_none() {
            return Ok(None);
        }
        fsutil::open_regular(&self.path, false)
            .map(Some)
            .map_err(|e| Error::io(Kind::State, &self.path, "read the state file", &e))
    }

    /// Fold the journal into the state file. Unchanged files are not rewritten.
    pub fn compact(&mut self) -> Result<(), Error> {
        if self.dirty {
            let io =
                |e: std::io::Error| Error::io(Kind::State, &self.path, "write the state file", &e);
            let dir = fsutil::folder_of(&self.path);
            let temp = fsutil::temp_path(dir, &self.path);
            let mut source = self.source()?;
            let written = (|| {
                let mut out = std::io::BufWriter::new(fsutil::create_temp(&temp)?);
                let spans = self.write_to(&mut out, source.as_mut())?;
                let file = out.into_inner().map_err(|e| e.into_error())?;
                fsutil::sync_file(&file, &temp)?;
                std::fs::rename(&temp, &self.path)?;
                fsutil::sync_dir(dir)?;
                Ok(spans)
            })();
            let (comments, tail) = written
                .inspect_err(|_| {
                    let _ = std::fs::remove_file(&temp);
                })
                .map_err(io)?;
            self.comments = comments;
            self.tail = tail;
            self.dirty = false;
        }
        if self.journal_exists {
            self.journal = None;
            std::fs::remove_file(&self.journal_path)
                .and_then(|()| fsutil::sync_dir(fsutil::folder_of(&self.path)))
                .map_err(|e| {
                    Error::io(Kind::State, &self.journal_path, "remove the journal", &e)
                })?;
            self.journal_exists = false;
        }
        Ok(())
    }

    /// Record a transition durably (appended to the journal and fsync'd) before returning.
    /// (Inside `StateFile::unsynced`, a done record of a batch is appended without a sync.)
    pub fn set(&mut self, record: Record) -> Result<(), Error> {
        self.append(vec![record], !self.unsynced)
    }

    /// Append records to the journal in one write; with `sync`, fsync'd before returning.
    fn append(&mut self, records: Vec<Record>, sync: bool) -> Result<(), Error> {
        let io = |e: std::io::Error, path: &Path| {
            Error::io(crate::error::Kind::State, path, "record the outcome", &e).hint(
                "the state folder must be writable and not full; nothing more is sent until it is",
            )
        };
        if self.journal.is_none() {
            let file = fsutil::open_own(&self.journal_path, true)
                .map_err(|e| io(e, &self.journal_path))?;
            if !self.journal_exists {
                fsutil::sync_dir(fsutil::folder_of(&self.path))
                    .map_err(|e| io(e, &self.journal_path))?;
                self.journal_exists = true;
            }
            self.journal = Some(file);
        }
        let mut lines = String::new();
        for record in &records {
            lines.push_str(record.to_line());
            lines.push('\n');
        }
        let file = self.journal.as_mut().expect("journal opened above");
        file.write_all(lines.as_bytes())
            .and_then(|()| match sync {
                true => fsutil::sync_file_data(file, &self.journal_path),
                false => Ok(()),
            })
            .map_err(|e| io(e, &self.journal_path))?;
        for record in records {
            self.records.insert(record.key, record);
        }
        self.dirty = true;
        Ok(())
    }

    /// A line taken over by another key (a renamed post, `life::rename`): `to` in, `from`'s
    /// line out, made durable together by one fold (one atomic rewrite), so that no instant
    /// has both lines (two keys holding one copy) or neither (the copy on no line: sent again).
    pub fn moved(&mut self, from: Key, to: Record) -> Result<(), Error> {
        self.records.remove(&from);
        self.records.insert(to.key, to);
        self.dirty = true;
        self.compact()
    }

    /// Forget a key's line, in memory (made durable by the next fold): only for a line that
    /// proves nothing was ever sent, whose post is gone. A crash before the fold leaves the
    /// line, and the next run forgets it again. Comments before it stay where it was.
    pub fn forget(&mut self, key: Key) {
        if self.records.remove(&key).is_some() {
            self.dirty = true;
        }
    }

    /// Change a record in memory only, for changes with no side effect (`adopt`); `compact`
    /// makes them durable all at once.
    pub fn put(&mut self, record: Record) {
        self.records.insert(record.key, record);
        self.dirty = true;
    }
}

/// Take the lock on the state folder `dir` (`shown` as the human reads it) and load (and fold)
/// the named targets' state files.
pub fn locked_states<'a>(
    dir: &Path,
    shown: &Path,
    clock: &Clock,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(RunLock, Vec<StateFile>), Error> {
    let guard = lock::acquire(dir, shown, clock)?;
    let mut states = Vec::new();
    for name in names {
        let mut state = StateFile::load(dir, name, shown)?;
        state.compact()?;
        states.push(state);
    }
    Ok((guard, states))
}
