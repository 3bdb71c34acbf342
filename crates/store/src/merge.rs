//! `dayrun merge-state BASE OURS THEIRS [PATH]`: git's merge driver for state files (per key,
//! never per line, the same whichever side is "ours") and traces (a union sorted by time).

use crate::error::{Error, Kind};
use crate::state::{FORMAT, MAX_LINE};
use life::Key;
use life::Record;
use life::{self, Conflict, KeyLine};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod trace;

const FORMAT_LINE: &str = "# dayrun state format ";

/// Where comment lines sit: before a key's line, or after the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Anchor {
    Key(Key),
    End,
}

/// A state file as the merge sees it: its keys' lines and the comments before each.
#[derive(Debug, Default)]
struct Side {
    records: BTreeMap<Key, KeyLine>,
    comments: BTreeMap<Anchor, Vec<String>>,
}

/// Run the driver: merge `theirs` into `ours` (written in place). Returns the exit code: 0
/// clean, 1 when a key holds two different copies (the result keeps both ids visible) or a
/// merged line is longer than a state file may hold.
pub fn run(base: &Path, ours: &Path, theirs: &Path, path: Option<&Path>) -> Result<i32, Error> {
    let read = |file: &Path| -> Result<String, Error> {
        match std::fs::read(file) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
                Error::state("not UTF-8 text: not a dayrun state file or trace")
                    .at(shown(file, path))
            }),
            // git hands an empty file for a side that has none; a missing one is the same.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(Error::io(Kind::State, file, "read", &e)),
        }
    };
    let (o, a, b) = (read(base)?, read(ours)?, read(theirs)?);
    let is_trace = match path {
        Some(p) => p.extension().is_some_and(|e| e == "log"),
        None => [&a, &b, &o].iter().any(|t| trace::looks_like_trace(t)),
    };
    let (merged, conflicts) = match is_trace {
        true => (trace::merge(&a, &b), Vec::new()),
        false => {
            let parse = |text: &str, file: &Path| {
                parse(text)
                    .map_err(|(line, msg)| Error::state(msg).at(shown(file, path)).line(line))
            };
            merge(&parse(&o, base)?, &parse(&a, ours)?, &parse(&b, theirs)?)
        }
    };
    crate::fsutil::write_atomic(ours, merged.as_bytes())
        .map_err(|e| Error::io(Kind::State, ours, "write the merge", &e))?;
    for c in &conflicts {
        eprintln!(
            "dayrun merge-state: {}: {} holds two copies: ids {} and {}; the merged line keeps one and lists the other as copies=. Look on the target, delete the extra copy, then `git add` the file",
            shown(ours, path).display(),
            c.key,
            crate::outside::escape(&c.ids[0], 200),
            crate::outside::escape(&c.ids[1], 200)
        );
    }
    // No id is dropped to make room, so a merged line can outgrow what a state file may hold;
    // every command would refuse the file: a human must shorten it, so the merge is not clean.
    let long: Vec<&str> = match is_trace {
        true => Vec::new(),
        false => merged.lines().filter(|l| l.len() > MAX_LINE).collect(),
    };
    for line in &long {
        eprintln!(
            "dayrun merge-state: {}: {} merged into a line of {} KiB, over the {} KiB a state line may hold, to keep every id of both sides; every command refuses the file until it is shorter. Take copies the line lists off the target, delete their ids from the line, then `git add` the file",
            shown(ours, path).display(),
            line.split(' ').next().unwrap_or(""),
            line.len().div_ceil(1024),
            MAX_LINE / 1024
        );
    }
    Ok(if conflicts.is_empty() && long.is_empty() {
        0
    } else {
        1
    })
}

fn shown<'a>(file: &'a Path, path: Option<&'a Path>) -> &'a Path {
    path.unwrap_or(file)
}

/// Read a state file. Errors carry the line (1-based).
fn parse(text: &str) -> Result<Side, (usize, String)> {
    let mut side = Side::default();
    let mut pending: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(format) = line.strip_prefix(FORMAT_LINE) {
            match format.trim().parse::<u32>() {
                Ok(f) if f > FORMAT => {
                    return Err((
                        n + 1,
                        format!(
                            "written by a newer dayrun (state format {f}; this one knows {FORMAT}): merge with that dayrun"
                        ),
                    ));
                }
                _ => continue,
            }
        }
        match Record::parse(line) {
            Ok(Some(record)) => {
                if !pending.is_empty() {
                    side.comments
                        .insert(Anchor::Key(record.key), std::mem::take(&mut pending));
                }
                if side
                    .records
                    .insert(record.key, KeyLine::of(&record))
                    .is_some()
                {
                    return Err((n + 1, "a key appears twice".into()));
                }
            }
            Ok(None) => pending.push(line.trim_end().to_string()),
            Err(msg) => return Err((n + 1, msg)),
        }
    }
    if !pending.is_empty() {
        side.comments.insert(Anchor::End, pending);
    }
    Ok(side)
}

/// Comments at one anchor: a side that left the base's untouched takes the other's; when both
/// changed them, the base's lines both kept, then every new line, sorted.
fn merge_comments(o: &[String], a: &[String], b: &[String]) -> Vec<String> {
    if a == o {
        return b.to_vec();
    }
    if b == o || a == b {
        return a.to_vec();
    }
    let mut out: Vec<String> = o
        .iter()
        .filter(|l| a.contains(l) && b.contains(l))
        .cloned()
        .collect();
    let mut new: Vec<&String> = a.iter().chain(b).filter(|l| !o.contains(l)).collect();
    new.sort();
    new.dedup();
    out.extend(new.into_iter().cloned());
    out
}

/// Merge two sides of a state file from their base. No key is lost (a key deleted on one side
/// comes back: deleting a key's line is not a change a merge may apply, it would publish again).
fn merge(o: &Side, a: &Side, b: &Side) -> (String, Vec<Conflict>) {
    let mut out = format!("{FORMAT_LINE}{FORMAT}\n");
    let mut conflicts = Vec::new();
    let keys: BTreeSet<Key> = a.records.keys().chain(b.records.keys()).copied().collect();
    let none = Vec::new();
    let comments = |anchor: Anchor| {
        merge_comments(
            o.comments.get(&anchor).unwrap_or(&none),
            a.comments.get(&anchor).unwrap_or(&none),
            b.comments.get(&anchor).unwrap_or(&none),
        )
    };
    for key in keys {
        for line in comments(Anchor::Key(key)) {
            out.push_str(&line);
            out.push('\n');
        }
        let line = match (a.records.get(&key), b.records.get(&key)) {
            (Some(x), Some(y)) => {
                let (merged, conflict) = life::merge(x, y);
                conflicts.extend(conflict);
                merged
            }
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (None, None) => unreachable!("the key came from one side"),
        };
        out.push_str(line.record().to_line());
        out.push('\n');
    }
    for line in comments(Anchor::End) {
        out.push_str(&line);
        out.push('\n');
    }
    (out, conflicts)
}

/// Parse and merge three state file texts (for tests and the property test's reference).
pub fn merge_texts(o: &str, a: &str, b: &str) -> Result<(String, Vec<Conflict>), String> {
    let side = |t: &str| parse(t).map_err(|(line, msg)| format!("line {line}: {msg}"));
    Ok(merge(&side(o)?, &side(a)?, &side(b)?))
}

#[cfg(test)]
mod tests;
