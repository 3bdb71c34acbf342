//! `dayrun status`: every key's state per target, as text or as stable JSON. Never writes.

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::state::{StateFile, Status};
use jiff::civil::Date;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// A pending key older than this is flagged: its run died or hangs.
const STUCK_SECS: i64 = 5 * 60;
/// The `--json` schema version (documented in the README).
const SCHEMA: u32 = 1;

pub fn run(config: &Config, clock: &Clock, names: &[String], as_json: bool) -> Result<i32, Error> {
    let selected = config.select(names)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let today = clock.today();
    let now = jiff::Timestamp::now();
    let shown = config.show(&config.state);
    let mut drafts: BTreeMap<Date, bool> = BTreeMap::new();
    let mut targets = Vec::new();
    for cfg in selected {
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
            "dedup",
        ]
        .into_iter()
        .map(|k| (k, 0))
        .collect();
        let mut rows = Vec::new();
        for key in keys {
            let record = state.get(key);
            let status = match record {
                Some(r) => r.status.as_str(),
                None if key > today => "scheduled",
                None if *drafts
                    .entry(key)
                    .or_insert_with(|| catalog.post(key).is_ok_and(|p| p.draft)) =>
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
                .and_then(|r| r.at.parse::<jiff::Timestamp>().ok())
                .map(|at| now.as_second() - at.as_second());
            let stuck = record.is_some_and(|r| r.status == Status::Pending)
                && age.is_some_and(|a| a > STUCK_SECS);
            let field = |name: &str| {
                record
                    .and_then(|r| r.get(name))
                    .map_or(Value::Null, Value::from)
            };
            rows.push(json!({
                "key": key.to_string(),
                "status": status,
                "at": record.map_or(Value::Null, |r| Value::from(r.at.as_str())),
                "age_secs": age,
                "id": field("id"),
                "class": field("class"),
                "reason": field("reason"),
                "stuck": stuck,
            }));
        }
        targets.push(json!({ "name": cfg.name, "kind": cfg.kind, "counts": counts, "keys": rows }));
    }
    let doc = json!({ "schema": SCHEMA, "today": today.to_string(), "targets": targets });
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).expect("JSON serialises")
        );
    } else {
        print_text(&doc);
    }
    Ok(code::OK)
}

fn print_text(doc: &Value) {
    for target in doc["targets"].as_array().into_iter().flatten() {
        let name = target["name"].as_str().unwrap_or("");
        for row in target["keys"].as_array().into_iter().flatten() {
            let mut line = format!(
                "{} {name} {}",
                row["key"].as_str().unwrap_or(""),
                row["status"].as_str().unwrap_or("")
            );
            if let Some(age) = row["age_secs"].as_i64() {
                line.push_str(&format!(" {} ago", human(age)));
            }
            if row["stuck"].as_bool() == Some(true) {
                line.push_str(" STUCK: pending for over 5 minutes; the next run confirms it");
            }
            if let Some(id) = row["id"].as_str() {
                line.push_str(&format!(" id={id}"));
            }
            if let Some(class) = row["class"].as_str() {
                line.push_str(&format!(" class={class}"));
            }
            if let Some(reason) = row["reason"].as_str() {
                line.push_str(&format!(" reason={reason:?}"));
            }
            println!("{line}");
        }
        let counts: Vec<String> = target["counts"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, n)| n.as_u64() != Some(0))
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        println!(
            "{name}: {}",
            if counts.is_empty() {
                "no keys".into()
            } else {
                counts.join(", ")
            }
        );
    }
}

fn human(secs: i64) -> String {
    match secs.max(0) {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
