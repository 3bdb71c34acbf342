//! `status` as text: a row per key with a cell per target (its state, its age, the copy's URL,
//! what needs doing), the rows that need attention first; then each target's counts in the
//! words a run's summary uses.

use super::io;
use super::judge::{Judged, Sink};
use super::row::Row;
use crate::config::TargetConfig;
use crate::error::Error;
use crate::life::{self, Key, KeyLine};
use crate::tally::{Count, Tally};
use std::io::Write;

/// The text sink: a row per key, a cell per target that has the key. The rows that need a
/// person come first, as they are made; then those the next run goes on with (or a person may
/// want to look at); then the others; then each target's counts.
pub(super) struct Text<'w, W: Write> {
    out: &'w mut W,
    /// Each target's name, whether it can look a copy up, and its counts.
    targets: Vec<(String, bool, Tally)>,
    /// The row being made: its key, its cells, how much it needs attention.
    row: Option<(Key, Vec<String>, Attention)>,
    /// The rows that need less than a person, held until those are out, in that order.
    later: Vec<String>,
    rest: Vec<String>,
    /// Whether the rows are out (the first target's end).
    done: bool,
}

impl<'w, W: Write> Text<'w, W> {
    pub(super) fn new(out: &'w mut W) -> Text<'w, W> {
        Text {
            out,
            targets: Vec::new(),
            row: None,
            later: Vec::new(),
            rest: Vec::new(),
            done: false,
        }
    }

    /// The row being made, printed now when it needs attention, else held.
    fn flush(&mut self) -> Result<(), Error> {
        if let Some((key, cells, attention)) = self.row.take() {
            let line = format!("{key} {}", cells.join(" | "));
            match attention {
                Attention::Person => writeln!(self.out, "{line}").map_err(io)?,
                Attention::Later => self.later.push(line),
                Attention::None => self.rest.push(line),
            }
        }
        Ok(())
    }
}

impl<W: Write> Sink for Text<'_, W> {
    fn target(&mut self, cfg: &TargetConfig, rules: &life::Rules) -> Result<(), Error> {
        self.targets
            .push((cfg.name.clone(), rules.can_find, Tally::default()));
        Ok(())
    }

    fn key(&mut self, judged: &Judged) -> Result<(), Error> {
        if self
            .row
            .as_ref()
            .is_some_and(|(key, ..)| *key != judged.key)
        {
            self.flush()?;
        }
        let row = judged.row;
        let (name, can_find, words_of) = &mut self.targets[judged.target];
        words(row, judged.dedup, words_of);
        let cell = format!("{name}: {}", text(row, judged.line, *can_find));
        let duplicate = judged.line.is_some_and(|l| !l.copies.duplicates.is_empty());
        let attention = match row.exit {
            crate::error::code::OK if !row.stuck && !duplicate => Attention::None,
            crate::error::code::OK | crate::error::code::TEMPFAIL => Attention::Later,
            _ => Attention::Person,
        };
        let new = || (judged.key, Vec::new(), Attention::None);
        let (_, cells, needs) = self.row.get_or_insert_with(new);
        cells.push(cell);
        *needs = (*needs).max(attention);
        Ok(())
    }

    fn end(&mut self, cfg: &TargetConfig) -> Result<(), Error> {
        if !self.done {
            self.done = true;
            self.flush()?;
            let (later, rest) = (
                std::mem::take(&mut self.later),
                std::mem::take(&mut self.rest),
            );
            for line in later.into_iter().chain(rest) {
                writeln!(self.out, "{line}").map_err(io)?;
            }
        }
        let words = (self.targets.iter())
            .find(|(name, ..)| *name == cfg.name)
            .map(|(_, _, words)| words);
        let line = crate::tell::summary::status(&cfg.name, words.unwrap_or(&Tally::default()));
        writeln!(self.out, "{line}").map_err(io)
    }
}

/// How much a row needs attention, least first: its most urgent cell's.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Attention {
    None,
    /// The next run goes on with it (75), or a person may want to look (stuck, duplicates).
    Later,
    /// A run exits 1, 2 or 3 for it.
    Person,
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
