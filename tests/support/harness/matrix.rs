//! The harness Synapse (Synapse 1.163.2 on SQLite, on `127.0.0.1:8448`), its user, its room,
//! and a client for the tests' own calls (reading the room, making an encrypted room, a new
//! login): the room is counted by reading it, never by what dayrun says.

use super::{SKIPPED, agent, answer, get, install, machine_turn, read_env_file, source, up};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Matrix tests hold this for their whole length: one room, one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());
static SYNAPSE: OnceLock<Result<Synapse, String>> = OnceLock::new();

/// The running Synapse and this test's turn on it (a panic naming `DAYRUN_HARNESS` when it is
/// unset: the test was asked for without the harness).
pub fn synapse() -> Option<Session> {
    let Some(source) = source("matrix") else {
        panic!("{SKIPPED}");
    };
    let turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let machine = machine_turn("matrix");
    let synapse = match SYNAPSE.get_or_init(|| Synapse::start(&source)) {
        Ok(synapse) => synapse,
        Err(why) => panic!("{why}"),
    };
    Some(Session {
        _turn: turn,
        _machine: machine,
        synapse,
    })
}

/// A test's exclusive use of the shared Synapse.
pub struct Session {
    _turn: MutexGuard<'static, ()>,
    _machine: std::fs::File,
    pub synapse: &'static Synapse,
}

impl std::ops::Deref for Session {
    type Target = Synapse;
    fn deref(&self) -> &Synapse {
        self.synapse
    }
}

/// The harness copy already serving Synapse from another folder (the one started by hand,
/// another checkout's), if any: a second `up.sh` would find the port taken. Found by the
/// running homeserver's config (`-c <copy>/state/homeserver.yaml`; it daemonizes, so its
/// working folder says nothing), with `creds.env` beside the copy's `state/`.
fn running_elsewhere(ours: &Path) -> Option<PathBuf> {
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if !args.iter().any(|a| a == "synapse.app.homeserver") {
            continue;
        }
        let Some(config) = args.iter().skip_while(|a| *a != "-c").nth(1) else {
            continue;
        };
        let Some(dir) = Path::new(config).parent().and_then(Path::parent) else {
            continue;
        };
        if !same(dir, ours) && dir.join("creds.env").is_file() && dir.join("list.sh").is_file() {
            return Some(dir.to_path_buf());
        }
    }
    None
}

/// The harness Synapse: its URL, the user's token and the test room.
#[derive(Debug)]
pub struct Synapse {
    pub dir: PathBuf,
    pub url: String,
    pub user: String,
    password: String,
    pub token: String,
    pub room: String,
}

impl Synapse {
    /// Copy the harness, run `up.sh` (or use the one running) and read `creds.env`.
    fn start(source: &Path) -> Result<Synapse, String> {
        let ours = install(source, "matrix")?;
        let dir = match running_elsewhere(&ours) {
            Some(other) => {
                eprintln!(
                    "harness: using the Synapse already running from {}",
                    other.display()
                );
                other
            }
            None => ours,
        };
        up(&dir, &[], "matrix-up.log", "Synapse")?;
        let path = dir.join("creds.env");
        let creds = read_env_file(&path)?;
        Ok(Synapse {
            url: get(&creds, &path, "MX_URL")?,
            user: get(&creds, &path, "MX_USER")?,
            password: get(&creds, &path, "MX_PASSWORD")?,
            token: get(&creds, &path, "MX_TOKEN")?,
            room: get(&creds, &path, "MX_ROOM_ID")?,
            dir,
        })
    }

    /// One client-server call with `token`: status and JSON.
    pub fn call(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.call_at(&self.url, token, (method, path), body)
    }

    /// One client-server call to `base` (the server, or a proxy before it).
    pub fn call_at(
        &self,
        base: &str,
        token: &str,
        (method, path): (&str, &str),
        body: Option<&Value>,
    ) -> (u16, Value) {
        let url = format!("{base}/_matrix/client/v3{path}");
        let auth = format!("Bearer {token}");
        let what = format!("{method} {path}");
        match body {
            None => answer(
                &what,
                agent().get(&url).header("Authorization", &auth).call(),
            ),
            Some(body) => {
                let bytes = body.to_string().into_bytes();
                let request = match method {
                    "PUT" => agent().put(&url),
                    _ => agent().post(&url),
                };
                answer(
                    &what,
                    request
                        .header("Authorization", &auth)
                        .header("Content-Type", "application/json")
                        .send(&bytes[..]),
                )
            }
        }
    }

