//! A fake Forem (dev.to) API v1 as Forem behaves (facts: /work/notes/facts-forem.md): `api-key`
//! auth; titles normalised before saving (characters outside Forem's set become a space,
//! whitespace collapsed) and at most 128; tags lower-cased, Unicode alphanumerics of at most 30,
//! at most 4 (422 otherwise); `body_markdown` stored as sent; the five-minute duplicate-title
//! rule; `/api/articles/me/all` paginated (`page`, `per_page` default 30, max 1000) with drafts
//! first; `canonical_url` never empty; and `{"error", "status"}` bodies.
//!
//! Images (issue 14): the API has no upload; `main_image` is kept as sent (an http(s) URL or
//! blank, else 422 "Main image is not a valid URL", `validates :main_image, url: {allow_blank,
//! schemes: %w[https http]}`) and shown as `cover_image`; `body_markdown` is stored as sent, so
//! tests read the image URLs dayrun wrote into it.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const KEY: &str = "devto-KEY-42";

#[derive(Default)]
pub struct Forem {
    /// In creation order; `recent` marks those within the five-minute rule.
    pub articles: Vec<Value>,
    pub faults: VecDeque<Fault>,
    /// Status codes for the next `/api/articles/me/all` requests (200 = normal).
    pub list_faults: VecDeque<u16>,
    pub post_requests: usize,
    pub accept_headers: Vec<String>,
    /// What the next `PUT /api/articles/{id}` requests (updates) meet.
    pub put_faults: VecDeque<Fault>,
    pub put_requests: usize,
}

pub struct FakeDevto {
    pub server: Server,
    pub state: Arc<Mutex<Forem>>,
}

fn forem_error(status: u16, message: &str) -> Reply {
    Reply::json(status, json!({"error": message, "status": status}))
}

impl FakeDevto {
    pub fn start() -> FakeDevto {
        let state = Arc::new(Mutex::new(Forem::default()));
        let shared = state.clone();
        FakeDevto {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.devto]\nkind = \"devto\"\napi_key_file = \"secrets/devto.key\"\nbase_url = \"{}\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\n{extra}\n",
            self.server.url("")
        )
    }

    /// Let five minutes pass: the duplicate-title rule no longer applies to what is there.
    pub fn age(&self) {
        for article in &mut self.state.lock().unwrap().articles {
            article["recent"] = Value::Bool(false);
        }
    }

    /// The article with this id.
    pub fn article(&self, id: u64) -> Option<Value> {
        self.articles().into_iter().find(|a| a["id"] == id)
    }

    pub fn articles(&self) -> Vec<Value> {
        self.state.lock().unwrap().articles.clone()
    }

    /// An article written in the dev.to editor with this canonical URL and body.
    pub fn seed_article(&self, canonical_url: &str, body: &str) -> u64 {
        let article = json!({"title": "Elsewhere", "body_markdown": body, "published": true, "canonical_url": canonical_url, "tags": []});
        let stored = self
            .state
            .lock()
            .unwrap()
            .store(&article, "Elsewhere", Vec::new());
        stored["id"].as_u64().unwrap()
    }

    /// `n` old drafts written in the dev.to editor.
    pub fn seed_drafts(&self, n: usize) {
        let mut s = self.state.lock().unwrap();
        for i in 0..n {
            let article = json!({"title": format!("Draft {i}"), "body_markdown": format!("Draft {i}."), "published": false, "tags": []});
            s.store(&article, &format!("Draft {i}"), Vec::new());
        }
        for article in &mut s.articles {
            article["recent"] = Value::Bool(false);
        }
    }
}

