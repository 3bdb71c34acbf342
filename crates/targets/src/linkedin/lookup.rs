//! Finding a post after a lost answer. An organization's posts are listed newest first
//! (`GET /rest/posts?q=author&author=…&sortBy=CREATED`) back to the first attempt: a post whose
//! commentary is one an attempt sent is found; the listing read past the attempt's start
//! without one proves it absent; a listing cut short proves nothing. A member's posts cannot be
//! listed by an ordinary app: cannot tell. A create refused as a duplicate names a post; it is
//! ours only when that post reads back with our commentary.

use super::{Author, Linkedin, member_cannot_tell};
use crate::error::{Class, Error};
use crate::net::encode;
use crate::net::pages::{Flow, Walked, walk};
use crate::survey::Survey;
use crate::{Attempts, Find, Lookup, Outgoing};
use life::Receipt;
use serde_json::Value;

/// Posts asked for per page.
const PAGE: usize = 50;
/// Pages read at most in one lookup.
const MAX_PAGES: u32 = 20;

/// The post a duplicate refusal names (`… duplicate of urn:li:share:123`), if any.
pub fn duplicate_of(body: &str) -> Option<String> {
    let doc: Value = serde_json::from_str(body).ok()?;
    let message = doc["message"].as_str()?;
    if !message.to_ascii_lowercase().contains("duplicate") {
        return None;
    }
    let at = message.find("urn:li:")?;
    let urn: String = message[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == ':' || *c == '_' || *c == '-')
        .collect();
    Some(urn)
}

impl Linkedin {
    /// A create refused as a duplicate of `urn`: found when that post reads back holding a
    /// commentary an attempt sent; otherwise (gone, or another text) nobody can tell where
    /// the post is, and a person decides.
    pub(super) fn duplicate(&self, urn: &str, out: &Outgoing) -> Result<Receipt, Error> {
        let ours = match self.read(urn)? {
            Some(post) => post["commentary"]
                .as_str()
                .is_some_and(|c| out.marks.contains(&crate::text::mark(c))),
            None => false,
        };
        match ours {
            true => Ok(Self::receipt(urn)),
            false => Err(Error::failure(
                Class::Rejected,
                format!(
                    "LinkedIn refused the post as a duplicate of {urn}, which is not there with this text: cannot tell whether this post is on LinkedIn"
                ),
            )
            .hint(format!(
                "look at your posts on LinkedIn (the one named was {}): when this post is there, record it with `dayrun mark KEY done --id URN --target NAME`; when it is not, change its text a little and run again",
                Self::receipt(urn).url.unwrap_or_default()
            ))),
        }
    }

    /// One page of the author's posts from `start`: what it holds, and whether it is the last.
    fn page(&self, start: usize) -> Result<(Vec<Value>, bool), Error> {
        self.unexpired()?;
        let query = format!(
            "/posts?q=author&author={}&sortBy=CREATED&count={PAGE}&start={start}",
            encode(&self.settings.author)
        );
        let reply = self.http.get(&self.url(&query), &self.headers())?;
        let reply = reply.success(|r| self.failure("list the author's posts", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let Some(elements) = doc["elements"].as_array() else {
            return Err(Error::failure(
                Class::Unknown,
                format!(
                    "list the author's posts: HTTP {} without elements",
                    reply.status
                ),
            ));
        };
        Ok((elements.clone(), elements.len() < PAGE))
    }

    /// The organization's posts, newest first, back past `since` (milliseconds).
    pub(super) fn walk_back(&self, since: i64) -> Result<Listing, Error> {
        let mut listed = Vec::new();
        let walked = walk(0, MAX_PAGES, "posts", |start| {
            let (posts, last) = self.page(start)?;
            let mut older = false;
            for post in &posts {
                let Some(created) = post["createdAt"].as_i64() else {
                    return Ok(Flow::Cannot("a listed post without createdAt".into()));
                };
                older |= created < since;
                if let (Some(urn), Some(text)) = (post["id"].as_str(), post["commentary"].as_str())
                {
                    listed.push((urn.to_string(), text.to_string()));
                }
            }
            Ok(match (older, last) {
                (true, _) => Flow::Stop,
                (false, true) => Flow::End,
                (false, false) => Flow::Next(start + posts.len()),
            })
        })?;
        Ok(Listing {
            since,
            posts: listed,
            walked,
        })
    }

    /// A lookup from the run's survey when it may answer and reaches back far enough; else
    /// from a walk of its own.
    fn list(&self, attempts: &Attempts) -> Result<Lookup, Error> {
        let since = attempts.reach_back().as_millisecond();
        let surveyed = (self.survey.as_ref())
            .and_then(|s| s.for_lookup(attempts))
            .filter(|l| l.since <= since && !matches!(l.walked, Walked::Cannot(_)));
        match surveyed {
            Some(listing) => Ok(listing.judge(attempts)),
            None => Ok(self.walk_back(since)?.judge(attempts)),
        }
    }
}

/// What one walk of the organization's posts read: every post back past `since` (ms), unless
/// the walk was cut short.
#[derive(Debug)]
pub(super) struct Listing {
    since: i64,
    posts: Vec<(String, String)>,
    walked: Walked,
}

impl Listing {
    /// Found: the posts whose commentary an attempt sent. Absent only when the walk reached
    /// past the attempts' start (or the listing's end).
    fn judge(&self, attempts: &Attempts) -> Lookup {
        let found: Vec<Receipt> = (self.posts.iter())
            .filter(|(_, text)| attempts.sent_text(text))
            .map(|(urn, _)| Linkedin::receipt(urn))
            .collect();
        match (found.is_empty(), &self.walked) {
            (false, _) => Lookup::Found(found),
            (true, Walked::End | Walked::Stopped) => Lookup::Absent,
            (true, Walked::Cannot(why)) => Lookup::CannotTell(why.clone()),
        }
    }
}

impl Find for Linkedin {
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        match self.author {
            Author::Organization => self.list(attempts),
            Author::Member => Ok(member_cannot_tell()),
        }
    }

    fn marks_of(&mut self, post: &crate::post::Post) -> Option<Vec<String>> {
        self.commentary(post)
            .ok()
            .map(|c| vec![crate::text::mark(&c)])
    }

    /// One walk back to the eve of the run's first key, answering the pass's lookups where
    /// it may (`Survey::for_lookup`), instead of a walk per key. A member's posts: none.
    fn survey(
        &mut self,
        keys: &[life::Key],
        now: jiff::Timestamp,
    ) -> Result<Option<String>, Error> {
        let (Author::Organization, Some(first)) = (self.author, keys.first()) else {
            return Ok(None);
        };
        let none = serde_json::Value::Null;
        let since = Attempts::none_yet(*first, &[], &none).reach_back();
        let listing = self.walk_back(since.as_millisecond())?;
        let said = format!("listed {} post(s) back to {since}", listing.posts.len());
        self.survey = Some(Survey::new(now, listing));
        Ok(Some(said))
    }
}
