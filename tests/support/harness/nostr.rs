//! The harness Nostr relays: nostr-rs-relay 0.8.12 and nostr-relay 1.14 on loopback. A Nostr
//! identity is a key the test makes, so each test signs with a fresh key and counts only its
//! own events (no reset); [`Relays::query`] counts what a relay holds with the harness's own
//! `query.py` (one `REQ` to `EOSE`), never through dayrun.

use super::{SKIPPED, get, install, machine_turn, read_env_file, source, up};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

static SERIAL: Mutex<()> = Mutex::new(());
static RELAYS: OnceLock<Result<Relays, String>> = OnceLock::new();

/// The two running relays, and this test's turn on them (a panic naming `DAYRUN_HARNESS` when
/// it is unset).
pub fn nostr() -> NostrSession {
    let Some(source) = source("nostr") else {
        panic!("{SKIPPED}");
    };
    let turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let machine = machine_turn("nostr");
    let relays = match RELAYS.get_or_init(|| Relays::start(&source)) {
        Ok(relays) => relays,
        Err(why) => panic!("{why}"),
    };
    NostrSession {
        _turn: turn,
        _machine: machine,
        relays,
    }
}

pub struct NostrSession {
    _turn: MutexGuard<'static, ()>,
    _machine: std::fs::File,
    pub relays: &'static Relays,
}

impl std::ops::Deref for NostrSession {
    type Target = Relays;
    fn deref(&self) -> &Relays {
        self.relays
    }
}

#[derive(Debug)]
pub struct Relays {
    dir: PathBuf,
    /// `ws://127.0.0.1:7447`: nostr-rs-relay.
    pub rs: String,
    /// `ws://127.0.0.1:7448`: nostr-relay.
    pub py: String,
}

impl Relays {
    fn start(source: &std::path::Path) -> Result<Relays, String> {
        let dir = install(source, "nostr")?;
        up(&dir, &[], "nostr-up.log", "Nostr relays")?;
        let path = dir.join("creds.env");
        let creds = read_env_file(&path)?;
        Ok(Relays {
            rs: get(&creds, &path, "NOSTR_RELAY_RS")?,
            py: get(&creds, &path, "NOSTR_RELAY_PY")?,
            dir,
        })
    }

    /// Every event `relay` holds that matches `filter`, by the harness's `query.py`.
    pub fn query(&self, relay: &str, filter: &Value) -> Vec<Value> {
        let out = Command::new("python3")
            .arg(self.dir.join("query.py"))
            .arg(relay)
            .arg(filter.to_string())
            .output()
            .unwrap_or_else(|e| panic!("query.py: {e}"));
        assert!(
            out.status.success(),
            "query.py {relay}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// The public key (hex, x-only) of a secret key (hex).
pub fn public_of(secret: &str) -> String {
    let bytes: Vec<u8> = (0..secret.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&secret[i..i + 2], 16).unwrap())
        .collect();
    let key = k256::schnorr::SigningKey::from_bytes(&bytes).unwrap();
    key.verifying_key()
        .to_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A fresh secret key (hex) for one test: its own identity on the relays.
pub fn fresh_key(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let digest = Sha256::digest(format!("{test} {nanos} {}", std::process::id()).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A nostr-relay of a test's own, on a free port, started and stopped by the test (the
/// harness's `up.sh` and `down.sh` with `NOSTR_ONLY=py` and their own port and state), so a
/// relay can be down and come back while the shared ones run on. Stopped and purged on drop.
pub struct OwnRelay {
    dir: PathBuf,
    env: Vec<(String, String)>,
    pub url: String,
}

impl Relays {
    /// A relay of the test's own, not started yet.
    pub fn own_relay(&self) -> OwnRelay {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let state = super::work_dir().join(format!("nostr-own-{port}"));
        let env = vec![
            ("NOSTR_ONLY".to_string(), "py".to_string()),
            ("NOSTR_PY_PORT".to_string(), port.to_string()),
            (
                "NOSTR_STATE_DIR".to_string(),
                state.join("state").display().to_string(),
            ),
            (
                "NOSTR_CREDS".to_string(),
                state.join("creds.env").display().to_string(),
            ),
        ];
        OwnRelay {
            dir: self.dir.clone(),
            env,
            url: format!("ws://127.0.0.1:{port}"),
        }
    }
}

impl OwnRelay {
    fn script(&self, name: &str, args: &[&str]) {
        let env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        super::script(&self.dir, name, args, &env);
    }

    pub fn start(&self) {
        self.script("up.sh", &[]);
    }

    pub fn stop(&self) {
        self.script("down.sh", &[]);
    }
}

impl Drop for OwnRelay {
    fn drop(&mut self) {
        self.script("down.sh", &["--purge"]);
    }
}
