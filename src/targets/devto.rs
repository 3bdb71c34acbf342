//! `kind = "devto"`: dev.to or any Forem instance, through the Forem API v1.

use super::net::{Http, Reply, Secret, slug, status_class, timeouts};
use super::{Context, Receipt, Target};
use crate::error::{Class, Error};
use crate::post::Post;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;

/// Forem takes at most this many tags.
const MAX_TAGS: usize = 4;
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
    timeout_secs: Option<toml::Value>,
    connect_timeout_secs: Option<toml::Value>,
}

fn yes() -> bool {
    true
}
fn default_base() -> String {
    "https://dev.to".into()
}

pub struct Devto {
    settings: Settings,
    key: Secret,
    http: Http,
}

impl Devto {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Devto, Error> {
        let key = Secret::read(ctx, &settings.api_key_file, "API key")?;
        let (timeout, connect) =
            timeouts(ctx, &settings.timeout_secs, &settings.connect_timeout_secs)?;
        let http = Http::new(connect, timeout, vec![key.expose().to_string()]);
        Ok(Devto {
            settings,
            key,
            http,
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

/// Forem tags: lower-case ASCII letters and digits, at most four. Returns the tags and, when
/// anything changed, a note saying what.
pub fn clean_tags(tags: &[String]) -> (Vec<String>, Option<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut changes = Vec::new();
    for tag in tags {
        let clean: String = tag
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if clean.is_empty() {
            changes.push(format!("dropped `{tag}` (no letters or digits)"));
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

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

impl Target for Devto {
    fn publish(&mut self, post: &Post) -> Result<Receipt, Error> {
        let (tags, note) = clean_tags(&post.tags);
        let mut article = json!({
            "title": post.title,
            "body_markdown": post.markdown,
            "published": self.settings.published,
            "tags": tags,
            "description": post.summary,
        });
        if let Some(template) = &self.settings.canonical_url {
            let url = template
                .replace("{key}", &post.key.to_string())
                .replace("{slug}", &slug(&post.title, 80));
            article["canonical_url"] = json!(url);
        }
        if let Some(series) = &self.settings.series {
            article["series"] = json!(series);
        }
        let reply = self.http.post(
            &self.url("/api/articles"),
            &self.headers(),
            &json!({ "article": article }),
        )?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("create article", &reply));
        }
        let receipt = self.http.receipt(&reply, "/id", "/url")?;
        Ok(Receipt { note, ..receipt })
    }

    fn find(&mut self, post: &Post) -> Result<Option<Receipt>, Error> {
        let reply = self.http.get(
            &self.url("/api/articles/me/all?per_page=100"),
            &self.headers(),
        )?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("list my articles", &reply));
        }
        let list: Value = serde_json::from_str(&reply.body).map_err(|e| {
            Error::failure(Class::Unknown, format!("article list is not JSON: {e}"))
        })?;
        let body = squash(&post.markdown);
        Ok(list.as_array().into_iter().flatten().find_map(|item| {
            let same_title = item.get("title")?.as_str()? == post.title;
            // A recurring title ("Weekly notes") must not match last week's article.
            let same_body = item
                .get("body_markdown")
                .and_then(Value::as_str)
                .is_none_or(|b| squash(b) == body);
            (same_title && same_body).then(|| Receipt {
                id: item
                    .get("id")
                    .and_then(Value::as_u64)
                    .map_or_else(|| "found".into(), |id| id.to_string()),
                url: item.get("url").and_then(Value::as_str).map(str::to_string),
                note: None,
            })
        }))
    }

    fn credential(&self) -> Option<String> {
        Some(self.key.fingerprint.clone())
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
