//! The account's documented 24-hour limits (250 posts, 1000 replies, 100 deletes), read from
//! `GET /me/threads_publishing_limit` once a run and counted down as the run uses them. At a
//! limit nothing is sent: the key waits (retry-safe) for a later run rather than fail against
//! the server.

use super::Threads;
use crate::error::{Class, Error};
use serde_json::Value;

/// What one limit allows and has used.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limit {
    used: u64,
    total: u64,
    /// The window, in seconds (86400 in the documentation).
    window: u64,
}

/// The three limits dayrun meets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quota {
    posts: Limit,
    replies: Limit,
    deletes: Limit,
}

/// Which limit an action uses.
#[derive(Debug, Clone, Copy)]
pub enum Use {
    Post,
    Reply,
    Delete,
}

const FIELDS: &str =
    "fields=quota_usage,config,reply_quota_usage,reply_config,delete_quota_usage,delete_config";

fn limit(doc: &Value, usage: &str, config: &str, documented: u64) -> Limit {
    Limit {
        used: doc[usage].as_u64().unwrap_or(0),
        total: doc[config]["quota_total"].as_u64().unwrap_or(documented),
        window: doc[config]["quota_duration"].as_u64().unwrap_or(86400),
    }
}

impl Threads {
    /// The limits, read once a run (a failed read: nothing was written, retry-safe).
    fn quota(&mut self) -> Result<&mut Quota, Error> {
        if self.quota.is_none() {
            let doc = self
                .get(
                    "read the publishing limit",
                    "/me/threads_publishing_limit",
                    FIELDS,
                )
                .map_err(|e| match e.class() {
                    Some(Class::Unknown) => e.reclass(Class::RetrySafe),
                    _ => e,
                })?;
            let doc = &doc["data"][0];
            self.quota = Some(Quota {
                posts: limit(doc, "quota_usage", "config", 250),
                replies: limit(doc, "reply_quota_usage", "reply_config", 1000),
                deletes: limit(doc, "delete_quota_usage", "delete_config", 100),
            });
        }
        Ok(self.quota.as_mut().expect("read above"))
    }

    /// Room for one more of `what`; `Err` (retry-safe, nothing sent) at the limit.
    fn room(&mut self, what: Use) -> Result<(), Error> {
        let quota = *self.quota()?;
        let (limit, name) = match what {
            Use::Post => (quota.posts, "posts"),
            Use::Reply => (quota.replies, "replies"),
            Use::Delete => (quota.deletes, "deletes"),
        };
        if limit.used < limit.total {
            return Ok(());
        }
        Err(Error::failure(
            Class::RetrySafe,
            format!(
                "the account has used {} of its {} {name} in {} hours (threads_publishing_limit); nothing was sent, the key waits for a later run",
                limit.used,
                limit.total,
                limit.window / 3600
            ),
        ))
    }

    pub(super) fn room_to_publish(&mut self, reply: bool) -> Result<(), Error> {
        self.room(if reply { Use::Reply } else { Use::Post })
    }

    pub(super) fn room_to_delete(&mut self) -> Result<(), Error> {
        self.room(Use::Delete)
    }

    /// Count one use of `what` in this run's copy of the limits.
    pub(super) fn quota_used(&mut self, what: Use) {
        if let Some(quota) = self.quota.as_mut() {
            match what {
                Use::Post => quota.posts.used += 1,
                Use::Reply => quota.replies.used += 1,
                Use::Delete => quota.deletes.used += 1,
            }
        }
    }
}
