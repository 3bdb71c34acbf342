//! A renamed post's line carried over in a target's pass (issue 32): the carry the visit
//! decides (`crate::rename`) written, with the files kept beside the line, told and traced.

use super::TargetRun;
use crate::error::Error;
use crate::life::{Change, Key, KeyLine, Step};

impl TargetRun<'_> {
    /// `key` takes over `from`'s line (its post renamed), as the visit's `step` wrote it: the
    /// carried line in and `from`'s out, durable together (`StateFile::moved`); `from`
    /// answers for no other key; the run says so. A dry run says what the run would do.
    pub(super) fn carry(&mut self, key: Key, from: &KeyLine, step: &Step) -> Result<(), Error> {
        let old = from.key;
        // The old key's copy is this key's now: not a deleted post's.
        self.voice.outcome.deleted.retain(|k| *k != old);
        if self.run.plan.dry_run {
            self.voice
                .say(key, "renamed", &crate::tell::line::carried(old, true));
            return Ok(());
        }
        let Change::Write(line) = &step.line else {
            unreachable!("a visit that carries a line over writes it")
        };
        self.sent().carry(old, key)?;
        self.book.state.moved(old, line.record())?;
        self.sent().forget(old);
        if let Some(owners) = &mut self.book.known.owners {
            owners.forget(old);
            owners.note(line);
        }
        let place = line.place_key();
        self.voice.trace(
            key,
            "carry",
            "renamed",
            &format!("from={old} place={place}"),
        );
        self.voice
            .say(key, "renamed", &crate::tell::line::carried(old, false));
        Ok(())
    }
}
