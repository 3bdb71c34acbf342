//! Real servers from the shared harness, for the tests that need one.
//!
//! One explicit switch: `DAYRUN_HARNESS` names the harness folder (e.g. `../shared/harness`).
//! Unset, every real-server test prints one `skipped:` line and passes, so a fresh clone without
//! `../shared` still runs `cargo test`. Set, the harness is copied into the cargo target folder
//! (its scripts keep state beside themselves, and the shared folder may be read-only), `up.sh`
//! runs once per test process, and a server that cannot start is a panic with its log, never a
//! skip. Real-server tests run one at a time: they share one WordPress.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

pub const SKIPPED: &str =
    "skipped: set DAYRUN_HARNESS=<path to shared/harness> to run against real servers";

/// The longest a cold `up.sh` may take (apt-get installs the packages once).
const UP_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// Real-server tests hold this for their whole length: one WordPress, one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());
static WORDPRESS: OnceLock<Result<WordPress, String>> = OnceLock::new();
static NEXT_PROXY: AtomicUsize = AtomicUsize::new(0);

/// The harness folder named by `DAYRUN_HARNESS`, or `None` (then the caller skips).
fn source() -> Option<PathBuf> {
    let dir = std::env::var_os("DAYRUN_HARNESS").filter(|v| !v.is_empty())?;
    let dir = PathBuf::from(dir);
    // `cargo test` runs in the package folder, so a relative path means what the user typed there.
    let dir = if dir.is_absolute() {
        dir
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
    };
    assert!(
        dir.join("wordpress/up.sh").is_file() && dir.join("faultproxy.py").is_file(),
        "DAYRUN_HARNESS={} has no wordpress/up.sh and faultproxy.py: point it at shared/harness",
        dir.display()
    );
    Some(dir)
}

/// Where the harness copy lives: under the cargo target folder, kept between test runs so the
/// database and the installed site survive (a warm start takes about 2 s).
pub fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness")
}

/// The running WordPress and this test's turn on it, or `None` after printing `skipped:` when
/// `DAYRUN_HARNESS` is unset. Every post and term on the server is deleted before it returns.
pub fn wordpress() -> Option<Session> {
    let Some(source) = source() else {
        println!("{SKIPPED}");
        return None;
    };
    // A test that panicked while holding the lock leaves it poisoned; the next one still runs.
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let wp = match WORDPRESS.get_or_init(|| WordPress::start(&source)) {
        Ok(wp) => wp,
        Err(why) => panic!("{why}"),
    };
    wp.reset();
    Some(Session { _turn: guard, wp })
}

/// A test's exclusive use of the shared WordPress.
pub struct Session {
    _turn: MutexGuard<'static, ()>,
    pub wp: &'static WordPress,
}

impl std::ops::Deref for Session {
    type Target = WordPress;
    fn deref(&self) -> &WordPress {
        self.wp
    }
}

/// The harness WordPress: its scripts and the credentials `up.sh` wrote.
#[derive(Debug)]
pub struct WordPress {
    /// The writable copy of `harness/wordpress`.
    pub dir: PathBuf,
    pub url: String,
    pub user: String,
    pub password: String,
}

impl WordPress {
    /// Copy the harness, run `up.sh` and read `creds.env`. An error carries the log's tail.
    fn start(source: &Path) -> Result<WordPress, String> {
        let work = work_dir();
        let dir = work.join("wordpress");
        copy_files(&source.join("wordpress"), &dir)?;
        copy_file(&source.join("faultproxy.py"), &work.join("faultproxy.py"))?;
        let log = dir.join("up.log");
        let started = Instant::now();
        let status = run_logged(
            Command::new(dir.join("up.sh")).env("WP_SKIP_SMOKE", "1"),
            &log,
            UP_TIMEOUT,
        );
        let fail = |why: String| {
            Err(format!(
                "the harness WordPress did not start ({why}); last lines of {}:\n{}",
                log.display(),
                tail(&log, 40)
            ))
        };
        match status {
            Ok(true) => {}
            Ok(false) => return fail("up.sh failed".into()),
            Err(e) => return fail(e),
        }
        eprintln!(
            "harness: WordPress up in {:.1} s ({})",
            started.elapsed().as_secs_f64(),
            dir.display()
        );
        let creds = std::fs::read_to_string(dir.join("creds.env"))
            .map_err(|e| format!("{}/creds.env: {e}", dir.display()))?;
        let creds: BTreeMap<&str, &str> = creds
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .collect();
        let get = |k: &str| {
            creds
                .get(k)
                .map(|v| v.to_string())
                .ok_or_else(|| format!("{}/creds.env lacks {k}", dir.display()))
        };
        Ok(WordPress {
            url: get("WP_URL")?,
            user: get("WP_USER")?,
            password: get("WP_APP_PASSWORD")?,
            dir,
        })
    }

    /// Run one of the harness scripts; its stdout, or a panic with everything it printed.
    fn script(&self, name: &str, args: &[&str]) -> String {
        let out = Command::new(self.dir.join(name))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            out.status.success(),
            "{name} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Delete every post and term on the server.
    pub fn reset(&self) {
        self.script("reset.sh", &[]);
    }

    /// Every post on the server (any status, trash too), read from the database by `list.sh`:
    /// `id`, `status`, `title`, `slug`, `date_gmt` and `tags` (names).
    pub fn posts(&self) -> Vec<Value> {
        let text = self.script("list.sh", &[]);
        let doc: Value = serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("list.sh printed no JSON ({e}):\n{text}"));
        assert_eq!(doc["ok"], true, "list.sh: {doc}");
        doc["posts"].as_array().cloned().unwrap_or_default()
    }

