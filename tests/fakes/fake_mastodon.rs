//! A fake Mastodon API as Mastodon 4 behaves (facts: /work/notes/facts-mastodon.md): bearer auth
//! (a token without a user gets 422), `/api/v2/instance` limits, statuses with Idempotency-Key (a
//! repeat within the hour returns the first status), text stripped and mentions rewritten before
//! saving, `content` HTML-escaped and rendered as Mastodon does (hashtags, links, mentions shown as
//! `@user`), length in grapheme clusters, timelines newest first at most 40 a page with `max_id`,
//! `created_at`, `/statuses/:id/source`, 429 with `X-RateLimit-Reset`; `GET` and `DELETE
//! /api/v1/statuses/:id` (an Idempotency-Key whose status was deleted answers 404, as `find` does).
//! A status's transport faults: stored, then its answer lost (`CommitHang`, `CommitClose`,
//! `CommitStatus`: a proxy's 500 after the commit); or lost before anything is stored (`Hang`,
//! `Reject(502)`: a proxy's 5xx). `Reject(503)` is Mastodon's own: stored, then 503.
//!
//! Replies (`long = "thread"`), as `Api::V1::StatusesController#set_thread`, a before_action,
//! so before the Idempotency-Key: an `in_reply_to_id` that is present (not null, not "") and
//! names no status the account can see answers 404 "The post you are trying to reply to does
//! not appear to exist." before anything is stored. The fake holds only the account's own
//! statuses, so an unknown id, a deleted status and another account's are all that 404. A reply
//! keeps the visibility it was sent with and shows `in_reply_to_id` and
//! `in_reply_to_account_id`. The Idempotency-Key is the account's (`idempotency:status:
//! ACCOUNT:KEY`): a repeat answers the first status as it was, whatever text or parent it
//! carries now. An edit (`UpdateStatusService`) meets the length limit and the blank check a new
//! status meets, and a deleted status is not found; it replaces the status's media with its
//! `media_ids`, none when it sends none (`StatusesController#update` always passes `media_ids:`,
//! and `UpdateStatusService#validate_media!` turns a blank one into []).
//!
//! Media (issue 14), as Mastodon 4 (`Api::V2::MediaController`, `MediaAttachment`,
//! `PostStatusService#validate_media!`): `POST /api/v2/media` multipart with `file` (the type
//! read from the bytes; not an image: 422) and `description` (over 1500 characters: 422
//! "Validation failed: Description is too long (maximum is 1500 characters)"); a still image is
//! processed at once (200 with its `url`), an animated GIF becomes `gifv` and is processed later
//! (202 with `url: null`), `processing_polls` forces the later path for every upload;
//! `GET /api/v1/media/:id` answers 206 while processing, then 200. A status's `media_ids`: more
//! than `max_media_attachments` → 422 "Cannot attach more than N files"; an id that is unknown,
//! another account's or already attached → 422 "Media ID not found or already attached to
//! another post"; one still processing → 422 "Cannot attach files that have not finished
//! processing. Try again in a moment!"; attachments keep the order of `media_ids`. The
//! Idempotency-Key check comes first, as in the service.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOKEN: &str = "masto-TOKEN-7";
const ACCOUNT: &str = "109";
const NO_USER: &str = "This method requires an authenticated user";
/// `I18n.t('statuses.errors.in_reply_not_found')`.
pub const REPLY_NOT_FOUND: &str = "The post you are trying to reply to does not appear to exist.";

