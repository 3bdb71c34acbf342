//! `dayrun status`: every key's state per target, as text or as stable JSON. Never writes.
//! Rows are printed as they are made, so memory does not grow with the number of keys.

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::state::{StateFile, Status};
use jiff::civil::Date;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufWriter, Write};

/// A pending key older than this is flagged: its run died or hangs.
const STUCK_SECS: i64 = 5 * 60;
/// The `--json` schema version (documented in the README).
const SCHEMA: u32 = 1;

/// One key on one target (schema 1).
#[derive(Serialize)]
struct Row<'a> {
    key: String,
    status: &'a str,
    at: Option<&'a str>,
    age_secs: Option<i64>,
    id: Option<String>,
    url: Option<String>,
    class: Option<String>,
    reason: Option<String>,
    stuck: bool,
    /// Done, and the post's file changed since (its fingerprint is not the one published).
    edited: bool,
    /// Done, and the post's file is gone.
    deleted: bool,
}

pub fn run(config: &Config, clock: &Clock, names: &[String], as_json: bool) -> Result<i32, Error> {
    let selected = config.select(names)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let today = clock.today();
    let now = jiff::Timestamp::now();
    let shown = config.show(&config.state);
    let mut drafts: BTreeMap<Date, bool> = BTreeMap::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| Error::usage(format!("cannot write the status: {e}"));
    if as_json {
        write!(
            out,
            "{{\n  \"schema\": {SCHEMA},\n  \"today\": \"{today}\",\n  \"targets\": ["
        )
        .map_err(io)?;
    }
    for (t, cfg) in selected.iter().enumerate() {
        let state = StateFile::load(&config.state, &cfg.name, &shown)?;
        let mut keys: BTreeSet<Date> = catalog.files.keys().copied().collect();
        keys.extend(state.records().map(|r| r.key));
        let mut counts: BTreeMap<&str, u64> = [
            "done",
            "pending",
            "failed",
            "due",
            "scheduled",
            "stale",
            "draft",
            "retracted",
            "dedup",
            "edited",
            "deleted",
        ]
        .into_iter()
        .map(|k| (k, 0))
        .collect();
        if as_json {
            let name = serde_json::to_string(&cfg.name).expect("a string serialises");
            let kind = serde_json::to_string(&cfg.kind).expect("a string serialises");
            write!(
                out,
                "{}\n    {{\"name\": {name}, \"kind\": {kind}, \"keys\": [",
                if t > 0 { "," } else { "" }
            )
            .map_err(io)?;
        }
        for (i, key) in keys.into_iter().enumerate() {
            let record = state.get(key);
            let status = match record {
                Some(r) => r.status.as_str(),
                None if key > today => "scheduled",
                None if *drafts
                    .entry(key)
                    .or_insert_with(|| catalog.text(key).is_ok_and(|p| p.draft)) =>
                {
                    "draft"
                }
                None if crate::clock::days_between(key, today) > config.catchup_days => "stale",
                None => "due",
            };
            *counts.entry(status).or_default() += 1;
            if record.and_then(|r| r.get("dedup")).is_some() {
                *counts.entry("dedup").or_default() += 1;
            }
            let age = record
                .and_then(|r| r.at().parse::<jiff::Timestamp>().ok())
                .map(|at| now.as_second() - at.as_second());
            let field = |name: &str| record.and_then(|r| r.get(name)).map(|v| v.into_owned());
            let done = record.filter(|r| r.status == Status::Done);
            let deleted = done.is_some() && !catalog.files.contains_key(&key);
            let edited = !deleted
                && done.and_then(|r| r.get("fp")).is_some_and(|fp| {
                    catalog
                        .text(key)
                        .is_ok_and(|post| post.fingerprint != fp.as_ref())
                });
            for (flag, word) in [(edited, "edited"), (deleted, "deleted")] {
                if flag {
                    *counts.entry(word).or_default() += 1;
                }
            }
            let row = Row {
                key: key.to_string(),
                status,
                at: record.map(|r| r.at()),
                age_secs: age,
                id: field("id"),
                url: field("url"),
                class: field("class"),
                reason: field("reason"),
                stuck: record.is_some_and(|r| r.status == Status::Pending)
                    && age.is_some_and(|a| a > STUCK_SECS),
                edited,
                deleted,
            };
            if as_json {
                let json = serde_json::to_string(&row).expect("a row serialises");
                write!(out, "{}\n      {json}", if i > 0 { "," } else { "" }).map_err(io)?;
            } else {
                writeln!(out, "{} {} {}", row.key, cfg.name, text(&row)).map_err(io)?;
            }
        }
        if as_json {
            let counts = serde_json::to_string(&counts).expect("counts serialise");
            write!(out, "\n    ], \"counts\": {counts}}}").map_err(io)?;
        } else {
            let parts: Vec<String> = counts
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(k, n)| format!("{n} {k}"))
                .collect();
            writeln!(
                out,
                "{}: {}",
                cfg.name,
                if parts.is_empty() {
                    "no keys".into()
                } else {
                    parts.join(", ")
                }
            )
            .map_err(io)?;
        }
    }
    if as_json {
        writeln!(out, "\n  ]\n}}").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(code::OK)
}

fn text(row: &Row) -> String {
    let mut line = row.status.to_string();
    if let Some(age) = row.age_secs {
        line.push_str(&format!(" {} ago", human(age)));
    }
    if row.stuck {
        line.push_str(" STUCK: pending for over 5 minutes; the next run confirms it");
    }
    if row.edited {
        line.push_str(" EDITED: the post changed since it was published");
    }
    if row.status == "done" && row.id.is_none() {
        line.push_str(" (no id: edits and retracts cannot reach this copy; `dayrun mark KEY done --id ID` records it)");
    }
    if row.deleted {
        line.push_str(" DELETED: the post's file is gone (the published copy is not touched)");
    }
    for (name, value) in [("id", &row.id), ("class", &row.class)] {
        if let Some(value) = value {
            line.push_str(&format!(" {name}={}", crate::outside::escape(value, 2048)));
        }
    }
    if let Some(reason) = &row.reason {
        line.push_str(&format!(" reason={reason:?}"));
    }
    line
}

fn human(secs: i64) -> String {
    match secs.max(0) {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
