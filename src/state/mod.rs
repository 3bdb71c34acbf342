//! Per-target state: `state/<target>.state`, one line per key, plus an append-only journal.
//!
//! At rest the state file holds one sorted line per key: `KEY STATUS TIMESTAMP [name=value ...]`.
//! During a run every transition is appended to `state/<target>.journal` and fsync'd, so its cost
//! does not grow with the number of keys; the journal is folded back into the state file (temp,
//! fsync, rename, folder fsync) at the start and end of each run.

use crate::clock::Clock;
use crate::config::Config;
use crate::error::Error;
use crate::fsutil;
use crate::lock::{self, RunLock};
use jiff::civil::Date;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};

mod record;

pub use record::{Record, Status};

/// One target's state: the state file, folded with its journal.
#[derive(Debug)]
pub struct StateFile {
    pub target: String,
    path: PathBuf,
    journal_path: PathBuf,
    records: BTreeMap<Date, Record>,
    /// Comment and blank lines found before a key's line, kept with it on rewrite.
    comments: BTreeMap<Date, Vec<String>>,
    /// Comment lines after the last key.
    tail: Vec<String>,
    /// Whether records changed since the state file was read (journal replayed, `set`, `put`):
    /// an unchanged file is never rewritten, so a re-run leaves it byte for byte as it was.
    dirty: bool,
    journal_exists: bool,
    journal: Option<File>,
    /// A torn last journal record that was dropped (shown to the user).
    pub torn: Option<String>,
}

impl StateFile {
    pub fn path_for(dir: &Path, target: &str) -> PathBuf {
        dir.join(format!("{target}.state"))
    }

    /// Read `dir/<target>.state` and replay `dir/<target>.journal` over it. Any malformed line
    /// is an error naming file and line; only a torn last journal record is dropped.
    pub fn load(dir: &Path, target: &str, shown_dir: &Path) -> Result<StateFile, Error> {
        let path = StateFile::path_for(dir, target);
        let journal_path = dir.join(format!("{target}.journal"));
        let shown = shown_dir.join(format!("{target}.state"));
        let shown_journal = shown_dir.join(format!("{target}.journal"));
        let mut state = StateFile {
            target: target.to_string(),
            path,
            journal_path,
            records: BTreeMap::new(),
            comments: BTreeMap::new(),
            tail: Vec::new(),
            dirty: false,
            journal_exists: false,
            journal: None,
            torn: None,
        };
        // Line by line: the file is never held whole (100k keys would double the peak memory).
        let file = match File::open(&state.path) {
            Ok(file) => Some(file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(crate::error::Kind::State, &shown, "read", &e)),
        };
        let mut reader = file.map(std::io::BufReader::new);
        let mut buf = Vec::new();
        let mut pending_comments = Vec::new();
        let mut number = 0;
        while let Some(reader) = reader.as_mut() {
            buf.clear();
            let read = reader
                .read_until(b'\n', &mut buf)
                .map_err(|e| Error::io(crate::error::Kind::State, &shown, "read", &e))?;
            if read == 0 {
                break;
            }
            number += 1;
            let bad = |msg: String| {
                Error::state(msg)
                    .at(&shown)
                    .line(number)
                    .hint("fix or delete that line by hand; nothing was changed")
            };
            let line = std::str::from_utf8(&buf).map_err(|_| bad("not UTF-8 text".into()))?;
            match Record::parse(line).map_err(bad)? {
                None => pending_comments.push(line.trim_end().to_string()),
                Some(record) => {
                    if state.records.contains_key(&record.key) {
                        return Err(bad(format!("{} appears twice", record.key)));
                    }
                    if !pending_comments.is_empty() {
                        state
                            .comments
                            .insert(record.key, std::mem::take(&mut pending_comments));
                    }
                    state.records.insert(record.key, record);
                }
            }
        }
        state.tail = pending_comments;

        let journal = read_or_empty(&state.journal_path, &shown_journal)?;
        state.journal_exists = state.journal_path.exists();
        let end = journal.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
        let journal = &journal[..end];
        let complete = journal
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        if complete < journal.len() {
            state.torn = Some(format!(
                "{}: dropped a torn last record ({} bytes) left by an interrupted run",
                shown_journal.display(),
                journal.len() - complete
            ));
        }
        for (i, line) in journal[..complete].split(|b| *b == b'\n').enumerate() {
            let bad = |msg: String| {
                Error::state(msg)
                    .at(&shown_journal)
                    .line(i + 1)
                    .hint("the journal is damaged before its end; repair that line by hand or move the file away")
            };
            let line = std::str::from_utf8(line).map_err(|_| bad("not UTF-8 text".into()))?;
            if line.contains('\0') {
                return Err(bad("NUL bytes in the middle of the journal".into()));
            }
            if let Some(record) = Record::parse(line).map_err(bad)? {
                state.records.insert(record.key, record);
                state.dirty = true;
            }
        }
        Ok(state)
    }

