//! The world the model is held against: a project with one http target whose lookup is exact
//! (`list_url = …/posts?key={key}`), the fake posts API behind it, and what the state file and
//! the journal say (read as dayrun reads them: the journal's complete lines over the file's).

use super::spec::{Look, Script, Send};
use crate::fakes::fake_posts::{self, Fault, PostsApi};
use crate::support::util::Project;
use jiff::Timestamp;
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::time::Duration;

pub const TARGET: &str = "blog";

/// A target table for `api`: a timeout for answers a busy machine still answers a plain
/// request within (1 s: a lost answer that hangs costs that, so most lost answers close the
/// connection instead), a long one for connecting (a refused connection fails at once), short
/// backoff, `escalate_after` 2 h, and a settle time of
/// `settle` minutes (0, or longer than a run waits).
pub fn config(api: &PostsApi, settle: i64) -> String {
    format!(
        "[targets.{TARGET}]\nkind = \"http\"\nurl = \"{}\"\nlist_url = \"{}\"\ndelete_url = \"{}\"\ntimeout_secs = 1\nconnect_timeout_secs = 2\nbackoff_secs = 0.005\nretries = {}\nconfirm_polls = 1\nconfirm_delay_secs = 0.005\nsettle_secs = {}\nescalate_after = \"2h\"\n",
        api.server.url("/posts"),
        api.server.url("/posts?key={key}"),
        api.server.url("/posts/{id}"),
        super::spec::RETRIES,
        settle * 60,
    )
}

/// The text of version `v` of key's post.
pub fn post_text(key: &str, v: u32) -> String {
    format!("# Post {key}\n\nBody of {key}, version {v}.\n")
}

/// `post_text`, due `at` (its front matter's `date`) when it has a time.
pub fn post_text_at(key: &str, v: u32, at: Option<jiff::Timestamp>) -> String {
    let text = post_text(key, v);
    match at {
        Some(at) => format!("---\ndate: {at}\n---\n{text}"),
        None => text,
    }
}

/// Keys `a` and `b` have the same text: the fake's lookup of either also answers the other's
/// posts, unlabelled, as a lookup that matches by text would (issue 28, row 3).
pub fn twins(api: &PostsApi, a: &str, b: &str) {
    let mut s = api.state.lock().unwrap();
    s.alike.insert(a.into(), vec![b.into()]);
    s.alike.insert(b.into(), vec![a.into()]);
}

/// Scripts for the fake, by key.
pub fn script(api: &PostsApi, keys: &[String], scripts: &[Script]) {
    let mut s = api.state.lock().unwrap();
    s.key_posts.clear();
    s.key_looks.clear();
    for (key, script) in keys.iter().zip(scripts) {
        let mut sends: VecDeque<Fault> = script.sends.iter().map(|s| fault(*s)).collect();
        let then = sends.pop_back().unwrap_or(Fault::Normal);
        s.key_posts
            .insert(key.clone(), fake_posts::Script { first: sends, then });
        let (first, then) = match script.look {
            Look::Ok => (VecDeque::new(), fake_posts::Look::Normal),
            Look::FailOnce => (
                VecDeque::from([fake_posts::Look::Status(500)]),
                fake_posts::Look::Normal,
            ),
            Look::FailAlways => (VecDeque::new(), fake_posts::Look::Status(500)),
            Look::Garbage => (VecDeque::new(), fake_posts::Look::Garbage),
            Look::Auth => (VecDeque::new(), fake_posts::Look::Status(401)),
            // The server is down: nothing of its script is ever met.
            Look::Refused => (VecDeque::new(), fake_posts::Look::Normal),
        };
        s.key_looks
            .insert(key.clone(), fake_posts::Script { first, then });
    }
}

fn fault(send: Send) -> Fault {
    match send {
        Send::Ok => Fault::Normal,
        Send::Commit500 => Fault::CommitStatus(500),
        Send::CommitClose => Fault::CommitClose,
        Send::CommitHang => Fault::CommitHang,
        Send::Lost503 => Fault::Reject(503),
        Send::LostHang => Fault::Hang,
        Send::Busy => Fault::Reject(429),
        Send::Reject => Fault::Reject(422),
        Send::Auth => Fault::Reject(401),
        // The server is down: nothing of its script is ever met.
        Send::Refused => Fault::Normal,
    }
}

/// The ids of each key's live copies on the fake, oldest first.
pub fn live(api: &PostsApi) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in api.committed() {
        out.entry(c.key).or_default().push(c.id);
    }
    out
}

/// A key's line as the test reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obs {
    pub text: String,
    pub status: String,
    pub at: Option<Timestamp>,
    pub fields: Vec<(String, String)>,
}

