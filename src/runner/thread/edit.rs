//! Editing a published thread: every part in place when the post still splits into as many
//! parts (else refused, nothing changed), and the read-back of each part after an update.

use crate::error::{Class, Error};
use crate::life::Receipt;
use crate::post::Post;
use crate::runner::TargetRun;
use crate::targets::Media;
use crate::thread::Turn;

impl TargetRun<'_> {
    /// An edit of a published thread: every part in place when the post still splits into as
    /// many parts; otherwise refused (rejected) with nothing changed, since a thread half old
    /// and half new, or with parts missing or added, is not an edit dayrun makes.
    /// `media`: the post's images as uploaded, for part 0.
    pub(in crate::runner) fn update_thread(
        &mut self,
        post: &Post,
        media: &Media,
    ) -> Result<Receipt, Error> {
        let key = post.key;
        let line = self.line(key).expect("the pending update");
        let parts = line.copies.current.published_parts();
        let pieces = self.thread_pieces(post)?;
        if pieces.len() != parts.len() {
            return Err(Error::failure(
                Class::Rejected,
                format!(
                    "the edit splits into {} parts and the thread has {}: a thread is updated in place only part for part; nothing was changed",
                    pieces.len(),
                    parts.len()
                ),
            )
            .hint(format!(
                "to publish the new text as a new thread: `dayrun retract {key} --yes --target {0}`, then `dayrun retry {key} --force --target {0}`",
                self.cfg.name
            )));
        }
        let generation = line.copies.current.generation;
        for (n, (piece, part)) in pieces.iter().zip(&parts).enumerate() {
            let turn = Turn {
                key: post.place(),
                generation,
                n,
                piece,
                landed: &parts[..n],
            };
            let thread = self.target.as_thread().expect("a thread target");
            if let Err(err) = thread.update_part(post, &turn, part, media) {
                let half = match n {
                    0 => String::new(),
                    n => format!(
                        " (parts 1 to {n} of {} hold the edit, the rest the text before it)",
                        parts.len()
                    ),
                };
                let reason = format!("part {}: {}{half}", n + 1, err.reason());
                return Err(Error {
                    message: reason,
                    ..err
                });
            }
            self.voice.trace(
                key,
                "update",
                "part",
                &format!("part={}/{} id={}", n + 1, parts.len(), part.id),
            );
        }
        Ok(Receipt {
            url: line.copies.current.url.clone(),
            ..Receipt::id(&parts[0].id)
        })
    }

    /// Whether every part of the published thread holds the post's text now (an update's
    /// read-back): `Found` when all do, `Absent` when one does not (the update is sent again).
    pub(in crate::runner) fn thread_holds(
        &mut self,
        post: &Post,
    ) -> Result<crate::targets::Lookup, Error> {
        let key = post.key;
        let line = self.line(key).expect("a line");
        let parts = line.copies.current.published_parts();
        let pieces = self.thread_pieces(post)?;
        if pieces.len() != parts.len() {
            return Ok(crate::targets::Lookup::Absent);
        }
        for (n, (piece, part)) in pieces.iter().zip(&parts).enumerate() {
            let turn = Turn {
                key: post.place(),
                generation: line.copies.current.generation,
                n,
                piece,
                landed: &parts[..n],
            };
            let thread = self.target.as_thread().expect("a thread target");
            if !thread.holds(&turn, part)? {
                return Ok(crate::targets::Lookup::Absent);
            }
        }
        Ok(crate::targets::Lookup::Found(vec![Receipt::id(
            &parts[0].id,
        )]))
    }
}
