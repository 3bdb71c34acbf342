//! `status --json` (schema 1, docs/commands.md): every row, then each target's counts. The
//! schema is only ever extended: a script written for it keeps working.

use super::io;
use super::judge::{Judged, Sink};
use super::row::Row;
use crate::config::TargetConfig;
use crate::error::Error;
use crate::life;
use jiff::civil::Date;
use std::collections::BTreeMap;
use std::io::Write;

/// The `--json` schema version (documented in docs/commands.md).
const SCHEMA: u32 = 1;

/// The JSON sink: the head at once, each row as it comes, the tail at `close`.
pub(super) struct Json<'w, W: Write> {
    out: &'w mut W,
    targets: usize,
    keys: usize,
    counts: BTreeMap<&'static str, u64>,
}

impl<'w, W: Write> Json<'w, W> {
    pub(super) fn new(out: &'w mut W, today: Date) -> Result<Json<'w, W>, Error> {
        write!(
            out,
            "{{\n  \"schema\": {SCHEMA},\n  \"today\": \"{today}\",\n  \"targets\": ["
        )
        .map_err(io)?;
        Ok(Json {
            out,
            targets: 0,
            keys: 0,
            counts: zero_counts(),
        })
    }

    pub(super) fn close(self) -> Result<(), Error> {
        writeln!(self.out, "\n  ]\n}}").map_err(io)
    }
}

impl<W: Write> Sink for Json<'_, W> {
    fn target(&mut self, cfg: &TargetConfig, _: &life::Rules) -> Result<(), Error> {
        let name = serde_json::to_string(&cfg.name).expect("a string serialises");
        let kind = serde_json::to_string(&cfg.kind).expect("a string serialises");
        let kind = crate::outside::json_safe(kind);
        let comma = if self.targets > 0 { "," } else { "" };
        self.targets += 1;
        self.keys = 0;
        self.counts = zero_counts();
        write!(
            self.out,
            "{comma}\n    {{\"name\": {name}, \"kind\": {kind}, \"keys\": ["
        )
        .map_err(io)
    }

    fn key(&mut self, judged: &Judged) -> Result<(), Error> {
        count(judged.row, judged.dedup, &mut self.counts);
        let json = serde_json::to_string(judged.row).expect("a row serialises");
        let json = crate::outside::json_safe(json);
        let comma = if self.keys > 0 { "," } else { "" };
        self.keys += 1;
        write!(self.out, "{comma}\n      {json}").map_err(io)
    }

    fn end(&mut self, _: &TargetConfig) -> Result<(), Error> {
        let counts = serde_json::to_string(&self.counts).expect("counts serialise");
        write!(self.out, "\n    ], \"counts\": {counts}}}").map_err(io)
    }
}

/// Every count `--json` shows, at zero.
fn zero_counts() -> BTreeMap<&'static str, u64> {
    [
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
        "held_back",
        "edit_failed",
    ]
    .into_iter()
    .map(|k| (k, 0))
    .collect()
}

/// Count `row` in `counts`, by status and flag; `dedup`: its line records a duplicate.
fn count(row: &Row, dedup: bool, counts: &mut BTreeMap<&'static str, u64>) {
    *counts.entry(row.status.word()).or_default() += 1;
    for (flag, word) in [
        (dedup, "dedup"),
        (row.edited, "edited"),
        (row.deleted, "deleted"),
        (row.held_back, "held_back"),
        (row.edit_failed, "edit_failed"),
    ] {
        if flag {
            *counts.entry(word).or_default() += 1;
        }
    }
}