    /// A room of the harness user with encryption on, made once per test process. Its id.
    pub fn encrypted_room(&self) -> String {
        static ROOM: OnceLock<String> = OnceLock::new();
        ROOM.get_or_init(|| {
            self.create_room(json!({"preset": "private_chat", "name": "dayrun encrypted",
                "initial_state": [{"type": "m.room.encryption", "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"}}]}))
        })
        .clone()
    }

    /// An empty room, made once per test process: for a measure that must not page through
    /// what earlier tests left in the harness room. Its id.
    pub fn empty_room(&self) -> String {
        static ROOM: OnceLock<String> = OnceLock::new();
        ROOM.get_or_init(|| {
            self.create_room(json!({"preset": "private_chat", "name": "dayrun measure"}))
        })
        .clone()
    }

    /// `createRoom` with `body` (Synapse limits room creation: a 429 is waited out as it
    /// asks). Its id.
    fn create_room(&self, body: Value) -> String {
        for _ in 0..5 {
            let (status, doc) = self.call(&self.token, "POST", "/createRoom", Some(&body));
            match (status, doc["retry_after_ms"].as_u64()) {
                (200, _) => return doc["room_id"].as_str().expect("a room id").to_string(),
                (429, Some(wait)) => {
                    std::thread::sleep(std::time::Duration::from_millis(wait + 100));
                }
                _ => panic!("createRoom: {status} {doc}"),
            }
        }
        panic!("createRoom: still rate-limited");
    }

    /// The posts in the harness room that target `target` sent: `m.room.message` events
    /// carrying its name in `app.dayrun.key`, not edits and not redacted, oldest first. Each
    /// test names its target afresh, so it counts only its own.
    pub fn posts_of(&self, target: &str) -> Vec<Value> {
        self.posts(&self.room)
            .into_iter()
            .filter(|e| e["content"]["app.dayrun.key"]["target"] == target)
            .collect()
    }

    /// A new login of the harness user on device `device`: its access token.
    pub fn login(&self, device: &str) -> String {
        let body = json!({"type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": self.user},
            "password": self.password, "device_id": device});
        let (status, doc) = self.call("", "POST", "/login", Some(&body));
        assert_eq!(status, 200, "login: {doc}");
        doc["access_token"].as_str().expect("a token").to_string()
    }

    /// Every event of `room`, oldest first, read through `/messages` to the room's start.
    pub fn events(&self, room: &str) -> Vec<Value> {
        let mut events = Vec::new();
        let mut from: Option<String> = None;
        loop {
            let mut path = format!("/rooms/{}/messages?dir=b&limit=100", encode(room));
            if let Some(from) = &from {
                path.push_str(&format!("&from={}", encode(from)));
            }
            let (status, page) = self.call(&self.token, "GET", &path, None);
            assert_eq!(status, 200, "messages: {page}");
            let chunk = page["chunk"].as_array().cloned().unwrap_or_default();
            events.extend(chunk.iter().cloned());
            match page["end"].as_str() {
                Some(end) if !chunk.is_empty() => from = Some(end.to_string()),
                _ => break,
            }
        }
        events.reverse();
        events
    }

    /// The room's messages a reader sees as posts: `m.room.message` events that are not
    /// edits and not redacted.
    pub fn posts(&self, room: &str) -> Vec<Value> {
        self.events(room)
            .into_iter()
            .filter(|e| e["type"] == "m.room.message")
            .filter(|e| e["content"]["m.relates_to"]["rel_type"] != "m.replace")
            .filter(|e| e["unsigned"]["redacted_because"].is_null())
            .collect()
    }

    /// One event as `/event/{id}` answers it.
    pub fn event(&self, room: &str, id: &str) -> (u16, Value) {
        let path = format!("/rooms/{}/event/{}", encode(room), encode(id));
        self.call(&self.token, "GET", &path, None)
    }
}

/// Percent-encode one path part or query value (RFC 3986 unreserved characters pass).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
