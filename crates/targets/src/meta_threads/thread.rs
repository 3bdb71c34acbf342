//! `long = "thread"` on Threads: the post's text split into posts of at most 500 characters
//! (counted as Threads counts), each part after the first a reply (`reply_to_id`) to the one
//! before it, each in the two steps and within the reply limit. A part whose answer was lost is
//! found by its text among the user's posts and replies since the attempt (`Find`); a part is
//! this thread's when it replies (`replied_to`) to the part before it.

use super::quota::Use;
use super::{Threads, text};
use crate::error::{Class, Error};
use crate::net::{encode, id_text};
use crate::post::Post;
use crate::text::mark;
use crate::thread::{Long, Piece, Turn, split::Limit};
use crate::{Attempts, Lookup, Media, Noting, Outgoing, Thread};
use life::{Part, Receipt};
use serde_json::json;

impl Thread for Threads {
    /// The parts, each within the documented limits (one topic tag: the first tag, in the
    /// thread's text once); part 0 carries the image's public URL.
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let Long::Thread(shape) = self.long else {
            return Err(Error::failure(
                Class::Local,
                "long = \"cut\" sends no thread",
            ));
        };
        let link = self.link(post);
        let tags: Vec<String> = post.tags.iter().take(1).map(|t| format!("#{t}")).collect();
        let (whole, head) =
            crate::thread::source(self.template.as_ref(), post, link.as_deref(), &tags)?;
        let limit = Limit {
            max: text::MAX_CHARS,
            max_bytes: None,
            count: &text::length,
        };
        let parts = crate::thread::cut(post, &whole, head, &limit, shape)?;
        let image = self.image_url(post)?;
        let mut pieces = Vec::new();
        for (n, part) in parts.into_iter().enumerate() {
            text::check(&part).map_err(|why| {
                Error::failure(Class::Rejected, format!("part {}: {why}", n + 1))
                    .at(&post.path)
                    .hint("nothing was sent")
            })?;
            let image = image.as_ref().filter(|_| n == 0);
            pieces.push(Piece {
                mark: mark(&text::normal(&part)),
                count: text::length(&part),
                body: json!({ "text": part, "image_url": image }),
                text: part,
            });
        }
        Ok(pieces)
    }

    /// `send_part_noting` with no line to note the container on.
    fn send_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
    ) -> Result<(Part, Option<String>), Error> {
        let line = &mut Noting::nowhere(life::Native::default());
        self.send_part_noting(post, turn, media, line)
    }

    /// Part 0 as a post, each later part a reply to the one before it (`reply_to_id`), each
    /// within its daily limit, each a container then its publish. Each part's container is
    /// noted on the key's line before its publish, as a post's is, in the one field: only the
    /// part in flight needs it (a part goes once the one before it is on the line).
    fn send_part_noting(
        &mut self,
        _: &Post,
        turn: &Turn,
        _: &Media,
        line: &mut Noting,
    ) -> Result<(Part, Option<String>), Error> {
        let parent = turn.n.checked_sub(1).and_then(|p| turn.landed.get(p));
        let what = match parent {
            Some(_) => Use::Reply,
            None => Use::Post,
        };
        self.room_to_publish(parent.is_some())?;
        let out = Outgoing {
            body: turn.piece.body.clone(),
            marks: vec![turn.piece.mark.clone()],
            generation: turn.generation,
            ..Outgoing::default()
        };
        let parent = parent.map(|p| p.id.as_str());
        let container = self.container_for(turn.key, &out, parent, line)?;
        let receipt = self.publish_container(&container, what)?;
        let part = Part {
            id: receipt.id,
            native: None,
        };
        Ok((part, receipt.url))
    }

    fn part_native(&self, _: life::Key, _: u32, _: usize) -> life::Native {
        life::Native::default()
    }

    /// `GET /{parent}/replies`: the replies to the part before, whatever their text.
    fn replies_to(&mut self, _: &Attempts, parent: &Part) -> Result<Lookup, Error> {
        let path = format!("/{}/replies", encode(&parent.id));
        let doc = self.get("list the replies to a part", &path, "fields=id,text")?;
        let Some(list) = doc["data"].as_array() else {
            return Ok(Lookup::CannotTell("the replies list is not a list".into()));
        };
        if doc["paging"]["next"].is_string() {
            return Ok(Lookup::CannotTell(
                "more replies than one page holds".into(),
            ));
        }
        let found: Vec<Receipt> = list
            .iter()
            .filter_map(|r| id_text(&r["id"]))
            .map(|id| Receipt::id(&id))
            .collect();
        Ok(match found.is_empty() {
            true => Lookup::Absent,
            false => Lookup::Found(found),
        })
    }

    /// `GET /{id}?fields=id,is_reply,replied_to`: what the post replies to.
    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error> {
        let path = format!("/{}", encode(&found.id));
        let doc = self.get("read a post", &path, "fields=id,is_reply,replied_to")?;
        let parent = match doc["is_reply"].as_bool() {
            Some(false) => None,
            Some(true) => Some(id_text(&doc["replied_to"]["id"]).ok_or_else(|| {
                Error::failure(Class::Unknown, format!("post {}: no replied_to", found.id))
            })?),
            None => {
                return Err(Error::failure(
                    Class::Unknown,
                    format!(
                        "post {}: Threads does not say whether it is a reply",
                        found.id
                    ),
                ));
            }
        };
        let part = Part {
            id: found.id.clone(),
            native: None,
        };
        Ok((part, parent))
    }

    fn update_part(&mut self, _: &Post, _: &Turn, _: &Part, _: &Media) -> Result<(), Error> {
        Err(Error::config(
            "the Threads API cannot edit a published post",
        ))
    }

    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error> {
        let path = format!("/{}", encode(&part.id));
        let doc = self.get("read a post", &path, "fields=id,text")?;
        let text = doc["text"].as_str().unwrap_or_default();
        Ok(mark(&text::normal(text)) == turn.piece.mark)
    }
}
