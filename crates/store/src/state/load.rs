//! Reading a state file and replaying its journal over it, line by line, in bounded memory:
//! a malformed line is an error naming file and line (or, for a reader, said and left out).

use super::{FORMAT, FORMAT_LINE, MAX_LINE, Span, StateFile};
use crate::error::{Error, Kind};
use crate::fsutil;
use life::Key;
use life::Record;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::Path;

/// What one read of a line found.
enum Line {
    End,
    /// A line of this many bytes (with its newline, if it had one) is in the buffer.
    Read(usize),
    TooLong,
}

/// Read one line into `buf` (cleared first), never more than `MAX_LINE` bytes of it (the
/// newline is found with the standard library's `memchr`, not byte by byte).
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let read = reader
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    Ok(match read {
        0 => Line::End,
        n if n > MAX_LINE && buf.last() != Some(&b'\n') => Line::TooLong,
        n => Line::Read(n),
    })
}

impl StateFile {
    pub(super) fn read(
        dir: &Path,
        target: &str,
        shown_dir: &Path,
        mut tolerate: Option<&mut Vec<Error>>,
    ) -> Result<StateFile, Error> {
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
            tail: None,
            dirty: false,
            journal_exists: false,
            journal: None,
            unsynced: false,
            torn: None,
        };
        let mut buf = Vec::new();
        state.read_lines(&shown, &mut buf, tolerate.as_deref_mut())?;
        state.read_journal(&shown_journal, &mut buf, tolerate)?;
        Ok(state)
    }

    /// Read the state file's lines into `records` (and the comments before each record into
    /// `comments`, those after the last into `tail`); a missing file has none.
    fn read_lines(
        &mut self,
        shown: &Path,
        buf: &mut Vec<u8>,
        mut tolerate: Option<&mut Vec<Error>>,
    ) -> Result<(), Error> {
        let mut comments: Option<Span> = None;
        // Every slugged key's slug, kept in blocks rather than one allocation each.
        let mut slugs = life::key::Slugs::together();
        let mut offset = 0u64;
        let mut number = 0;
        let mut reader = open(&self.path, shown)?;
        // The lines read so far while they are in key order (see `insert`). Sized once from the
        // file (about one line per 64 bytes, capped; pages past what is read are never
        // touched): grown by doubling, a 100k-key file's vector is copied as it grows, and the
        // copies add to the run's peak memory.
        let guess = reader
            .as_ref()
            .and_then(|r| r.get_ref().metadata().ok())
            .map_or(0, |m| (m.len() / 64).min(1 << 20) as usize);
        let mut sorted: Option<Vec<(Key, Record)>> = Some(Vec::with_capacity(guess));
        while let Some(reader) = reader.as_mut() {
            let read =
                read_line(reader, buf).map_err(|e| Error::io(Kind::State, shown, "read", &e))?;
            number += 1;
            let len = match read {
                Line::End => break,
                Line::TooLong => {
                    let _ = reader.skip_until(b'\n');
                    let too_long = format!("line is over {} KiB", MAX_LINE / 1024);
                    refuse(tolerate.as_deref_mut(), bad_line(shown, too_long, number))?;
                    continue;
                }
                Line::Read(len) => len as u64,
            };
            let Ok(line) = std::str::from_utf8(buf) else {
                refuse(
                    tolerate.as_deref_mut(),
                    bad_line(shown, "not UTF-8 text".into(), number),
                )?;
                continue;
            };
            if number == 1 && format_line(line, shown)? {
                offset += len;
                continue;
            }
            let read = Record::parse_in(line, &mut slugs);
            if let Err(msg) =
                read.and_then(|r| self.take(r, len, offset, &mut sorted, &mut comments))
            {
                refuse(tolerate.as_deref_mut(), bad_line(shown, msg, number))?;
                continue;
            }
            offset += len;
        }
        if let Some(lines) = sorted {
            self.records = lines.into_iter().collect();
        }
        self.tail = comments;
        Ok(())
    }

    /// Take one line of the state file as read (`len` bytes at `offset`; `record`: `None` for
    /// a comment or a blank line): a comment is kept for the record after it (in `comments`), a
    /// record put in its place with the comments before it. `Err`: its key is there already,
    /// and nothing of it is taken.
    fn take(
        &mut self,
        record: Option<Record>,
        len: u64,
        offset: u64,
        sorted: &mut Option<Vec<(Key, Record)>>,
        comments: &mut Option<Span>,
    ) -> Result<(), String> {
        match record {
            None => {
                let span = comments.get_or_insert(Span {
                    start: offset,
                    len: 0,
                });
                span.len += len;
            }
            Some(record) => {
                let key = record.key;
                if !self.insert(sorted, key, record) {
                    return Err(format!("{key} appears twice"));
                }
                if let Some(span) = comments.take() {
                    self.comments.insert(key, span);
                }
            }
        }
        Ok(())
    }

    /// Put `record` in its place; `false` if its key is there already (and nothing is put).
    /// A file dayrun wrote is sorted: its lines are gathered in order in `sorted` and the map
    /// is built from them at once (full nodes, no search per line; a key above the one before
    /// cannot be a duplicate). A line out of order (an edit by hand) turns the lines so far
    /// into the map, and each line after is looked up in it.
    fn insert(
        &mut self,
        sorted: &mut Option<Vec<(Key, Record)>>,
        key: Key,
        record: Record,
    ) -> bool {
        match sorted {
            Some(lines) if lines.last().is_none_or(|(last, _)| *last < key) => {
                lines.push((key, record));
                true
            }
            _ => {
                if let Some(lines) = sorted.take() {
                    self.records = lines.into_iter().collect();
                }
                match self.records.entry(key) {
                    std::collections::btree_map::Entry::Occupied(_) => false,
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        slot.insert(record);
                        true
                    }
                }
            }
        }
    }

    /// Replay the journal over the records, line by line, up to a torn record (see `torn`).
    fn read_journal(
        &mut self,
        shown_journal: &Path,
        buf: &mut Vec<u8>,
        mut tolerate: Option<&mut Vec<Error>>,
    ) -> Result<(), Error> {
        let mut reader = open(&self.journal_path, shown_journal)?;
        self.journal_exists = reader.is_some();
        let mut number = 0;
        while let Some(reader) = reader.as_mut() {
            number += 1;
            let read = read_line(reader, buf)
                .map_err(|e| Error::io(Kind::State, shown_journal, "read", &e))?;
            match read {
                Line::End => break,
                Line::TooLong => {
                    let _ = reader.skip_until(b'\n');
                    let too_long = format!("line is over {} KiB", MAX_LINE / 1024);
                    refuse(
                        tolerate.as_deref_mut(),
                        bad_journal_line(shown_journal, too_long, number),
                    )?;
                    continue;
                }
                Line::Read(_) => {}
            }
            if buf.last() != Some(&b'\n') || buf.contains(&0) {
                self.torn = torn(reader, buf, number, shown_journal);
                break;
            }
            let Ok(line) = std::str::from_utf8(buf) else {
                let not_text = bad_journal_line(shown_journal, "not UTF-8 text".into(), number);
                refuse(tolerate.as_deref_mut(), not_text)?;
                continue;
            };
            match Record::parse(line) {
                Ok(Some(record)) => {
                    self.records.insert(record.key, record);
                    self.dirty = true;
                }
                Ok(None) => {}
                Err(e) => refuse(
                    tolerate.as_deref_mut(),
                    bad_journal_line(shown_journal, e, number),
                )?,
            }
        }
        Ok(())
    }
}

