//! `kind = "devto"`: dev.to or any Forem instance, through the Forem API v1.

mod articles;

use super::net::pages::Walked;
use super::net::{Http, Reply, encode, id_text};
use super::secret::Secret;
use super::{
    Attempts, Context, Find, ImageLinks, Lookup, Outgoing, Retract, Secrets, Target, Update,
};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Forem takes at most this many tags, each of at most this many characters.
const MAX_TAGS: usize = 4;
const MAX_TAG_CHARS: usize = 30;
/// Forem refuses longer titles (counted in characters).
const MAX_TITLE_CHARS: usize = 128;
/// Pages of `/api/articles/me/all` read before the lookup gives up (cannot tell).
const MAX_PAGES: u32 = 20;
const PER_PAGE: usize = 1000;
/// The 422 Forem gives for the same title within five minutes: the first one may have landed.
const FIVE_MINUTE_RULE: &str = "has already been used in the last five minutes";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// File holding the API key (Settings → Extensions → DEV Community API Keys).
    api_key_file: PathBuf,
    /// Publish at once (default) or keep as a draft.
    #[serde(default = "yes")]
    published: bool,
    /// `canonical_url` template; `{key}` and `{slug}` are filled in.
    canonical_url: Option<String>,
    /// Series name.
    series: Option<String>,
    /// API base, for other Forem instances and tests (default `https://dev.to`).
    #[serde(default = "default_base")]
    base_url: String,
    /// Where the post's images are public (dev.to cannot take uploads): each local image is
    /// sent as this plus its path in the content folder.
    image_base_url: Option<String>,
}

fn yes() -> bool {
    true
}
fn default_base() -> String {
    "https://dev.to".into()
}

pub struct Devto {
    settings: Settings,
    name: String,
    images: ImageLinks,
    key: Secret,
    http: Http,
    timeout: Duration,
    /// The run's survey of the user's articles (`articles.rs`).
    survey: Option<super::survey::Survey<Vec<articles::Listed>>>,
    /// The title (`template`).
    template: Option<crate::template::Template>,
}

impl Devto {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Devto, Error> {
        let key = Secret::read(ctx, &settings.api_key_file, "API key")?.one_line(ctx, "API key")?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let http = Http::new(connect, timeout, key.redactor());
        Ok(Devto {
            images: ImageLinks::new(ctx, settings.image_base_url.clone())?,
            name: ctx.target.name.clone(),
            settings,
            key,
            http,
            timeout,
            survey: None,
            template: ctx.target.template.clone(),
        })
    }

    fn headers(&self) -> Vec<(String, String)> {
        vec![
            ("api-key".into(), self.key.expose().to_string()),
            ("Accept".into(), "application/vnd.forem.api-v1+json".into()),
        ]
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.base_url.trim_end_matches('/'))
    }

    fn failure(&self, what: &str, reply: &Reply) -> Error {
        if reply.status == 422 && reply.body.contains(FIVE_MINUTE_RULE) {
            return Error::failure(
                Class::Unknown,
                format!(
                    "{what}: HTTP 422: the same title was posted in the last five minutes (possibly by the attempt whose answer was lost)"
                ),
            );
        }
        let err = self.http.failure(what, reply, Some(&self.key.file));
        if err.class() == Some(Class::Auth) {
            return err.hint(format!(
                "create a new API key (Settings → Extensions → DEV Community API Keys) and put it in {}",
                self.key.file.display()
            ));
        }
        err
    }
}

/// Forem tags: lower-case letters and digits (any script), at most 30 characters, at most
/// four. Returns the tags and, when anything changed, a note saying what.
pub fn clean_tags(tags: &[String]) -> (Vec<String>, Option<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut changes = Vec::new();
    for tag in tags {
        let clean: String = tag
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        if clean.is_empty() {
            changes.push(format!("dropped `{tag}` (no letters or digits)"));
        } else if clean.chars().count() > MAX_TAG_CHARS {
            changes.push(format!("dropped `{tag}` (over {MAX_TAG_CHARS} characters)"));
        } else if out.contains(&clean) {
            changes.push(format!("dropped `{tag}` (same as `{clean}`)"));
        } else if out.len() == MAX_TAGS {
            changes.push(format!("dropped `{tag}` (at most {MAX_TAGS} tags)"));
        } else {
            if &clean != tag {
                changes.push(format!("`{tag}` → `{clean}`"));
            }
            out.push(clean);
        }
    }
    let note = (!changes.is_empty()).then(|| format!("tags: {}", changes.join("; ")));
    (out, note)
}

/// Forem stores `body_markdown` as sent; compared without whitespace, so a server that trims
/// or re-wraps does not hide the post.
fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

impl Devto {
    fn canonical(&self, post: &Post) -> Option<String> {
        let template = self.settings.canonical_url.as_ref()?;
        Some(
            template
                .replace("{key}", &post.place().to_string())
                .replace("{slug}", &post.link_slug()),
        )
    }
}

/// `kind = "devto"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "devto",
    publishes_to: "dev.to or another Forem",
    needs: "an API key",
    build: |ctx| Ok(Box::new(Devto::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::IN_PLACE),
    template: Some("the title"),
    takes: &[super::shared::TIMEOUTS],
    undrillable: Some((
        "dev.to can only unpublish a post, never delete it: the drill's posts would stay on the account",
        "drill another target; dev.to's lookups are exercised by dayrun's own tests",
    )),
};

