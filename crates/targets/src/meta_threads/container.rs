//! The two steps: a media container, then its publish. A container is not a post (nobody sees
//! it) and expires unpublished after 24 hours (the Troubleshooting page: `EXPIRED`), so a lost
//! container answer is retry-safe. This run's container for a key and text is kept and reused
//! while it is younger than `REUSE` and its status (`GET /{container}?fields=status`) says
//! `FINISHED`; `PUBLISHED` proves the post is out (its id is then looked up), `EXPIRED` or
//! `ERROR` make a new one.

use super::Threads;
use super::quota::Use;
use crate::Outgoing;
use crate::error::{Class, Error};
use crate::net::{encode, id_text};
use jiff::{SignedDuration, Timestamp};
use life::{Key, Receipt};
use std::collections::HashMap;

/// A container is reused this long after it was made: the documented 24 hours, less an hour
/// for clocks and the time a run takes.
const REUSE: SignedDuration = SignedDuration::from_hours(23);

/// A container made this run.
#[derive(Debug, Clone)]
pub struct Container {
    pub id: String,
    made: Timestamp,
    /// Its status said `PUBLISHED`: the post is out, so nothing for this slot is sent again
    /// this run, whatever the listing says.
    published: bool,
}

/// This run's unpublished containers, by key, the mark of what they hold and what they reply
/// to.
pub type Kept = HashMap<(Key, String), Container>;

impl Threads {
    /// The container to publish for `key`'s `out` (replying to `reply_to`): this run's
    /// unexpired one that is ready, else a new one.
    pub(super) fn container_for(
        &mut self,
        key: Key,
        out: &Outgoing,
        reply_to: Option<&str>,
    ) -> Result<Container, Error> {
        let mark = out.marks.first().map_or("", String::as_str);
        let slot = (key, format!("{mark}/{}", reply_to.unwrap_or_default()));
        if let Some(kept) = self.containers.get(&slot).cloned() {
            if kept.published {
                return Err(published(&kept.id));
            }
            if Timestamp::now() < kept.made + REUSE {
                match self.status(&kept.id)?.as_str() {
                    "FINISHED" => return Ok(kept),
                    "PUBLISHED" => {
                        self.containers.insert(
                            slot,
                            Container {
                                published: true,
                                ..kept.clone()
                            },
                        );
                        return Err(published(&kept.id));
                    }
                    "IN_PROGRESS" => return Err(processing(&kept.id)),
                    _ => {} // EXPIRED, ERROR: a new one
                }
            }
            self.containers.remove(&slot);
        }
        let made = self.make(out, reply_to)?;
        self.containers.insert(slot, made.clone());
        if out.body["image_url"].is_string() && self.status(&made.id)? == "IN_PROGRESS" {
            return Err(processing(&made.id));
        }
        Ok(made)
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
            .map_err(|e| match e.class() {
                Some(Class::Unknown) => e.reclass(Class::RetrySafe),
                _ => e,
            })?;
        let id = id_text(&doc["id"])
            .ok_or_else(|| Error::failure(Class::RetrySafe, "the container answer has no id"))?;
        Ok(Container {
            id,
            made: Timestamp::now(),
            published: false,
        })
    }

    /// A container's status (`FINISHED`, `IN_PROGRESS`, `PUBLISHED`, `EXPIRED`, `ERROR`).
    fn status(&mut self, id: &str) -> Result<String, Error> {
        let doc = self.get(
            "read a container's status",
            &format!("/{}", encode(id)),
            "fields=status,error_message",
        )?;
        Ok(doc["status"].as_str().unwrap_or("ERROR").to_string())
    }

    /// `POST /me/threads_publish`: the post's id. A lost answer is unknown: the runner looks
    /// the post up in the user's threads.
    pub(super) fn publish_container(
        &mut self,
        key: Key,
        container: &Container,
        what: Use,
    ) -> Result<Receipt, Error> {
        let query = format!("creation_id={}", encode(&container.id));
        let doc = self.post("publish the container", "/me/threads_publish", &query)?;
        self.containers
            .retain(|(k, _), c| !(*k == key && c.id == container.id));
        self.quota_used(what);
        let id = id_text(&doc["id"])
            .ok_or_else(|| Error::failure(Class::Unknown, "published, but the answer has no id"))?;
        Ok(Receipt::id(&id))
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