    /// The content of the password file a project needs.
    pub fn password_file(&self) -> String {
        format!("{}\n", self.password)
    }

    /// One REST call as the harness user, straight to the server (no proxy): status and JSON.
    /// `route` is the part after `/wp-json`, with its query, e.g. `/wp/v2/posts/7?context=edit`.
    pub fn rest(&self, method: &str, route: &str, body: Option<&Value>) -> (u16, Value) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let url = format!("{}/wp-json{route}", self.url);
        let auth = format!(
            "Basic {}",
            base64(format!("{}:{}", self.user, self.password).as_bytes())
        );
        let result = match (method, body) {
            ("GET", _) => agent.get(&url).header("Authorization", &auth).call(),
            ("DELETE", _) => agent.delete(&url).header("Authorization", &auth).call(),
            (_, body) => agent
                .post(&url)
                .header("Authorization", &auth)
                .header("Content-Type", "application/json")
                .send(
                    serde_json::to_vec(body.unwrap_or(&Value::Null))
                        .unwrap()
                        .as_slice(),
                ),
        };
        let response = result.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let status = response.status().as_u16();
        let text = response
            .into_body()
            .read_to_string()
            .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let doc = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, doc)
    }
}

/// `faultproxy.py` between dayrun and the harness server, stopped when dropped.
pub struct FaultProxy {
    child: Child,
    /// `http://127.0.0.1:PORT`: put this in dayrun.toml instead of the server's URL.
    pub url: String,
    dir: PathBuf,
}

impl FaultProxy {
    /// Start a proxy to `upstream` with these `--rule`s (see faultproxy.py's docstring), for at
    /// most `max_seconds`.
    pub fn start(upstream: &str, rules: &[&str], max_seconds: u32) -> FaultProxy {
        let work = work_dir();
        let dir = work.join(format!(
            "proxy-{}-{}",
            std::process::id(),
            NEXT_PROXY.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ready = dir.join("port");
        let mut cmd = Command::new("python3");
        cmd.arg(work.join("faultproxy.py"))
            .args(["--listen", "127.0.0.1:0", "--upstream", upstream])
            .arg("--ready-file")
            .arg(&ready)
            .args(["--max-seconds", &max_seconds.to_string()])
            .arg("--log")
            .arg(dir.join("proxy.jsonl"));
        for rule in rules {
            cmd.args(["--rule", rule]);
        }
        let stderr = std::fs::File::create(dir.join("stderr")).unwrap();
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("python3 faultproxy.py: {e}"));
        let deadline = Instant::now() + Duration::from_secs(15);
        let port = loop {
            if let Ok(port) = std::fs::read_to_string(&ready)
                && !port.trim().is_empty()
            {
                break port.trim().to_string();
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "faultproxy.py exited ({status}):\n{}",
                    tail(&dir.join("stderr"), 20)
                );
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "faultproxy.py did not listen within 15 s:\n{}",
                    tail(&dir.join("stderr"), 20)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        FaultProxy {
            child,
            url: format!("http://127.0.0.1:{port}"),
            dir,
        }
    }

    /// The requests it handled so far (one JSON object per finished request).
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("proxy.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["event"] == "request")
            .collect()
    }

    /// How many `METHOD` requests whose path contains `path` reached the server.
    pub fn forwarded(&self, method: &str, path: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r["method"] == method && r["forwarded"] == true)
            .filter(|r| r["path"].as_str().is_some_and(|p| p.contains(path)))
            .count()
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copy the files of `from` (not its folders) into `to`, writable, keeping the exec bit. What is
/// already there and not in `from` (the server's `state/`, `creds.env`) stays.
fn copy_files(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", from.display()))?
            .path();
        if path.is_file() {
            copy_file(&path, &to.join(path.file_name().unwrap()))?;
        }
    }
    Ok(())
}

fn copy_file(from: &Path, to: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let bytes = std::fs::read(from).map_err(|e| format!("{}: {e}", from.display()))?;
    let exec = std::fs::metadata(from).map_or(0, |m| m.permissions().mode() & 0o111);
    if std::fs::read(to).ok().as_deref() != Some(&bytes[..]) {
        // A fresh file: the source is read-only, and a read-only copy could not be updated.
        let _ = std::fs::remove_file(to);
        std::fs::write(to, &bytes).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o644 | exec))
        .map_err(|e| format!("{}: {e}", to.display()))
}

/// Run `cmd` with its output in `log`, killing its process group after `limit`. Output goes to a
/// file, not a pipe: the servers it starts inherit it and outlive it.
fn run_logged(cmd: &mut Command, log: &Path, limit: Duration) -> Result<bool, String> {
    use std::os::unix::process::CommandExt;
    let file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(status.success());
        }
        if Instant::now() > deadline {
            // Its whole process group (apt-get and friends), by the id of the child we started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Err(format!("timed out after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The last `n` lines of a file, for failure messages.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| format!("({e})"));
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