impl Target for Devto {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let title = super::payload::title(self.template.as_ref(), post)?;
        let chars = title.chars().count();
        if chars > MAX_TITLE_CHARS {
            return Err(Error::failure(
                Class::Rejected,
                format!("the title is {chars} characters; Forem allows {MAX_TITLE_CHARS}"),
            )
            .hint("shorten the title (nothing was sent)"));
        }
        let (tags, _) = clean_tags(&post.tags);
        if !post.images.is_empty() && self.images.base.is_none() {
            let first = &post.images[0];
            return Err(Error::failure(
                Class::Local,
                format!(
                    "the post has local images (`{}` …) and dev.to cannot take uploads",
                    first.srcs[0]
                ),
            )
            .at(&post.path)
            .line(first.line)
            .hint(format!(
                "publish the images somewhere public and set image_base_url = \"https://…/\" in [targets.{}]; each image is then sent as that URL plus its path in the content folder",
                self.name
            )));
        }
        let markdown = match post.images.is_empty() {
            true => post.markdown.clone(),
            false => crate::images::rewrite::markdown(&post.markdown, |dest| {
                let image = post.images.iter().find(|i| i.named_by(dest))?;
                self.images.url(image)
            }),
        };
        let mut article = json!({
            "title": title,
            "body_markdown": markdown,
            "published": self.settings.published,
            "tags": tags,
            "description": post.summary,
        });
        if let Some(cover) = post.images.iter().find(|i| i.cover) {
            article["main_image"] = json!(self.images.url(cover));
        }
        let mut marks = vec![mark(&squash(&markdown))];
        if let Some(url) = self.canonical(post) {
            marks.push(mark(&url));
            article["canonical_url"] = json!(url);
        }
        if let Some(series) = &self.settings.series {
            article["series"] = json!(series);
        }
        Ok(Outgoing {
            body: json!({ "article": article }),
            marks,
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, _: &super::Media) -> String {
        match self.images.url(image) {
            Some(url) => format!("url {url} (dev.to fetches it)"),
            None => "none: dev.to cannot take uploads; set image_base_url".into(),
        }
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let reply = self
            .http
            .post(&self.url("/api/articles"), &self.headers(), &out.body)?;
        let reply = reply.success(|r| self.failure("create article", r))?;
        let receipt = self.http.receipt(&reply, "/id", "/url")?;
        Ok(Receipt {
            note: clean_tags(&post.tags).1,
            ..receipt
        })
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "the article for {key} in your dashboard on {} (drafts too)",
            self.settings.base_url
        )
    }

    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.key)
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }
}

impl Find for Devto {
    /// Every page of the user's articles, matched on the body that was sent (`articles.rs`).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.look(attempts)
    }

    /// Every page of the user's articles once, in place of every page per key.
    fn survey(&mut self, _: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_articles(now).map(Some)
    }
}

impl Update for Devto {
    fn update(&mut self, id: &str, _: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let url = self.url(&format!("/api/articles/{}", encode(id)));
        let reply = self.http.send("PUT", &url, &self.headers(), &out.body)?;
        let reply = reply.success(|r| self.failure("update article", r))?;
        let receipt = self.http.receipt(&reply, "/id", "/url")?;
        Ok(Receipt {
            id: id.to_string(),
            ..receipt
        })
    }

    /// The article holds the edit when its body is the one sent.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let mut holds = None;
        let walked = self.articles(&mut |item| {
            if id_text(&item["id"]).as_deref() != Some(id) {
                return false;
            }
            let body = item["body_markdown"]
                .as_str()
                .map(squash)
                .unwrap_or_default();
            holds = Some(out.marks.contains(&mark(&body)));
            true
        })?;
        Ok(match (holds, walked) {
            (Some(true), _) => Lookup::Found(vec![Receipt::id(id)]),
            (Some(false), _) => Lookup::Absent,
            (None, Walked::Cannot(why)) => Lookup::CannotTell(why),
            (None, _) => Lookup::CannotTell(format!("article {id} is not among yours")),
        })
    }
}

impl Retract for Devto {
    /// The API has no delete: the article is unpublished (`published: false`).
    fn retract(&mut self, _: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let url = self.url(&format!("/api/articles/{}", encode(id)));
        let body = json!({"article": {"published": false}});
        let reply = self.http.send("PUT", &url, &self.headers(), &body)?;
        reply.success(|r| self.failure("unpublish article", r))?;
        Ok(())
    }

    /// Gone when the user's articles no longer hold it published.
    fn still_there(&mut self, _: life::Key, id: &str) -> Result<Lookup, Error> {
        let mut published = None;
        let walked = self.articles(&mut |item| {
            if id_text(&item["id"]).as_deref() != Some(id) {
                return false;
            }
            published = Some(item["published"].as_bool() == Some(true));
            true
        })?;
        Ok(match (published, walked) {
            (Some(true), _) => Lookup::Found(vec![Receipt::id(id)]),
            (Some(false), _) => Lookup::Absent,
            (None, Walked::Cannot(why)) => Lookup::CannotTell(why),
            (None, _) => Lookup::Absent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_cleaned_capped_and_reported() {
        let tags: Vec<String> = ["Rust-Lang", "web dev", "rust_lang", "c++", "a", "b", "c"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (clean, note) = clean_tags(&tags);
        assert_eq!(clean, ["rustlang", "webdev", "c", "a"]);
        let note = note.unwrap();
        assert!(note.contains("`Rust-Lang` → `rustlang`"), "{note}");
        assert!(
            note.contains("dropped `rust_lang` (same as `rustlang`)"),
            "{note}"
        );
        assert!(note.contains("dropped `b` (at most 4 tags)"), "{note}");
        assert_eq!(
            clean_tags(&["rust".to_string()]),
            (vec!["rust".to_string()], None)
        );
    }
}
