//! What the drill says: a header, a trace line per round, then the field report's one line
//! (`rounds=… duplicates=… confirm-branch=… lost=… leaked-pending=… removed=…`), what was left
//! on the target and how to remove it; `--json` says the same as one document. And its exit.

use super::Options;
use super::folder::Folder;
use super::round::Round;
use super::sweep::Swept;
use crate::error::code;
use crate::life::Status;
use serde_json::json;
use std::time::Duration;

/// The counts of the one line.
struct Counts {
    rounds: usize,
    duplicates: usize,
    confirm_branch: usize,
    lost: usize,
    leaked_pending: usize,
    removed: usize,
}

/// The drill's first line: what it will do.
pub fn header(folder: &Folder, options: &Options, timeout: Duration) -> String {
    let delay = options.delay.unwrap_or(timeout + Duration::from_secs(2));
    format!(
        "drill {}: {} round(s), loss {}%, delay {} (timeout {}), seed {}; state in {}",
        folder.name,
        options.rounds,
        f64::from(options.loss) / 10.0,
        secs(delay),
        secs(timeout),
        options.seed,
        folder.show(&folder.dir).display()
    )
}

fn secs(d: Duration) -> String {
    format!("{}s", (d.as_secs_f64() * 1000.0).round() / 1000.0)
}

/// One round's trace line.
pub fn round(round: &Round, of: u32) -> String {
    let outcome = match (round.status, &round.id) {
        (Some(Status::Done), Some(id)) => format!("out (id {id})"),
        (Some(Status::Done), None) => "out".into(),
        (Some(status), _) => format!("NOT out: {} (exit {})", status.as_str(), round.code),
        (None, _) => format!("NOT out: no line (exit {})", round.code),
    };
    let faults: Vec<String> = (round.faults.iter())
        .map(|f| format!("{} {}", f.fault.name(), f.what))
        .collect();
    let faults = match faults.is_empty() {
        true => "none".to_string(),
        false => faults.join(", "),
    };
    let branch = if round.confirmed {
        ", confirm-branch"
    } else {
        ""
    };
    format!(
        "round {}/{of} {}: {outcome} after {} run(s){branch}; faults: {faults}",
        round.n, round.key, round.runs
    )
}

fn counts(rounds: &[Round], swept: &Swept) -> Counts {
    let copies = |key| {
        (swept.copies.iter())
            .find(|(k, _)| *k == key)
            .map_or(0, |(_, ids)| ids.len())
    };
    Counts {
        rounds: rounds.len(),
        duplicates: (rounds.iter())
            .map(|r| copies(r.key).saturating_sub(1))
            .sum(),
        confirm_branch: (rounds.iter())
            .filter(|r| r.confirmed && copies(r.key) == 1)
            .count(),
        lost: (rounds.iter())
            .filter(|r| r.status != Some(Status::Done))
            .count(),
        leaked_pending: (rounds.iter())
            .filter(|r| r.status == Some(Status::Pending))
            .count(),
        removed: swept.removed,
    }
}

/// Say the drill's result; its exit code: 0 only when every drill post is out exactly once,
/// none is left pending and every copy was removed.
pub fn finish(folder: &Folder, options: &Options, rounds: &[Round], swept: &Swept) -> i32 {
    let c = counts(rounds, swept);
    let found: usize = swept.copies.iter().map(|(_, ids)| ids.len()).sum();
    let clean = c.duplicates == 0
        && c.lost == 0
        && c.leaked_pending == 0
        && swept.left.is_empty()
        && c.removed == found
        && c.rounds == options.rounds as usize;
    let line = format!(
        "rounds={} duplicates={} confirm-branch={} lost={} leaked-pending={} removed={}",
        c.rounds, c.duplicates, c.confirm_branch, c.lost, c.leaked_pending, c.removed
    );
    folder.note(&format!("drill: {line}"));
    match options.json {
        true => out!("{}", json_of(folder, options, rounds, swept, &c)),
        false => {
            for (key, ids) in swept.copies.iter().filter(|(_, ids)| ids.len() > 1) {
                out!(
                    "duplicate on {}: {key} was there {} times: {}",
                    folder.name,
                    ids.len(),
                    ids.join(", ")
                );
            }
            for left in &swept.left {
                out!(
                    "left on {}: {} {}; remove it by hand: {}",
                    folder.name,
                    left.key,
                    left.what,
                    left.where_to_look
                );
            }
            out!("{line}");
        }
    }
    if clean {
        return code::OK;
    }
    err!(
        "dayrun: the drill on {} did not prove exactly once: see the rounds above and {} (replay it with --seed {})",
        folder.name,
        folder.show(&folder.log).display(),
        options.seed
    );
    code::NEEDS_HUMAN
}

fn json_of(
    folder: &Folder,
    options: &Options,
    rounds: &[Round],
    swept: &Swept,
    c: &Counts,
) -> String {
    let copies = |key| {
        (swept.copies.iter())
            .find(|(k, _)| *k == key)
            .map(|(_, ids)| ids.clone())
            .unwrap_or_default()
    };
    let rounds: Vec<serde_json::Value> = (rounds.iter())
        .map(|r| {
            json!({
                "round": r.n,
                "key": r.key.to_string(),
                "status": r.status.map(|s| s.as_str()),
                "id": r.id,
                "runs": r.runs,
                "confirm_branch": r.confirmed,
                "faults": r.faults.iter().map(|f| json!({"fault": f.fault.name(), "on": f.what})).collect::<Vec<_>>(),
                "copies": copies(r.key),
            })
        })
        .collect();
    let left: Vec<serde_json::Value> = (swept.left.iter())
        .map(|l| json!({"key": l.key.to_string(), "what": l.what, "where": l.where_to_look}))
        .collect();
    json!({
        "target": folder.name,
        "seed": options.seed,
        "rounds": c.rounds,
        "duplicates": c.duplicates,
        "confirm_branch": c.confirm_branch,
        "lost": c.lost,
        "leaked_pending": c.leaked_pending,
        "removed": c.removed,
        "trace": rounds,
        "left": left,
    })
    .to_string()
}
