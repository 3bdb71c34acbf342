//! Looking a key up on Threads: the user's threads (`GET /me/threads`) since the first attempt
//! (or the key's eve), newest first, 100 a page, by the `after` cursor while the answer names
//! a `next` page, and with `long = "thread"` the user's replies (`GET /me/replies`) the same
//! way; a post is the key's when its text is one an attempt sent.

use super::{Threads, text};
use crate::error::Error;
use crate::items;
use crate::net::id_text;
use crate::net::pages::{Flow, Walked, walk};
use crate::outside::web_url;
use crate::survey::Survey;
use crate::text::mark;
use crate::{Attempts, Lookup};
use jiff::{SignedDuration, Timestamp};
use life::Key;
use life::Receipt;
use serde_json::Value;

/// The earliest `since` the API takes (the User reference: 1688540400).
const FIRST: i64 = 1_688_540_400;
/// Pages of 100 read before the lookup gives up (cannot tell).
const MAX_PAGES: u32 = 20;
/// The most a page holds (the documented maximum `limit`).
const PAGE: usize = 100;
/// Posts made this long before the attempt still count (clocks differ).
const SKEW: SignedDuration = SignedDuration::from_secs(300);

/// A post as the listing shows it.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    id: String,
    url: Option<String>,
    mark: Option<String>,
    /// `timestamp`, in seconds (`None`: not given; kept, as it may be in the window).
    at: Option<i64>,
}

/// The run's one read of the listings, back to `since` (`survey`).
#[derive(Debug)]
pub(super) struct Surveyed {
    since: i64,
    posts: Vec<Listed>,
}

impl Threads {
    /// The key's copies among the posts since the first attempt: found (oldest first), absent
    /// when the listing was read back that far, else cannot tell.
    pub(super) fn look(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let since = (attempts.reach_back() - SKEW).as_second().max(FIRST);
        let surveyed = (self.survey.as_ref())
            .and_then(|s| s.for_lookup(attempts))
            .filter(|s| s.since <= since)
            .map(|s| s.posts.clone());
        let listed = match surveyed {
            Some(posts) => posts,
            None => match self.listings(since)? {
                Ok(listed) => listed,
                Err(why) => return Ok(Lookup::CannotTell(why)),
            },
        };
        let mut found: Vec<Receipt> = Vec::new();
        for post in listed
            .into_iter()
            .filter(|p| p.at.is_none_or(|at| at >= since))
        {
            let ours = post
                .mark
                .as_ref()
                .is_some_and(|m| attempts.marks.contains(m));
            if ours && !found.iter().any(|r| r.id == post.id) {
                found.push(Receipt {
                    id: post.id,
                    url: post.url,
                    ..Receipt::default()
                });
            }
        }
        found.reverse();
        Ok(match found.is_empty() {
            true => Lookup::Absent,
            false => Lookup::Found(found),
        })
    }

    /// The run's survey: the listings read once back to the earliest key's eve, in place of
    /// a walk per key. A walk that cannot be trusted proves nothing and is not kept.
    pub(super) fn survey_listing(&mut self, keys: &[Key], now: Timestamp) -> Result<String, Error> {
        let Some(first) = keys.first() else {
            return Ok("no keys".into());
        };
        let eve = Attempts::none_yet(*first, &[], &serde_json::Value::Null).reach_back();
        let since = (eve - SKEW).as_second().max(FIRST);
        let posts = match self.listings(since)? {
            Ok(posts) => posts,
            Err(why) => return Ok(format!("none ({why})")),
        };
        let said = format!("posts since {eve}: {}", posts.len());
        self.survey = Some(Survey::new(now, Surveyed { since, posts }));
        Ok(said)
    }

