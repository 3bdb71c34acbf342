//! Group commit for targets whose lookup is exact and immediate (`Target::batches`; the folder
//! today). A backfill (`run --backfill`) publishes up to `MAX_KEYS` keys, or what came in `MAX_WAIT`, together,
//! with three syncs for the batch instead of five per key:
//!
//! 1. the pending lines of every key, appended to the journal with one fsync;
//! 2. every key's files written to hidden temps with no sync, then one `syncfs` makes their
//!    data durable;
//! 3. each key's temps renamed into place (the JSON last), then one fsync per folder makes the
//!    renames durable;
//! 4. the done lines, appended with no fsync of their own: the next batch's step 1 (or any
//!    later synced line, or the fold at the end of the run) makes them durable.
//!
//! A crash at each instant, what is on disk, and what the next run does. (A SIGKILL keeps all
//! that was written; a power cut keeps what a completed sync made durable, and may keep any
//! part of the rest. `find` says found only when the key's JSON carries a fingerprint an
//! attempt sent and its HTML is there.)
//!
//! - Before step 1's fsync returns: some of the batch's pending lines may be there (a cut one
//!   is dropped at load), and no file was renamed. A key with a pending line is looked up:
//!   absent, so it is published once; a key without one is published as new.
//! - Between step 1 and the first rename (also during the data sync): every key is pending and
//!   no final file changed; temps have hidden names `find` never reads. Each key is looked up,
//!   found absent, and published once.
//! - During step 3 (renames, folder fsync): every key is pending. Each key's files are under
//!   their names, or not, or only the HTML; after a power cut any subset of the renames may be
//!   lost, but a file under its final name is whole, because its data was durable before the
//!   rename. Found (JSON and HTML there): recorded done, not written again. Absent: written once.
//! - After step 3, before the done lines are durable: the files are durable and the keys
//!   pending or done. A pending key is confirmed by the lookup and recorded done, not written
//!   again. (A lost done costs one exact, local lookup, never a second copy or a human.)
//! - After the done lines are durable: nothing is left to do.
//!
//! So no instant leads to writing again a key whose files were durable, nor to a done line
//! whose files are not: a done line is appended only after step 3's syncs have returned, and
//! the journal keeps lines in order (what a power cut loses is a tail; see `state/group.rs`).
//! A key whose step fails (a temp cannot be written, a sync or a rename fails) goes on alone
//! through `send`, with its retries, backoff and failure classes, as without batches.
//! A run stopped by a signal publishes nothing more: keys still queued were not started.

use super::TargetRun;
use super::carry::What;
use crate::error::{Class, Error};
use crate::fsutil::Staged;
use crate::life::Receipt;
use crate::life::{self, Before};
use crate::post::Post;
use crate::targets::Outgoing;
use crate::tell::failure::detail;
use std::ops::Range;
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

#[derive(Clone)]
struct Queued {
    post: Post,
    out: Outgoing,
    new_copy: bool,
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

    /// Publish the queued keys together (steps 1 to 4 above).
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        let queued = std::mem::take(&mut self.batch).queued;
        if queued.is_empty() {
            return Ok(());
        }
        // 1. Every pending line, one fsync.
        let sends = queued.iter().map(|q| (&q.post, &q.out, q.new_copy));
        self.book.pending_all(sends)?;
        let clock = Instant::now();
        // 2. Every file to its temp; one sync of their data. 3. Each key's renames; one
        // fsync per folder.
        let (mut files, mut failed) = (Staged::default(), Vec::new());
        let staged = self.stage(&queued, &mut files, &mut failed);
        let (renamed, unplaced) = files.commit(staged);
        failed.extend((unplaced.into_iter()).map(|((i, _), doing, e)| (i, retry_safe(doing, &e))));
        self.pace.last_write = Some(Instant::now());
        // 4. The done lines, with no fsync of their own.
        self.book.state.unsynced(true);
        let took = clock.elapsed().as_millis();
        let done = self.done_lines(&queued, renamed, took);
        self.book.state.unsynced(false);
        done?;
        // A key that failed in the batch goes on alone, with the ordinary retries.
        failed.sort_by_key(|(i, _)| *i);
        for (i, err) in failed {
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

    /// Step 2's writes: every queued key's files written to temps in `files`. Each key staged:
    /// its index and receipt, with the range of its files; a key that cannot be staged goes to
    /// `failed`.
    fn stage(
        &mut self,
        queued: &[Queued],
        files: &mut Staged,
        failed: &mut Vec<(usize, Error)>,
    ) -> Vec<((usize, Receipt), Range<usize>)> {
        let mut staged = Vec::new();
        for (i, q) in queued.iter().enumerate() {
            let from = files.len();
            let staged_one = match self.target.as_batch() {
                Some(batch) => batch.stage(&q.post, &q.out, files),
                None => unreachable!("only a batching target queues"),
            };
            match staged_one {
                Ok(receipt) => staged.push(((i, receipt), from..files.len())),
                Err(err) => {
                    files.discard_from(from);
                    failed.push((i, err));
                }
            }
        }
        staged
    }

    /// Step 4: the done line of each key whose files are in place, traced and counted with the
    /// batch's size and time (`took`, in milliseconds).
    fn done_lines(
        &mut self,
        queued: &[Queued],
        renamed: Vec<(usize, Receipt)>,
        took: u128,
    ) -> Result<(), Error> {
        let landed = renamed.len();
        renamed.into_iter().try_for_each(|(i, receipt)| {
            let post = &queued[i].post;
            let receipts = [receipt];
            let keeps = self.book.keeps(post, None);
            self.book
                .land(post.key, (&keeps, &receipts), life::How::Published, None, 1)?;
            self.voice.batched(post, &receipts[0].id, (landed, took));
            Ok(())
        })
    }
}

fn retry_safe(doing: &str, e: &std::io::Error) -> Error {
    Error::failure(Class::RetrySafe, format!("cannot {doing}: {e}"))
}
