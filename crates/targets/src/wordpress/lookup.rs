//! Finding a key's posts on WordPress: every status, trash included, dated in a window around
//! the key's day, whose slug starts with the key. Read live, one listing of the key's window,
//! or from the run's survey: one listing of the windows of all its keys, read once.

use super::WordPress;
use crate::error::Error;
use crate::net::id_text;
use crate::net::pages::{Flow, Walked, walk};
use crate::outside::web_url;
use crate::survey::{Survey, stretches};
use crate::{Attempts, items};
use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use life::Key;
use life::Receipt;

/// A post whose slug is this key's: where it is, and what it is to this key.
pub(super) struct Candidate {
    /// The id as the site wrote it.
    pub id: String,
    pub receipt: Receipt,
    /// Its words are what an attempt sent.
    pub ours: bool,
    pub trashed: bool,
}

/// Days either side of a key that its post can carry as its date (site zones are UTC-12..+14).
pub(super) const WINDOW_DAYS: i32 = 2;
/// Pages of 100 read per window before the lookup gives up (cannot tell).
const MAX_PAGES: u32 = 10;
/// Pages of 100 a survey reads per stretch of keys before it gives up on the stretch (whose
/// keys are then looked up live, window by window).
const SURVEY_PAGES: u32 = 20;
/// Keys more days apart than this are surveyed in listings of their own.
const GAP_DAYS: i64 = 7;

/// A post as a listing shows it, kept when its slug starts with a date (a key's place).
#[derive(Debug)]
pub(super) struct Listed {
    id: String,
    slug: String,
    /// Its `date`, in the site's time, as `after` and `before` compare it.
    date: Option<DateTime>,
    link: Option<String>,
    /// `WordPress::mark` of its raw title and content.
    words: String,
    trashed: bool,
}

impl Listed {
    fn of(item: &serde_json::Value) -> Option<Listed> {
        let slug = item["slug"].as_str()?;
        (crate::place::keyed(slug) || crate::place::drilled(slug)).then_some(())?;
        Some(Listed {
            id: id_text(&item["id"])?,
            slug: slug.to_string(),
            date: item["date"].as_str().and_then(|d| d.parse().ok()),
            link: web_url(item["link"].as_str()),
            words: WordPress::mark(
                item["title"]["raw"].as_str().unwrap_or_default(),
                item["content"]["raw"].as_str().unwrap_or_default(),
            ),
            trashed: item["status"] == "trash",
        })
    }
}

/// A listing read to its last page: the posts dated after `from` and before `to` (days at
/// midnight, exclusive, as WordPress's `after` and `before` are), every status.
#[derive(Debug)]
pub(super) struct Window {
    from: Date,
    to: Date,
    posts: Vec<Listed>,
}

/// The days whose posts a lookup around `day` lists.
fn around(day: Date) -> (Date, Date) {
    let from = day
        .checked_sub(jiff::Span::new().days(WINDOW_DAYS))
        .unwrap_or(day);
    let to = day
        .checked_add(jiff::Span::new().days(WINDOW_DAYS + 1))
        .unwrap_or(day);
    (from, to)
}

impl Window {
    /// The key's posts dated within `from..to` (which this window holds), each once.
    fn pick(
        &self,
        (from, to): (Date, Date),
        attempts: &Attempts,
        slugged: bool,
        found: &mut Vec<Candidate>,
    ) {
        let key = attempts.key;
        let after = from.to_datetime(jiff::civil::Time::midnight());
        let before = to.to_datetime(jiff::civil::Time::midnight());
        // A date the site did not give is kept: where the post is dated is then unknown.
        let dated = |post: &Listed| post.date.is_none_or(|d| after < d && d < before);
        let place = crate::place::Place::of(key, slugged);
        for post in (self.posts.iter()).filter(|p| place.holds(&p.slug) && dated(p)) {
            if found.iter().any(|c| c.id == post.id) {
                continue;
            }
            found.push(Candidate {
                id: post.id.clone(),
                receipt: Receipt {
                    id: post.id.clone(),
                    url: post.link.clone(),
                    ..Receipt::default()
                },
                ours: attempts.marks.contains(&post.words),
                trashed: post.trashed,
            });
        }
    }
}

