//! A batch's lines (group commit), for targets whose lookup is exact and immediate (the
//! folder): the publishes of many keys go together (`runner/batch.rs` queues them), with three
//! syncs for the batch instead of five per key:
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
//! A key whose step fails (a temp cannot be written, a sync or a rename fails) is handed back
//! with its error: the runner sends it alone.

use super::Book;
use crate::error::{Class, Error};
use crate::fsutil::Staged;
use crate::life::{self, Receipt};
use crate::post::Post;
use crate::targets::Outgoing;
use std::time::Instant;

/// A key queued for a batch, not started: nothing of it is on disk yet.
#[derive(Clone)]
pub(crate) struct Queued {
    pub post: Post,
    pub out: Outgoing,
    /// Sent as the key's next copy.
    pub new_copy: bool,
}

/// What became of a batch: each key that landed (its index and receipt), each that failed in
/// the batch (it goes on alone), and how long the files took, in milliseconds.
pub(crate) struct Committed {
    pub landed: Vec<(usize, Receipt)>,
    pub failed: Vec<(usize, Error)>,
    pub took: u128,
}

/// Writes a key's files to temps (`Batch::stage`): its receipt.
pub(crate) type Stage<'s> = dyn FnMut(&Post, &Outgoing, &mut Staged) -> Result<Receipt, Error> + 's;

impl Book<'_> {
    /// Publish `queued` together, steps 1 to 4 above; `stage` writes a key's files. `Err`
    /// only when a line cannot be recorded.
    pub(crate) fn commit_batch(
        &mut self,
        queued: &[Queued],
        stage: &mut Stage,
    ) -> Result<Committed, Error> {
        // 1. Every pending line, one fsync.
        let sends = queued.iter().map(|q| (&q.post, &q.out, q.new_copy));
        self.pending_all(sends)?;
        let clock = Instant::now();
        // 2. Every file to its temp; one sync of their data. 3. Each key's renames; one
        // fsync per folder.
        let (mut files, mut failed) = (Staged::default(), Vec::new());
        let mut staged = Vec::new();
        for (i, q) in queued.iter().enumerate() {
            let from = files.len();
            match stage(&q.post, &q.out, &mut files) {
                Ok(receipt) => staged.push(((i, receipt), from..files.len())),
                Err(err) => {
                    files.discard_from(from);
                    failed.push((i, err));
                }
            }
        }
        let (landed, unplaced) = files.commit(staged);
        failed.extend((unplaced.into_iter()).map(|((i, _), doing, e)| (i, retry_safe(doing, &e))));
        failed.sort_by_key(|(i, _)| *i);
        // 4. The done lines, with no fsync of their own.
        self.state.unsynced(true);
        let took = clock.elapsed().as_millis();
        let done = landed.iter().try_for_each(|(i, receipt)| {
            let post = &queued[*i].post;
            let (keeps, receipts) = (self.keeps(post, None), [receipt.clone()]);
            let how = life::How::Published;
            self.land(post.key, (&keeps, &receipts), how, None, 1)
                .map(drop)
        });
        self.state.unsynced(false);
        done.map(|()| Committed {
            landed,
            failed,
            took,
        })
    }
}

fn retry_safe(doing: &str, e: &std::io::Error) -> Error {
    Error::failure(Class::RetrySafe, format!("cannot {doing}: {e}"))
}
