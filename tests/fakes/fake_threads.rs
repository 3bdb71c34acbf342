//! A fake Threads API, written from Meta's Threads API documentation (docs/targets/threads.md
//! lists the pages and their dates), not from the live service. Every request carries the
//! token as `access_token`; a wrong one answers 400 with the Graph error code 190
//! (`OAuthException`). `POST /v1.0/me/threads` makes a container (`media_type` TEXT needs
//! `text`, IMAGE needs an http(s) `image_url`; text over 500 characters with emoji as their
//! UTF-8 bytes, or more than 5 links (`THREADS_API__LINK_LIMIT_EXCEEDED`) is refused; a
//! `reply_to_id` must name a post). `GET /v1.0/{container}?fields=status` answers FINISHED,
//! IN_PROGRESS (an image still being fetched: `processing`), PUBLISHED or EXPIRED (a container
//! not published within 24 hours: `expire_lost`, or set by a test). `POST
//! /v1.0/me/threads_publish?creation_id=` publishes a FINISHED container once (a published,
//! expired or unfinished one is refused; the pages name no error code for these, the fake
//! answers code 24) and counts it against the 250 posts (1000 replies) of
//! `threads_publishing_limit`. `GET /v1.0/me/threads` lists the posts newest first from
//! `since`, `limit` (at most 100) a page, with `paging.cursors` and a `next` while there is
//! more; `GET /v1.0/me/replies` lists the replies the same way, `GET /v1.0/{id}/replies` the
//! replies to one post, `GET /v1.0/{id}` says `is_reply` and `replied_to`. `DELETE /v1.0/{id}` counts against 100 deletes. An object that does not exist is 400,
//! code 100, subcode 33. With `lag` set, a post published then shows in those three listings
//! only that long after its publish (a listing that lags behind a post that is out), while a
//! read by its id, a reply to it and its container's `PUBLISHED` are at once.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const TOKEN: &str = "THQVJ-threads-token-1";

#[derive(Debug, Clone)]
pub struct Container {
    pub text: String,
    pub image_url: Option<String>,
    pub reply_to: Option<String>,
    pub status: &'static str,
}

#[derive(Default)]
pub struct State {
    /// Published posts, newest first: id, text, timestamp (unix), reply_to.
    pub posts: Vec<(String, String, u64, Option<String>)>,
    pub containers: HashMap<String, Container>,
    pub next_id: u64,
    /// What the next publishes meet: `CommitHang` publishes, then hangs past the timeout.
    pub publish_faults: VecDeque<Fault>,
    /// A publish whose request is lost (`Fault::Hang`) leaves its container EXPIRED, as a
    /// container is when its publish comes more than 24 hours later.
    pub expire_lost: bool,
    /// IMAGE containers are made IN_PROGRESS (Threads still fetching the image) while this is
    /// set; a status read once it is unset finds them FINISHED.
    pub processing: bool,
    pub quota_used: u64,
    pub reply_used: u64,
    pub delete_used: u64,
    pub containers_made: usize,
    pub publish_requests: usize,
    pub delete_requests: usize,
    /// What the next container requests meet: (HTTP status, Graph code) refusals.
    pub create_faults: VecDeque<(u16, i64)>,
    /// The listings leave out every post (a listing that lags).
    pub hide: bool,
    /// Each post published from now on is left out of the listings (`GET /me/threads`,
    /// `/me/replies`, `/{id}/replies`) until this long after its publish: a listing that lags
    /// behind a post that is out. Zero: at once.
    pub lag: Duration,
    /// When each post published while `lag` was set shows in the listings, by its id.
    pub shown_at: HashMap<String, Instant>,
    /// Every request, as `METHOD path`.
    pub requests: Vec<String>,
}

pub struct FakeThreads {
    pub server: Server,
    pub state: Arc<Mutex<State>>,
}

impl FakeThreads {
    pub fn start() -> FakeThreads {
        let state = Arc::new(Mutex::new(State {
            next_id: 17_900_000,
            ..State::default()
        }));
        let shared = state.clone();
        FakeThreads {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.th]\nkind = \"threads\"\napi_url = \"{}\"\ntoken_file = \"secrets/threads.token\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n{extra}\n",
            self.server.url("/v1.0")
        )
    }

    /// The published posts' texts, oldest first.
    pub fn texts(&self) -> Vec<String> {
        let s = self.state.lock().unwrap();
        s.posts.iter().rev().map(|p| p.1.clone()).collect()
    }
}

