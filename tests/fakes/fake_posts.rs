//! A fake generic posts API (for `kind = "http"`): POST /posts commits, GET /posts lists, newest
//! first. Like real APIs it can lag its list, show only the newest N, leave fields out of items,
//! filter on `?key=` / `?idempotency_key=`, and give each POST or list request a fault (queued,
//! or scripted per key); it can answer a key's query with other keys' posts of the same text
//! (unlabelled) and hold a request until released; it counts what it committed, per key, and
//! which ids it answered.

#![allow(dead_code)]

use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// Lose the request before committing anything, and hang past the client's timeout.
    Hang,
    /// Hang past the client's timeout; commit only this long after the request arrived (a PHP
    /// worker still running after the client gave up). Used by the WordPress fake.
    LateCommit(Duration),
}

/// How a list request is cut off before any answer (the GET's own transport faults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cut {
    /// Close the connection without answering (a reset).
    Close,
    /// Hang past the client's timeout.
    Hang,
}

/// What one lookup (`GET /posts`) of a key meets, in a per-key script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// The list, as the server holds it.
    Normal,
    /// This status (500, 503 …) with a JSON error body.
    Status(u16),
    /// 200 with a body that is not JSON (a proxy's error page).
    Garbage,
}

/// The answers to one key's requests: `first` in order, then `then` for every later one.
#[derive(Debug, Clone)]
pub struct Script<T> {
    pub first: VecDeque<T>,
    pub then: T,
}

impl<T: Copy> Script<T> {
    fn next(&mut self) -> T {
        self.first.pop_front().unwrap_or(self.then)
    }
}

#[derive(Debug, Clone)]
pub struct Committed {
    pub id: String,
    pub key: String,
    pub title: String,
    pub idempotency_key: String,
    pub body: Value,
    /// When it was committed: lists show it `lag` later.
    pub at: Instant,
    pub created_at: jiff::Timestamp,
}

#[derive(Default)]
pub struct ApiState {
    pub posts: Vec<Committed>,
    pub post_faults: VecDeque<Fault>,
    /// Status codes for the next list requests (200 = normal).
    pub list_faults: VecDeque<u16>,
    /// The next list requests are cut off this way (before `list_faults` is consulted).
    pub list_cuts: VecDeque<Cut>,
    /// Leave out `key` and `idempotency_key` from listed items (the server echoes neither).
    pub hide_key: bool,
    /// Fields left out of listed items: any of `key`, `idempotency_key`, `title`, `fingerprint`.
    pub omit: Vec<&'static str>,
    /// A committed post shows in lists only this long after its commit (a replica, a cache).
    pub lag: Duration,
    /// Lists show only the newest N posts.
    pub newest: Option<usize>,
    /// Listed items carry `created_at` (RFC 3339).
    pub created_at: bool,
    /// After each committed POST, other writers commit this many posts (a busy shared feed).
    pub others_per_post: usize,
    pub token: Option<String>,
    /// Require this Cookie header (for `header_file`).
    pub cookie: Option<String>,
    /// Answer in another shape: `{"data": {"id", "link"}}` and a list at `/items`.
    pub nested: bool,
    /// When each POST arrived (for pacing).
    pub post_times: Vec<Instant>,
    pub hang: Duration,
    /// Called for every POST when no queued fault applies (for seeded drills).
    pub chooser: Option<Box<dyn FnMut() -> Fault + Send>>,
    pub list_chooser: Option<Box<dyn FnMut() -> u16 + Send>>,
    /// What the next `PUT /posts/{id}` requests meet (an update).
    pub put_faults: VecDeque<Fault>,
    /// How many `PUT /posts/{id}` requests arrived, and how many replaced a post.
    pub put_requests: usize,
    pub updates_applied: usize,
    /// Posts a DELETE removed, in order (they no longer show in lists).
    pub removed: Vec<Committed>,
    /// What the next DELETEs meet (`Reject`, `Hang`, `Commit*`; others act as `Normal`).
    pub delete_faults: VecDeque<Fault>,
    /// DELETE requests that reached the handler, whatever became of them.
    pub delete_requests: usize,
    /// A DELETE is answered 204 and the post kept (a cache or a proxy that lies).
    pub keep_deleted: bool,
    /// Per-key scripts for POST /posts (by the body's `key`), before any queued fault.
    pub key_posts: BTreeMap<String, Script<Fault>>,
    /// Per-key scripts for GET /posts?key=KEY, before any queued list fault.
    pub key_looks: BTreeMap<String, Script<Look>>,
    /// (key, id) of every copy whose id went back in a 201 answer, in order.
    pub answered: Vec<(String, String)>,
    /// `?key=K` also answers the posts of the keys listed for K, without their `key` and
    /// `idempotency_key` (a lookup that matches by text: posts with the same text are found).
    pub alike: BTreeMap<String, Vec<String>>,
    /// Hold the next request until released (a run held while it holds its lock).
    pub hold: Hold,
}