impl WordPress {
    /// Posts of the key in the days around `day`: from the run's survey when it may answer
    /// (`Survey::for_lookup`) and holds those days, else one listing now. `Some(why)`: the
    /// lookup cannot tell.
    pub(super) fn window(
        &mut self,
        attempts: &Attempts,
        day: Date,
        found: &mut Vec<Candidate>,
    ) -> Result<Option<String>, Error> {
        let (from, to) = around(day);
        let surveyed = self
            .survey
            .as_ref()
            .and_then(|s| s.for_lookup(attempts))
            .and_then(|windows| windows.iter().find(|w| w.from <= from && to <= w.to));
        if let Some(window) = surveyed {
            window.pick((from, to), attempts, self.slugged, found);
            return Ok(None);
        }
        match self.list(from, to, MAX_PAGES)? {
            Ok(window) => {
                window.pick((from, to), attempts, self.slugged, found);
                Ok(None)
            }
            Err(why) => Ok(Some(why)),
        }
    }

    /// The run's survey: one listing per stretch of `keys`, from the first key's window to
    /// the last's. A stretch whose listing cannot be trusted, or runs past its cap, proves
    /// nothing: its keys are looked up live.
    pub(super) fn survey_windows(&mut self, keys: &[Key], now: Timestamp) -> Result<String, Error> {
        let mut windows = Vec::new();
        let mut said = Vec::new();
        let mut failed = None;
        for (first, last) in stretches(keys, GAP_DAYS) {
            let (from, to) = (around(first).0, around(last).1);
            match self.list(from, to, SURVEY_PAGES) {
                Ok(Ok(window)) => {
                    said.push(format!(
                        "posts dated {from}..{to}: {} with a key's slug",
                        window.posts.len()
                    ));
                    windows.push(window);
                }
                Ok(Err(why)) => said.push(format!("posts dated {from}..{to}: none ({why})")),
                Err(err) => {
                    failed = Some(err);
                    break;
                }
            }
        }
        self.survey = Some(Survey::new(now, windows));
        match failed {
            Some(err) => Err(err),
            None => Ok(said.join("; ")),
        }
    }

    /// Every post dated after `from` and before `to`, every status, page by page to the last;
    /// `Ok(Err(why))` when a page cannot be trusted, or the pages run past `max_pages`.
    fn list(
        &mut self,
        from: Date,
        to: Date,
        max_pages: u32,
    ) -> Result<Result<Window, String>, Error> {
        let mut posts = Vec::new();
        let walked = walk(1u32, max_pages, "posts", |page| {
            let query = format!(
                "after={from}T00:00:00&before={to}T00:00:00&status=publish,future,draft,pending,private,trash&context=edit&per_page=100&page={page}&orderby=id&order=asc"
            );
            let reply = self.call("/wp/v2/posts", &query, None)?;
            let reply = reply.success(|r| self.failure("look up posts", r))?;
            let mut listed = 0;
            let each = items::each(&reply.body, "", &mut |item| {
                listed += 1;
                posts.extend(Listed::of(&item));
            });
            let pages = reply
                .header("x-wp-totalpages")
                .and_then(|p| p.trim().parse::<u32>().ok());
            Ok(match (each, pages) {
                (Err(e), _) => Flow::Cannot(format!("post lookup answer is {e}")),
                (Ok(items::Walk::NotArray), _) => {
                    Flow::Cannot("post lookup answer is not a list".into())
                }
                (Ok(items::Walk::Array), _) if listed > 100 => Flow::Cannot(format!(
                    "the site answered {listed} posts for a page of 100"
                )),
                (Ok(items::Walk::Array), Some(total)) if page < total => Flow::Next(page + 1),
                (Ok(items::Walk::Array), Some(_)) => Flow::End,
                (Ok(items::Walk::Array), None) => Flow::Cannot(
                    "the answer has no X-WP-TotalPages header to show it is complete".into(),
                ),
            })
        })?;
        Ok(match walked {
            Walked::End => Ok(Window { from, to, posts }),
            Walked::Stopped => unreachable!("a post listing is read to its end"),
            Walked::Cannot(why) => Err(why),
        })
    }
}
