//! Finding a key's posts on WordPress: every status, trash included, dated in a window around
//! the key's day, whose slug starts with the key.

use super::WordPress;
use crate::error::Error;
use crate::outside::web_url;
use crate::targets::net::id_text;
use crate::targets::{Attempts, Receipt, items};
use jiff::civil::Date;

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

impl WordPress {
    /// Posts of the key in the days around `day`: every status, trash included, whose slug is
    /// the key or starts with it (`KEY-title`, its `-2` copies, `KEY__trashed`).
    pub(super) fn window(
        &mut self,
        attempts: &Attempts,
        day: Date,
        found: &mut Vec<Candidate>,
    ) -> Result<Option<String>, Error> {
        let key = attempts.key;
        let from = day
            .checked_sub(jiff::Span::new().days(WINDOW_DAYS))
            .unwrap_or(day);
        let to = day
            .checked_add(jiff::Span::new().days(WINDOW_DAYS + 1))
            .unwrap_or(day);
        let prefix = key.to_string();
        for page in 1..=MAX_PAGES {
            let query = format!(
                "after={from}T00:00:00&before={to}T00:00:00&status=publish,future,draft,pending,private,trash&context=edit&per_page=100&page={page}&orderby=id&order=asc"
            );
            let reply = self.call("/wp/v2/posts", &query, None)?;
            let reply = reply.success(|r| self.failure("look up posts", r))?;
            let mut listed = 0;
            let walk = items::each(&reply.body, "", &mut |item| {
                listed += 1;
                let slug = item["slug"].as_str().unwrap_or_default();
                let ours = slug == prefix
                    || slug
                        .strip_prefix(&prefix)
                        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with("__"));
                if let (true, Some(id)) = (ours, id_text(&item["id"]))
                    && found.iter().all(|c| c.id != id)
                {
                    let words = WordPress::mark(
                        item["title"]["raw"].as_str().unwrap_or_default(),
                        item["content"]["raw"].as_str().unwrap_or_default(),
                    );
                    found.push(Candidate {
                        id: id.clone(),
                        receipt: Receipt {
                            version: None,
                            id,
                            url: web_url(item["link"].as_str()),
                            note: None,
                        },
                        ours: attempts.marks.contains(&words),
                        trashed: item["status"] == "trash",
                    });
                }
            });
            match walk {
                Err(e) => return Ok(Some(format!("post lookup answer is {e}"))),
                Ok(items::Walk::NotArray) => {
                    return Ok(Some("post lookup answer is not a list".into()));
                }
                Ok(items::Walk::Array) if listed > 100 => {
                    return Ok(Some(format!(
                        "the site answered {listed} posts for a page of 100"
                    )));
                }
                Ok(items::Walk::Array) => {}
            }
            let pages = reply
                .header("x-wp-totalpages")
                .and_then(|p| p.trim().parse::<u32>().ok());
            match pages {
                Some(total) if page < total => {}
                Some(_) => return Ok(None),
                None => {
                    return Ok(Some(
                        "the answer has no X-WP-TotalPages header to show it is complete".into(),
                    ));
                }
            }
        }
        Ok(Some(format!(
            "more than {} posts around {day}",
            MAX_PAGES * 100
        )))
    }
}
