//! `long = "thread"` on Mastodon: the post's text split into statuses within the instance's
//! limit (counted as Mastodon counts), each part after the first a reply (`in_reply_to_id`) to
//! the one before it, each sent with an Idempotency-Key of its own; a part whose answer was
//! lost is found by its source text among the account's statuses since the attempt (`Find`).

use super::{Mastodon, length, normal};
use crate::error::{Class, Error};
use crate::net::{encode, id_text, idempotency_key};
use crate::post::Post;
use crate::text::hashtag;
use crate::text::mark;
use crate::thread::{Long, Piece, Turn, split::Limit};
use crate::{Attempts, Lookup, Media, Thread};
use life::Part;
use life::Receipt;
use serde_json::{Value, json};

impl Thread for Mastodon {
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let Long::Thread(shape) = self.long else {
            return Err(Error::failure(
                Class::Local,
                "long = \"cut\" sends no thread",
            ));
        };
        let limits = self.limits();
        let link = self.link(post);
        let tags: Vec<String> = post
            .tags
            .iter()
            .filter_map(|t| hashtag(t))
            .map(|t| format!("#{t}"))
            .collect();
        let (whole, head) =
            crate::thread::source(self.template.as_ref(), post, link.as_deref(), &tags)?;
        let count = move |text: &str| length(text, limits);
        let limit = Limit {
            max: limits.max_characters,
            max_bytes: None,
            count: &count,
        };
        let parts = crate::thread::cut(post, &whole, head, &limit, shape)?;
        Ok(parts
            .into_iter()
            .map(|part| Piece {
                mark: mark(&normal(&part)),
                count: length(&part, limits),
                body: json!({ "status": part, "visibility": self.settings.visibility }),
                text: part,
            })
            .collect())
    }

    fn send_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
    ) -> Result<(Part, Option<String>), Error> {
        let mut body = match turn.n {
            0 => Self::attach(&turn.piece.body, post, media)?,
            _ => turn.piece.body.clone(),
        };
        if let Some(parent) = turn.n.checked_sub(1).and_then(|p| turn.landed.get(p)) {
            body["in_reply_to_id"] = json!(parent.id);
        }
        let mut headers = self.headers();
        headers.push(("Idempotency-Key".into(), self.part_idempotency(turn)));
        let reply = self
            .http
            .post(&self.url("/api/v1/statuses"), &headers, &body)?;
        let reply = reply.success(|r| match (r.status, body["in_reply_to_id"].as_str()) {
            // `set_thread`: the part before is gone (deleted by hand): the thread cannot go on.
            (404, Some(parent)) => self.failure("post status", r).hint(format!(
                "part {} replies to status {parent}, which is no longer on the instance, so this thread cannot go on; to send the post again as a new thread: `dayrun mark {key} done --id {root} --target {name}`, `dayrun retract {key} --yes --target {name}` (removes the parts still there), then `dayrun retry {key} --force --target {name}`",
                turn.n + 1,
                key = turn.key,
                root = turn.landed.first().map_or("", |p| p.id.as_str()),
                name = self.name,
            )),
            _ => self.failure("post status", r),
        })?;
        let receipt = self.http.receipt(&reply, "/id", "/url")?;
        Ok((
            Part {
                id: receipt.id,
                native: None,
            },
            receipt.url,
        ))
    }

    fn part_native(&self, _: life::Key, _: u32, _: usize) -> life::Native {
        life::Native::default()
    }

    /// The account's statuses since the attempt whose `in_reply_to_id` is `parent`.
    fn replies_to(&mut self, attempts: &Attempts, parent: &Part) -> Result<Lookup, Error> {
        self.replies(attempts, &parent.id)
    }

    /// `GET /api/v1/statuses/{id}`: the status it replies to (`in_reply_to_id`, null for none).
    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error> {
        let url = self.url(&format!("/api/v1/statuses/{}", encode(&found.id)));
        let reply = self.http.get(&url, &self.headers())?;
        let reply = reply.success(|r| self.failure("read a status", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let parent = match doc.get("in_reply_to_id") {
            Some(Value::Null) => None,
            Some(id) if id_text(id).is_some() => id_text(id),
            _ => {
                return Err(Error::failure(
                    Class::Unknown,
                    format!(
                        "status {}: the instance does not say what it replies to",
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

    /// `PUT /api/v1/statuses/{id}` with the part's body as sent (its place in the thread stays
    /// as it is). Mastodon takes every image off a status whose edit does not name them in
    /// `media_ids`, so part 0 carries the post's images as a single status's update does
    /// (`attach`); `sensitive` and `spoiler_text` left out are reset to false and "" (as dayrun
    /// sends them), `language` left out is kept.
    fn update_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        part: &Part,
        media: &Media,
    ) -> Result<(), Error> {
        let url = self.url(&format!("/api/v1/statuses/{}", encode(&part.id)));
        let body = match turn.n {
            0 => Self::attach(&turn.piece.body, post, media)?,
            _ => turn.piece.body.clone(),
        };
        self.sources.remove(&part.id);
        let reply = self.http.send("PUT", &url, &self.headers(), &body)?;
        reply.success(|r| self.failure("edit status", r))?;
        Ok(())
    }

    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error> {
        Ok(self
            .source(&part.id)?
            .is_some_and(|text| mark(&normal(&text)) == turn.piece.mark))
    }
}

impl Mastodon {
    /// Part 0's key is the copy's (as a single status would have it); each later part's adds
    /// its number. Mastodon keeps a key for an hour: a resend within it returns the first status.
    fn part_idempotency(&self, turn: &Turn) -> String {
        match (turn.n, turn.generation) {
            (0, 0) => idempotency_key(&self.name, &turn.key.to_string()),
            (0, g) => idempotency_key(&self.name, &format!("{}#{g}", turn.key)),
            (n, g) => idempotency_key(&self.name, &format!("{}#{g}/part {n}", turn.key)),
        }
    }
}
