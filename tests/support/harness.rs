//! Real servers from the shared harness, for the tests that need one.
//!
//! One explicit switch: `DAYRUN_HARNESS` names the harness folder (e.g. `../shared/harness`).
//! Every real-server test is `#[ignore]`d, so a fresh clone without `../shared` runs `cargo test`
//! and its summary counts them as ignored; `cargo test -- --include-ignored` with the switch set
//! runs them (`.ci/run` does), and asked for without it they fail, naming it. Set, the harness
//! is copied into the cargo target folder
//! (its scripts keep state beside themselves, and the shared folder may be read-only), `up.sh`
//! runs once per test process, and a server that cannot start is a panic with its log, never a
//! skip. Tests on one server run one at a time (in this process and on this machine); the
//! servers themselves are in `harness/wordpress.rs`, `harness/bluesky.rs`, `harness/ghost.rs`,
//! `harness/nostr.rs` and `harness/matrix.rs`.

#![allow(dead_code)]

mod bluesky;
mod ghost;
mod matrix;
mod nostr;
mod wordpress;

pub use bluesky::{Pds, Record, bluesky};
pub use ghost::{Ghost, ghost};
pub use matrix::{Synapse, synapse};
pub use nostr::{Relays, fresh_key, nostr, public_of};
pub use wordpress::{WordPress, wordpress};

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const SKIPPED: &str = "this test needs the real servers: set DAYRUN_HARNESS=<path to shared/harness> (it is ignored unless asked for)";

/// The longest a cold `up.sh` may take (apt-get or npm installs the packages once).
const UP_TIMEOUT: Duration = Duration::from_secs(20 * 60);

static NEXT_PROXY: AtomicUsize = AtomicUsize::new(0);

/// The harness folder named by `DAYRUN_HARNESS`, or `None` (then the caller skips). `server` is
/// the folder of the server a test needs (`wordpress`, `bluesky`).
fn source(server: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("DAYRUN_HARNESS").filter(|v| !v.is_empty())?;
    let dir = PathBuf::from(dir);
    // `cargo test` runs in the package folder, so a relative path means what the user typed there.
    let dir = if dir.is_absolute() {
        dir
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
    };
    assert!(
        dir.join(server).join("up.sh").is_file() && dir.join("faultproxy.py").is_file(),
        "DAYRUN_HARNESS={} has no {server}/up.sh and faultproxy.py: point it at shared/harness",
        dir.display()
    );
    Some(dir)
}

/// Where the harness copy lives: under the cargo target folder, kept between test runs so the
/// databases and installed packages survive (a warm start takes about 2 s).
pub fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness")
}

/// Copy `server`'s folder and `faultproxy.py` from the harness into [`work_dir`]; our copy.
fn install(source: &Path, server: &str) -> Result<PathBuf, String> {
    let work = work_dir();
    let ours = work.join(server);
    copy_files(&source.join(server), &ours)?;
    copy_file(&source.join("faultproxy.py"), &work.join("faultproxy.py"))?;
    Ok(ours)
}

/// There is one harness server of each kind per machine (one port), but several checkouts may
/// test against it at once (a worktree's `cargo test`, another's `.ci/run`). This lock, held for
/// a whole test, makes test processes take turns; it is released when the file closes, even if
/// the process dies.
fn machine_turn(server: &str) -> std::fs::File {
    let path = std::env::temp_dir().join(format!("dayrun-harness-{server}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("lock {}: {e}", path.display()));
    file
}

/// Run `dir/up.sh` with `env`, its output in `work_dir()/<log>`. An error carries the log's tail.
fn up(dir: &Path, env: &[(&str, &str)], log: &str, what: &str) -> Result<(), String> {
    let log = work_dir().join(log);
    let started = Instant::now();
    let mut cmd = Command::new(dir.join("up.sh"));
    cmd.envs(env.iter().copied());
    let fail = |why: String| {
        Err(format!(
            "the harness {what} did not start ({why}); last lines of {}:\n{}",
            log.display(),
            tail(&log, 40)
        ))
    };
    match run_logged(&mut cmd, &log, UP_TIMEOUT) {
        Ok(true) => {}
        Ok(false) => return fail("up.sh failed".into()),
        Err(e) => return fail(e),
    }
    eprintln!(
        "harness: {what} up in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(())
}

/// `NAME=value` lines of a credentials file written by an `up.sh` (values may be single- or
/// double-quoted, as the shell writes them).
fn read_env_file(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.trim().split_once('='))
        .map(|(k, v)| {
            let v = v
                .strip_prefix('\'')
                .and_then(|v| v.strip_suffix('\''))
                .or_else(|| v.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
                .unwrap_or(v);
            (k.trim_start_matches("export ").to_string(), v.to_string())
        })
        .collect())
}

/// One value of a credentials file, or an error naming the file and the missing name.
fn get(creds: &BTreeMap<String, String>, path: &Path, name: &str) -> Result<String, String> {
    creds
        .get(name)
        .cloned()
        .ok_or_else(|| format!("{} lacks {name}", path.display()))
}

/// Run `dir/name ARGS` with `env`; its stdout, or a panic with everything it printed.
fn script(dir: &Path, name: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(dir.join(name))
        .args(args)
        .envs(env.iter().copied())
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

/// An HTTP client for the tests' own calls to a server: every status is an answer.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// Status and JSON body (a string when it is not JSON) of an answer.
fn answer(
    what: &str,
    result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> (u16, Value) {
    let response = result.unwrap_or_else(|e| panic!("{what}: {e}"));
    let status = response.status().as_u16();
    let text = response
        .into_body()
        .read_to_string()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let doc = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, doc)
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
