//! The harness Ghost (Ghost 5.130.6 on SQLite, on `127.0.0.1:2368`).

use super::{SKIPPED, get, install, machine_turn, read_env_file, script, source, up};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Ghost tests hold this for their whole length: one Ghost, one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());
static GHOST: OnceLock<Result<Ghost, String>> = OnceLock::new();

/// The running Ghost and this test's turn on it (a panic naming `DAYRUN_HARNESS` when it is
/// unset: the test was asked for without the harness). Every post is deleted before it returns.
pub fn ghost() -> Option<Session> {
    let Some(source) = source("ghost") else {
        panic!("{SKIPPED}");
    };
    // A test that panicked while holding the lock leaves it poisoned; the next one still runs.
    let turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let machine = machine_turn("ghost");
    let ghost = match GHOST.get_or_init(|| Ghost::start(&source)) {
        Ok(ghost) => ghost,
        Err(why) => panic!("{why}"),
    };
    ghost.reset();
    Some(Session {
        _turn: turn,
        _machine: machine,
        ghost,
    })
}

/// A test's exclusive use of the shared Ghost.
pub struct Session {
    _turn: MutexGuard<'static, ()>,
    _machine: std::fs::File,
    pub ghost: &'static Ghost,
}

impl std::ops::Deref for Session {
    type Target = Ghost;
    fn deref(&self) -> &Ghost {
        self.ghost
    }
}

/// The harness copy already serving Ghost from another folder (another checkout's target
/// folder), if any: a second `up.sh` would find the port taken. Found by the running Ghost's
/// working folder (`<copy>/app`), which holds the `creds.env` beside it.
fn running_elsewhere(ours: &Path) -> Option<PathBuf> {
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains("index.js") {
            continue;
        }
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        let Some(dir) = cwd.parent().filter(|_| cwd.ends_with("ghost/app")) else {
            continue;
        };
        if !same(dir, ours) && dir.join("creds.env").is_file() && dir.join("ghost.py").is_file() {
            return Some(dir.to_path_buf());
        }
    }
    None
}

/// The harness Ghost: its scripts and the credentials `up.sh` wrote.
#[derive(Debug)]
pub struct Ghost {
    /// The harness copy serving Ghost (ours, or one already running from another checkout).
    pub dir: PathBuf,
    pub url: String,
    /// The integration's Admin API key, `id:secret`.
    pub admin_key: String,
}

impl Ghost {
    /// Copy the harness, run `up.sh` and read `creds.env`. An error carries the log's tail.
    fn start(source: &Path) -> Result<Ghost, String> {
        let ours = install(source, "ghost")?;
        let dir = match running_elsewhere(&ours) {
            Some(other) => {
                eprintln!(
                    "harness: using the Ghost already running from {}",
                    other.display()
                );
                other
            }
            None => ours,
        };
        up(&dir, &[], "ghost-up.log", "Ghost")?;
        let path = dir.join("creds.env");
        let creds = read_env_file(&path)?;
        Ok(Ghost {
            url: get(&creds, &path, "GHOST_URL")?,
            admin_key: get(&creds, &path, "GHOST_ADMIN_KEY")?,
            dir,
        })
    }

    /// Delete every post on the server.
    pub fn reset(&self) {
        script(&self.dir, "reset.sh", &[], &[]);
    }

    /// Every post on the server, any status, read by `list.sh`: `id`, `slug`, `title`,
    /// `status`, `url`, `published_at`, `updated_at`, `html`, `tags` (names), `feature_image`.
    pub fn posts(&self) -> Vec<Value> {
        let text = script(&self.dir, "list.sh", &[], &[]);
        let doc: Value = serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("list.sh printed no JSON ({e}):\n{text}"));
        doc.as_array().cloned().unwrap_or_default()
    }

    /// The content of the key file a project needs.
    pub fn key_file(&self) -> String {
        format!("{}\n", self.admin_key)
    }

    /// One Admin API call as the harness integration, straight to the server (no proxy), made
    /// by the harness's own `ghost.py` (not dayrun's token code): status and JSON.
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut cmd = Command::new("python3");
        cmd.arg(self.dir.join("ghost.py"))
            .args(["call", method, path]);
        if let Some(body) = body {
            cmd.arg(body.to_string());
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("ghost.py call: {e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        let (status, json) = text.split_once('\n').unwrap_or((&text, ""));
        let status = status.trim().parse().unwrap_or_else(|_| {
            panic!(
                "ghost.py call {method} {path}: {text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (
            status,
            serde_json::from_str(json.trim()).unwrap_or(Value::String(json.into())),
        )
    }
}
