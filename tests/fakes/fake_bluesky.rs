//! A strict fake Bluesky PDS, XRPC under `/xrpc/`, answering as `@atproto/pds` 0.5.35 answers a
//! client (facts: /work/shared/harness/bluesky/README.md, observed with its smoke.sh; record
//! rules in `fake_bluesky_rules.rs`): App Password login (wrong → 401 AuthenticationRequired,
//! 429 RateLimitExceeded with Retry-After and RateLimit-Reset), refreshSession (a used refresh
//! token stays valid), bearer checks (none → 401 AuthMissing, unknown → 400 InvalidToken,
//! expired → 400 ExpiredToken), createRecord with the client's TID rkey (a taken rkey → 500
//! InternalServerError, the first record unchanged), getRecord (missing → 400 RecordNotFound),
//! deleteRecord (200 `{commit}`, again 200 `{}`), putRecord, listRecords (newest first).
//! Faults per request, a switch that echoes secrets in error bodies, and a watch that copies
//! the state line dayrun holds when a createRecord arrives. Blobs and images embeds (issue 14):
//! `fake_bluesky/images.rs`.

#![allow(dead_code)]

use crate::fakes::fake_bluesky_rules::{self as rules, POST};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use crate::support::util::base64;
use serde_json::{Value, json};
use sha2::Digest;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod images;
pub mod repo;
mod selftest;

pub const HANDLE: &str = "alice.test";
pub const DID: &str = "did:plc:w4xbfzo7kqfes5zb7r6qv3rw";
pub const APP_PASSWORD: &str = "k3v9-pq2x-7hmr-wz4t";

/// A record in the repo.
#[derive(Debug, Clone)]
pub struct Stored {
    pub rkey: String,
    pub uri: String,
    pub cid: String,
    pub value: Value,
}

impl Stored {
    pub fn text(&self) -> &str {
        self.value["text"].as_str().unwrap_or("")
    }
}

/// `at://DID/app.bsky.feed.post/RKEY`
pub fn uri(rkey: &str) -> String {
    format!("at://{DID}/{POST}/{rkey}")
}

#[derive(Default)]
pub struct Pds {
    /// `app.bsky.feed.post` records by rkey.
    pub records: BTreeMap<String, Stored>,
    /// Records deleteRecord removed, in order.
    pub deleted: Vec<Stored>,
    /// Every XRPC call that arrived, by NSID, in order (whatever became of it).
    pub calls: Vec<String>,
    /// The rkey every getRecord asked for, in order.
    pub got: Vec<String>,
    /// The cursor every listRecords asked for, in order (empty: none).
    pub listed: Vec<String>,
    /// What the next listRecords meet.
    pub list_faults: VecDeque<repo::ListFault>,
    /// 429 answers carry `RateLimit-Reset` (epoch seconds) but no `Retry-After`, as the
    /// PDS's write and global limits may.
    pub reset_only: bool,
    /// The body of every createRecord that got past the token check.
    pub creates: Vec<Value>,
    /// What the next createRecords meet after the token check (then `create_chooser`).
    pub create_faults: VecDeque<Fault>,
    pub create_chooser: Option<Box<dyn FnMut() -> Fault + Send>>,
    /// Status codes for the next getRecords (200 = normal; 400 = a RecordNotFound lie is never
    /// told: any other code answers an error body).
    pub get_faults: VecDeque<u16>,
    /// Like `get_faults`, for getRecords after the first createRecord (confirmation, not the
    /// pre-submit lookups).
    pub confirm_faults: VecDeque<u16>,
    pub get_chooser: Option<Box<dyn FnMut() -> u16 + Send>>,
    /// The next createSessions answer 429 with this Retry-After (seconds).
    pub login_faults: VecDeque<u64>,
    pub delete_faults: VecDeque<Fault>,
    /// When a call to this NSID arrives with a valid access token, every access token issued so
    /// far expires first (once): "the token expired between login and this call".
    pub expire_before: Option<String>,
    /// refreshSession refuses (400 ExpiredToken).
    pub refresh_refused: bool,
    /// Error bodies echo the password and the tokens the request carried.
    pub echo_secrets: bool,
    pub hang: Duration,
    /// `state/<target>` of a project: when a createRecord arrives, the latest `pending` line of
    /// its journal (else of its state file) is copied to `pending_at_create`.
    pub watch: Option<PathBuf>,
    pub pending_at_create: Vec<Option<String>>,
    /// Every token a session handed out (access and refresh), to look for in output.
    pub issued: Vec<String>,
    /// Access token → (expired, its refresh token).
    /// Blobs by CID.
    pub blobs: BTreeMap<String, images::Blob>,
    /// The CID of every uploadBlob that got past the token check, in order (repeats too).
    pub uploads: Vec<String>,
    /// What the next uploadBlobs meet (`CommitHang`: stored, no answer).
    pub upload_faults: VecDeque<Fault>,
    access: HashMap<String, (bool, String)>,
    refresh: HashSet<String>,
    serial: u64,
}