fn error(code: i64, subcode: Option<i64>, message: &str) -> Reply {
    let mut err =
        json!({"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEf"});
    if let Some(sub) = subcode {
        err["error_subcode"] = json!(sub);
    }
    Reply::json(400, json!({ "error": err }))
}

fn missing(id: &str) -> Reply {
    error(
        100,
        Some(33),
        &format!(
            "Unsupported get request. Object with ID '{id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation."
        ),
    )
}

/// The documented form: `2023-10-17T05:42:03+0000`.
fn timestamp(secs: u64) -> String {
    let at = jiff::Timestamp::from_second(secs as i64).unwrap();
    at.strftime("%Y-%m-%dT%H:%M:%S+0000").to_string()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The documented count: an emoji as its UTF-8 bytes, any other character as one.
fn length(text: &str) -> usize {
    text.chars()
        .map(|c| match c as u32 {
            0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x200D => c.len_utf8(),
            _ => 1,
        })
        .sum()
}

fn links(text: &str) -> usize {
    let mut seen: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.starts_with("http://") || w.starts_with("https://") || w.starts_with("www."))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

fn handle(state: &Mutex<State>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    s.requests.push(format!("{} {}", req.method, req.path()));
    if req.query("access_token").as_deref() != Some(TOKEN) {
        return error(
            190,
            None,
            "Invalid OAuth access token - Cannot parse access token",
        );
    }
    let path = req.path().strip_prefix("/v1.0").unwrap_or("");
    match (req.method.as_str(), path) {
        ("POST", "/me/threads") => create(&mut s, req),
        ("POST", "/me/threads_publish") => {
            let fault = s.publish_faults.pop_front().unwrap_or(Fault::Normal);
            publish(&mut s, req, fault)
        }
        ("GET", "/me/threads") => list(&s, req, false),
        ("GET", "/me/replies") => list(&s, req, true),
        ("GET", "/me/threads_publishing_limit") => Reply::json(
            200,
            json!({"data": [{
                "quota_usage": s.quota_used, "config": {"quota_total": 250, "quota_duration": 86400},
                "reply_quota_usage": s.reply_used, "reply_config": {"quota_total": 1000, "quota_duration": 86400},
                "delete_quota_usage": s.delete_used, "delete_config": {"quota_total": 100, "quota_duration": 86400}
            }]}),
        ),
        ("GET", id) if id.ends_with("/replies") => {
            replies(&s, id.trim_start_matches('/').trim_end_matches("/replies"))
        }
        ("GET", id) => read(&mut s, id.trim_start_matches('/')),
        ("DELETE", id) => delete(&mut s, id.trim_start_matches('/')),
        _ => Reply::json(
            400,
            json!({"error": {"message": "Unknown path", "code": 100}}),
        ),
    }
}

fn create(s: &mut State, req: &Request) -> Reply {
    if let Some((status, code)) = s.create_faults.pop_front() {
        let body = json!({"error": {"message": "Application request limit reached", "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEf"}});
        return Reply::json(status, body);
    }
    let text = req.query("text").unwrap_or_default();
    let image_url = req.query("image_url");
    match req.query("media_type").as_deref() {
        Some("TEXT") if text.is_empty() => {
            return error(100, None, "The parameter text is required");
        }
        Some("TEXT") => {}
        Some("IMAGE") if !image_url.as_deref().is_some_and(|u| u.starts_with("http")) => {
            return error(100, None, "The parameter image_url is required");
        }
        Some("IMAGE") => {}
        _ => return error(100, None, "Invalid parameter media_type"),
    }
    if length(&text) > 500 {
        return error(100, None, "Param text must be at most 500 characters long");
    }
    if links(&text) > 5 {
        return error(100, None, "THREADS_API__LINK_LIMIT_EXCEEDED");
    }
    let reply_to = req.query("reply_to_id");
    if let Some(parent) = &reply_to
        && !s.posts.iter().any(|p| &p.0 == parent)
    {
        return missing(parent);
    }
    s.next_id += 1;
    let id = format!("c{}", s.next_id);
    s.containers_made += 1;
    let status = match image_url.is_some() && s.processing {
        true => "IN_PROGRESS",
        false => "FINISHED",
    };
    let container = Container {
        text,
        image_url,
        reply_to,
        status,
    };
    s.containers.insert(id.clone(), container);
    Reply::json(200, json!({ "id": id }))
}

fn publish(s: &mut State, req: &Request, fault: Fault) -> Reply {
    s.publish_requests += 1;
    let id = req.query("creation_id").unwrap_or_default();
    let expire = s.expire_lost && fault == Fault::Hang;
    let Some(container) = s.containers.get_mut(&id) else {
        return missing(&id);
    };
    if expire {
        container.status = "EXPIRED";
    }
    if fault == Fault::Hang {
        return Reply::Hang(Duration::from_millis(600));
    }
    match container.status {
        "FINISHED" => {}
        "EXPIRED" => return error(24, Some(4279009), "The media container has expired"),
        "IN_PROGRESS" => return error(24, None, "The media is not ready to be published"),
        _ => {
            return error(
                24,
                Some(4279013),
                "The media container was already published",
            );
        }
    }
    container.status = "PUBLISHED";
    let container = container.clone();
    match container.reply_to {
        Some(_) => s.reply_used += 1,
        None => s.quota_used += 1,
    }
    s.next_id += 1;
    let post = s.next_id.to_string();
    if !s.lag.is_zero() {
        let at = Instant::now() + s.lag;
        s.shown_at.insert(post.clone(), at);
    }
    s.posts
        .insert(0, (post.clone(), container.text, now(), container.reply_to));
    match fault {
        Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
        _ => Reply::json(200, json!({ "id": post })),
    }
}

fn list(s: &State, req: &Request, replies: bool) -> Reply {
    let since: u64 = req.query("since").and_then(|v| v.parse().ok()).unwrap_or(0);
    let limit: usize = req
        .query("limit")
        .and_then(|v| v.parse().ok())
        .unwrap_or(25);
    if limit > 100 {
        return error(100, None, "limit must be at most 100");
    }
    let start: usize = req.query("after").and_then(|v| v.parse().ok()).unwrap_or(0);
    let all: Vec<&(String, String, u64, Option<String>)> = s
        .posts
        .iter()
        .filter(|p| !s.hide && listed(s, &p.0) && p.2 >= since && p.3.is_some() == replies)
        .collect();
    let page: Vec<Value> = all
        .iter()
        .skip(start)
        .take(limit)
        .map(|p| {
            json!({"id": p.0, "text": p.1, "timestamp": timestamp(p.2),
            "permalink": format!("https://www.threads.net/@dayrun/post/{}", p.0)})
        })
        .collect();
    let end = start + page.len();
    let mut paging = json!({"cursors": {"before": start.to_string(), "after": end.to_string()}});
    if end < all.len() {
        paging["next"] = json!(format!(
            "https://graph.threads.net/v1.0/me/threads?after={end}"
        ));
    }
    Reply::json(200, json!({ "data": page, "paging": paging }))
}

/// Whether post `id` shows in the listings yet (`lag`).
fn listed(s: &State, id: &str) -> bool {
    s.shown_at.get(id).is_none_or(|at| Instant::now() >= *at)
}

fn read(s: &mut State, id: &str) -> Reply {
    let processing = s.processing;
    if let Some(c) = s.containers.get_mut(id) {
        if c.status == "IN_PROGRESS" && !processing {
            c.status = "FINISHED";
        }
        return Reply::json(200, json!({ "id": id, "status": c.status }));
    }
    match s.posts.iter().find(|p| p.0 == id) {
        Some(p) => {
            let mut doc = json!({ "id": p.0, "text": p.1, "is_reply": p.3.is_some() });
            if let Some(parent) = &p.3 {
                doc["replied_to"] = json!({ "id": parent });
            }
            Reply::json(200, doc)
        }
        None => missing(id),
    }
}

fn replies(s: &State, id: &str) -> Reply {
    if !s.posts.iter().any(|p| p.0 == id) {
        return missing(id);
    }
    let data: Vec<Value> = (s.posts.iter().rev())
        .filter(|p| p.3.as_deref() == Some(id) && listed(s, &p.0))
        .map(|p| json!({ "id": p.0, "text": p.1 }))
        .collect();
    Reply::json(
        200,
        json!({ "data": data, "paging": {"cursors": {"before": "0", "after": "0"}} }),
    )
}

fn delete(s: &mut State, id: &str) -> Reply {
    s.delete_requests += 1;
    if s.delete_used >= 100 {
        return error(4, None, "Application request limit reached");
    }
    let before = s.posts.len();
    s.posts.retain(|p| p.0 != id);
    if s.posts.len() == before {
        return missing(id);
    }
    s.delete_used += 1;
    Reply::json(200, json!({ "success": true, "deleted_id": id }))
}
