//! `status` as text: a row per key and target, then each target's counts in the words a
//! run's summary uses.

use super::io;
use super::judge::{Judged, Row, Sink};
use crate::config::TargetConfig;
use crate::error::Error;
use crate::life::{self, KeyLine};
use crate::tally::{Count, Tally};
use std::io::Write;

/// The text sink: each row printed as it comes.
pub(super) struct Text<'w, W: Write> {
    out: &'w mut W,
    words: Tally,
    can_find: bool,
    /// The name of the target whose rows these are.
    name: String,
}

impl<'w, W: Write> Text<'w, W> {
    pub(super) fn new(out: &'w mut W) -> Text<'w, W> {
        Text {
            out,
            words: Tally::default(),
            can_find: false,
            name: String::new(),
        }
    }
}

impl<W: Write> Sink for Text<'_, W> {
    fn target(&mut self, cfg: &TargetConfig, rules: &life::Rules) -> Result<(), Error> {
        self.words = Tally::default();
        self.name = cfg.name.clone();
        self.can_find = rules.can_find;
        Ok(())
    }

    fn key(&mut self, judged: &Judged) -> Result<(), Error> {
        let row = judged.row;
        words(row, judged.dedup, &mut self.words);
        let text = text(row, judged.line, self.can_find);
        writeln!(self.out, "{} {} {text}", row.key, self.name).map_err(io)
    }

    fn end(&mut self, cfg: &TargetConfig) -> Result<(), Error> {
        writeln!(
            self.out,
            "{}",
            crate::tell::summary::status(&cfg.name, &self.words)
        )
        .map_err(io)
    }
}

/// Count `row` in `words` (the words a run's summary uses); `dedup`: its line records a
/// duplicate.
fn words(row: &Row, dedup: bool, words: &mut Tally) {
    // A deleted key is not also done, a key held back is not also failed.
    words.add(match () {
        _ if row.deleted => Count::Deleted,
        _ if row.held_back => Count::HeldBack,
        _ if row.edit_failed => Count::EditFailed,
        _ => row.status,
    });
    if row.edited {
        words.add(Count::Edited);
    }
    if dedup {
        words.add(Count::Dedup);
    }
}

/// A row as a person reads it: its status, its age, and what needs doing.
fn text(row: &Row, line: Option<&KeyLine>, can_find: bool) -> String {
    let mut text = row.status.word().to_string();
    if let Some(age) = row.age_secs {
        text.push_str(&format!(" {} ago", crate::clock::span(age)));
    }
    if row.stuck {
        match can_find {
            true => text.push_str(" STUCK: pending for over 5 minutes; the next run confirms it"),
            false => text.push_str(
                " STUCK: pending for over 5 minutes, and this target cannot look posts up: look for it by hand",
            ),
        }
    }
    if row.held_back {
        text.push_str(" HELD BACK: it failed and is now past the catch-up window; `dayrun run --backfill` or `dayrun retry KEY` sends it, `dayrun mark KEY failed` puts it aside");
    }
    if row.edit_failed {
        text.push_str(" EDIT FAILED: the target refused the edit and the copy keeps its last version; every run exits 1 until a person acts (the reason says how)");
    } else if row.edited {
        text.push_str(" EDITED: the post changed since it was published");
    }
    if let Some(why) = &row.blocked {
        text.push_str(&format!(
            " CANNOT BE SENT: {}; every run fails it until that is fixed",
            crate::outside::escape(why, 2048)
        ));
    }
    if row.status == Count::Done && row.id.is_none() {
        text.push_str(" (no id: edits and retracts cannot reach this copy; `dayrun mark KEY done --id ID` records it)");
    }
    if row.deleted {
        text.push_str(" DELETED: the post's file is gone (the published copy is not touched)");
    }
    if let Some(renamed) = &row.renamed {
        text.push_str(&format!(
            " RENAMED {renamed}: the next run carries the line over; the copies stay where they are"
        ));
    }
    if let Some(line) = line
        && !line.copies.duplicates.is_empty()
    {
        text.push_str(&format!(
            " DUPLICATE: also {}",
            crate::outside::escape(&line.copies.duplicates.join(", "), 2048)
        ));
    }
    // A copy is shown by where a person can open it; `--json` keeps both.
    let copy = match &row.url {
        Some(url) => ("url", Some(url)),
        None => ("id", row.id.as_ref()),
    };
    for (name, value) in [copy, ("class", row.class.as_ref())] {
        if let Some(value) = value {
            text.push_str(&format!(" {name}={}", crate::outside::escape(value, 2048)));
        }
    }
    if let Some(reason) = &row.reason {
        text.push_str(&format!(" reason={reason:?}"));
    }
    text
}
