//! Finding a key's posts on Ghost: every status, by slug (the key's place: `KEY`, `KEY-…`,
//! and the `-2` copies Ghost makes of a taken slug) and by published date (a window around
//! the key's day, for a copy whose slug was changed by hand), read to the last page.

use super::Ghost;
use crate::error::Error;
use crate::net::{encode, status_class};
use crate::outside::web_url;
use crate::{Attempts, Lookup, items};
use life::Receipt;
use serde::Deserialize;

/// Days either side of a key that its post can carry as its date (dayrun's zone, UTC-12..+14).
const WINDOW_DAYS: i64 = 2;
/// Posts a page; Ghost's pages hold up to 100 when asked.
const PAGE: usize = 100;
/// Pages read before the lookup gives up (cannot tell).
const MAX_PAGES: u64 = 10;
/// Posts read one by one to compare their words; more cannot be told apart in one lookup.
const MAX_CANDIDATES: usize = 20;

/// The part of a listing that says which page it is and how many there are.
#[derive(Deserialize)]
struct Listing {
    meta: Meta,
}

#[derive(Deserialize)]
struct Meta {
    pagination: Pagination,
}

#[derive(Deserialize)]
struct Pagination {
    page: u64,
    pages: u64,
}

/// A post the listing named that may be a copy of this key's post.
struct Candidate {
    id: String,
    /// Its slug is the key's place (`KEY`, `KEY-…`).
    at_place: bool,
    created: String,
}

impl Ghost {
    /// The posts at the key's place and the posts in its date window whose title is the one
    /// sent, each read to compare its words: `Found` (ours, oldest first), `Foreign` (at the
    /// key's place, other words), or `Absent` once every page was read.
    pub(super) fn lookup(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let key = attempts.key;
        let filter = window_filter(key);
        let title = Self::title_words(attempts.sent["title"].as_str().unwrap_or_default());
        let mut candidates: Vec<Candidate> = Vec::new();
        let place = crate::place::Place::of(key, self.slugged);
        for page in 1..=MAX_PAGES {
            let body = self.list_page(&filter, page)?;
            if let Err(cannot_tell) = Self::gather(&body, &place, &title, &mut candidates) {
                return Ok(cannot_tell);
            }
            if candidates.len() > MAX_CANDIDATES {
                return Ok(Lookup::CannotTell(format!(
                    "more than {MAX_CANDIDATES} posts at `{key}` or with this title around it"
                )));
            }
            match last_page(&body, page) {
                Err(cannot_tell) => return Ok(cannot_tell),
                Ok(true) => return self.compare(attempts, candidates),
                Ok(false) => {}
            }
        }
        Ok(Lookup::CannotTell(format!(
            "more than {} posts at `{key}` or dated around it",
            MAX_PAGES as usize * PAGE
        )))
    }

