//! `dayrun merge-state BASE OURS THEIRS [PATH]`: git's merge driver for state files (per key,
//! never per line, the same whichever side is "ours") and traces (a union sorted by time).

use crate::error::{Error, Kind};
use crate::state::{FORMAT, Record, Status};
use jiff::civil::Date;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod trace;

/// At most this many marks are kept on a merged line (as on any line).
const MAX_MARKS: usize = 8;
const FORMAT_LINE: &str = "# dayrun state format ";

/// Where comment lines sit: before a key's line, or after the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Anchor {
    Key(Date),
    End,
}

/// A state file as the merge sees it: its keys' lines and the comments before each.
#[derive(Debug, Default)]
struct Side {
    records: BTreeMap<Date, Record>,
    comments: BTreeMap<Anchor, Vec<String>>,
}

/// What a merge found that a human must settle: one key, two copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub key: Date,
    pub ids: [String; 2],
}

/// Run the driver: merge `theirs` into `ours` (written in place). Returns the exit code: 0
/// clean, 1 when a key holds two different copies (the result keeps both ids visible).
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
            c.ids[0],
            c.ids[1]
        );
    }
    Ok(if conflicts.is_empty() { 0 } else { 1 })
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
                if side.records.insert(record.key, record).is_some() {
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

/// How strongly a line says what happened to its copy, for the merge's order.
fn rank(record: &Record) -> u8 {
    match (record.status, record.get("op").as_deref()) {
        (Status::Retracted, _) => 5,
        // A retract on its way: its outcome must be found, or the copy stays out unnoticed.
        (Status::Pending, Some("retract")) => 4,
        (Status::Done, _) => 3,
        // An update in place is harmless to send again, and the edit is found again from the
        // file: a done line loses nothing by winning over it.
        (Status::Pending, Some("update")) => 2,
        (Status::Pending, _) => 1,
        (Status::Failed, _) => 0,
    }
}

/// The merge's total order: the later copy (generation), then `rank`, then the later time,
/// then the bytes of the line.
fn order(record: &Record) -> (u32, u8, Option<jiff::Timestamp>, &str) {
    let generation = record
        .get("generation")
        .and_then(|g| g.parse().ok())
        .unwrap_or(0);
    (
        generation,
        rank(record),
        record.at().parse().ok(),
        record.to_line(),
    )
}

/// One key: the line that wins the order, carrying what the other side's attempts may have
/// left on the target (`sent=maybe`, the earliest `since`, every mark) while not done.
pub fn merge_key(a: &Record, b: &Record) -> (Record, Option<Conflict>) {
    let (win, lose) = match order(a) >= order(b) {
        true => (a, b),
        false => (b, a),
    };
    let mut merged = win.clone();
    let same_copy = win.get("generation") == lose.get("generation");
    let id = |r: &Record| r.get("id").map(|i| i.into_owned());
    let mut conflict = None;
    if let (Some(x), Some(y)) = (id(win), id(lose))
        && same_copy
        && x != y
        && matches!(lose.status, Status::Done | Status::Retracted)
        && matches!(win.status, Status::Done | Status::Retracted)
    {
        let mut copies: BTreeSet<String> = [win, lose]
            .iter()
            .filter_map(|r| r.get("copies"))
            .flat_map(|c| c.split(',').map(str::to_string).collect::<Vec<_>>())
            .filter(|c| !c.is_empty() && *c != x)
            .collect();
        copies.insert(y.clone());
        merged = merged.with("copies", copies.into_iter().collect::<Vec<_>>().join(","));
        let mut ids = [x, y];
        ids.sort();
        conflict = Some(Conflict { key: win.key, ids });
    }
    let unfinished = matches!(win.status, Status::Pending | Status::Failed);
    if unfinished && same_copy && lose.get("sent").as_deref() == Some("maybe") {
        let since = [win, lose]
            .iter()
            .filter_map(|r| r.get("since").map(|s| s.into_owned()))
            .min_by_key(|s| (s.parse::<jiff::Timestamp>().ok(), s.clone()));
        let mut marks: Vec<String> = Vec::new();
        for r in [win, lose] {
            for m in r.get("marks").unwrap_or_default().split(',') {
                if !m.is_empty() && !marks.iter().any(|k| k == m) {
                    marks.push(m.to_string());
                }
            }
        }
        let extra = marks.len().saturating_sub(MAX_MARKS);
        marks.drain(..extra);
        merged = merged
            .with("sent", "maybe")
            .with("since", since.unwrap_or_default())
            .with("marks", marks.join(","));
    }
    (merged, conflict)
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
    let keys: BTreeSet<Date> = a.records.keys().chain(b.records.keys()).copied().collect();
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
        let record = match (a.records.get(&key), b.records.get(&key)) {
            (Some(x), Some(y)) => {
                let (merged, conflict) = merge_key(x, y);
                conflicts.extend(conflict);
                merged
            }
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (None, None) => unreachable!("the key came from one side"),
        };
        out.push_str(record.to_line());
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
mod tests {
    use super::*;

    fn line(text: &str) -> Record {
        Record::parse(text).unwrap().unwrap()
    }

    fn merged(a: &str, b: &str) -> String {
        let (one, _) = merge_key(&line(a), &line(b));
        let (two, _) = merge_key(&line(b), &line(a));
        assert_eq!(one, two, "the merge depends on which side is ours");
        one.to_line().to_string()
    }

    #[test]
    fn the_order_is_retracted_retracting_done_updating_pending_failed() {
        let failed = "2026-11-29 failed 2026-11-29T09:00:00Z class=retry-safe";
        let pending = "2026-11-29 pending 2026-11-29T08:00:00Z attempt=1";
        let updating = "2026-11-29 pending 2026-11-29T08:30:00Z op=update id=7";
        let done = "2026-11-29 done 2026-11-29T07:00:00Z id=7";
        let retracting = "2026-11-29 pending 2026-11-29T06:00:00Z op=retract id=7";
        let retracted = "2026-11-29 retracted 2026-11-29T05:00:00Z id=7";
        let ladder = [failed, pending, updating, done, retracting, retracted];
        for (i, low) in ladder.iter().enumerate() {
            for high in &ladder[i + 1..] {
                assert_eq!(merged(low, high), *high, "{low} vs {high}");
            }
        }
        // A later copy wins over everything of an earlier one.
        let next = "2026-11-29 pending 2026-11-29T04:00:00Z generation=1 attempt=1";
        assert_eq!(merged(retracted, next), next);
        // Same rank: the later time; then the bytes.
        let later = "2026-11-29 done 2026-11-29T07:00:01Z id=7";
        assert_eq!(merged(done, later), later);
    }

    #[test]
    fn an_unfinished_key_keeps_every_attempt_that_may_have_landed() {
        let a = "2026-11-29 failed 2026-11-29T09:00:00Z class=retry-safe sent=maybe since=2026-11-29T08:00:00Z marks=aa";
        let b = "2026-11-29 pending 2026-11-29T07:00:00Z attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=bb";
        assert_eq!(
            merged(a, b),
            "2026-11-29 pending 2026-11-29T07:00:00Z attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=bb,aa"
        );
    }

    #[test]
    fn two_different_ids_are_a_conflict_that_keeps_both_visible() {
        let a = line("2026-11-29 done 2026-11-29T07:00:00Z id=7");
        let b = line("2026-11-29 done 2026-11-29T07:05:00Z id=9");
        let (record, conflict) = merge_key(&a, &b);
        assert_eq!(
            record.to_line(),
            "2026-11-29 done 2026-11-29T07:05:00Z id=9 copies=7"
        );
        assert_eq!(
            conflict,
            Some(Conflict {
                key: a.key,
                ids: ["7".into(), "9".into()]
            })
        );
        assert_eq!(merge_key(&a, &a).1, None);
    }

    #[test]
    fn files_merge_per_key_with_comments_and_the_format_line() {
        let o = "# dayrun state format 2\n# my notes\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n";
        let a = "# dayrun state format 2\n# my notes\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n";
        let b = "# my notes\n# and theirs\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-30 pending 2026-11-30T07:00:00Z attempt=1\n";
        let (one, c1) = merge_texts(o, a, b).unwrap();
        let (two, c2) = merge_texts(o, b, a).unwrap();
        assert_eq!(one, two);
        assert!(c1.is_empty() && c2.is_empty());
        assert_eq!(
            one,
            "# dayrun state format 2\n# my notes\n# and theirs\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n2026-11-30 pending 2026-11-30T07:00:00Z attempt=1\n"
        );
        let newer = "# dayrun state format 3\n";
        assert!(
            merge_texts(o, a, newer)
                .unwrap_err()
                .contains("newer dayrun")
        );
    }
}
