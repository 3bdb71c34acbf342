//! A fake LinkedIn written from Microsoft's LinkedIn API docs of version 202601 (the pages, and
//! what was not re-read: docs/targets/linkedin.md), not from the live service: every versioned
//! request checked for its token and headers (`fake_linkedin_rules.rs`); `POST /rest/posts`
//! answers 201 with the new URN in `x-restli-id` and no body; `GET /rest/posts/{urn}` reads one
//! (404 once deleted); `GET /rest/posts?q=author` lists an organization's posts newest first in
//! pages (`count`, `start`; a member author is 403, as r_member_social is restricted); a partial
//! update (`X-RestLi-Method: PARTIAL_UPDATE`, `patch.$set`) sets the fields LinkedIn lists as
//! updatable (others 422); `DELETE` answers 204, again for a post already deleted (deletions
//! are idempotent); a commentary the author already posted is refused 422 as
//! "Content is a duplicate of urn:…", naming a deleted post too (as comparable tools report);
//! images by `initializeUpload`, a `PUT` of the bytes to the upload URL, and the image URN.

use crate::fakes::fake_linkedin_images::{self as images, Image};
use crate::fakes::fake_linkedin_rules::{check_headers, decoded, error, unescaped};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOKEN: &str = "AQX3fake-linkedin-token-4f9a1c7e2b";
pub const ORG: &str = "urn:li:organization:2414183";
pub const MEMBER: &str = "urn:li:person:8675309";

#[derive(Default)]
pub struct Li {
    /// Posts as `GET /rest/posts/{urn}` shows them, oldest first; deleted ones kept, marked.
    pub posts: Vec<Value>,
    /// Image URN → the image (`fake_linkedin_images.rs`).
    pub images: BTreeMap<String, Image>,
    /// What the next creates, partial updates and uploads meet.
    pub faults: VecDeque<Fault>,
    pub update_faults: VecDeque<Fault>,
    pub upload_faults: VecDeque<Fault>,
    /// The token the fake takes, and the oldest version it serves.
    pub token: String,
    pub oldest: String,
    /// Listing pages answer this status.
    pub lookups_fail: Option<u16>,
    /// Every request, `METHOD path?query`, in order.
    pub log: Vec<String>,
    pub creates: usize,
    pub listings: usize,
    pub initializes: usize,
    pub uploads: usize,
    pub(super) next: u64,
    pub(super) last_ms: i64,
}

pub struct FakeLinkedin {
    pub server: Server,
    pub state: Arc<Mutex<Li>>,
}

impl FakeLinkedin {
    pub fn start() -> FakeLinkedin {
        let state = Arc::new(Mutex::new(Li {
            token: TOKEN.into(),
            oldest: "202512".into(),
            ..Li::default()
        }));
        let shared = state.clone();
        let server = Server::start(move |req| handle(&shared, req));
        FakeLinkedin { server, state }
    }

    /// A `[targets.linkedin]` table posting as `author`, quick to give up; `extra` follows.
    pub fn config(&self, author: &str, extra: &str) -> String {
        format!(
            "[targets.linkedin]\nkind = \"linkedin\"\nauthor = \"{author}\"\ntoken_file = \"secrets/linkedin.token\"\napi_url = \"{}\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n{extra}\n",
            self.server.url("/rest")
        )
    }

    /// The posts not deleted.
    pub fn live(&self) -> Vec<Value> {
        let s = self.state.lock().unwrap();
        s.posts
            .iter()
            .filter(|p| p["lifecycleState"] == "PUBLISHED")
            .cloned()
            .collect()
    }

    /// A post made by hand, `offset_ms` from now (negative: before).
    pub fn seed(&self, author: &str, commentary: &str, offset_ms: i64) -> String {
        let mut s = self.state.lock().unwrap();
        let at = s.stamp() + offset_ms;
        s.insert(author, commentary, at, Value::Null)
    }

    /// Delete a post by hand (its text is still remembered for the duplicate check).
    pub fn delete_by_hand(&self, urn: &str) {
        let mut s = self.state.lock().unwrap();
        if let Some(p) = s.posts.iter_mut().find(|p| p["id"] == urn) {
            p["lifecycleState"] = json!("DELETED");
        }
    }
}

