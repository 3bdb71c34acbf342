//! What a target's keys keep beside their state (`state/<target>.sent/`, `store::sent`): the
//! document of a key's latest attempt, for a lookup handed what was sent
//! (`Find::keeps_payload`), and a thread's parts as split before its first part went.

use super::Book;
use crate::error::Error;
use crate::life::Key;
use crate::post::Post;
use crate::thread::Prepared;
use store::sent::{Kept, Sent};

impl Book<'_> {
    /// What this target's keys keep beside their state.
    pub(crate) fn sent(&self) -> Sent {
        Sent::of(self.run.state_dir, &self.cfg.name)
    }

    /// Keep the exact document an attempt sends, durably, before it is sent.
    pub(crate) fn keep_payload(&self, key: Key, body: &serde_json::Value) -> Result<(), Error> {
        let bytes = serde_json::to_vec(body).expect("a JSON value serialises");
        self.sent().keep(key, Kept::Payload, &bytes)
    }

    /// The exact document of the key's latest attempt, as kept before it.
    pub(crate) fn kept_payload(&self, key: Key) -> Option<serde_json::Value> {
        let bytes = self.sent().kept(key, Kept::Payload)?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The parts of the key's thread as kept before its first send; kept again only when they
    /// changed.
    pub(crate) fn keep_thread(&self, key: Key, prepared: &Prepared) -> Result<(), Error> {
        if self.kept_thread(key).as_ref() == Some(prepared) {
            return Ok(());
        }
        let bytes = serde_json::to_vec(prepared).expect("a thread serialises");
        self.sent().keep(key, Kept::Thread, &bytes)
    }

    /// The parts kept for `post`'s resumed thread, when they are what it sends: kept for copy
    /// `generation`, and the split its line records (`recorded`; a line from before `split=`
    /// names none: `life::kept_fits`). Parts kept before their fingerprint was (an older
    /// file) hold the post's.
    pub(crate) fn kept_split(
        &self,
        post: &Post,
        generation: u32,
        recorded: Option<&str>,
    ) -> Option<Prepared> {
        let kept = self.kept_thread(post.key).filter(|k| {
            let split = crate::thread::hash(&k.pieces);
            crate::life::kept_fits((k.generation, &split), generation, recorded)
        })?;
        Some(match kept.fp.is_empty() {
            false => kept,
            true => Prepared {
                fp: post.fingerprint.clone(),
                payload: self.edit_mark(post),
                ..kept
            },
        })
    }

    pub(crate) fn kept_thread(&self, key: Key) -> Option<Prepared> {
        let bytes = self.sent().kept(key, Kept::Thread)?;
        serde_json::from_slice(&bytes).ok()
    }
}