#[derive(Default)]
pub struct Masto {
    /// Newest first.
    pub statuses: Vec<Value>,
    /// The raw text of each status by id (what `/source` returns).
    pub texts: HashMap<String, String>,
    pub sent_texts: Vec<String>,
    pub faults: VecDeque<Fault>,
    /// Status codes for the next timeline requests (200 = normal).
    pub list_faults: VecDeque<u16>,
    pub post_requests: usize,
    pub idempotent: HashMap<String, Value>,
    pub max_characters: u64,
    /// What `/api/v2/instance` answers (200, or e.g. 503 while the instance is busy).
    pub instance_status: u16,
    /// The token belongs to an application, not a user (client credentials).
    pub userless: bool,
    /// What the next `PUT /api/v1/statuses/{id}` requests (edits) meet.
    pub edit_faults: VecDeque<Fault>,
    pub edit_requests: usize,
    /// Replies refused because the status replied to is not there (404).
    pub replies_refused: usize,
    /// DELETE /api/v1/statuses/:id requests that reached the handler.
    pub delete_requests: usize,
    /// How long a `Hang`/`CommitHang` answer hangs (600 ms unless a test holds one open).
    pub hang: Duration,
    /// `configuration.statuses.max_media_attachments` (`Status::MEDIA_ATTACHMENTS_LIMIT`).
    pub max_media: usize,
    /// Uploaded media, in upload order.
    pub media: Vec<Media>,
    /// `POST /api/v2/media` requests that reached the handler.
    pub media_requests: usize,
    /// What the next `POST /api/v2/media` requests meet (`CommitHang`: stored, no answer).
    pub media_faults: VecDeque<Fault>,
    /// Every `GET /api/v1/media/:id`, by id, in order.
    pub media_polls: Vec<String>,
    /// Every upload is processed later and needs this many 206 polls before its 200
    /// (`None`: as Mastodon does it, still images at once, animated GIFs after one poll).
    pub processing_polls: Option<usize>,
    /// Each status's `media_ids` as it arrived (also refused ones), in order.
    pub sent_media_ids: Vec<Vec<String>>,
}

/// One `MediaAttachment`.
#[derive(Debug, Clone)]
pub struct Media {
    pub id: String,
    pub kind: &'static str,
    pub mime: &'static str,
    pub description: Option<String>,
    pub bytes: Vec<u8>,
    pub file_name: String,
    /// 206 answers left before it is processed.
    pub polls_left: usize,
    pub status_id: Option<String>,
}

impl Media {
    fn processed(&self) -> bool {
        self.polls_left == 0
    }

    /// `REST::MediaAttachmentSerializer`: `url` is null until processed.
    fn json(&self) -> Value {
        let url = format!(
            "https://m.test/system/media_attachments/files/{}/original/{}",
            self.id, self.file_name
        );
        let (w, h) = crate::fakes::media::dimensions(&self.bytes).unwrap_or((0, 0));
        json!({"id": self.id, "type": self.kind,
               "url": if self.processed() { json!(url) } else { Value::Null },
               "preview_url": url.replace("/original/", "/small/"), "remote_url": null,
               "description": self.description, "blurhash": "UFBWY:8_0Jxu%M-;xu%M",
               "meta": {"original": {"width": w, "height": h}}})
    }
}

pub struct FakeMastodon {
    pub server: Server,
    pub state: Arc<Mutex<Masto>>,
}

impl FakeMastodon {
    pub fn start(max_characters: u64) -> FakeMastodon {
        let state = Arc::new(Mutex::new(Masto {
            max_characters,
            instance_status: 200,
            max_media: 4,
            hang: Duration::from_millis(600),
            ..Masto::default()
        }));
        let shared = state.clone();
        FakeMastodon {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.masto]\nkind = \"mastodon\"\ninstance = \"{}\"\ntoken_file = \"secrets/masto.token\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nretry_after_cap_secs = 2\n{extra}\n",
            self.server.url("")
        )
    }

    pub fn statuses(&self) -> Vec<Value> {
        self.state.lock().unwrap().statuses.clone()
    }

    pub fn media(&self) -> Vec<Media> {
        self.state.lock().unwrap().media.clone()
    }

    /// An hour has passed for idempotency: Mastodon keeps an Idempotency-Key for one hour.
    pub fn forget_idempotency_keys(&self) {
        self.state.lock().unwrap().idempotent.clear();
    }

    /// The writer posts `n` statuses from another app (newer than everything so far).
    pub fn post_elsewhere(&self, n: usize) {
        let mut s = self.state.lock().unwrap();
        for i in 0..n {
            s.store(&format!("Elsewhere {i}"), json!("public"));
        }
    }
}

