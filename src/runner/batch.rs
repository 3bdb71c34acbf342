//! Batches, the runner's side: for a target whose lookup is exact and immediate
//! (`Target::as_batch`; the folder today), a backfill (`run --backfill`) queues the keys it
//! publishes and sends up to `MAX_KEYS` of them, or what came in `MAX_WAIT`, together: their
//! lines written around their files' durability by the book (`book/batch.rs`, which says what
//! a crash at each instant leaves). A key whose step fails in the batch goes on alone through
//! `send`, with its retries, backoff and failure classes, as without batches. A run stopped
//! by a signal publishes nothing more: keys still queued were not started.

use super::TargetRun;
use super::carry::What;
use crate::book::Queued;
use crate::error::Error;
use crate::life::Before;
use crate::post::Post;
use crate::targets::Outgoing;
use crate::tell::failure::detail;
use std::time::{Duration, Instant};

/// At most this many keys per batch, so progress and the trace stay live.
pub(super) const MAX_KEYS: usize = 64;
/// A batch waits at most this long for more keys.
pub(super) const MAX_WAIT: Duration = Duration::from_millis(100);

/// Keys ready to publish, not started: nothing of theirs is on disk yet.
#[derive(Default)]
pub(super) struct Batch {
    queued: Vec<Queued>,
    since: Option<Instant>,
}

impl TargetRun<'_> {
    /// For a target that batches, queue the key for the next batch instead of sending it now
    /// (`true`: queued).
    pub(super) fn queue(
        &mut self,
        post: &Post,
        out: &Outgoing,
        new_copy: bool,
    ) -> Result<bool, Error> {
        // Only a backfill: a daily run's few keys keep their lines in key order across
        // targets. Pacing asks for one write at a time. A post with images goes alone: it may
        // need uploads (the `send` path), and 64 of them would hold all their bytes at once.
        if self.target.as_batch().is_none()
            || !post.images.is_empty()
            || !self.run.plan.backfill()
            || !self.cfg.policy.min_interval.is_zero()
            || self.run.plan.dry_run
            || new_copy
        {
            return Ok(false);
        }
        self.batch.since.get_or_insert_with(Instant::now);
        self.batch.queued.push(Queued {
            post: post.clone(),
            out: out.clone(),
            new_copy,
        });
        if self.batch.queued.len() >= MAX_KEYS {
            self.flush()?;
        }
        Ok(true)
    }

    /// Publish the queued keys if the oldest has waited `MAX_WAIT`.
    pub(crate) fn flush_if_due(&mut self) -> Result<(), Error> {
        match self.batch.since {
            Some(since) if since.elapsed() >= MAX_WAIT => self.flush(),
            _ => Ok(()),
        }
    }

    /// Forget the queued keys (the run was stopped before they started).
    pub(crate) fn drop_queued(&mut self) {
        self.batch = Batch::default();
    }

    /// Publish the queued keys together (`Book::commit_batch`), each told; a key that failed in
    /// the batch goes on alone, with the ordinary retries.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        let queued = std::mem::take(&mut self.batch).queued;
        if queued.is_empty() {
            return Ok(());
        }
        let target = &mut *self.target;
        let mut stage = |post: &Post, out: &Outgoing, files: &mut _| match target.as_batch() {
            Some(batch) => batch.stage(post, out, files),
            None => unreachable!("only a batching target queues"),
        };
        let done = self.book.commit_batch(&queued, &mut stage)?;
        self.pace.last_write = Some(Instant::now());
        let landed = done.landed.len();
        for (i, receipt) in &done.landed {
            (self.voice).batched(&queued[*i].post, &receipt.id, (landed, done.took));
        }
        for (i, err) in done.failed {
            let Queued {
                post,
                out,
                new_copy,
            } = queued[i].clone();
            let note = format!("{} (in a batch; sending it alone)", detail(&err));
            let (key, alone) = (post.key, true);
            self.voice.trace(key, "publish", "retry-safe", &note);
            let (line, what) = (self.book.line(key), What::Post { new_copy, alone });
            self.publish((post, out), line, Before::Send, what)?;
        }
        Ok(())
    }
}
