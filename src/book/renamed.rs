//! The rename rule's lines (issue 32): the lines whose post is gone, read once; why a post
//! waits for a person by the rule; and, at the end of a plain run, the lines first seen gone
//! noted so (`gone=`); and the carry a visit decides, written.

use super::Book;
use crate::error::Error;
use crate::life::{Change, Event, Key, KeyLine, Mode, Step};
use crate::post::Post;
use crate::rename::{gone, renamed};

impl Book<'_> {
    /// The lines of this target whose post is gone, read the first time a key with no line, or
    /// a failed one (`key`), may be sent, with slugged keys only.
    pub(crate) fn read_gone(&mut self, key: Key) {
        let failed = |r: &crate::life::Record| r.status == crate::life::Status::Failed;
        if self.known.gone.is_none() && self.state.get(key).is_none_or(failed) {
            self.known.gone = gone(self.state, self.run.catalog);
        }
    }

    /// At the end of a plain run over every key: each line whose post file this run is the
    /// first to see gone (`known.unstamped`) and whose copy is out, and that no new post was
    /// asked about, is noted gone (`gone=`): from then on a new post is asked about it only by
    /// its day or slug. A dry run, a run of named keys or a retry notes nothing.
    pub(crate) fn settle_gone(&mut self) -> Result<(), Error> {
        let plan = self.run.plan;
        if !matches!(plan.mode, Mode::Run { .. }) || !plan.keys.is_empty() || plan.dry_run {
            return Ok(());
        }
        for key in std::mem::take(&mut self.known.unstamped) {
            let line = self.line(key);
            let out = line.is_some_and(|l| !l.live_ids().is_empty() || l.tried.maybe);
            if out && !self.known.asked.contains(&key) && !self.run.catalog.files.contains_key(&key)
            {
                self.apply(key, &Event::SeenGone)?;
            }
        }
        Ok(())
    }

    /// `key` takes over `from`'s line (its post renamed), as the visit's `step` wrote it: the
    /// carried line in and `from`'s out, durable together (`StateFile::moved`), with the files
    /// kept beside it; `from` answers for no other key. A dry run writes nothing.
    pub(super) fn carry(&mut self, key: Key, from: &KeyLine, step: &Step) -> Result<(), Error> {
        if self.run.plan.dry_run {
            return Ok(());
        }
        let old = from.key;
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
        Ok(())
    }

    /// Why `post` waits for a person by the rename rule, on this pass.
    pub(crate) fn renamed(&self, post: &Post, line: Option<&KeyLine>) -> Option<Error> {
        let gone = self.known.gone.as_ref();
        renamed(gone, &self.run.plan.mode, post, line, &self.cfg.name).ask
    }
}