impl Li {
    /// Milliseconds since the epoch, never the same twice.
    fn stamp(&mut self) -> i64 {
        let now = jiff::Timestamp::now()
            .as_millisecond()
            .max(self.last_ms + 1);
        self.last_ms = now;
        now
    }

    fn insert(&mut self, author: &str, commentary: &str, at: i64, content: Value) -> String {
        self.next += 1;
        let urn = format!("urn:li:share:7{:018}", self.next);
        self.posts.push(json!({
            "id": urn, "author": author, "commentary": commentary, "visibility": "PUBLIC",
            "lifecycleState": "PUBLISHED", "createdAt": at, "lastModifiedAt": at,
            "publishedAt": at, "content": content,
        }));
        urn
    }
}

fn handle(state: &Arc<Mutex<Li>>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    s.log.push(format!("{} {}", req.method, req.target));
    if let Some(n) = req.path().strip_prefix("/upload/") {
        return images::upload(&mut s, req, n);
    }
    let Some(path) = req.path().strip_prefix("/rest") else {
        return error(404, "No such resource");
    };
    if let Some(refused) = check_headers(req, &s.token.clone(), &s.oldest.clone()) {
        return refused;
    }
    let method = req.method.as_str();
    match (method, path) {
        ("POST", "/posts") => create(&mut s, req),
        ("GET", "/posts") => list(&mut s, req),
        ("POST", "/images") if req.query("action").as_deref() == Some("initializeUpload") => {
            images::initialize(&mut s, req)
        }
        _ => match (
            method,
            path.strip_prefix("/posts/"),
            path.strip_prefix("/images/"),
        ) {
            ("GET", Some(urn), _) => read(&s, &decoded(urn)),
            ("POST", Some(urn), _) => update(&mut s, req, &decoded(urn)),
            ("DELETE", Some(urn), _) => delete(&mut s, &decoded(urn)),
            ("GET", _, Some(urn)) => images::image(&s, &decoded(urn)),
            _ => error(404, "No such resource"),
        },
    }
}

/// Why a create's body is not a post the docs describe; `None`: it is.
fn invalid(s: &Li, body: &Value) -> Option<Reply> {
    let commentary = body["commentary"].as_str()?;
    let author = body["author"].as_str().unwrap_or_default();
    if !author.starts_with("urn:li:person:") && !author.starts_with("urn:li:organization:") {
        return Some(error(422, "author: invalid URN"));
    }
    for field in ["visibility", "distribution", "lifecycleState"] {
        if body[field].is_null() {
            return Some(error(422, &format!("{field}: required")));
        }
    }
    if let Some(c) = unescaped(commentary) {
        return Some(error(
            400,
            &format!("commentary: unescaped reserved character `{c}`"),
        ));
    }
    if commentary.chars().count() > 3000 {
        return Some(error(422, "commentary: longer than 3000"));
    }
    images::refused(s, author, &body["content"])
}

fn create(s: &mut Li, req: &Request) -> Reply {
    s.creates += 1;
    let fault = s.faults.pop_front().unwrap_or(Fault::Normal);
    let body = req.json();
    if body["commentary"].as_str().is_none() {
        return error(422, "commentary: required");
    }
    if let Some(refused) = invalid(s, &body) {
        return refused;
    }
    let (author, commentary) = (
        body["author"].as_str().unwrap(),
        body["commentary"].as_str().unwrap(),
    );
    let same = s
        .posts
        .iter()
        .rev()
        .find(|p| p["author"] == author && p["commentary"] == commentary);
    if let Some(same) = same {
        let message = format!("Content is a duplicate of {}", same["id"].as_str().unwrap());
        return error(422, &message);
    }
    match fault {
        Fault::Reject(status) => return error(status, "Refused"),
        // Rate Limiting: "Rate limited requests will receive a 429 response", the daily
        // limits "reset at midnight UTC"; no header saying when to come back is documented, so
        // the fake sends none (the fault's seconds are not used).
        Fault::RateLimit(_) => {
            return error(
                429,
                "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
            );
        }
        Fault::Hang => return Reply::Hang(Duration::from_secs(2)),
        _ => {}
    }
    let at = s.stamp();
    let urn = s.insert(author, commentary, at, body["content"].clone());
    let created = Reply::Raw(201, vec![("x-restli-id".into(), urn)], Vec::new());
    match fault {
        Fault::CommitHang => Reply::Hang(Duration::from_secs(2)),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => error(status, "Internal Server Error"),
        _ => created,
    }
}

