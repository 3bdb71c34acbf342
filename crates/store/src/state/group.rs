//! Group commit in the journal: many records with one fsync (a batch's pending lines), and
//! records appended with no fsync of their own (a batch's done lines), which become durable
//! with the next synced append or the fold at the end of the run.
//!
//! Why an unsynced record is safe only for a `done` line after a target whose lookup is exact
//! and immediate: a power cut can lose it, and the key is then found `pending` by the next run,
//! which looks it up before doing anything else; the exact lookup finds the post and records it
//! done (a lost `done` costs one lookup, never a second copy and never a human). Everything in
//! the journal after the last completed fsync is what a power cut may lose or cut, so a line
//! that is lost or cut (NUL bytes) is always followed by nothing that was synced (see `load`).

use super::StateFile;
use crate::error::Error;
use life::Record;

impl StateFile {
    /// Append several records with one fsync: durable, all of them, before returning.
    pub fn set_all(&mut self, records: Vec<Record>) -> Result<(), Error> {
        if records.is_empty() {
            return Ok(());
        }
        self.append(records, true)
    }

    /// While `on`, `set` appends without an fsync. Only for `done` lines of a target whose
    /// lookup is exact and immediate (see above); the caller turns it off again at once.
    pub fn unsynced(&mut self, on: bool) {
        self.unsynced = on;
    }
}
