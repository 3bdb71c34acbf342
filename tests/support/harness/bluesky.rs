//! The harness Bluesky: atproto's reference PDS (`@atproto/pds`) and a PLC directory, one Node
//! process on `127.0.0.1:BSKY_PORT` (the PLC on the port below it).
//!
//! The tests start it on their own port, [`BSKY_PORT`], not the harness default 2583: a PDS
//! someone started by hand on 2583 keeps the rate limits on by default (30 logins per 5 minutes,
//! far fewer than a test run makes) and holds their own posts, which [`Pds::reset`] would delete.
//! The PDS reads `BSKY_RATE_LIMITS` when it starts, so `up.sh` alone cannot turn the limits off
//! on a running server: [`Pds::start`] stops our own copy's server first when it runs with them,
//! and refuses (with what to do) a server from another checkout that does.

use super::{
    SKIPPED, agent, answer, get, install, machine_turn, read_env_file, script, source, tail, up,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The PDS port of the tests' server (`BSKY_PORT` for every harness script; PLC on one below).
pub const BSKY_PORT: u16 = 2783;
const POSTS: &str = "app.bsky.feed.post";

/// Bluesky tests hold this for their whole length: one PDS, one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());
static PDS: OnceLock<Result<Pds, String>> = OnceLock::new();

/// The running PDS and this test's turn on it, (a panic naming `DAYRUN_HARNESS` when it is
/// unset: the test was asked for without the harness). Every post record of the account is deleted before it returns.
pub fn bluesky() -> Option<BlueskySession> {
    let Some(source) = source("bluesky") else {
        panic!("{SKIPPED}");
    };
    // A test that panicked while holding the lock leaves it poisoned; the next one still runs.
    let turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let machine = machine_turn("bluesky");
    let pds = match PDS.get_or_init(|| Pds::start(&source)) {
        Ok(pds) => pds,
        Err(why) => panic!("{why}"),
    };
    pds.reset();
    Some(BlueskySession {
        _turn: turn,
        _machine: machine,
        pds,
    })
}

/// A test's exclusive use of the shared PDS.
pub struct BlueskySession {
    _turn: MutexGuard<'static, ()>,
    _machine: std::fs::File,
    pub pds: &'static Pds,
}

impl std::ops::Deref for BlueskySession {
    type Target = Pds;
    fn deref(&self) -> &Pds {
        self.pds
    }
}

/// One `app.bsky.feed.post` record as `listRecords` returns it.
#[derive(Debug, Clone)]
pub struct Record {
    /// `at://DID/app.bsky.feed.post/RKEY`
    pub uri: String,
    pub rkey: String,
    /// The record itself: `text`, `createdAt`, `facets`, `langs`, `embed`…
    pub value: Value,
}

impl Record {
    pub fn text(&self) -> &str {
        self.value["text"].as_str().unwrap_or_default()
    }
}

/// The harness PDS: its folder and the credentials `up.sh` wrote.
#[derive(Debug)]
pub struct Pds {
    /// The harness copy serving the PDS (ours, or one already running from another checkout).
    pub dir: PathBuf,
    /// `http://127.0.0.1:BSKY_PORT`
    pub url: String,
    pub handle: String,
    pub did: String,
    /// What dayrun's `app_password_file` holds.
    pub app_password: String,
    /// The account password: the tests' own writes (deleting records) log in with it.
    pub password: String,
}

/// `BSKY_PORT=…` for every harness script: state, credentials and ports follow it.
fn port_env() -> String {
    BSKY_PORT.to_string()
}

/// The harness copy whose `server.mjs` already serves [`BSKY_PORT`] from another folder
/// (another checkout's target folder), if any: up.sh there is quick, and up.sh here would find
/// the port taken. up.sh starts the server with `BSKY_PORT` in its environment.
fn running_elsewhere(ours: &Path) -> Option<PathBuf> {
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    let want = format!("BSKY_PORT={BSKY_PORT}");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let proc = entry.path();
        let Ok(cmdline) = std::fs::read(proc.join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let Some(script) = args.iter().find(|a| a.ends_with("/server.mjs")) else {
            continue;
        };
        let environ = std::fs::read(proc.join("environ")).unwrap_or_default();
        if !environ.split(|b| *b == 0).any(|v| v == want.as_bytes()) {
            continue;
        }
        let dir = Path::new(script).parent()?.to_path_buf();
        if same(&dir, ours) || !dir.join("list.sh").is_file() {
            return None;
        }
        return Some(dir);
    }
    None
}

impl Pds {
    /// Copy the harness, run `up.sh` with `BSKY_RATE_LIMITS=0` and read the credentials. An
    /// error carries the log's tail.
    fn start(source: &Path) -> Result<Pds, String> {
        let ours = install(source, "bluesky")?;
        let port = port_env();
        let url = format!("http://127.0.0.1:{BSKY_PORT}");
        let dir = match running_elsewhere(&ours) {
            Some(other) => {
                eprintln!(
                    "harness: using the PDS already running from {}",
                    other.display()
                );
                other
            }
            None => {
                if rate_limited(&url) {
                    eprintln!(
                        "harness: our PDS runs with its rate limits on (read at server start): \
                         restarting it with BSKY_RATE_LIMITS=0"
                    );
                    script(&ours, "down.sh", &[], &[("BSKY_PORT", &port)]);
                }
                ours
            }
        };
        let env = [("BSKY_PORT", port.as_str()), ("BSKY_RATE_LIMITS", "0")];
        up(&dir, &env, "up-bluesky.log", "Bluesky PDS")?;
        // up.sh names the files after the port when it is not 2583.
        let path = dir.join(if BSKY_PORT == 2583 {
            "creds.env".to_string()
        } else {
            format!("creds-{BSKY_PORT}.env")
        });
        let creds = read_env_file(&path)?;
        let pds = Pds {
            url: get(&creds, &path, "BSKY_URL")?,
            handle: get(&creds, &path, "BSKY_HANDLE")?,
            did: get(&creds, &path, "BSKY_DID")?,
            app_password: get(&creds, &path, "BSKY_APP_PASSWORD")?,
            password: get(&creds, &path, "BSKY_PASSWORD")?,
            dir,
        };
        if rate_limited(&pds.url) {
            return Err(format!(
                "the PDS on {} (from {}) runs with its rate limits on, which a test run exceeds; \
                 the PDS reads BSKY_RATE_LIMITS when it starts: stop it with \
                 `BSKY_PORT={BSKY_PORT} {}/down.sh` and run the tests again",
                pds.url,
                pds.dir.display(),
                pds.dir.display()
            ));
        }
        Ok(pds)
    }

    /// The last lines of the PDS's own log (one JSON line per request), for failure messages.
    pub fn log_tail(&self, n: usize) -> String {
        let state = if BSKY_PORT == 2583 {
            "state".to_string()
        } else {
            format!("state-{BSKY_PORT}")
        };
        tail(&self.dir.join(state).join("log/server.log"), n)
    }

    /// The content of the password file a project needs.
    pub fn password_file(&self) -> String {
        format!("{}\n", self.app_password)
    }

    /// `GET /xrpc/NSID?QUERY`, straight to the server (no proxy): status and JSON.
    pub fn xrpc_get(&self, nsid: &str, query: &[(&str, &str)]) -> (u16, Value) {
        let url = format!("{}/xrpc/{nsid}", self.url);
        let mut request = agent().get(&url);
        for (name, value) in query {
            request = request.query(*name, *value);
        }
        answer(&format!("GET {url}"), request.call())
    }

    /// `POST /xrpc/NSID` with a JSON body and, if given, a bearer token: status and JSON.
    pub fn xrpc_post(&self, nsid: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let url = format!("{}/xrpc/{nsid}", self.url);
        let mut request = agent()
            .post(&url)
            .header("Content-Type", "application/json");
        if let Some(token) = token {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        let body = serde_json::to_vec(body).unwrap();
        answer(&format!("POST {url}"), request.send(body.as_slice()))
    }

    /// An access token for the account, from its password (not the App Password dayrun uses).
    pub fn login(&self) -> String {
        let (status, doc) = self.xrpc_post(
            "com.atproto.server.createSession",
            None,
            &json!({"identifier": self.handle, "password": self.password}),
        );
        assert_eq!(status, 200, "createSession for the tests: {doc}");
        doc["accessJwt"].as_str().expect("accessJwt").to_string()
    }

    /// Every `app.bsky.feed.post` record of the account (`listRecords`, every page), newest
    /// record key first.
    pub fn records(&self) -> Vec<Record> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut query = vec![("repo", self.did.as_str()), ("collection", POSTS)];
            query.push(("limit", "100"));
            if let Some(cursor) = &cursor {
                query.push(("cursor", cursor));
            }
            let (status, doc) = self.xrpc_get("com.atproto.repo.listRecords", &query);
            assert_eq!(status, 200, "listRecords: {doc}");
            let page = doc["records"].as_array().cloned().unwrap_or_default();
            for record in &page {
                let uri = record["uri"].as_str().expect("a record uri").to_string();
                out.push(Record {
                    rkey: uri.rsplit('/').next().unwrap().to_string(),
                    uri,
                    value: record["value"].clone(),
                });
            }
            cursor = doc["cursor"].as_str().map(str::to_string);
            if page.is_empty() || cursor.is_none() {
                return out;
            }
        }
    }

    /// The record under `rkey` (`getRecord`: `uri`, `cid`, `value`), or `None` when the server
    /// answers `400 RecordNotFound`. Any other answer is a panic.
    pub fn get_record(&self, rkey: &str) -> Option<Value> {
        let (status, doc) = self.xrpc_get(
            "com.atproto.repo.getRecord",
            &[
                ("repo", self.did.as_str()),
                ("collection", POSTS),
                ("rkey", rkey),
            ],
        );
        match status {
            200 => Some(doc),
            400 if doc["error"] == "RecordNotFound" => None,
            _ => panic!("getRecord {rkey}: {status} {doc}"),
        }
    }

    /// Delete every post record of the account, so a test starts from zero.
    pub fn reset(&self) {
        let records = self.records();
        if records.is_empty() {
            return;
        }
        let token = self.login();
        for record in &records {
            let (status, doc) = self.xrpc_post(
                "com.atproto.repo.deleteRecord",
                Some(&token),
                &json!({"repo": self.did, "collection": POSTS, "rkey": record.rkey}),
            );
            assert_eq!(status, 200, "deleteRecord {}: {doc}", record.uri);
        }
        let left = self.records();
        assert!(left.is_empty(), "reset left records: {left:#?}");
    }
}

/// Whether the server at `url` enforces its rate limits: then every XRPC answer carries
/// `RateLimit-Limit`. `false` when nothing answers (then up.sh starts it).
fn rate_limited(url: &str) -> bool {
    agent()
        .get(&format!("{url}/xrpc/com.atproto.server.describeServer"))
        .call()
        .is_ok_and(|r| r.headers().contains_key("ratelimit-limit"))
}
