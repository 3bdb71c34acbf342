//! A small builder: a project folder with files, the real binary, and what it printed.

#![allow(dead_code)]

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A temp project folder, removed when dropped.
pub struct Project {
    pub root: PathBuf,
    env: Vec<(String, String)>,
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Output {
    fn from(out: std::process::Output) -> Output {
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Run the binary with exactly these arguments (no `-C`) in `dir`, as git runs a merge driver
/// or a person types a bare command.
pub fn bare(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dayrun"))
        .args(args)
        .current_dir(dir)
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .unwrap()
        .into()
}

impl Output {
    /// Assert the exit code, showing everything printed when it differs.
    #[track_caller]
    pub fn code(&self, want: i32) -> &Output {
        assert_eq!(
            self.code, want,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Output {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Output {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

impl Project {
    pub fn new() -> Project {
        let root = std::env::temp_dir().join(format!(
            "dayrun-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("content")).unwrap();
        Project {
            root,
            env: Vec::new(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write a file (folders made as needed).
    pub fn file(&self, rel: &str, text: impl AsRef<[u8]>) -> &Project {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// Write a file with these permission bits.
    pub fn file_mode(&self, rel: &str, text: impl AsRef<[u8]>, mode: u32) -> &Project {
        use std::os::unix::fs::PermissionsExt;
        self.file(rel, text);
        std::fs::set_permissions(self.path(rel), std::fs::Permissions::from_mode(mode)).unwrap();
        self
    }

    /// A credential file only its owner can read, as the README asks.
    pub fn secret(&self, rel: &str, text: impl AsRef<[u8]>) -> &Project {
        self.file_mode(rel, text, 0o600)
    }

    /// An executable script.
    pub fn script(&self, rel: &str, text: impl AsRef<[u8]>) -> &Project {
        self.file_mode(rel, text, 0o755)
    }

    /// A post with a title and a body line.
    pub fn post(&self, key: &str, title: &str) -> &Project {
        self.file(
            &format!("content/{key}.md"),
            format!("# {title}\n\nBody of {key}.\n"),
        )
    }

    pub fn env(&mut self, name: &str, value: &str) -> &mut Project {
        self.env.push((name.into(), value.into()));
        self
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).exists()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dayrun"));
        cmd.arg("-C").arg(&self.root).args(args);
        for (name, _) in std::env::vars() {
            if name.starts_with("DAYRUN_") {
                cmd.env_remove(name);
            }
        }
        cmd.env("TZ", "UTC").env("NO_COLOR", "1");
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Run `dayrun -C <root> ARGS...`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap().into()
    }

    /// Run as at `now` (`DAYRUN_NOW`, RFC 3339): the command's clock starts there.
    pub fn run_at(&self, now: &str, args: &[&str]) -> Output {
        self.command(args)
            .env("DAYRUN_NOW", now)
            .output()
            .unwrap()
            .into()
    }

    /// sha256 of every file below the root (but `skip`), by relative path.
    pub fn tree(&self, skip: &[&str]) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        walk(&self.root, &self.root, skip, &mut out);
        out
    }

    /// The state file's lines for `target`, without comments.
    pub fn state_lines(&self, target: &str) -> Vec<String> {
        let path = self.root.join(format!("state/{target}.state"));
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    }

    /// `KEY STATUS` of each state line, for compact assertions.
    pub fn statuses(&self, target: &str) -> Vec<String> {
        self.state_lines(target)
            .iter()
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect()
    }
}

fn walk(root: &Path, dir: &Path, skip: &[&str], out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if skip.contains(&rel.as_str()) {
            continue;
        }
        if path.is_dir() {
            out.insert(format!("{rel}/"), String::new());
            walk(root, &path, skip, out);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            let digest = Sha256::digest(&bytes);
            out.insert(rel, digest.iter().map(|b| format!("{b:02x}")).collect());
        }
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A small seeded generator (xorshift64*) so drills replay exactly from their seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An environment variable as a number, else `default` (drills are sized by env).
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Base64, written here on purpose rather than taken from dayrun: fakes and redaction tests
/// must not trust the encoder of the code they test. `url`: the URL-safe alphabet.
pub fn base64(input: &[u8], url: bool, pad: bool) -> String {
    let alphabet: &[u8; 64] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// The instant `hours` from now, as `DAYRUN_NOW` takes it.
pub fn hours_from_now(hours: i64) -> String {
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(hours);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Wait for `child` (its stdout and stderr piped) until it ends, `due()` says to kill it, or
/// `limit` passes; then SIGKILL it if it still runs. Its exit code (`None`: killed) and its
/// stdout followed by its stderr.
pub fn wait_or_kill(
    mut child: std::process::Child,
    due: impl Fn() -> bool,
    limit: std::time::Duration,
) -> (Option<i32>, String) {
    use std::io::Read;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if due() || started.elapsed() >= limit {
            child.kill().ok(); // SIGKILL; a child that already ended keeps its exit code
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let status = status.unwrap_or_else(|| child.wait().unwrap());
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).ok();
    child.stderr.take().unwrap().read_to_string(&mut out).ok();
    (status.code(), out)
}