    /// The answer's body for page `page` of the posts `filter` selects, oldest first.
    fn list_page(&self, filter: &str, page: u64) -> Result<String, Error> {
        let query = format!(
            "filter={}&fields=id,slug,title,created_at&order={}&limit={PAGE}&page={page}",
            encode(filter),
            encode("created_at asc")
        );
        let reply = self.call("GET", "/posts/", &query, None)?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("look up posts", &reply));
        }
        Ok(reply.body)
    }

    /// Add to `candidates` the posts of one page `body` at the key's `place` or with the
    /// `title` sent; a cannot-tell when the page is not a list of at most `PAGE` posts.
    fn gather(
        body: &str,
        place: &crate::place::Place,
        title: &str,
        candidates: &mut Vec<Candidate>,
    ) -> Result<(), Lookup> {
        let mut listed = 0;
        let walk = items::each(body, "/posts", &mut |item| {
            listed += 1;
            let Some(id) = item["id"].as_str().filter(|id| valid_id(id)) else {
                return;
            };
            let slug = item["slug"].as_str().unwrap_or_default();
            let at_place = place.holds(slug);
            let same_title = item["title"]
                .as_str()
                .is_some_and(|t| !title.is_empty() && Self::title_words(t) == title);
            if (at_place || same_title) && candidates.iter().all(|c| c.id != id) {
                candidates.push(Candidate {
                    id: id.to_string(),
                    at_place,
                    created: item["created_at"].as_str().unwrap_or_default().into(),
                });
            }
        });
        match walk {
            Err(e) => Err(Lookup::CannotTell(format!("post lookup answer is {e}"))),
            Ok(items::Walk::NotArray) => Err(Lookup::CannotTell(
                "post lookup answer has no list of posts".into(),
            )),
            Ok(items::Walk::Array) if listed > PAGE => Err(Lookup::CannotTell(format!(
                "Ghost answered {listed} posts for a page of {PAGE}"
            ))),
            Ok(items::Walk::Array) => Ok(()),
        }
    }

    /// Read each candidate and sort them into ours (their words are what an attempt sent) and
    /// not ours (at the key's place, other words); a candidate with another title elsewhere in
    /// the window is neither. One deleted since the listing is gone.
    fn compare(
        &mut self,
        attempts: &Attempts,
        mut candidates: Vec<Candidate>,
    ) -> Result<Lookup, Error> {
        candidates.sort_by(|a, b| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
        let (mut ours, mut foreign) = (Vec::new(), Vec::new());
        for candidate in candidates {
            let Some(copy) = self.read(&candidate.id)? else {
                continue;
            };
            let words = Self::mark(
                copy["title"].as_str().unwrap_or_default(),
                copy["html"].as_str().unwrap_or_default(),
            );
            let receipt = Receipt {
                id: candidate.id.clone(),
                url: web_url(copy["url"].as_str()),
                note: None,
                native: super::version::of_post(&copy),
            };
            if attempts.marks.contains(&words) {
                ours.push(receipt);
            } else if candidate.at_place {
                foreign.push(receipt);
            }
        }
        Ok(match (ours.is_empty(), foreign.is_empty()) {
            (false, _) => Lookup::Found(ours),
            (true, false) => Lookup::Foreign(foreign),
            (true, true) => Lookup::Absent,
        })
    }

    /// A title as compared: its characters but whitespace, entities decoded.
    fn title_words(title: &str) -> String {
        crate::compare::html_text(title)
            .split_whitespace()
            .collect()
    }
}

/// The NQL filter for the key's posts: by slug, or published in its date window. `,` is or,
/// `+` is and; a date as Ghost writes it, in UTC.
fn window_filter(key: life::Key) -> String {
    // A drill's copies start with `dayrun-drill-`, not the date (`place.rs`).
    let start = match key.is_drill() {
        true => crate::place::start(key),
        false => key.day().to_string(),
    };
    let key = key.day();
    let day = |days: i64| {
        key.checked_add(jiff::Span::new().days(days))
            .unwrap_or(key)
            .to_string()
    };
    let (from, to) = (day(-WINDOW_DAYS), day(WINDOW_DAYS + 1));
    format!("slug:~^'{start}',(published_at:>='{from} 00:00:00'+published_at:<'{to} 00:00:00')")
}

/// Whether the listing `body`, asked for page `page`, is its last page; a cannot-tell when its
/// pagination is missing or names another page.
fn last_page(body: &str, page: u64) -> Result<bool, Lookup> {
    let Ok(listing) = serde_json::from_str::<Listing>(body) else {
        return Err(Lookup::CannotTell(
            "the answer has no meta.pagination to show it is complete".into(),
        ));
    };
    let Pagination { page: got, pages } = listing.meta.pagination;
    if got != page {
        return Err(Lookup::CannotTell(format!(
            "asked for page {page} of the lookup, Ghost answered page {got}"
        )));
    }
    Ok(page >= pages)
}

/// A Ghost id is 24 hex digits; anything else from the listing is no id to read by.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}