    pub fn get(&self, key: Date) -> Option<&Record> {
        self.records.get(&key)
    }

    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.values()
    }

    /// The state file's text: comments kept in place, one sorted line per key.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (key, record) in &self.records {
            for comment in self.comments.get(key).into_iter().flatten() {
                out.push_str(comment);
                out.push('\n');
            }
            out.push_str(record.to_line());
            out.push('\n');
        }
        for comment in &self.tail {
            out.push_str(comment);
            out.push('\n');
        }
        out
    }

    /// Fold the journal into the state file. Unchanged files are not rewritten.
    pub fn compact(&mut self) -> Result<(), Error> {
        if self.dirty {
            let text = self.render();
            fsutil::write_atomic(&self.path, text.as_bytes()).map_err(|e| {
                Error::io(
                    crate::error::Kind::State,
                    &self.path,
                    "write the state file",
                    &e,
                )
            })?;
            self.dirty = false;
        }
        if self.journal_exists {
            self.journal = None;
            std::fs::remove_file(&self.journal_path)
                .and_then(|()| fsutil::sync_dir(self.path.parent().unwrap_or(Path::new("."))))
                .map_err(|e| {
                    Error::io(
                        crate::error::Kind::State,
                        &self.journal_path,
                        "remove the journal",
                        &e,
                    )
                })?;
            self.journal_exists = false;
        }
        Ok(())
    }

    /// Record a transition durably (appended to the journal and fsync'd) before returning.
    pub fn set(&mut self, record: Record) -> Result<(), Error> {
        let io = |e: std::io::Error, path: &Path| {
            Error::io(crate::error::Kind::State, path, "record the outcome", &e).hint(
                "the state folder must be writable and not full; nothing more is sent until it is",
            )
        };
        if self.journal.is_none() {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.journal_path)
                .map_err(|e| io(e, &self.journal_path))?;
            if !self.journal_exists {
                fsutil::sync_dir(self.path.parent().unwrap_or(Path::new(".")))
                    .map_err(|e| io(e, &self.journal_path))?;
                self.journal_exists = true;
            }
            self.journal = Some(file);
        }
        let mut line = String::with_capacity(record.to_line().len() + 1);
        line.push_str(record.to_line());
        line.push('\n');
        let file = self.journal.as_mut().expect("journal opened above");
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|e| io(e, &self.journal_path))?;
        self.records.insert(record.key, record);
        self.dirty = true;
        Ok(())
    }

    /// Change a record in memory only, for changes with no side effect (`adopt`); `compact`
    /// makes them durable all at once.
    pub fn put(&mut self, record: Record) {
        self.records.insert(record.key, record);
        self.dirty = true;
    }
}

/// Take the lock and load (and fold) the selected targets' state files.
pub fn locked_states(
    config: &Config,
    clock: &Clock,
    names: &[String],
) -> Result<(RunLock, Vec<StateFile>), Error> {
    let selected = config.select(names)?;
    let shown = config.show(&config.state);
    let guard = lock::acquire(&config.state, &shown, clock)?;
    let mut states = Vec::new();
    for cfg in selected {
        let mut state = StateFile::load(&config.state, &cfg.name, &shown)?;
        state.compact()?;
        states.push(state);
    }
    Ok((guard, states))
}

fn read_or_empty(path: &Path, shown: &Path) -> Result<Vec<u8>, Error> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(Error::io(crate::error::Kind::State, shown, "read", &e)),
    }
}