impl Masto {
    /// Save a status as Mastodon does: text stripped, each mention rewritten to the account's
    /// `acct` (`@bob@Example.COM` → `@bob@example.com`, `@alice@m.test` → `@alice`).
    fn store(&mut self, sent: &str, visibility: Value) -> Value {
        let text: String = sent
            .trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c', '\0'])
            .split_inclusive([' ', '\n'])
            .map(|w| {
                let bare = w.trim_end_matches([' ', '\n']);
                let gap = &w[bare.len()..];
                match bare.strip_prefix('@').and_then(|m| m.split_once('@')) {
                    Some((user, host)) if host.eq_ignore_ascii_case("m.test") => {
                        format!("@{user}{gap}")
                    }
                    Some((user, host)) => format!("@{user}@{}{gap}", host.to_lowercase()),
                    None => w.to_string(),
                }
            })
            .collect();
        let id = (110_000 + self.texts.len()).to_string();
        let created = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ");
        let status = json!({"id": id, "created_at": created.to_string(), "url": format!("https://m.test/@writer/{id}"), "content": render(&text), "visibility": visibility, "in_reply_to_id": null, "in_reply_to_account_id": null});
        self.texts.insert(id, text);
        self.statuses.insert(0, status.clone());
        status
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// One word as Mastodon's TextFormatter renders it.
fn word(w: &str) -> String {
    let end = w.trim_end_matches(['.', ',', '!', '?', ':', ';', ')']);
    let (w, tail) = (end, &w[end.len()..]);
    let linked = if let Some(tag) = w.strip_prefix('#').filter(|t| !t.is_empty()) {
        format!(
            "<a href=\"https://m.test/tags/{}\" class=\"mention hashtag\" rel=\"tag\">#<span>{}</span></a>",
            esc(tag),
            esc(tag)
        )
    } else if let Some(user) = w.strip_prefix('@').filter(|u| !u.is_empty()) {
        // A mention shows the user name only, also for a remote account (`@user@host`).
        let (user, host) = user.split_once('@').unwrap_or((user, "m.test"));
        format!(
            "<span class=\"h-card\" translate=\"no\"><a href=\"https://{}/@{}\" class=\"u-url mention\">@<span>{}</span></a></span>",
            esc(host),
            esc(user),
            esc(user)
        )
    } else if w.starts_with("https://") || w.starts_with("http://") {
        let prefix = ["https://www.", "http://www.", "https://", "http://"]
            .into_iter()
            .find(|p| w.starts_with(p))
            .unwrap();
        let rest = &w[prefix.len()..];
        // 30 characters are shown; when only one would be hidden, it is shown too.
        let cut = match rest.char_indices().nth(30) {
            Some((i, _)) if rest[i..].chars().count() > 1 => i,
            _ => rest.len(),
        };
        let class = if cut < rest.len() { "ellipsis" } else { "" };
        format!(
            "<a href=\"{}\" target=\"_blank\" rel=\"nofollow noopener\" translate=\"no\"><span class=\"invisible\">{}</span><span class=\"{class}\">{}</span><span class=\"invisible\">{}</span></a>",
            esc(w),
            esc(prefix),
            esc(&rest[..cut]),
            esc(&rest[cut..])
        )
    } else {
        esc(w)
    };
    linked + &esc(tail)
}

/// Mastodon's rendering: paragraphs, line breaks, then each word.
fn render(text: &str) -> String {
    text.replace("\r\n", "\n")
        .split("\n\n")
        .map(|para| {
            let lines: Vec<String> = para
                .lines()
                .map(|l| l.split(' ').map(word).collect::<Vec<_>>().join(" "))
                .collect();
            format!("<p>{}</p>", lines.join("<br />"))
        })
        .collect()
}

/// Grapheme clusters, near enough without a Unicode table: combining marks, variation
/// selectors, skin tones, tag characters and ZWJ sequences join the character before them, and
/// regional indicators pair into flags. (Hangul jamo sequences count per character.)
fn graphemes(text: &str) -> u64 {
    let (mut count, mut after_zwj, mut open_flag) = (0, false, false);
    for c in text.chars() {
        let u = c as u32;
        let extends = matches!(u, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F | 0x1F3FB..=0x1F3FF | 0xE0020..=0xE007F | 0x200D);
        let regional = (0x1F1E6..=0x1F1FF).contains(&u);
        if !(extends || after_zwj || (regional && open_flag)) {
            count += 1;
        }
        open_flag = regional && !open_flag;
        after_zwj = u == 0x200D;
    }
    count
}

/// How Mastodon counts a status: a URL is 23, a mention counts without its domain, the rest
/// in grapheme clusters.
fn length(text: &str) -> u64 {
    text.split_inclusive([' ', '\n'])
        .map(|w| {
            let bare = w.trim_end_matches([' ', '\n']);
            let gap = (w.len() - bare.len()) as u64;
            gap + if bare.starts_with("https://") || bare.starts_with("http://") {
                23
            } else if let Some((user, _host)) =
                bare.strip_prefix('@').and_then(|m| m.split_once('@'))
            {
                1 + graphemes(user)
            } else {
                graphemes(bare)
            }
        })
        .sum()
}

fn handle(state: &Mutex<Masto>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    if req.path() == "/api/v2/instance" {
        if s.instance_status != 200 {
            return Reply::json(s.instance_status, json!({"error": "Service Unavailable"}));
        }
        return Reply::json(
            200,
            json!({"domain": "m.test", "configuration": {"statuses": {"max_characters": s.max_characters, "max_media_attachments": s.max_media, "characters_reserved_per_url": 23}}}),
        );
    }
    if req.header("authorization") != Some(&format!("Bearer {TOKEN}")) {
        return Reply::json(401, json!({"error": "The access token is invalid"}));
    }
    let timeline = format!("/api/v1/accounts/{ACCOUNT}/statuses");
    let needs_user = ["POST", "DELETE"].contains(&req.method.as_str())
        || req.path() == "/api/v1/accounts/verify_credentials";
    if s.userless && needs_user {
        return Reply::json(422, json!({ "error": NO_USER }));
    }
    match (req.method.as_str(), req.path()) {
        ("POST", "/api/v1/statuses") => {
            s.post_requests += 1;
            // `set_thread`, a before_action: the replied-to status first.
            // `status_params[:in_reply_to_id].present?`: null and "" reply to nothing.
            let parent = match &req.json()["in_reply_to_id"] {
                Value::Null => None,
                Value::String(id) if id.trim().is_empty() => None,
                Value::String(id) => Some(id.clone()),
                other => Some(other.to_string()),
            };
            if let Some(parent) = &parent
                && !s.statuses.iter().any(|st| st["id"] == parent.as_str())
            {
                s.replies_refused += 1;
                return Reply::json(404, json!({ "error": REPLY_NOT_FOUND }));
            }
            let key = req.header("idempotency-key").unwrap_or("").to_string();
            if let Some(first) = s.idempotent.get(&key) {
                // `@account.statuses.find(id)`: a status deleted since is not found.
                if !s.statuses.iter().any(|st| st["id"] == first["id"]) {
                    return Reply::json(404, json!({"error": "Record not found"}));
                }
                return Reply::json(200, first.clone());
            }
            let media = match s.validate_media(&req.json(), None) {
                Ok(media) => media,
                Err(reply) => return reply,
            };
            let text = req.json()["status"].as_str().unwrap_or("").to_string();
            s.sent_texts.push(text.clone());
            if length(&text) > s.max_characters {
                return Reply::json(
                    422,
                    json!({"error": format!("Validation failed: Text character limit of {} exceeded", s.max_characters)}),
                );
            }
            // A status needs text unless it carries media (or a poll).
            if text.trim().is_empty() && media.as_ref().is_none_or(Vec::is_empty) {
                return Reply::json(
                    422,
                    json!({"error": "Validation failed: Text can't be blank"}),
                );
            }
            let fault = s.faults.pop_front().unwrap_or(Fault::Normal);
            match fault {
                Fault::Reject(422) => {
                    return Reply::json(
                        422,
                        json!({"error": "Validation failed: Text can't be blank"}),
                    );
                }
                Fault::RateLimit(secs) => {
                    let reset =
                        jiff::Timestamp::now() + jiff::SignedDuration::from_secs(secs as i64);
                    return Reply::Json(
                        429,
                        vec![("X-RateLimit-Reset".into(), reset.to_string())],
                        json!({"error": "Too many requests"}),
                    );
                }
                // No answer, nothing stored (the request never got through).
                Fault::Hang => return Reply::Hang(s.hang),
                // A proxy in front answers (502, 504 …): nothing reached Mastodon.
                Fault::Reject(code) if code >= 500 && code != 503 => {
                    return Reply::json(code, json!({"error": "Bad Gateway"}));
                }
                _ => {}
            }
            let mut status = s.store(&text, req.json()["visibility"].clone());
            if let Some(parent) = parent {
                status["in_reply_to_id"] = json!(parent);
                status["in_reply_to_account_id"] = json!(ACCOUNT);
                let id = status["id"].clone();
                let stored = s.statuses.iter_mut().find(|st| st["id"] == id).unwrap();
                *stored = status.clone();
            }
            if let Some(ids) = media {
                status = s.attach(status["id"].as_str().unwrap(), &ids);
            }
            if !key.is_empty() {
                s.idempotent.insert(key, status.clone());
            }
            match fault {
                Fault::CommitHang => Reply::Hang(s.hang),
                // Stored, then the answer lost on the way back (a proxy's 500, a reset).
                Fault::CommitStatus(code) => {
                    Reply::json(code, json!({"error": "Internal Server Error"}))
                }
                Fault::CommitClose => Reply::Close,
                // A concurrent duplicate was caught while the first one was being processed.
                Fault::Reject(503) => Reply::json(
                    503,
                    json!({"error": "There was a temporary problem serving your request, please try again"}),
                ),
                _ => Reply::json(200, status),
            }
        }
        ("GET", "/api/v1/accounts/verify_credentials") => {
            Reply::json(200, json!({"id": ACCOUNT, "username": "writer"}))
        }
        ("GET", path) if path == timeline => {
            if let Some(status) = s.list_faults.pop_front().filter(|c| *c != 200) {
                return Reply::json(status, json!({"error": "Something went wrong"}));
            }
            let limit: usize = req
                .query("limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(20);
            let limit = limit.clamp(1, 40);
            let max_id: u64 = req
                .query("max_id")
                .and_then(|m| m.parse().ok())
                .unwrap_or(u64::MAX);
            let page: Vec<Value> = s
                .statuses
                .iter()
                .filter(|st| st["id"].as_str().unwrap().parse::<u64>().unwrap() < max_id)
                .take(limit)
                .cloned()
                .collect();
            let mut headers = Vec::new();
            // `next` only after a full page.
            if let Some(last) = page.last().filter(|_| page.len() == limit) {
                let host = req.header("host").unwrap_or("m.test");
                let next = format!(
                    "<http://{host}{timeline}?limit={limit}&exclude_reblogs=true&max_id={}>; rel=\"next\"",
                    last["id"].as_str().unwrap()
                );
                headers.push(("Link".to_string(), next));
            }
            Reply::Json(200, headers, Value::Array(page))
        }
        ("GET", path) if path.starts_with("/api/v1/statuses/") && path.ends_with("/source") => {
            let id = &path["/api/v1/statuses/".len()..path.len() - "/source".len()];
            let live = s.statuses.iter().any(|st| st["id"] == id);
            match s.texts.get(id).filter(|_| live) {
                Some(text) => Reply::json(200, json!({"id": id, "text": text, "spoiler_text": ""})),
                None => Reply::json(404, json!({"error": "Record not found"})),
            }
        }
        ("GET", path) if status_id(path).is_some() => {
            let id = status_id(path).unwrap();
            match s.statuses.iter().find(|st| st["id"] == id) {
                Some(status) => Reply::json(200, status.clone()),
                None => Reply::json(404, json!({"error": "Record not found"})),
            }
        }
        ("DELETE", path) if status_id(path).is_some() => {
            s.delete_requests += 1;
            let id = status_id(path).unwrap().to_string();
            let Some(at) = s.statuses.iter().position(|st| st["id"] == id.as_str()) else {
                return Reply::json(404, json!({"error": "Record not found"}));
            };
            // Mastodon answers the deleted status with its source text (for "delete & redraft").
            let mut status = s.statuses.remove(at);
            // Its text stays in `texts` (ids keep counting from it); `/source` checks `statuses`.
            status["text"] = json!(s.texts.get(&id).cloned().unwrap_or_default());
            Reply::json(200, status)
        }
        ("PUT", path) if path.starts_with("/api/v1/statuses/") => {
            let id = path["/api/v1/statuses/".len()..].to_string();
            // `StatusesController#update` always passes `media_ids:` (nil when not sent), so
            // `UpdateStatusService#update_media_attachments!` runs and `validate_media!` turns a
            // blank value into []: an edit without `media_ids` takes the status's media off.
            // This status's own media count as usable.
            let ids = match s.validate_media(&req.json(), Some(&id)) {
                Ok(media) => media.unwrap_or_default(),
                Err(reply) => return reply,
            };
            let text = req.json()["status"].as_str().unwrap_or("").to_string();
            // The media change comes before the text's blank check (in one transaction).
            let reply = s.edit(&id, &text, !ids.is_empty());
            let reply = match &reply {
                Reply::Json(200, _, _) => {
                    for m in s
                        .media
                        .iter_mut()
                        .filter(|m| m.status_id.as_deref() == Some(&id))
                    {
                        m.status_id = None;
                    }
                    Reply::json(200, s.attach(&id, &ids))
                }
                _ => reply,
            };
            // `media_attributes` (4.1+): new descriptions of the status's own media.
            if let (Reply::Json(200, _, _), Some(attributes)) =
                (&reply, req.json()["media_attributes"].as_array())
            {
                for a in attributes {
                    let (Some(mid), Some(d)) = (a["id"].as_str(), a["description"].as_str()) else {
                        continue;
                    };
                    if let Some(m) = s
                        .media
                        .iter_mut()
                        .find(|m| m.id == mid && m.status_id.as_deref() == Some(&id))
                    {
                        m.description = Some(d.to_string()).filter(|d| !d.is_empty());
                    }
                }
            }
            reply
        }
        ("POST", "/api/v2/media") => s.upload(req),
        ("GET", path) if path.starts_with("/api/v1/media/") => {
            let id = path["/api/v1/media/".len()..].to_string();
            s.media_polls.push(id.clone());
            // `current_account.media_attachments.find`: attached ones too (4.4).
            let Some(media) = s.media.iter_mut().find(|m| m.id == id) else {
                return Reply::json(404, json!({"error": "Record not found"}));
            };
            let code = if media.processed() { 200 } else { 206 };
            let shown = media.json();
            media.polls_left = media.polls_left.saturating_sub(1);
            Reply::json(code, shown)
        }
        _ => Reply::json(404, json!({"error": "Record not found"})),
    }
}

impl Masto {
    /// `PUT /api/v1/statuses/{id}` with `{"status": …}`: the text replaced (and `/source`
    /// shows it), `edited_at` set; 200 with the status. `has_media`: the edit leaves media on
    /// the status (a blank text needs some).
    fn edit(&mut self, id: &str, text: &str, has_media: bool) -> Reply {
        self.edit_requests += 1;
        let fault = self.edit_faults.pop_front().unwrap_or(Fault::Normal);
        // `current_account.statuses.find`: a deleted status (its text kept) is not found.
        if !self.statuses.iter().any(|st| st["id"] == id) {
            return Reply::json(404, json!({"error": "Record not found"}));
        }
        // The status's validations run on an edit too.
        if length(text) > self.max_characters {
            return Reply::json(
                422,
                json!({"error": format!("Validation failed: Text character limit of {} exceeded", self.max_characters)}),
            );
        }
        if text.trim().is_empty() && !has_media {
            return Reply::json(
                422,
                json!({"error": "Validation failed: Text can't be blank"}),
            );
        }
        match fault {
            Fault::Reject(status) => {
                return Reply::json(
                    status,
                    json!({"error": "Validation failed: Text can't be blank"}),
                );
            }
            Fault::Hang => return Reply::Hang(Duration::from_millis(600)),
            _ => {}
        }
        let text = text.trim().to_string();
        let edited = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        self.texts.insert(id.to_string(), text.clone());
        let status = self.statuses.iter_mut().find(|st| st["id"] == id).unwrap();
        status["content"] = json!(render(&text));
        status["edited_at"] = json!(edited);
        let status = status.clone();
        match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            _ => Reply::json(200, status),
        }
    }
}

/// The id in `/api/v1/statuses/:id` (digits only, so `/source` and others do not match).
fn status_id(path: &str) -> Option<&str> {
    let id = path.strip_prefix("/api/v1/statuses/")?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

impl Masto {
    /// `PostStatusService#validate_media!` (and UpdateStatusService's, which also takes the
    /// media already on `editing`). `Ok(None)`: no `media_ids` sent.
    fn validate_media(
        &mut self,
        body: &Value,
        editing: Option<&str>,
    ) -> Result<Option<Vec<String>>, Reply> {
        let Some(ids) = body.get("media_ids").and_then(Value::as_array) else {
            return Ok(None);
        };
        let ids: Vec<String> = ids
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        self.sent_media_ids.push(ids.clone());
        if ids.is_empty() {
            return Ok(Some(ids));
        }
        let refuse = |msg: String| Err(Reply::json(422, json!({ "error": msg })));
        if ids.len() > self.max_media {
            return refuse(format!("Cannot attach more than {} files", self.max_media));
        }
        let usable = |m: &Media| m.status_id.is_none() || m.status_id.as_deref() == editing;
        let missing: Vec<&str> = ids
            .iter()
            .filter(|id| !self.media.iter().any(|m| &m.id == *id && usable(m)))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return refuse(format!(
                "Media {} not found or already attached to another post",
                missing.join(", ")
            ));
        }
        if ids
            .iter()
            .any(|id| self.media.iter().any(|m| &m.id == id && !m.processed()))
        {
            return refuse(
                "Cannot attach files that have not finished processing. Try again in a moment!"
                    .into(),
            );
        }
        Ok(Some(ids))
    }

    /// Attach `ids` to status `id` in this order (`ordered_media_attachment_ids`); the status
    /// as the API shows it.
    fn attach(&mut self, id: &str, ids: &[String]) -> Value {
        let mut shown = Vec::new();
        for media_id in ids {
            let media = self.media.iter_mut().find(|m| &m.id == media_id).unwrap();
            media.status_id = Some(id.to_string());
            shown.push(media.json());
        }
        let status = self.statuses.iter_mut().find(|st| st["id"] == id).unwrap();
        status["media_attachments"] = Value::Array(shown);
        status.clone()
    }

    /// `POST /api/v2/media` (multipart: `file`, `description`, `focus`, `thumbnail`).
    fn upload(&mut self, req: &Request) -> Reply {
        self.media_requests += 1;
        let fault = self.media_faults.pop_front().unwrap_or(Fault::Normal);
        match fault {
            Fault::Reject(status) => {
                return Reply::json(status, json!({"error": "fake: upload refused"}));
            }
            Fault::RateLimit(secs) => {
                let reset = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(secs as i64);
                return Reply::Json(
                    429,
                    vec![("X-RateLimit-Reset".into(), reset.to_string())],
                    json!({"error": "Too many requests"}),
                );
            }
            Fault::Hang => return Reply::Hang(Duration::from_millis(600)),
            _ => {}
        }
        let parts = match crate::fakes::media::multipart(req) {
            Ok(parts) => parts,
            Err(why) => {
                return Reply::json(
                    422,
                    json!({"error": format!("Validation failed: File can't be blank (fake: {why})")}),
                );
            }
        };
        let Some(file) = parts.iter().find(|p| p.name == "file") else {
            return Reply::json(
                422,
                json!({"error": "Validation failed: File can't be blank"}),
            );
        };
        let Some((mime, ext)) = crate::fakes::media::sniff(&file.data) else {
            return Reply::json(
                422,
                json!({"error": "Validation failed: File content type is invalid, File is invalid"}),
            );
        };
        let description = parts
            .iter()
            .find(|p| p.name == "description")
            .map(|p| p.text());
        if description
            .as_ref()
            .is_some_and(|d| d.chars().count() > 1500)
        {
            return Reply::json(
                422,
                json!({"error": "Validation failed: Description is too long (maximum is 1500 characters)"}),
            );
        }
        // An animated GIF becomes a `gifv` (a video), which is processed later.
        let animated = mime == "image/gif"
            && file
                .data
                .windows(3)
                .filter(|w| w == b"\x21\xF9\x04")
                .count()
                > 1;
        let polls_left = match self.processing_polls {
            Some(n) => n,
            None if animated => 1,
            None => 0,
        };
        let id = (108_000_000 + self.media.len()).to_string();
        let media = Media {
            id,
            kind: if animated { "gifv" } else { "image" },
            mime,
            description,
            bytes: file.data.clone(),
            file_name: format!(
                "{:016x}.{}",
                self.media.len(),
                if animated { "mp4" } else { ext }
            ),
            polls_left,
            status_id: None,
        };
        let shown = media.json();
        let code = if media.processed() { 200 } else { 202 };
        self.media.push(media);
        match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            Fault::CommitStatus(status) => {
                Reply::json(status, json!({"error": "Something went wrong"}))
            }
            _ => Reply::json(code, shown),
        }
    }
}
