//! Looking a key up on dev.to: the user's articles (`/api/articles/me/all`, drafts first),
//! matched on the body that was sent. Live, every page per lookup; or from the run's survey:
//! the pages read once, before the pass.

use super::{Devto, MAX_PAGES, PER_PAGE, squash};
use crate::error::Error;
use crate::net::id_text;
use crate::net::pages::{Flow, Walked, walk};
use crate::outside::web_url;
use crate::survey::Survey;
use crate::text::mark;
use crate::{Attempts, Lookup, items};
use jiff::Timestamp;
use life::Receipt;

/// An article as the listing shows it: what a lookup compares.
#[derive(Debug)]
pub(super) struct Listed {
    id: Option<String>,
    url: Option<String>,
    /// `mark` of its body, whitespace aside.
    body: Option<String>,
    /// `mark` of its canonical URL.
    canonical: Option<String>,
}

impl Listed {
    fn of(item: &serde_json::Value) -> Listed {
        Listed {
            id: id_text(&item["id"]),
            url: web_url(item["url"].as_str()),
            body: item["body_markdown"].as_str().map(|b| mark(&squash(b))),
            canonical: item["canonical_url"].as_str().map(mark),
        }
    }
}

impl Devto {
    /// The user's articles (drafts first), page by page, each handed to `visit` until it says
    /// stop (`true`).
    pub(super) fn articles(
        &self,
        visit: &mut dyn FnMut(&serde_json::Value) -> bool,
    ) -> Result<Walked, Error> {
        walk(1u32, MAX_PAGES, "articles", |page| {
            let path = format!("/api/articles/me/all?per_page={PER_PAGE}&page={page}");
            let reply = self.http.get(&self.url(&path), &self.headers())?;
            let reply = reply.success(|r| self.failure("list my articles", r))?;
            let (mut listed, mut stop) = (0, false);
            let walked = items::each(&reply.body, "", &mut |item| {
                listed += 1;
                stop = stop || visit(&item);
            });
            Ok(match walked {
                Err(e) => Flow::Cannot(format!("article list is {e}")),
                Ok(items::Walk::NotArray) => Flow::Cannot("article list is not a list".into()),
                Ok(items::Walk::Array) if listed > PER_PAGE => Flow::Cannot(format!(
                    "the server answered {listed} articles for a page of {PER_PAGE}"
                )),
                Ok(items::Walk::Array) if stop => Flow::Stop,
                Ok(items::Walk::Array) if listed < PER_PAGE => Flow::End,
                Ok(items::Walk::Array) => Flow::Next(page + 1),
            })
        })
    }

    /// The key's copies among the user's articles: from the run's survey when it may answer
    /// (`Survey::for_lookup`; it read every page), else every page now.
    pub(super) fn look(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        if let Some(listed) = self.survey.as_ref().and_then(|s| s.for_lookup(attempts)) {
            return Ok(judge(listed, Walked::End, attempts));
        }
        let mut listed = Vec::new();
        let walked = self.articles(&mut |item| {
            listed.push(Listed::of(item));
            false
        })?;
        Ok(judge(&listed, walked, attempts))
    }

    /// The run's survey: every page of the user's articles, once. A listing that cannot be
    /// trusted or runs past its cap proves nothing.
    pub(super) fn survey_articles(&mut self, now: Timestamp) -> Result<String, Error> {
        let mut listed = Vec::new();
        let walked = self.articles(&mut |item| {
            listed.push(Listed::of(item));
            false
        })?;
        Ok(match walked {
            Walked::End => {
                let said = format!("every article: {}", listed.len());
                self.survey = Some(Survey::new(now, listed));
                said
            }
            Walked::Cannot(why) => format!("none ({why})"),
            Walked::Stopped => unreachable!("the listing is read to its end"),
        })
    }
}

/// Found when an article's body is a body an attempt sent, whitespace aside (never by title:
/// Forem rewrites titles, and a recurring title is last week's article too), however far the
/// listing reached. An article with a canonical URL an attempt sent and another body is at
/// this key's place without being this post: not ours. Absent only from a listing read to its
/// end.
fn judge(listed: &[Listed], walked: Walked, attempts: &Attempts) -> Lookup {
    let (mut found, mut foreign) = (Vec::new(), Vec::new());
    for article in listed {
        let receipt = || Receipt {
            id: article.id.clone().unwrap_or_else(|| "found".into()),
            url: article.url.clone(),
            ..Receipt::default()
        };
        let sent = |m: &Option<String>| m.as_ref().is_some_and(|m| attempts.marks.contains(m));
        if sent(&article.body) {
            found.push(receipt());
        } else if sent(&article.canonical) {
            foreign.push(receipt());
        }
    }
    match (walked, found.is_empty(), foreign.is_empty()) {
        (_, false, _) => Lookup::Found(found),
        (Walked::Cannot(why), true, _) => Lookup::CannotTell(why),
        (_, true, false) => Lookup::Foreign(foreign),
        (_, true, true) => Lookup::Absent,
    }
}