/// The hold on the next request: armed, holding one, or off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Hold {
    #[default]
    Off,
    /// The next request is held.
    Armed,
    /// A request is held, until `Off`.
    Holding,
}

impl ApiState {
    /// Commit one post; returns its id.
    fn push(&mut self, key: &str, title: &str, idem: &str, body: Value) -> String {
        let id = format!("p-{}", self.posts.len() + self.removed.len() + 1);
        self.posts.push(Committed {
            id: id.clone(),
            key: key.into(),
            title: title.into(),
            idempotency_key: idem.into(),
            body,
            at: Instant::now(),
            created_at: jiff::Timestamp::now(),
        });
        id
    }

    /// Commit a POST, then what other writers commit right after it.
    fn commit(&mut self, key: &str, title: &str, idem: &str, body: Value) -> String {
        let id = self.push(key, title, idem, body);
        for _ in 0..self.others_per_post {
            let other = format!("other-{}", self.posts.len() + 1);
            let body = json!({"key": other, "fingerprint": format!("fp-{other}")});
            self.push(&other, "Someone else's post", &other, body);
        }
        id
    }

    /// The item a list shows for a post.
    fn item(&self, p: &Committed) -> Value {
        let mut item = json!({
            "id": p.id,
            "url": format!("https://example.test/{}", p.id),
            "key": p.key,
            "idempotency_key": p.idempotency_key,
            "title": p.title,
            "fingerprint": p.body["fingerprint"],
        });
        if self.created_at {
            item["created_at"] = json!(p.created_at.to_string());
        }
        let hidden = if self.hide_key {
            &["key", "idempotency_key"][..]
        } else {
            &[][..]
        };
        for field in self.omit.iter().chain(hidden) {
            item.as_object_mut().unwrap().remove(*field);
        }
        item
    }

    /// What GET /posts shows now: visible posts, newest first, filtered by an exact query (and
    /// the posts `alike` the key asked for, unlabelled).
    fn list(&self, req: &Request) -> Vec<Value> {
        let (key, idem) = (req.query("key"), req.query("idempotency_key"));
        let alike: &[String] = key
            .as_ref()
            .and_then(|k| self.alike.get(k))
            .map_or(&[], Vec::as_slice);
        let items = self
            .posts
            .iter()
            .rev()
            .filter(|p| p.at.elapsed() >= self.lag)
            .filter(|p| key.as_ref().is_none_or(|k| &p.key == k) || alike.contains(&p.key))
            .filter(|p| idem.as_ref().is_none_or(|i| &p.idempotency_key == i))
            .take(self.newest.unwrap_or(usize::MAX));
        items
            .map(|p| {
                let mut item = self.item(p);
                if key.as_ref().is_some_and(|k| &p.key != k) {
                    let fields = item.as_object_mut().unwrap();
                    fields.remove("key");
                    fields.remove("idempotency_key");
                }
                item
            })
            .collect()
    }
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

    /// Cut the next list requests off without an answer (a reset, a timeout).
    pub fn list_cuts(&self, cuts: &[Cut]) -> &PostsApi {
        self.state.lock().unwrap().list_cuts.extend(cuts);
        self
    }

