//! Tag and category names to the ids a post carries. The site's tags are listed once per run,
//! the first time a post needs one, and a tag the complete listing lacks is created; a site
//! with more tags than the listing reads, and the categories named in the config, are searched
//! by name. Every answer is kept for the run.

use super::{WordPress, before_post};
use crate::error::{Class, Error};
use crate::items;
use crate::net::encode;
use crate::net::pages::{Flow, Walked, walk};
use crate::net::status_class;
use serde_json::{Value, json};

/// Pages of 100 tags a run lists; a site with more is searched tag by tag.
const MAX_TAG_PAGES: u32 = 5;

/// What the run knows of the site's tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Tags {
    /// Not listed yet.
    #[default]
    Unlisted,
    /// Every tag is in `term_ids`: one that is not there does not exist.
    Listed,
    /// The listing is too long or could not be trusted: each name is searched.
    Searched,
}

impl WordPress {
    /// The id of a tag (created when missing) or of a category (must exist).
    pub(super) fn term(&mut self, taxonomy: &str, name: &str) -> Result<u64, Error> {
        let cache_key = (taxonomy.to_string(), name.to_lowercase());
        if taxonomy == "tags" && self.tags == Tags::Unlisted {
            self.tags = self.list_tags()?;
        }
        if let Some(id) = self.term_ids.get(&cache_key) {
            return Ok(*id);
        }
        let found = match (taxonomy, self.tags) {
            ("tags", Tags::Listed) => None,
            _ => self.search(taxonomy, name)?,
        };
        let id = match found {
            Some(id) => id,
            None if taxonomy == "categories" => {
                return Err(Error::failure(
                    Class::Rejected,
                    format!("category `{name}` does not exist on the site"),
                )
                .hint("create it in WordPress, or fix `categories` in dayrun.toml"));
            }
            None => self.create_tag(name)?,
        };
        self.term_ids.insert(cache_key, id);
        Ok(id)
    }

    /// Every tag of the site, by id, into `term_ids` (names as WordPress shows them, escaped,
    /// read back and compared case aside). Only a listing read to its last page is `Listed`.
    fn list_tags(&mut self) -> Result<Tags, Error> {
        let mut named = Vec::new();
        let walked = walk(1u32, MAX_TAG_PAGES, "tags", |page| {
            let query = format!("per_page=100&page={page}&orderby=id&order=asc&_fields=id,name");
            let reply = self.call("/wp/v2/tags", &query, None)?;
            let reply = reply.success(|r| before_post(self.failure("list tags", r)))?;
            let header = |name: &str| {
                reply
                    .header(name)
                    .and_then(|p| p.trim().parse::<u32>().ok())
            };
            if header("x-wp-total").is_some_and(|n| n > MAX_TAG_PAGES * 100) {
                return Ok(Flow::Cannot("more tags than a run lists".into()));
            }
            let mut listed = 0;
            let each = items::each(&reply.body, "", &mut |tag| {
                listed += 1;
                if let (Some(name), Some(id)) = (tag["name"].as_str(), tag["id"].as_u64()) {
                    named.push((unescape(name).to_lowercase(), id));
                }
            });
            Ok(match (each, header("x-wp-totalpages")) {
                (Ok(items::Walk::Array), _) if listed > 100 => {
                    Flow::Cannot("more tags than a page holds".into())
                }
                (Ok(items::Walk::Array), Some(total)) if page < total => Flow::Next(page + 1),
                (Ok(items::Walk::Array), Some(_)) => Flow::End,
                _ => Flow::Cannot("not a complete listing".into()),
            })
        })?;
        // Ordered by id: the oldest tag of a name wins, as a search finds it first.
        for (name, id) in named {
            self.term_ids.entry(("tags".into(), name)).or_insert(id);
        }
        Ok(match walked {
            Walked::End => Tags::Listed,
            _ => Tags::Searched,
        })
    }

    /// A term found by searching its name (`search` matches parts of names: the exact name is
    /// picked out, case aside).
    fn search(&mut self, taxonomy: &str, name: &str) -> Result<Option<u64>, Error> {
        let route = format!("/wp/v2/{taxonomy}");
        let reply = self.call(
            &route,
            &format!("search={}&per_page=100", encode(name)),
            None,
        )?;
        if status_class(reply.status).is_some() {
            return Err(before_post(
                self.failure(&format!("look up {taxonomy} `{name}`"), &reply),
            ));
        }
        Ok(serde_json::from_str::<Value>(&reply.body)
            .ok()
            .and_then(|list| {
                list.as_array()?.iter().find_map(|t| {
                    let term = t.get("name")?.as_str()?;
                    (unescape(term).eq_ignore_ascii_case(name))
                        .then(|| t.get("id")?.as_u64())
                        .flatten()
                })
            }))
    }

    /// Create a tag; one made meanwhile by someone else answers `term_exists` with its id.
    fn create_tag(&mut self, name: &str) -> Result<u64, Error> {
        let reply = self.call("/wp/v2/tags", "", Some(&json!({ "name": name })))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match reply.status {
            200 | 201 => doc["id"].as_u64(),
            400 if doc["code"] == "term_exists" => doc["data"]["term_id"].as_u64(),
            _ => {
                return Err(before_post(
                    self.failure(&format!("create tag `{name}`"), &reply),
                ));
            }
        }
        .ok_or_else(|| {
            Error::failure(
                Class::RetrySafe,
                format!("tag `{name}`: no id in the answer"),
            )
        })
    }
}

/// A term name as WordPress shows it (`&amp;`), as it was sent.
fn unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#039;", "'")
}