/// A malformed line stops the load (`Err`), or (for a reader, `tolerate`) is left out and said
/// (`Ok`: the caller goes on to the next line).
fn refuse(tolerate: Option<&mut Vec<Error>>, err: Error) -> Result<(), Error> {
    match tolerate {
        Some(problems) => {
            problems.push(err);
            Ok(())
        }
        None => Err(err),
    }
}

/// A malformed line `number` of the state file `shown`.
fn bad_line(shown: &Path, msg: String, number: usize) -> Error {
    Error::state(msg)
        .at(shown)
        .line(number)
        .hint("fix or delete that line by hand; nothing was changed")
}

/// A malformed line `number` of the journal `shown_journal`, before its end.
fn bad_journal_line(shown_journal: &Path, msg: String, number: usize) -> Error {
    Error::state(msg).at(shown_journal).line(number).hint(
        "the journal is damaged before its end; repair that line by hand or move the file away",
    )
}

/// Whether the state file's first line is its format line, and one this dayrun reads (a newer
/// format is an error).
fn format_line(line: &str, shown: &Path) -> Result<bool, Error> {
    let Some(format) = line.trim_end().strip_prefix(FORMAT_LINE) else {
        return Ok(false);
    };
    match format.parse::<u32>() {
        Ok(n) if n <= FORMAT => Ok(true),
        _ => Err(Error::state(format!(
            "written by a newer dayrun (format {format}; this dayrun reads up to {FORMAT})"
        ))
        .at(shown)
        .hint("upgrade dayrun; nothing was changed")),
    }
}

/// A record cut by a crash (in `buf`, line `number`): the last one, or a line with NUL bytes,
/// which a power cut leaves where a page written after the last fsync was lost. Nothing after
/// such a line was synced either (an fsync makes all that came before durable), so no side
/// effect relied on it: the rest of the journal goes too. What was dropped, to be said.
fn torn(
    reader: &mut BufReader<File>,
    buf: &[u8],
    number: usize,
    shown_journal: &Path,
) -> Option<String> {
    let rest = std::io::copy(reader, &mut std::io::sink()).unwrap_or(0);
    let torn = buf.iter().filter(|b| **b != 0).count();
    match rest {
        0 if torn == 0 => None,
        0 => Some(format!(
            "{}: dropped a torn last record ({} bytes) left by an interrupted run",
            shown_journal.display(),
            buf.len()
        )),
        rest => Some(format!(
            "{}: dropped the records from line {number} on ({} bytes with NUL bytes, left by a power cut after the last sync)",
            shown_journal.display(),
            buf.len() as u64 + rest
        )),
    }
}

/// Open a state file or journal for reading, line by line; a missing one is `None`.
fn open(path: &Path, shown: &Path) -> Result<Option<BufReader<File>>, Error> {
    match fsutil::open_regular(path, false) {
        // 64 KiB at a time: a 100k-key file in 200 reads instead of 1600.
        Ok(file) => Ok(Some(BufReader::with_capacity(64 * 1024, file))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(Kind::State, shown, "read", &e)),
    }
}
