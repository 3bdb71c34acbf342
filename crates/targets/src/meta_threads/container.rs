//! The two steps: a media container, then its publish. A container is not a post (nobody sees
//! it) and expires unpublished after 24 hours (the Troubleshooting page: `EXPIRED`), so a lost
//! container answer is retry-safe. The container is noted on the key's pending line
//! (`native.rs`) the moment its answer arrives, before its publish is sent; a later attempt at
//! the same send (this run or a later one) reads its status (`GET /{container}?fields=status`)
//! and reuses it while it is younger than `REUSE` and `FINISHED`. `PUBLISHED` proves the post
//! is out: it is never published again, and the runner's lookup settles the outcome.
//! `EXPIRED`, `ERROR`, a container Threads no longer knows, or one too old make a new one.

use super::quota::Use;
use super::{Threads, graph, native};
use crate::error::{Class, Error};
use crate::net::{encode, id_text};
use crate::{Noting, Outgoing};
use jiff::{SignedDuration, Timestamp};
use life::{Key, Receipt};

/// A container is reused this long after it was made: the documented 24 hours, less an hour
/// for clocks and the time a run takes.
const REUSE: SignedDuration = SignedDuration::from_hours(23);

/// A container: its id, and when it was made (by the run's clock).
#[derive(Debug, Clone)]
pub struct Container {
    pub id: String,
    made: Timestamp,
}

impl Threads {
    /// The container to publish for copy `out.generation` of `key`'s `out` (replying to
    /// `reply_to`): the one the key's line keeps for this very send when it is ready, else a
    /// new one, noted on the line (`line`) before anything can publish it.
    pub(super) fn container_for(
        &mut self,
        key: Key,
        out: &Outgoing,
        reply_to: Option<&str>,
        line: &mut Noting,
    ) -> Result<Container, Error> {
        let text = out.marks.first().map_or("", String::as_str);
        let slot = native::slot(key, out.generation, text, reply_to);
        if let Some((id, made)) = native::kept(line.kept(), &slot)
            && let Some(ready) = self.reusable(Container { id, made })?
        {
            return Ok(ready);
        }
        let made = self.make(out, reply_to)?;
        line.note(&native::noted(&made.id, made.made, &slot))?;
        if out.body["image_url"].is_string()
            && self.status(&made.id)?.as_deref() == Some("IN_PROGRESS")
        {
            return Err(processing(&made.id));
        }
        Ok(made)
    }

    /// A kept container, by its status: `FINISHED` and young enough is published; one still
    /// `IN_PROGRESS` waits (retry-safe: the next attempt reuses it); `PUBLISHED`, at any age,
    /// is never published again (the outcome is unknown until the lookup finds the post).
    /// `None`: a new one is made (too old, `EXPIRED`, `ERROR`, or gone).
    fn reusable(&mut self, kept: Container) -> Result<Option<Container>, Error> {
        let young = self.clock.instant() < kept.made + REUSE;
        match self.status(&kept.id)?.as_deref() {
            Some("PUBLISHED") => Err(published(&kept.id)),
            Some("FINISHED") if young => Ok(Some(kept)),
            Some("IN_PROGRESS") if young => Err(processing(&kept.id)),
            _ => Ok(None),
        }
    }

    /// `POST /me/threads`: a TEXT or IMAGE container. Its answer lost is retry-safe: a
    /// container nobody publishes expires unseen.
    fn make(&mut self, out: &Outgoing, reply_to: Option<&str>) -> Result<Container, Error> {
        let text = out.body["text"].as_str().unwrap_or_default();
        let mut query = match out.body["image_url"].as_str() {
            Some(url) => format!("media_type=IMAGE&image_url={}", encode(url)),
            None => "media_type=TEXT".to_string(),
        };
        query.push_str(&format!("&text={}", encode(text)));
        if let Some(parent) = reply_to {
            query.push_str(&format!("&reply_to_id={}", encode(parent)));
        }
        let doc = self
            .post("create a media container", "/me/threads", &query)
            .map_err(changed_nothing)?;
        let id = id_text(&doc["id"])
            .ok_or_else(|| Error::failure(Class::RetrySafe, "the container answer has no id"))?;
        Ok(Container {
            id,
            made: self.clock.instant(),
        })
    }

    /// A container's status (`FINISHED`, `IN_PROGRESS`, `PUBLISHED`, `EXPIRED`, `ERROR`);
    /// `None`: Threads does not know it. A read changes nothing: its failure is retry-safe.
    fn status(&mut self, id: &str) -> Result<Option<String>, Error> {
        let what = "read a container's status";
        let url = self.url(&format!("/{}", encode(id)), "fields=status,error_message");
        let reply = self.http.get(&url, &[]).map_err(changed_nothing)?;
        if graph::is_gone(&reply) {
            return Ok(None);
        }
        let reply = (reply.success(|r| self.failure(what, r))).map_err(changed_nothing)?;
        let doc: serde_json::Value = serde_json::from_str(&reply.body).unwrap_or_default();
        Ok(Some(doc["status"].as_str().unwrap_or("ERROR").to_string()))
    }

    /// `POST /me/threads_publish`: the post's id. A lost answer is unknown: the runner looks
    /// the post up in the user's threads (and the container's status says `PUBLISHED` to any
    /// later attempt).
    pub(super) fn publish_container(
        &mut self,
        container: &Container,
        what: Use,
    ) -> Result<Receipt, Error> {
        let query = format!("creation_id={}", encode(&container.id));
        let doc = self.post("publish the container", "/me/threads_publish", &query)?;
        self.quota_used(what);
        let id = id_text(&doc["id"])
            .ok_or_else(|| Error::failure(Class::Unknown, "published, but the answer has no id"))?;
        Ok(Receipt::id(&id))
    }
}

/// A request that made or published nothing (a container, a status read) whose answer was
/// lost: retry-safe.
fn changed_nothing(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => err.reclass(Class::RetrySafe),
        _ => err,
    }
}

/// A container whose status says its post is out: never published again; the post is looked up.
fn published(id: &str) -> Error {
    Error::failure(
        Class::Unknown,
        format!(
            "container {id} is already published (its status says so); the post is looked up, never sent again"
        ),
    )
}

/// A container Threads is still processing: nothing published, the next attempt reuses it.
fn processing(id: &str) -> Error {
    Error::failure(
        Class::RetrySafe,
        format!(
            "container {id} is still being processed by Threads; it is published on the next attempt"
        ),
    )
}