impl Obs {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn list(&self, name: &str) -> Vec<String> {
        self.get(name).map(list).unwrap_or_default()
    }

    /// Every id the line names: its own, its duplicates, earlier generations'.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.get("id").map(str::to_string).into_iter().collect();
        ids.extend(self.list("copies"));
        ids.extend(self.list("older"));
        ids
    }

    /// The ids of copies the line holds as live (a retracted line's own id is not).
    pub fn live_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = match self.status.as_str() {
            "retracted" => Vec::new(),
            _ => self.get("id").map(str::to_string).into_iter().collect(),
        };
        ids.extend(self.list("copies"));
        ids.extend(self.list("older"));
        ids
    }

    /// Whether the line names a live copy of its own generation.
    pub fn own_live(&self) -> bool {
        (self.status != "retracted" && self.get("id").is_some()) || self.get("copies").is_some()
    }

    pub fn maybe(&self) -> bool {
        self.status == "pending" || self.get("sent") == Some("maybe")
    }

    pub fn generation(&self) -> u32 {
        self.get("generation")
            .and_then(|g| g.parse().ok())
            .unwrap_or(0)
    }

    pub fn first_failure(&self) -> Option<Timestamp> {
        self.get("first_failure").and_then(|t| t.parse().ok())
    }

    /// The facts the model predicts: status, class, lookup, by hand, maybe.
    pub fn facts(&self) -> String {
        let mut out = self.status.clone();
        // (`by=hand` is what a failed line means by it; on other lines it says nothing.)
        let names: &[&str] = match self.status.as_str() {
            "failed" => &["class", "lookup", "by"],
            _ => &["class", "lookup"],
        };
        for name in names {
            if let Some(v) = self.get(name) {
                out.push_str(&format!(" {name}={v}"));
            }
        }
        if self.status != "pending" && self.maybe() {
            out.push_str(" sent=maybe");
        }
        out
    }
}

/// Split a state line into words; a double-quoted value keeps its spaces (`\"`, `\\` escapes).
pub(crate) fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut escaped, mut any) = (false, false, false);
    for c in line.chars() {
        match c {
            _ if escaped => {
                word.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            _ => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

fn parse(line: &str) -> Option<(String, Obs)> {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let w = words(line);
    let fields = w[3..]
        .iter()
        .map(|f| match f.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => (f.clone(), String::new()),
        })
        .collect();
    Some((
        w[0].clone(),
        Obs {
            text: line.to_string(),
            status: w[1].clone(),
            at: w[2].parse().ok(),
            fields,
        },
    ))
}

/// The state of the target in `root`: the state file, with the journal's complete lines over it.
pub fn lines(root: &Path) -> BTreeMap<String, Obs> {
    let mut out = BTreeMap::new();
    let state = std::fs::read_to_string(root.join(format!("state/{TARGET}.state")));
    for line in state.unwrap_or_default().lines() {
        if let Some((key, obs)) = parse(line) {
            out.insert(key, obs);
        }
    }
    let journal = std::fs::read_to_string(root.join(format!("state/{TARGET}.journal")));
    let journal = journal.unwrap_or_default();
    for line in journal.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        if let Some((key, obs)) = parse(line) {
            out.insert(key, obs);
        }
    }
    out
}

/// Copy a project (config, posts, state but its lock) into a new one: the other machine.
pub fn fork(p: &Project) -> Project {
    let q = Project::new();
    copy_dir(&p.root, &q.root);
    q
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".lock" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Run `args` as at `now`; with `kill_after`, SIGKILL it then if it is still running.
/// Returns the exit code (`None`: killed) and what it printed. A command that runs past a
/// minute is killed too, and said (`Some(-2)`): no step of the model should wait that long.
pub fn run(
    p: &Project,
    now: Timestamp,
    args: &[&str],
    kill_after: Option<u64>,
) -> (Option<i32>, String) {
    let stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let child = p
        .command(args)
        .env("DAYRUN_NOW", &stamp)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let limit = kill_after.map_or(Duration::from_secs(60), Duration::from_millis);
    let (code, out) = crate::support::util::wait_or_kill(child, || false, limit);
    match (code, kill_after) {
        (None, None) => (
            Some(-2),
            format!("{out}\n(killed: it ran for more than a minute)"),
        ),
        (code, _) => (code, out),
    }
}

/// A list field's value as its items (`life::list`'s encoding: `,` between items, `%2C` and
/// `%25` within one).
pub fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("%2C", ",").replace("%25", "%"))
        .collect()
}