/// Forem's `TITLE_CHARACTERS_ALLOWED`, near enough: word characters, spaces, punctuation,
/// currency, and the listed symbol and emoji ranges. `×`, `°` or `→` are not in it.
fn title_char(c: char) -> bool {
    c.is_alphanumeric()
        || c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(c as u32,
            0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF | 0x2010..=0x2027 | 0x2030..=0x205E
            | 0x3001..=0x3003 | 0x3008..=0x3011 // punctuation
            | 0xA2..=0xA5 | 0x20A0..=0x20CF // currency
            | 0xA9 | 0xAE | 0x61C | 0x180E | 0x200C..=0x200F | 0x202C..=0x202E | 0x2066..=0x2069
            | 0x20E3 | 0x2122 | 0x2139 | 0x2194..=0x2199 | 0x21A9..=0x21AA | 0x2600..=0x273F
            | 0x2B00..=0x2BFF | 0x3030 | 0x303D | 0x3297 | 0x3299 | 0x1F000..=0x1FFFF)
}

/// `normalize_title`: each run of other characters becomes a space, whitespace collapses.
pub fn normalize_title(title: &str) -> String {
    let spaced: String = title
        .chars()
        .map(|c| if title_char(c) { c } else { ' ' })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Forem's per-tag rule (after lower-casing): `[[:alnum:]]+`, Unicode letters allowed, ≤ 30.
fn tag_error(tag: &str) -> Option<String> {
    if tag.chars().count() > 30 {
        return Some(format!(
            "Tag \"{tag}\" is too long (maximum is 30 characters)"
        ));
    }
    (tag.is_empty() || !tag.chars().all(char::is_alphanumeric)).then(|| {
        format!("Tag \"{tag}\" contains non-alphanumeric or prohibited unicode characters")
    })
}

impl Forem {
    fn store(&mut self, article: &Value, title: &str, tags: Vec<String>) -> Value {
        let id = 1000 + self.articles.len() as u64;
        let url = format!(
            "https://dev.test/writer/{}-{id}",
            title.to_lowercase().replace(' ', "-")
        );
        let published = article["published"].as_bool().unwrap_or(false);
        let now = jiff::Timestamp::now().to_string();
        let stored = json!({
            "type_of": "article",
            "id": id,
            "title": title,
            "body_markdown": article["body_markdown"],
            "published": published,
            "published_at": if published { json!(now) } else { Value::Null },
            "tag_list": tags,
            "description": article["description"],
            "canonical_url": article["canonical_url"].as_str().unwrap_or(&url),
            "main_image": article.get("main_image").cloned().unwrap_or(Value::Null),
            "cover_image": article.get("main_image").cloned().unwrap_or(Value::Null),
            "url": url,
            "recent": true,
        });
        self.articles.push(stored.clone());
        stored
    }

    /// `/api/articles/me/all`: drafts first (newest first), then published, newest first.
    fn me_all(&self, req: &Request) -> Reply {
        let per_page: usize = req
            .query("per_page")
            .and_then(|n| n.parse().ok())
            .unwrap_or(30);
        let page: usize = req.query("page").and_then(|n| n.parse().ok()).unwrap_or(1);
        let (drafts, published): (Vec<&Value>, Vec<&Value>) = self
            .articles
            .iter()
            .rev()
            .partition(|a| a["published"] == false);
        let items: Vec<Value> = drafts
            .into_iter()
            .chain(published)
            .skip(page.max(1).saturating_sub(1) * per_page.clamp(1, 1000))
            .take(per_page.clamp(1, 1000))
            .map(|a| {
                let mut a = a.clone();
                a.as_object_mut().unwrap().remove("recent");
                a
            })
            .collect();
        Reply::json(200, Value::Array(items))
    }
}

fn handle(state: &Mutex<Forem>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    if req.header("api-key") != Some(KEY) {
        return forem_error(401, "unauthorized");
    }
    s.accept_headers
        .push(req.header("accept").unwrap_or("").to_string());
    match (req.method.as_str(), req.path()) {
        ("POST", "/api/articles") => {
            s.post_requests += 1;
            let article = req.json()["article"].clone();
            let title = normalize_title(article["title"].as_str().unwrap_or(""));
            let tags: Vec<String> = article["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| t.as_str().unwrap_or("").to_lowercase())
                .collect();
            if title.is_empty() {
                return forem_error(422, "Title can't be blank");
            }
            if title.chars().count() > 128 {
                return forem_error(
                    422,
                    "Title is too long (maximum is 128 characters for full_post)",
                );
            }
            if tags.len() > 4 {
                return forem_error(422, "Tag list exceed the maximum of 4 tags");
            }
            if let Some(error) = main_image_error(&article) {
                return forem_error(422, error);
            }
            if let Some(error) = tags.iter().find_map(|t| tag_error(t)) {
                return forem_error(422, &error);
            }
            match s.faults.pop_front().unwrap_or(Fault::Normal) {
                Fault::Reject(status) => {
                    forem_error(status, "Canonical url has already been taken")
                }
                Fault::RateLimit(secs) => Reply::Json(
                    429,
                    vec![("Retry-After".into(), secs.to_string())],
                    json!({"error": "Rate limit reached, try again in 30 seconds", "status": 429}),
                ),
                fault => {
                    if s.articles
                        .iter()
                        .any(|a| a["title"] == title.as_str() && a["recent"] == true)
                    {
                        return forem_error(
                            422,
                            "Title has already been used in the last five minutes",
                        );
                    }
                    let mut stored = s.store(&article, &title, tags);
                    stored.as_object_mut().unwrap().remove("recent");
                    if fault == Fault::CommitHang {
                        return Reply::Hang(Duration::from_millis(600));
                    }
                    Reply::json(201, stored)
                }
            }
        }
        ("GET", "/api/articles/me/all") => match s.list_faults.pop_front() {
            Some(status) if status != 200 => forem_error(status, "Internal Server Error"),
            _ => s.me_all(req),
        },
        ("PUT", path) if path.starts_with("/api/articles/") => {
            let id = path["/api/articles/".len()..].to_string();
            s.put(&id, &req.json()["article"])
        }
        _ => forem_error(404, "not found"),
    }
}

impl Forem {
    /// `PUT /api/articles/{id}` with `{"article": {…}}`: the fields sent replace the stored
    /// ones (title normalised, tags lower-cased); 200 with the article.
    fn put(&mut self, id: &str, article: &Value) -> Reply {
        self.put_requests += 1;
        let fault = self.put_faults.pop_front().unwrap_or(Fault::Normal);
        let Some(stored) = self
            .articles
            .iter_mut()
            .find(|a| a["id"] == id.parse::<u64>().unwrap_or(0))
        else {
            return forem_error(404, "not found");
        };
        match fault {
            Fault::Reject(status) => return forem_error(status, "Body markdown is invalid"),
            Fault::Hang => return Reply::Hang(Duration::from_millis(600)),
            _ => {}
        }
        if let Some(title) = article["title"].as_str() {
            stored["title"] = json!(normalize_title(title));
        }
        if let Some(tags) = article["tags"].as_array() {
            let tags: Vec<String> = tags
                .iter()
                .map(|t| t.as_str().unwrap_or("").to_lowercase())
                .collect();
            stored["tag_list"] = json!(tags);
        }
        if let Some(error) = main_image_error(article) {
            return forem_error(422, error);
        }
        for field in [
            "body_markdown",
            "description",
            "canonical_url",
            "series",
            "main_image",
        ] {
            if let Some(value) = article.get(field) {
                stored[field] = value.clone();
            }
        }
        if let Some(value) = article.get("main_image") {
            stored["cover_image"] = value.clone();
        }
        if let Some(published) = article["published"].as_bool() {
            stored["published"] = json!(published);
        }
        let mut shown = stored.clone();
        shown.as_object_mut().unwrap().remove("recent");
        match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            _ => Reply::json(200, shown),
        }
    }
}

/// `validates :main_image, url: { allow_blank: true, schemes: %w[https http] }`.
fn main_image_error(article: &Value) -> Option<&'static str> {
    let value = article.get("main_image")?;
    let ok = match value {
        Value::Null => true,
        Value::String(s) => {
            s.trim().is_empty()
                || ["https://", "http://"]
                    .iter()
                    .any(|p| s.starts_with(p) && s.len() > p.len() && !s.contains(' '))
        }
        _ => false,
    };
    (!ok).then_some("Main image is not a valid URL")
}
