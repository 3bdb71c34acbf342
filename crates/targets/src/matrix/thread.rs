//! `long = "thread"` on Matrix: the post's text split into parts of at most `PART_CHARS`
//! characters, the first a message of its own (the thread's root, after the post's images),
//! each later one in the root's thread (`m.relates_to` `rel_type: m.thread`, with
//! `is_falling_back` and `m.in_reply_to` naming the part before it, for clients without
//! threads). Each part is sent with a transaction id of its own and carries its number in
//! `app.dayrun.key`, so a part whose answer was lost is found by it (`Find`).

use super::Matrix;
use super::content::{IMAGES, Part as Which, mark_of};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::thread::{Long, Piece, Turn, split::Limit};
use crate::{Attempts, Lookup, Media, Thread};
use life::{Part, Receipt};
use serde_json::{Value, json};

/// The most characters one part holds: a long message, still one a reader takes in. (The
/// homeserver's own limit is the event's 65,536 bytes.)
pub(super) const PART_CHARS: usize = 2000;

impl Thread for Matrix {
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let Long::Thread(shape) = self.long else {
            return Err(Error::failure(
                Class::Local,
                "long = \"cut\" sends no thread",
            ));
        };
        let tags: Vec<String> = (post.tags.iter())
            .filter_map(|t| crate::text::hashtag(t))
            .map(|t| format!("#{t}"))
            .collect();
        let (whole, head) = crate::thread::source(self.template.as_ref(), post, None, &tags)?;
        let count = |text: &str| text.chars().count();
        let limit = Limit {
            max: PART_CHARS,
            max_bytes: None,
            count: &count,
        };
        let parts = crate::thread::cut(post, &whole, head, &limit, shape)?;
        Ok((parts.into_iter().enumerate())
            .map(|(n, text)| {
                let mut body = json!({ "msgtype": "m.text", "body": text, "m.mentions": {} });
                let mark = mark_of(&body);
                if n == 0 && !post.images.is_empty() {
                    body[IMAGES] = json!(post.images.len());
                }
                Piece {
                    mark,
                    count: text.chars().count(),
                    body,
                    text,
                }
            })
            .collect())
    }

    /// Part 0 after the post's images; each later part in part 0's thread, replying to the
    /// part before it.
    fn send_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
    ) -> Result<(Part, Option<String>), Error> {
        let which = Which::Message(turn.n);
        if turn.n == 0 {
            self.send_images(post, turn.generation, media)?;
        }
        let mut body = self.with_key(turn.key, turn.generation, &which, &turn.piece.body);
        if let (Some(root), Some(before)) = (turn.landed.first(), turn.landed.last()) {
            body["m.relates_to"] = json!({
                "rel_type": "m.thread",
                "event_id": root.id,
                "is_falling_back": true,
                "m.in_reply_to": { "event_id": before.id },
            });
        }
        let txn = self.txn(turn.key, turn.generation, &which);
        let receipt = self.send_event(&txn, &body)?;
        let part = Part {
            id: receipt.id,
            native: None,
        };
        Ok((part, receipt.url))
    }

    fn part_native(&self, _: life::Key, _: u32, n: usize) -> life::Native {
        super::native::part(&self.token, n)
    }

    /// What a found part replies to: the part before it (`m.in_reply_to` in its thread
    /// relation), or nothing (the root).
    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error> {
        let event = self.event(&found.id)?.ok_or_else(|| {
            Error::failure(
                Class::Unknown,
                format!("message {} is not in the room any more", found.id),
            )
        })?;
        let part = Part {
            id: found.id.clone(),
            native: None,
        };
        Ok((part, reply_to(&event["content"])))
    }

    /// This account's messages since the attempt that reply to `parent`, whatever their text.
    fn replies_to(&mut self, attempts: &Attempts, parent: &Part) -> Result<Lookup, Error> {
        self.replies(attempts, &parent.id)
    }

    /// An `m.replace` of the part with its new text (its place in the thread stays).
    fn update_part(&mut self, _: &Post, turn: &Turn, part: &Part, _: &Media) -> Result<(), Error> {
        let which = Which::Message(turn.n);
        let new = self.with_key(turn.key, turn.generation, &which, &turn.piece.body);
        self.replace(turn.key, turn.generation, &part.id, &new)
            .map(|_| ())
    }

    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error> {
        Ok(self
            .latest(&part.id)?
            .is_some_and(|content| mark_of(&content) == turn.piece.mark))
    }
}

/// The event a message replies to: `m.in_reply_to` in its relation.
pub(super) fn reply_to(content: &Value) -> Option<String> {
    content["m.relates_to"]["m.in_reply_to"]["event_id"]
        .as_str()
        .map(str::to_string)
}

/// The part number a lookup looks for (`Thread::part_native`; 0: the copy itself).
pub(super) fn looked_for(attempts: &Attempts) -> Which {
    let n = super::native::part_of(attempts.native);
    Which::Message(n)
}
