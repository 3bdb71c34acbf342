//! A fake generic posts API (for `kind = "http"`): POST /posts commits, GET /posts lists.
//! Each POST or list request can be given a fault; it counts what it committed, per key.

#![allow(dead_code)]

use crate::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the next POST meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    Normal,
    /// Commit, then hang past the client's timeout.
    CommitHang,
    /// Commit, then close the connection without answering.
    CommitClose,
    /// Commit, then answer this 5xx.
    CommitStatus(u16),
    /// Commit, then answer 201 without a usable receipt.
    CommitNoReceipt,
    /// Do not commit; answer this status (401, 403, 422, 429, 503 …).
    Reject(u16),
    /// 429 with this Retry-After (seconds).
    RateLimit(u64),
}

#[derive(Debug, Clone)]
pub struct Committed {
    pub id: String,
    pub key: String,
    pub title: String,
    pub idempotency_key: String,
    pub body: Value,
}

#[derive(Default)]
pub struct ApiState {
    pub posts: Vec<Committed>,
    pub post_faults: VecDeque<Fault>,
    /// Status codes for the next list requests (200 = normal).
    pub list_faults: VecDeque<u16>,
    /// Whether listed items echo the key (else only id, title, fingerprint).
    pub hide_key: bool,
    pub token: Option<String>,
    /// Require this Cookie header (for `header_file`).
    pub cookie: Option<String>,
    /// Answer in another shape: `{"data": {"id", "link"}}` and a list at `/items`.
    pub nested: bool,
    /// When each POST arrived (for pacing).
    pub post_times: Vec<std::time::Instant>,
    pub hang: Duration,
    /// Called for every POST when no queued fault applies (for seeded drills).
    pub chooser: Option<Box<dyn FnMut() -> Fault + Send>>,
    pub list_chooser: Option<Box<dyn FnMut() -> u16 + Send>>,
}

pub struct PostsApi {
    pub server: Server,
    pub state: Arc<Mutex<ApiState>>,
}

impl PostsApi {
    pub fn start() -> PostsApi {
        let state = Arc::new(Mutex::new(ApiState {
            hang: Duration::from_millis(600),
            ..ApiState::default()
        }));
        let shared = state.clone();
        let server = Server::start(move |req| handle(&shared, req));
        PostsApi { server, state }
    }

    pub fn faults(&self, faults: &[Fault]) -> &PostsApi {
        self.state.lock().unwrap().post_faults.extend(faults);
        self
    }

    pub fn list_faults(&self, statuses: &[u16]) -> &PostsApi {
        self.state.lock().unwrap().list_faults.extend(statuses);
        self
    }

    pub fn token(&self, token: &str) -> &PostsApi {
        self.state.lock().unwrap().token = Some(token.into());
        self
    }

    pub fn committed(&self) -> Vec<Committed> {
        self.state.lock().unwrap().posts.clone()
    }

    /// How many times each key was committed.
    pub fn commits_of(&self, key: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .posts
            .iter()
            .filter(|p| p.key == key)
            .count()
    }

    /// A `[targets.NAME]` table for this server, with fast retries and confirmation.
    pub fn config(&self, name: &str, extra: &str) -> String {
        format!(
            "[targets.{name}]\nkind = \"http\"\nurl = \"{}\"\nlist_url = \"{}\"\ntimeout_secs = 0.3\nconnect_timeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\n{extra}\n",
            self.server.url("/posts"),
            self.server.url("/posts"),
        )
    }
}

fn handle(state: &Mutex<ApiState>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    if let Some(token) = &s.token
        && req.header("authorization") != Some(&format!("Bearer {token}"))
    {
        return Reply::json(401, json!({"error": "invalid token"}));
    }
    if let Some(cookie) = &s.cookie
        && req.header("cookie") != Some(cookie.as_str())
    {
        return Reply::json(403, json!({"error": "no session"}));
    }
    match (req.method.as_str(), req.path()) {
        ("GET", "/posts") => {
            let status = match s.list_faults.pop_front() {
                Some(status) => status,
                None => s.list_chooser.as_mut().map_or(200, |f| f()),
            };
            if status != 200 {
                return Reply::json(status, json!({"error": "list unavailable"}));
            }
            let hide = s.hide_key;
            let items: Vec<Value> = s
                .posts
                .iter()
                .map(|p| {
                    let mut item =
                        json!({"id": p.id, "title": p.title, "fingerprint": p.body["fingerprint"]});
                    if !hide {
                        item["key"] = json!(p.key);
                    }
                    item
                })
                .collect();
            if s.nested {
                return Reply::json(200, json!({ "items": items }));
            }
            Reply::json(200, Value::Array(items))
        }
        ("POST", "/posts") => {
            s.post_times.push(std::time::Instant::now());
            let fault = match s.post_faults.pop_front() {
                Some(fault) => fault,
                None => s.chooser.as_mut().map_or(Fault::Normal, |f| f()),
            };
            let body = req.json();
            let commit = |s: &mut ApiState| {
                let id = format!("p-{}", s.posts.len() + 1);
                s.posts.push(Committed {
                    id: id.clone(),
                    key: body["key"].as_str().unwrap_or("").to_string(),
                    title: body["title"].as_str().unwrap_or("").to_string(),
                    idempotency_key: req.header("idempotency-key").unwrap_or("").to_string(),
                    body: body.clone(),
                });
                id
            };
            match fault {
                Fault::Normal => {
                    let id = commit(&mut s);
                    let url = format!("https://example.test/{id}");
                    match s.nested {
                        true => Reply::json(201, json!({"data": {"id": id, "link": url}})),
                        false => Reply::json(201, json!({"id": id, "url": url})),
                    }
                }
                Fault::CommitHang => {
                    commit(&mut s);
                    Reply::Hang(s.hang)
                }
                Fault::CommitClose => {
                    commit(&mut s);
                    Reply::Close
                }
                Fault::CommitStatus(status) => {
                    commit(&mut s);
                    Reply::json(status, json!({"error": "upstream trouble"}))
                }
                Fault::CommitNoReceipt => {
                    commit(&mut s);
                    Reply::json(201, json!({"ok": true}))
                }
                Fault::Reject(status) => Reply::json(
                    status,
                    json!({"error": format!("rejected with {status}"), "field": "title"}),
                ),
                Fault::RateLimit(secs) => Reply::Json(
                    429,
                    vec![("Retry-After".into(), secs.to_string())],
                    json!({"error": "slow down"}),
                ),
            }
        }
        _ => Reply::json(404, json!({"error": "no route"})),
    }
}
