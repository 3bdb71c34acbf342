//! A renamed post's line carried over in a target's pass (issue 32): the lines whose post is
//! gone read once, and the carry the visit decides (`crate::rename`) written, told and traced.

use super::TargetRun;
use crate::error::Error;
use crate::life::{Change, Key, KeyLine, Step};
use crate::post::Post;
use crate::rename::{gone, renamed};

impl TargetRun<'_> {
    /// The lines of this target whose post is gone, read the first time a key with no line
    /// (`key`) may be sent, with slugged keys only.
    pub(super) fn read_gone(&mut self, key: Key) {
        if self.known.gone.is_none() && self.state.get(key).is_none() {
            self.known.gone = gone(self.state, self.run.catalog);
        }
    }

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
        self.state.moved(old, line.record())?;
        self.sent().forget(old);
        if let Some(owners) = &mut self.known.owners {
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

    /// Why `post` waits for a person by the rule above, on this pass.
    pub(super) fn renamed(&self, post: &Post, line: Option<&KeyLine>) -> Option<Error> {
        let gone = self.known.gone.as_ref();
        renamed(gone, &self.run.plan.mode, post, line, &self.cfg.name).ask
    }
}