    /// Faults for the next `PUT /posts/{id}` (updates).
    pub fn put_faults(&self, faults: &[Fault]) -> &PostsApi {
        self.state.lock().unwrap().put_faults.extend(faults);
        self
    }

    pub fn token(&self, token: &str) -> &PostsApi {
        self.state.lock().unwrap().token = Some(token.into());
        self
    }

    /// A post committed `age` ago by another tool (visible whatever the lag, if older).
    pub fn seed(&self, key: &str, title: &str, age: Duration) -> &PostsApi {
        let mut s = self.state.lock().unwrap();
        let body = json!({"key": key, "title": title, "fingerprint": format!("fp-seed-{key}")});
        s.push(key, title, &format!("seed-{key}"), body);
        let post = s.posts.last_mut().unwrap();
        post.at = Instant::now().checked_sub(age).unwrap_or(post.at);
        post.created_at -= jiff::SignedDuration::try_from(age).unwrap();
        self
    }

    /// A post of `key` holding what dayrun sends for a post with this fingerprint (a lost
    /// attempt's copy), `age` old.
    pub fn seed_copy(&self, key: &str, fingerprint: &str, age: Duration) -> &PostsApi {
        let mut s = self.state.lock().unwrap();
        let body = json!({"key": key, "title": "a copy", "fingerprint": fingerprint});
        s.push(key, "a copy", &format!("seed-{key}"), body);
        let post = s.posts.last_mut().unwrap();
        post.at = Instant::now().checked_sub(age).unwrap_or(post.at);
        post.created_at -= jiff::SignedDuration::try_from(age).unwrap();
        self
    }

    pub fn delete_faults(&self, faults: &[Fault]) -> &PostsApi {
        self.state.lock().unwrap().delete_faults.extend(faults);
        self
    }

    /// Posts removed by a DELETE, in order.
    pub fn removed(&self) -> Vec<Committed> {
        self.state.lock().unwrap().removed.clone()
    }

    pub fn delete_requests(&self) -> usize {
        self.state.lock().unwrap().delete_requests
    }

    /// The `delete_url` line for this server (`{id}` filled in by dayrun).
    pub fn delete_url(&self) -> String {
        format!("delete_url = \"{}\"", self.server.url("/posts/{id}"))
    }

    pub fn committed(&self) -> Vec<Committed> {
        self.state.lock().unwrap().posts.clone()
    }

    /// How many times each key was committed.
    pub fn commits_of(&self, key: &str) -> usize {
        self.commits().get(key).copied().unwrap_or(0)
    }