pub struct FakeBluesky {
    pub server: Server,
    pub state: Arc<Mutex<Pds>>,
}

impl FakeBluesky {
    pub fn start() -> FakeBluesky {
        let state = Arc::new(Mutex::new(Pds {
            hang: Duration::from_millis(600),
            ..Pds::default()
        }));
        let shared = state.clone();
        FakeBluesky {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    /// A `[targets.NAME]` table for this PDS with fast timeouts, retries and confirmation.
    pub fn config(&self, name: &str, extra: &str) -> String {
        format!(
            "[targets.{name}]\nkind = \"bluesky\"\nservice = \"{}\"\nhandle = \"{HANDLE}\"\napp_password_file = \"secrets/bsky.password\"\ntimeout_secs = 0.3\nconnect_timeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nretry_after_cap_secs = 2\n{extra}\n",
            self.server.url("")
        )
    }

    pub fn records(&self) -> Vec<Stored> {
        self.state
            .lock()
            .unwrap()
            .records
            .values()
            .cloned()
            .collect()
    }

    pub fn record(&self, rkey: &str) -> Option<Stored> {
        self.state.lock().unwrap().records.get(rkey).cloned()
    }

    /// How many calls to `nsid` (e.g. `com.atproto.repo.createRecord`) arrived.
    pub fn count(&self, nsid: &str) -> usize {
        self.calls().iter().filter(|c| c.ends_with(nsid)).count()
    }

    /// The blob with this CID.
    pub fn blob(&self, cid: &str) -> Option<images::Blob> {
        self.state.lock().unwrap().blobs.get(cid).cloned()
    }

    pub fn calls(&self) -> Vec<String> {
        self.state.lock().unwrap().calls.clone()
    }

    pub fn create_faults(&self, faults: &[Fault]) -> &FakeBluesky {
        self.state.lock().unwrap().create_faults.extend(faults);
        self
    }

    pub fn get_faults(&self, statuses: &[u16]) -> &FakeBluesky {
        self.state.lock().unwrap().get_faults.extend(statuses);
        self
    }

    pub fn confirm_faults(&self, statuses: &[u16]) -> &FakeBluesky {
        self.state.lock().unwrap().confirm_faults.extend(statuses);
        self
    }

    /// A record another run (or the app) made with this rkey.
    pub fn seed(&self, rkey: &str, text: &str) {
        let value = json!({"$type": POST, "text": text, "createdAt": "2026-11-29T07:00:00.000Z"});
        self.state.lock().unwrap().commit(rkey, value);
    }

    /// Copy the pending line of `target` in `root`'s state when each createRecord arrives.
    pub fn watch(&self, root: &std::path::Path, target: &str) {
        self.state.lock().unwrap().watch = Some(root.join("state").join(target));
    }
}

impl Pds {
    fn commit(&mut self, rkey: &str, value: Value) -> Stored {
        let stored = Stored {
            rkey: rkey.into(),
            uri: uri(rkey),
            cid: rules::cid(&value),
            value,
        };
        self.records.insert(rkey.into(), stored.clone());
        stored
    }

    /// Stricter than the PDS (which takes any well-formed strong refs): a reply's root and
    /// parent must be records of this repo, named by their current URI and CID, and the parent
    /// must belong to the same thread (its root is this root, or it is the root).
    fn check_reply(&self, record: &Value) -> Result<(), String> {
        let reply = &record["reply"];
        if reply.is_null() {
            return Ok(());
        }
        let find = |side: &str| {
            let strong = &reply[side];
            self.records
                .values()
                .find(|r| r.uri == strong["uri"] && r.cid == strong["cid"])
                .ok_or_else(|| {
                    format!(
                        "fake PDS: reply.{side} {strong} is not a record of this repo with that cid"
                    )
                })
        };
        let (root, parent) = (find("root")?, find("parent")?);
        let parent_root = parent.value["reply"]["root"]["uri"]
            .as_str()
            .unwrap_or(&parent.uri);
        if parent_root != root.uri {
            return Err(format!(
                "fake PDS: reply.parent {} is not in the thread of {}",
                parent.uri, root.uri
            ));
        }
        Ok(())
    }

    fn rev(&mut self) -> String {
        self.serial += 1;
        rules::tid(1_800_000_000_000_000 + self.serial, 0)
    }

    /// A new session: an access JWT (2 h) and a refresh JWT, shaped as the PDS makes them.
    fn session(&mut self) -> Value {
        self.serial += 1;
        let n = self.serial;
        let jwt = |typ: &str, scope: &str| {
            let head = base64(
                format!("{{\"typ\":\"{typ}\",\"alg\":\"HS256\"}}").as_bytes(),
                true,
                false,
            );
            let body = format!(
                "{{\"scope\":\"{scope}\",\"sub\":\"{DID}\",\"aud\":\"did:web:localhost\",\"iat\":1764400000,\"exp\":1764407200,\"jti\":\"{typ}{n}\"}}"
            );
            let sig = sha2::Sha256::digest(format!("fake-pds-secret {typ} {n}").as_bytes());
            format!(
                "{head}.{}.{}",
                base64(body.as_bytes(), true, false),
                base64(&sig, true, false)
            )
        };
        let access = jwt("at+jwt", "com.atproto.appPass");
        let refresh = jwt("refresh+jwt", "com.atproto.refresh");
        self.access.insert(access.clone(), (false, refresh.clone()));
        self.refresh.insert(refresh.clone());
        self.issued.extend([access.clone(), refresh.clone()]);
        json!({"did": DID, "handle": HANDLE, "email": "alice@example.com", "emailConfirmed": false,
               "active": true, "accessJwt": access, "refreshJwt": refresh})
    }

    /// An XRPC error body; with `echo_secrets`, the secrets the request carried come first.
    fn error(&self, req: &Request, status: u16, name: &str, message: &str) -> Reply {
        let mut message = message.to_string();
        if self.echo_secrets {
            let mut seen = Vec::new();
            if let Some(pw) = req.json()["password"].as_str() {
                seen.push(format!("password={pw}"));
            }
            if let Some(token) = bearer(req) {
                seen.push(format!("authorization=Bearer {token}"));
                if let Some((_, refresh)) = self.access.get(token) {
                    seen.push(format!("refreshJwt={refresh}"));
                }
            }
            message = format!("[request had {}] {message}", seen.join(" "));
        }
        Reply::json(status, json!({"error": name, "message": message}))
    }

    /// The access token check every authenticated call starts with.
    fn authorize(&mut self, req: &Request, nsid: &str) -> Result<(), Reply> {
        let Some(token) = bearer(req) else {
            return Err(self.error(req, 401, "AuthMissing", "Authentication Required"));
        };
        let Some((expired, _)) = self.access.get(token).cloned() else {
            return Err(self.error(req, 400, "InvalidToken", "Token could not be verified"));
        };
        if !expired && self.expire_before.as_deref() == Some(nsid) {
            self.expire_before = None;
            self.access.values_mut().for_each(|(e, _)| *e = true);
        } else if !expired {
            return Ok(());
        }
        Err(self.error(req, 400, "ExpiredToken", "Token has expired"))
    }

    fn watch_pending(&mut self) {
        let Some(base) = &self.watch else {
            return;
        };
        let read =
            |ext: &str| std::fs::read_to_string(base.with_extension(ext)).unwrap_or_default();
        let (journal, state) = (read("journal"), read("state"));
        let last = |text: &str| {
            text.lines()
                .rev()
                .find(|l| l.contains(" pending "))
                .map(str::to_string)
        };
        let line = last(&journal).or_else(|| last(&state));
        self.pending_at_create.push(line);
    }
}

fn bearer(req: &Request) -> Option<&str> {
    req.header("authorization")?.strip_prefix("Bearer ")
}

fn handle(state: &Arc<Mutex<Pds>>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    let Some(nsid) = req.path().strip_prefix("/xrpc/").map(str::to_string) else {
        return Reply::json(404, json!({"error": "NotFound", "message": "Not Found"}));
    };
    s.calls.push(nsid.clone());
    let query = nsid.ends_with(".getRecord")
        || nsid.ends_with(".listRecords")
        || nsid.ends_with(".getBlob");
    let want = if query { "GET" } else { "POST" };
    if req.method != want {
        let msg = format!("Incorrect HTTP method ({}) expected {want}", req.method);
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    match nsid.as_str() {
        "com.atproto.server.createSession" => create_session(&mut s, req),
        "com.atproto.server.refreshSession" => {
            let known = bearer(req).is_some_and(|t| s.refresh.contains(t));
            if !known {
                return s.error(req, 400, "InvalidToken", "Token could not be verified");
            }
            if s.refresh_refused {
                return s.error(req, 400, "ExpiredToken", "Token has expired");
            }
            Reply::json(200, s.session())
        }
        "com.atproto.repo.createRecord" => {
            if let Err(reply) = s.authorize(req, &nsid) {
                return reply;
            }
            create_record(&mut s, req)
        }
        "com.atproto.repo.uploadBlob" => {
            if let Err(reply) = s.authorize(req, &nsid) {
                return reply;
            }
            images::upload_blob(&mut s, req)
        }
        "com.atproto.sync.getBlob" => images::get_blob(&s, req),
        "com.atproto.repo.getRecord" => repo::get_record(&mut s, req),
        "com.atproto.repo.listRecords" => repo::list_records(&mut s, req),
        "com.atproto.repo.deleteRecord" | "com.atproto.repo.putRecord" => {
            if let Err(reply) = s.authorize(req, &nsid) {
                return reply;
            }
            let body = req.json();
            if let Err(reply) = target_of(&s, req, &body) {
                return reply;
            }
            let rkey = body["rkey"].as_str().unwrap_or("").to_string();
            match nsid.ends_with("deleteRecord") {
                true => repo::delete_record(&mut s, req, &rkey),
                false => repo::put_record(&mut s, req, &rkey, &body["record"]),
            }
        }
        _ => s.error(req, 501, "MethodNotImplemented", "Method Not Implemented"),
    }
}

fn create_session(s: &mut Pds, req: &Request) -> Reply {
    if let Some(secs) = s.login_faults.pop_front() {
        let reset = jiff::Timestamp::now().as_second() + secs as i64;
        return Reply::Json(
            429,
            vec![
                ("Retry-After".into(), secs.to_string()),
                ("RateLimit-Limit".into(), "30".into()),
                ("RateLimit-Remaining".into(), "0".into()),
                ("RateLimit-Reset".into(), reset.to_string()),
                ("RateLimit-Policy".into(), "30;w=300".into()),
            ],
            json!({"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}),
        );
    }
    let body = req.json();
    let who = body["identifier"].as_str().unwrap_or("");
    let known = [HANDLE, DID, "alice@example.com"].contains(&who);
    if !known || body["password"] != APP_PASSWORD {
        let msg = "Invalid identifier or password";
        return s.error(req, 401, "AuthenticationRequired", msg);
    }
    Reply::json(200, s.session())
}

/// `repo` and `collection` of a write: this account's DID (or handle) and the post collection.
fn target_of(s: &Pds, req: &Request, body: &Value) -> Result<(), Reply> {
    let repo = body["repo"].as_str().unwrap_or("");
    if repo != DID && repo != HANDLE {
        return Err(s.error(
            req,
            400,
            "InvalidRequest",
            &format!("Could not find repo: {repo}"),
        ));
    }
    if body["collection"] != POST {
        let msg = format!("fake PDS: only {POST} is kept, not {}", body["collection"]);
        return Err(s.error(req, 400, "InvalidRequest", &msg));
    }
    Ok(())
}

fn create_record(s: &mut Pds, req: &Request) -> Reply {
    let body = req.json();
    s.creates.push(body.clone());
    s.watch_pending();
    let fault = match s.create_faults.pop_front() {
        Some(fault) => fault,
        None => s.create_chooser.as_mut().map_or(Fault::Normal, |f| f()),
    };
    match fault {
        Fault::RateLimit(secs) => {
            let reset = jiff::Timestamp::now().as_second() + secs as i64;
            let mut headers = vec![("RateLimit-Reset".into(), reset.to_string())];
            if !s.reset_only {
                headers.push(("Retry-After".into(), secs.to_string()));
            }
            return Reply::Json(
                429,
                headers,
                json!({"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}),
            );
        }
        Fault::Reject(400) => return s.error(req, 400, "InvalidRequest", "Invalid request"),
        Fault::Reject(status) => {
            return s.error(req, status, "InternalServerError", "Internal Server Error");
        }
        Fault::Hang => return Reply::Hang(s.hang),
        _ => {}
    }
    if let Err(reply) = target_of(s, req, &body) {
        return reply;
    }
    let rkey = match body["rkey"].as_str() {
        Some(rkey) => rkey.to_string(),
        None => s.rev(),
    };
    if let Some(msg) = rules::bad_rkey(&rkey) {
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    if let Err(msg) = rules::check_post(&body["record"]) {
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    if s.records.contains_key(&rkey) {
        // "There is already a value at key: app.bsky.feed.post/RKEY" in the PDS's log only.
        return s.error(req, 500, "InternalServerError", "Internal Server Error");
    }
    if let Err(reply) = images::check_record(s, req, &body["record"], &uri(&rkey)) {
        return reply;
    }
    if let Err(msg) = s.check_reply(&body["record"]) {
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    let stored = s.commit(&rkey, body["record"].clone());
    let rev = s.rev();
    let answer = json!({"uri": stored.uri, "cid": stored.cid, "commit": {"cid": rules::cid(&json!(rev)), "rev": rev}, "validationStatus": "valid"});
    match fault {
        Fault::CommitHang => Reply::Hang(s.hang),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => {
            s.error(req, status, "InternalServerError", "Internal Server Error")
        }
        Fault::CommitNoReceipt => Reply::json(200, json!({})),
        _ => Reply::json(200, answer),
    }
}