fn read(s: &Li, urn: &str) -> Reply {
    match s
        .posts
        .iter()
        .find(|p| p["id"] == urn && p["lifecycleState"] == "PUBLISHED")
    {
        Some(post) => Reply::json(200, post.clone()),
        None => error(404, &format!("Post {urn} not found")),
    }
}

/// `q=author`: the organization's published posts, newest first, `count` (10 by default, at
/// most 100) from `start`.
fn list(s: &mut Li, req: &Request) -> Reply {
    s.listings += 1;
    if req.query("q").as_deref() != Some("author") {
        return error(400, "q: a finder is required");
    }
    let author = req.query("author").unwrap_or_default();
    if !author.starts_with("urn:li:organization:") {
        return error(
            403,
            "Not enough permissions to access: partnerApiPostsExternal.FINDER-author",
        );
    }
    if let Some(status) = s.lookups_fail {
        return error(status, "Try again later");
    }
    let count: usize = req
        .query("count")
        .and_then(|c| c.parse().ok())
        .unwrap_or(10)
        .min(100);
    let start: usize = req.query("start").and_then(|c| c.parse().ok()).unwrap_or(0);
    let mut mine: Vec<&Value> = s
        .posts
        .iter()
        .filter(|p| p["author"] == author && p["lifecycleState"] == "PUBLISHED")
        .collect();
    mine.sort_by_key(|p| std::cmp::Reverse(p["createdAt"].as_i64()));
    let page: Vec<Value> = mine
        .iter()
        .skip(start)
        .take(count)
        .map(|p| (*p).clone())
        .collect();
    Reply::json(
        200,
        json!({"elements": page, "paging": {"start": start, "count": count, "links": []}}),
    )
}

/// The fields a partial update may set, as LinkedIn's Posts API collection lists them ("The
/// following `posts` field are available to update"); any other is refused.
const UPDATABLE: &[&str] = &[
    "commentary",
    "contentCallToActionLabel",
    "contentLandingPage",
    "reshareContext",
    "lifecycleState",
    "adContext",
];

fn update(s: &mut Li, req: &Request, urn: &str) -> Reply {
    if req.header("X-RestLi-Method") != Some("PARTIAL_UPDATE") {
        return error(400, "X-RestLi-Method: PARTIAL_UPDATE is required");
    }
    let fault = s.update_faults.pop_front().unwrap_or(Fault::Normal);
    let set = req.json()["patch"]["$set"].clone();
    let Some(fields) = set.as_object() else {
        return error(400, "patch.$set: required");
    };
    if let Some(other) = fields.keys().find(|k| !UPDATABLE.contains(&k.as_str())) {
        return error(422, &format!("{other}: cannot be updated"));
    }
    if let Some(c) = set["commentary"].as_str().and_then(unescaped) {
        return error(
            400,
            &format!("commentary: unescaped reserved character `{c}`"),
        );
    }
    if let Fault::Reject(status) = fault {
        return error(status, "Refused");
    }
    let at = s.stamp();
    let Some(post) = s
        .posts
        .iter_mut()
        .find(|p| p["id"] == urn && p["lifecycleState"] == "PUBLISHED")
    else {
        return error(404, &format!("Post {urn} not found"));
    };
    for (field, value) in fields {
        post[field] = value.clone();
    }
    post["lastModifiedAt"] = json!(at);
    Reply::Raw(204, Vec::new(), Vec::new())
}

/// "Post deletions are idempotent. Deletion requests for a previously deleted UGC Post will
/// return a 204 code - No Content."
fn delete(s: &mut Li, urn: &str) -> Reply {
    if let Some(p) = s.posts.iter_mut().find(|p| p["id"] == urn) {
        p["lifecycleState"] = json!("DELETED");
    }
    Reply::Raw(204, Vec::new(), Vec::new())
}