    /// The user's posts since `since`, and with `long = "thread"` its replies (a thread's
    /// parts after the first are replies, listed apart).
    fn listings(&mut self, since: i64) -> Result<Result<Vec<Listed>, String>, Error> {
        let mut listed = match self.walk_listing("/me/threads", since)? {
            Ok(listed) => listed,
            Err(why) => return Ok(Err(why)),
        };
        if matches!(self.long, crate::thread::Long::Thread(_)) {
            match self.walk_listing("/me/replies", since)? {
                Ok(replies) => listed.extend(replies),
                Err(why) => return Ok(Err(why)),
            }
        }
        Ok(Ok(listed))
    }

    /// Every post of the listing at `path` since `since`, newest first; `Ok(Err(why))`: a
    /// page cannot be trusted, or the pages ran out first.
    fn walk_listing(
        &mut self,
        path: &str,
        since: i64,
    ) -> Result<Result<Vec<Listed>, String>, Error> {
        let mut listed = Vec::new();
        let mut bad = None;
        let walked = walk(None::<String>, MAX_PAGES, "posts", |after| {
            let mut query =
                format!("fields=id,text,timestamp,permalink&since={since}&limit={PAGE}");
            if let Some(after) = &after {
                query.push_str(&format!("&after={}", crate::net::encode(after)));
            }
            let doc = self.get("list the user's threads", path, &query)?;
            match page(&doc) {
                Ok((posts, next)) => {
                    listed.extend(posts);
                    Ok(next.map_or(Flow::End, |n| Flow::Next(Some(n))))
                }
                Err(why) => {
                    bad = Some(why.clone());
                    Ok(Flow::Cannot(why))
                }
            }
        })?;
        Ok(match (bad, walked) {
            (Some(why), _) | (None, Walked::Cannot(why)) => Err(why),
            (None, _) => Ok(listed),
        })
    }
}

/// A listed post's `timestamp` (`2023-10-17T05:42:03+0000`), in seconds.
fn when(text: &str) -> Option<i64> {
    let parsed = jiff::fmt::strtime::parse("%Y-%m-%dT%H:%M:%S%z", text).ok()?;
    parsed.to_timestamp().ok().map(|t| t.as_second())
}

/// One page: its posts and the cursor of the next (`None`: the last page).
fn page(doc: &Value) -> Result<(Vec<Listed>, Option<String>), String> {
    let body = doc.to_string();
    let mut posts = Vec::new();
    let walk = items::each(&body, "/data", &mut |post| posts.push(post));
    match walk {
        Err(e) => return Err(format!("the threads list is {e}")),
        Ok(items::Walk::NotArray) => return Err("the threads list is not a list".into()),
        Ok(items::Walk::Array) if posts.len() > PAGE => {
            return Err(format!(
                "Threads answered more than the {PAGE} posts asked for"
            ));
        }
        Ok(items::Walk::Array) => {}
    }
    let listed = posts
        .iter()
        .map(|post| {
            let id = id_text(&post["id"]).ok_or("a listed post has no id")?;
            Ok(Listed {
                id,
                url: web_url(post["permalink"].as_str()),
                mark: post["text"].as_str().map(|t| mark(&text::normal(t))),
                at: post["timestamp"].as_str().and_then(when),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let next = doc["paging"]["next"]
        .as_str()
        .and_then(|_| doc["paging"]["cursors"]["after"].as_str())
        .map(String::from);
    Ok((listed, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_gives_its_posts_and_the_next_cursor_only_when_there_is_a_next() {
        let doc = serde_json::json!({
            "data": [{"id": "1", "text": "Hi", "timestamp": "2023-10-17T05:42:03+0000"}],
            "paging": {"cursors": {"before": "B", "after": "A"}, "next": "https://x/next"}
        });
        let (posts, next) = page(&doc).unwrap();
        assert_eq!((posts.len(), next.as_deref()), (1, Some("A")));
        let last = serde_json::json!({"data": [], "paging": {"cursors": {"after": "A"}}});
        assert_eq!(page(&last).unwrap().1, None);
        assert_eq!(when("2023-10-17T05:42:03+0000"), Some(1_697_521_323));
    }
}