    /// Committed posts per key.
    pub fn commits(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for p in &self.state.lock().unwrap().posts {
            *counts.entry(p.key.clone()).or_default() += 1;
        }
        counts
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

/// Wait here while the hold is on this request.
fn held(state: &Arc<Mutex<ApiState>>) {
    {
        let mut s = state.lock().unwrap();
        if s.hold != Hold::Armed {
            return;
        }
        s.hold = Hold::Holding;
    }
    while state.lock().unwrap().hold == Hold::Holding {
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn handle(state: &Arc<Mutex<ApiState>>, req: &Request) -> Reply {
    held(state);
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
            match s.list_cuts.pop_front() {
                Some(Cut::Close) => return Reply::Close,
                Some(Cut::Hang) => return Reply::Hang(s.hang),
                None => {}
            }
            let scripted = req
                .query("key")
                .and_then(|key| s.key_looks.get_mut(&key).map(Script::next));
            match scripted {
                Some(Look::Status(status)) => {
                    return Reply::json(status, json!({"error": "list unavailable"}));
                }
                Some(Look::Garbage) => {
                    return Reply::raw(200, "text/html", "<html><body>Bad gateway</body></html>");
                }
                Some(Look::Normal) | None => {}
            }
            let status = match scripted {
                Some(_) => 200,
                None => match s.list_faults.pop_front() {
                    Some(status) => status,
                    None => s.list_chooser.as_mut().map_or(200, |f| f()),
                },
            };
            if status != 200 {
                return Reply::json(status, json!({"error": "list unavailable"}));
            }
            let items = s.list(req);
            if s.nested {
                return Reply::json(200, json!({ "items": items }));
            }
            Reply::json(200, Value::Array(items))
        }
        ("POST", "/posts") => {
            s.post_times.push(Instant::now());
            let body = req.json();
            let scripted = body["key"]
                .as_str()
                .and_then(|key| s.key_posts.get_mut(key).map(Script::next));
            let fault = match scripted.or_else(|| s.post_faults.pop_front()) {
                Some(fault) => fault,
                None => s.chooser.as_mut().map_or(Fault::Normal, |f| f()),
            };
            let idem = req.header("idempotency-key").unwrap_or("");
            let (key, title) = (
                body["key"].as_str().unwrap_or(""),
                body["title"].as_str().unwrap_or(""),
            );
            let commit = |s: &mut ApiState| s.commit(key, title, idem, body.clone());
            match fault {
                Fault::Normal => {
                    let id = commit(&mut s);
                    s.answered.push((key.to_string(), id.clone()));
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
                Fault::Hang => Reply::Hang(s.hang),
                Fault::LateCommit(after) => {
                    let (late, body) = (state.clone(), body.clone());
                    let (key, title, idem) = (key.to_string(), title.to_string(), idem.to_string());
                    std::thread::spawn(move || {
                        std::thread::sleep(after);
                        late.lock().unwrap().commit(&key, &title, &idem, body);
                    });
                    Reply::Hang(after + s.hang)
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
        ("PUT", path) if path.starts_with("/posts/") => {
            let id = path["/posts/".len()..].to_string();
            put(&mut s, &id, req)
        }
        ("DELETE", path) if path.starts_with("/posts/") => {
            let id = path["/posts/".len()..].to_string();
            delete(&mut s, &id)
        }
        _ => Reply::json(404, json!({"error": "no route"})),
    }
}

/// `DELETE /posts/{id}`: remove the post (204), or 404 when no post has that id.
fn delete(s: &mut ApiState, id: &str) -> Reply {
    s.delete_requests += 1;
    let fault = s.delete_faults.pop_front().unwrap_or(Fault::Normal);
    match fault {
        Fault::Reject(status) => {
            return Reply::json(status, json!({"error": format!("rejected with {status}")}));
        }
        Fault::Hang => return Reply::Hang(s.hang),
        _ => {}
    }
    let Some(at) = s.posts.iter().position(|p| p.id == id) else {
        return Reply::json(404, json!({"error": "no such post"}));
    };
    if s.keep_deleted {
        return Reply::Raw(204, Vec::new(), Vec::new());
    }
    let post = s.posts.remove(at);
    s.removed.push(post);
    match fault {
        Fault::CommitHang => Reply::Hang(s.hang),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => Reply::json(status, json!({"error": "upstream trouble"})),
        _ => Reply::Raw(204, Vec::new(), Vec::new()),
    }
}

/// `PUT /posts/{id}`: the post's body (title, fingerprint, …) replaced, its id and key kept.
fn put(s: &mut ApiState, id: &str, req: &Request) -> Reply {
    s.put_requests += 1;
    let fault = s.put_faults.pop_front().unwrap_or(Fault::Normal);
    let Some(at) = s.posts.iter().position(|p| p.id == id) else {
        return Reply::json(404, json!({"error": format!("no post {id}")}));
    };
    match fault {
        Fault::Reject(status) => {
            return Reply::json(status, json!({"error": format!("rejected with {status}")}));
        }
        Fault::Hang => return Reply::Hang(s.hang),
        _ => {}
    }
    let body = req.json();
    let post = &mut s.posts[at];
    post.title = body["title"].as_str().unwrap_or("").to_string();
    post.body = body;
    s.updates_applied += 1;
    let url = format!("https://example.test/{id}");
    match fault {
        Fault::CommitHang => Reply::Hang(s.hang),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => Reply::json(status, json!({"error": "upstream trouble"})),
        _ => Reply::json(200, json!({"id": id, "url": url})),
    }
}
