//! Real `git` in temp folders, cut off from the user's and the system's git config, with
//! dayrun's merge driver set up the way the README tells users to.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

/// The `.gitattributes` lines the README documents.
pub const ATTRIBUTES: &str = "state/*.state merge=dayrun\nstate/*.log   merge=dayrun\n";

/// The `.gitignore` lines the contract asks for.
pub const IGNORE: &str = "state/*.journal\nstate/.lock\nstate/*.sent/\nsecrets/\n";

/// The driver line exactly as documented: `dayrun merge-state %O %A %B %P`.
pub fn documented_driver() -> String {
    format!("{} merge-state %O %A %B %P", env!("CARGO_BIN_EXE_dayrun"))
}

/// The driver line the simulations use: the documented one.
pub fn driver() -> String {
    documented_driver()
}

/// What one git command did.
#[derive(Debug)]
pub struct Git {
    pub ok: bool,
    pub code: i32,
    pub out: String,
}

impl Git {
    /// Both streams, for messages and for spotting "CONFLICT".
    pub fn text(&self) -> &str {
        &self.out
    }
}

/// Run `git ARGS` in `dir`; never fails the test by itself.
pub fn git(dir: &Path, args: &[&str]) -> Git {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "dayrun tests")
        .env("GIT_AUTHOR_EMAIL", "tests@dayrun.invalid")
        .env("GIT_COMMITTER_NAME", "dayrun tests")
        .env("GIT_COMMITTER_EMAIL", "tests@dayrun.invalid")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .expect("git runs");
    Git {
        ok: out.status.success(),
        code: out.status.code().unwrap_or(-1),
        out: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Run `git ARGS` in `dir` and insist that it worked.
#[track_caller]
pub fn must(dir: &Path, args: &[&str]) -> String {
    let run = git(dir, args);
    assert!(run.ok, "git {args:?} in {}: {}", dir.display(), run.out);
    run.out
}

/// `git init` a working copy with branch `main` and quiet, local-only settings.
pub fn init(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    must(dir, &["init", "-q", "-b", "main"]);
    quiet(dir);
}

/// Settings every test clone gets: no gc, no signing, no hooks, merges that never open an
/// editor.
/// Written straight into `.git/config` (one file write instead of five git processes).
pub fn quiet(dir: &Path) {
    use std::io::Write as _;
    let settings = "[gc]\n\tauto = 0\n[commit]\n\tgpgsign = false\n[core]\n\thooksPath = /dev/null\n[merge]\n\tautoEdit = false\n[pull]\n\trebase = false\n";
    let mut config = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(".git/config"))
        .unwrap();
    config.write_all(settings.as_bytes()).unwrap();
}

/// The once-per-clone setup of the README, with this driver line.
pub fn use_driver(dir: &Path, driver: &str) {
    must(dir, &["config", "merge.dayrun.name", "dayrun state"]);
    must(dir, &["config", "merge.dayrun.driver", driver]);
}
