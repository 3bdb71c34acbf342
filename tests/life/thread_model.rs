//! Issue 28's model-based test of threads (`long = "thread"`) on the strict Mastodon fake: random
//! lives of two days' threads (ending in the same text part, row 4) through the real binary, with
//! answers lost after a part is stored or before, refusals, kills between parts, edits that change
//! the split or not, an hour passing, `retract` and `state/masto.sent/` removed between runs.
//!
//! Each step is one of `Step`. After every step, the first broken of (from docs/state-file.md,
//! `parts=` and `split=`, and docs/targets/mastodon.md, "Threads"):
//!
//! 1. no id is ever dropped: every status of a key that is live on the fake is on that key's line
//!    (`id=`, `parts=`, `copies=`, `older=`), but for one: on a `pending` line, the part after the
//!    last one listed (it replies to that part, or to nothing when none is listed);
//! 2. no copy answers for another key or generation: every id on a key's line is a status posted
//!    for that key (its text names the key, or it replies to a status of that key), and the parts
//!    of one line are of one text (the version their words name), never parts of two texts;
//! 3. no second copy without an absence proof: the fake never held two statuses of one key at
//!    one place of its thread (the fake's lookup is exact and at once, so a part that landed is
//!    always found); each part `i>0` on a line replies to part `i-1`, part 0 to nothing;
//! 4. a run exits 0, 1 or 75 (the README's codes for what these steps can meet) and exits 0 only
//!    when every due key is out (`done` or `retracted`); a `retract` that exits 0 leaves none of
//!    the key's statuses live.
//!
//! After the steps, calm runs (the post left as it is, at most three) settle the case, and then
//! each key is one of: `done`, its thread on the fake exactly once and whole (the parts numbered
//! `1/n` … `n/n`, `numbering`'s default, one chain, nothing else of the key ever stored);
//! `retracted`, nothing of it live; or waiting for a person: `failed` with its reason on the line
//! and the run exiting 1. A person is asked for only when the story gives a reason the docs name:
//! a part refused (422), or a resumed thread whose kept parts are gone (`state/masto.sent/`
//! removed) while the post was edited into another split ("otherwise it sends nothing and fails
//! as `rejected` for a person", docs/state-file.md). Never a silent second thread.
//!
//! `DAYRUN_THREAD_MODEL_CASES` (default 20), `DAYRUN_THREAD_MODEL_STEPS` (most steps per case,
//! default 8), `DAYRUN_THREAD_MODEL_SEED` and `DAYRUN_THREAD_MODEL_SHRINK` (default 40) size and
//! replay it; a failure prints its shrunk sequence, `DAYRUN_THREAD_MODEL_VERBOSE` every case.
//! The replays below are the stories it found, kept as regression tests.

use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::life::model::world::words;
use crate::support::util::{Project, env_number, wait_or_kill};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::Value;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

const TARGET: &str = "masto";
/// Two days' posts, both due on `TODAY`.
const KEYS: [&str; 2] = ["2026-11-28", "2026-11-29"];
const TODAY: &str = "--today=2026-11-29";
/// The instance's limit: each post is a thread of three parts.
const LIMIT: u64 = 300;

thread_local! {
    /// What the cases met, for the summary line (`what` → times).
    static MET: std::cell::RefCell<BTreeMap<String, usize>> = const {
        std::cell::RefCell::new(BTreeMap::new())
    };
}

fn met(what: impl Into<String>) {
    MET.with(|m| *m.borrow_mut().entry(what.into()).or_default() += 1);
}

/// How the fake answers one status POST.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    /// Stored, then a 500 (a proxy's, after the commit).
    Commit500,
    /// Stored, then the connection closed without an answer.
    CommitClose,
    /// Stored, then no answer until the client gave up.
    CommitHang,
    /// Stored, then Mastodon's 503 (a concurrent duplicate caught).
    Commit503,
    /// A proxy's 502: nothing stored.
    Lost502,
    /// No answer, nothing stored.
    LostHang,
    /// 429 with a reset an hour away: the target stops for the run.
    Busy,
    /// 422: the part refused.
    Refused,
}

impl Answer {
    fn fault(self) -> Fault {
        match self {
            Answer::Commit500 => Fault::CommitStatus(500),
            Answer::CommitClose => Fault::CommitClose,
            Answer::CommitHang => Fault::CommitHang,
            Answer::Commit503 => Fault::Reject(503),
            Answer::Lost502 => Fault::Reject(502),
            Answer::LostHang => Fault::Hang,
            Answer::Busy => Fault::RateLimit(3600),
            Answer::Refused => Fault::Reject(422),
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    /// A run; the run's POSTs at these places (0 the first) meet these answers, the rest 200.
    Run(Vec<(usize, Answer)>),
    /// A run SIGKILLed once the fake has seen this many POSTs; the last of them is answered 200
    /// (`None`: the kill races the recording) or held, stored (`Some(true)`) or not.
    Kill(usize, Option<bool>),
    /// Post k edited: its body (another split), or only its summary (not in the thread's text).
    Edit { key: usize, split: bool },
    /// An hour passes: Mastodon forgets the Idempotency-Keys, only a lookup can tell.
    Hour,
    /// `retract KEY --yes`.
    Retract(usize),
    /// `state/masto.sent/` removed, as a CI checkout without it.
    DropSent,
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        2 => Just(Answer::Commit500),
        2 => Just(Answer::CommitClose),
        2 => Just(Answer::CommitHang),
        2 => Just(Answer::Commit503),
        2 => Just(Answer::Lost502),
        2 => Just(Answer::LostHang),
        2 => Just(Answer::Busy),
        1 => Just(Answer::Refused),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let held = prop_oneof![Just(None), Just(Some(true)), Just(Some(false))];
    prop_oneof![
        4 => proptest::collection::vec((0usize..6, answer()), 1..3).prop_map(Step::Run),
        1 => Just(Step::Run(Vec::new())),
        5 => (1usize..7, held).prop_map(|(n, held)| Step::Kill(n, held)),
        3 => (0usize..2, any::<bool>()).prop_map(|(key, split)| Step::Edit { key, split }),
        1 => Just(Step::Hour),
        1 => (0usize..2).prop_map(Step::Retract),
        2 => Just(Step::DropSent),
    ]
}

/// A post: its title and own words name the key (and the version of its body); the closing
/// paragraph and the tags are the same every day, so both threads end in the same part.
fn post(key: &str, version: u32, summary: u32) -> String {
    let own = format!("Own words of {key}, version {version}, about the morning run. ").repeat(3);
    let more = format!("More of {key}, version {version}: what the timer does. ").repeat(3);
    let closing = "Closing words about the evening and the state file, the same every day. ";
    format!(
        "---\ntags: [rust]\nsummary: Note {summary}.\n---\n# Morning of {key}\n\n{own}\n\n{more}\n\n{}\n",
        closing.repeat(3)
    )
}

/// A status the fake held at the end of some step.
#[derive(Debug, Clone)]
struct Seen {
    key: usize,
    parent: Option<String>,
    text: String,
    /// Its place in its thread (0: the first part).
    depth: usize,
}

/// A key's line as the test reads it (the journal's complete lines over the state file's).
#[derive(Debug, Clone, Default)]
struct Line {
    text: String,
    status: String,
    fields: BTreeMap<String, String>,
}

impl Line {
    fn list(&self, name: &str) -> Vec<String> {
        self.fields
            .get(name)
            .map(|v| crate::life::model::world::list(v))
            .unwrap_or_default()
    }

    /// Every id the line names (not `foreign=`: a human said those are not this post).
    fn ids(&self) -> BTreeSet<String> {
        ["id", "parts", "copies", "older"]
            .iter()
            .flat_map(|n| self.list(n))
            .collect()
    }

    /// `done`, or `retracted`: out, as a run's exit means it.
    fn out(&self) -> bool {
        self.status == "done" || self.status == "retracted"
    }
}

fn parse(line: &str) -> Option<(String, Line)> {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let w = words(line);
    let fields = w
        .iter()
        .skip(3)
        .filter_map(|f| f.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    let status = w.get(1).cloned().unwrap_or_default();
    Some((
        w[0].clone(),
        Line {
            text: line.to_string(),
            status,
            fields,
        },
    ))
}

/// The target's lines: the state file, with the journal's complete lines over it.
fn lines(p: &Project) -> BTreeMap<String, Line> {
    let read = |name: &str| std::fs::read_to_string(p.path(name)).unwrap_or_default();
    let mut out = BTreeMap::new();
    let journal = read(&format!("state/{TARGET}.journal"));
    let journal = journal.split_inclusive('\n').filter(|l| l.ends_with('\n'));
    for line in read(&format!("state/{TARGET}.state"))
        .lines()
        .chain(journal)
    {
        if let Some((key, line)) = parse(line) {
            out.insert(key, line);
        }
    }
    out
}

/// The version of a post's body a status's text names, if it names one.
fn version(text: &str) -> Option<u32> {
    let at = text.find("version ")? + "version ".len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The key a status's text names, if it names one.
fn named(text: &str) -> Option<usize> {
    KEYS.iter().position(|k| text.contains(&format!("of {k}")))
}

/// A case being played.
struct Case {
    api: FakeMastodon,
    p: Project,
    versions: [u32; 2],
    summaries: [u32; 2],
    /// Every status the fake held at the end of a step, by id.
    seen: BTreeMap<String, Seen>,
    /// A post edited into another split (the body), by key.
    split_edited: [bool; 2],
    /// `state/masto.sent/` was removed at some step.
    dropped: bool,
    /// A 422 was drawn: a part may have been refused.
    refused: bool,
    /// The last command's exit (`None`: killed) and the lines after it.
    last: Option<i32>,
    log: Vec<String>,
    calls: usize,
}

impl Case {
    fn new() -> Case {
        let api = FakeMastodon::start(LIMIT);
        let p = Project::new();
        p.file(
            "dayrun.toml",
            api.config("long = \"thread\"\nsettle_secs = 0\nescalate_after = \"20h\""),
        );
        p.secret("secrets/masto.token", TOKEN);
        for key in KEYS {
            p.file(&format!("content/{key}.md"), post(key, 1, 1));
        }
        Case {
            api,
            p,
            versions: [1; 2],
            summaries: [1; 2],
            seen: BTreeMap::new(),
            split_edited: [false; 2],
            dropped: false,
            refused: false,
            last: None,
            log: Vec::new(),
            calls: 0,
        }
    }
}

impl Case {
    /// Run `args` with these POST answers queued (`faults[i]` for the run's POST `i`);
    /// `kill_at`: SIGKILL once the fake has seen that many of its POSTs. The exit (`None`:
    /// killed) and what it printed.
    fn command(
        &mut self,
        args: &[&str],
        faults: Vec<Fault>,
        kill_at: Option<usize>,
    ) -> (Option<i32>, String) {
        let base = {
            let mut s = self.api.state.lock().unwrap();
            s.faults = faults.into();
            s.post_requests
        };
        let posts = || self.api.state.lock().unwrap().post_requests - base;
        let child = self
            .p
            .command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let due = || kill_at.is_some_and(|n| posts() >= n);
        let (code, mut out) = wait_or_kill(child, due, Duration::from_secs(60));
        // Requests the command stopped waiting for are answered before the next step.
        self.api
            .server
            .settle(Duration::from_millis(20), Duration::from_secs(3));
        self.api.state.lock().unwrap().faults.clear();
        self.calls += 1;
        if code.is_none() && kill_at.is_none() {
            out.push_str("\n(killed: it ran for more than a minute)");
        }
        self.last = code;
        (code, out)
    }

    fn run(&mut self, answers: &[(usize, Answer)]) -> (Option<i32>, String) {
        let mut faults = vec![Fault::Normal; 8];
        for (at, answer) in answers {
            faults[*at] = answer.fault();
            self.refused |= *answer == Answer::Refused;
        }
        self.command(&["run", TODAY], faults, None)
    }

    fn kill(&mut self, n: usize, held: Option<bool>) -> (Option<i32>, String) {
        let mut faults = vec![Fault::Normal; n];
        faults[n - 1] = match held {
            None => Fault::Normal,
            Some(true) => Fault::CommitHang,
            Some(false) => Fault::Hang,
        };
        let out = self.command(&["run", TODAY], faults, Some(n));
        met(match out.0 {
            None => "kill between parts",
            Some(_) => "kill never came (fewer POSTs)",
        });
        out
    }

    fn edit(&mut self, k: usize, split: bool) {
        match split {
            true => self.versions[k] += 1,
            false => self.summaries[k] += 1,
        }
        self.split_edited[k] |= split;
        self.p.file(
            &format!("content/{}.md", KEYS[k]),
            post(KEYS[k], self.versions[k], self.summaries[k]),
        );
    }

    /// Play one step; what it printed, for a failure's message.
    fn play(&mut self, n: usize, step: &Step) -> Result<(), TestCaseError> {
        self.log.push(format!("{n}: {step:?}"));
        let (code, output) = match step {
            Step::Run(answers) => self.run(answers),
            Step::Kill(at, held) => self.kill(*at, *held),
            Step::Edit { key, split } => {
                self.edit(*key, *split);
                (Some(0), String::new())
            }
            Step::Hour => {
                self.api.forget_idempotency_keys();
                (Some(0), String::new())
            }
            Step::Retract(k) => self.command(&["retract", KEYS[*k], "--yes"], Vec::new(), None),
            Step::DropSent => {
                self.dropped = true;
                let _ = std::fs::remove_dir_all(self.p.path(&format!("state/{TARGET}.sent")));
                (Some(0), String::new())
            }
        };
        let shown = code.map_or("killed".to_string(), |c| c.to_string());
        *self.log.last_mut().unwrap() = format!("{n}: {step:?} → {shown}");
        met(format!("step {}", kind(step)));
        self.check(step, code, &output)
    }
}

fn kind(step: &Step) -> &'static str {
    match step {
        Step::Run(a) if a.is_empty() => "calm run",
        Step::Run(_) => "run with faults",
        Step::Kill(..) => "kill",
        Step::Edit { split: true, .. } => "edit (another split)",
        Step::Edit { .. } => "edit (the same split)",
        Step::Hour => "an hour",
        Step::Retract(_) => "retract",
        Step::DropSent => "sent/ removed",
    }
}

impl Case {
    fn live(&self) -> Vec<Value> {
        let mut statuses = self.api.statuses();
        statuses.sort_by_key(|st| st["id"].as_str().unwrap().parse::<u64>().unwrap());
        statuses
    }

    /// Take in the statuses the fake holds now that no step saw yet (oldest first, so a
    /// parent before its replies): whose each is, by its text or else by what it replies to.
    fn register(&mut self) -> Result<(), String> {
        let texts = self.api.state.lock().unwrap().texts.clone();
        for st in self.live() {
            let id = st["id"].as_str().unwrap().to_string();
            if self.seen.contains_key(&id) {
                continue;
            }
            let parent = st["in_reply_to_id"].as_str().map(str::to_string);
            let text = texts[&id].clone();
            let above = match &parent {
                None => None,
                Some(pid) => match self.seen.get(pid) {
                    Some(up) => Some((up.key, up.depth + 1)),
                    None => return Err(format!("{id} replies to {pid}, a status never seen")),
                },
            };
            let (key, depth) = match (named(&text), above) {
                (Some(k), Some((up, _))) if k != up => {
                    return Err(format!(
                        "invariant 2: {id}, a part of {}, replies to {} of {}'s thread",
                        KEYS[k],
                        parent.unwrap(),
                        KEYS[up]
                    ));
                }
                (_, Some((up, depth))) => (up, depth),
                (Some(k), None) => (k, 0),
                (None, None) => return Err(format!("{id} names no key and replies to nothing")),
            };
            let seen = Seen {
                key,
                parent,
                text,
                depth,
            };
            self.seen.insert(id, seen);
        }
        Ok(())
    }

    /// Everything a failure shows: the steps, the lines, every status the fake held.
    fn scene(&self, output: &str) -> String {
        let mut out = String::from("--- steps\n");
        for line in &self.log {
            out.push_str(&format!("{line}\n"));
        }
        out.push_str("--- state lines\n");
        for line in lines(&self.p).values() {
            out.push_str(&format!("{}\n", line.text));
        }
        out.push_str("--- statuses the fake held (id, key, place, replies to, live, text)\n");
        let live: BTreeSet<String> = (0..KEYS.len()).flat_map(|k| self.live_of(k)).collect();
        for (id, s) in &self.seen {
            let text = &s.text;
            out.push_str(&format!(
                "{id} {} part {} ← {:?} live={} {text:?}\n",
                KEYS[s.key],
                s.depth,
                s.parent,
                live.contains(id),
            ));
        }
        out.push_str(&format!("--- output of the step\n{output}"));
        out
    }

    fn fail(&self, what: String, output: &str) -> TestCaseError {
        TestCaseError::fail(format!("{what}\n{}", self.scene(output)))
    }

    /// The invariants, after a step.
    fn check(&mut self, step: &Step, code: Option<i32>, output: &str) -> Result<(), TestCaseError> {
        self.register().map_err(|what| self.fail(what, output))?;
        let lines = lines(&self.p);
        for (k, key) in KEYS.iter().enumerate() {
            let line = lines.get(*key).cloned().unwrap_or_default();
            let checked = self.owned(k, &line).and_then(|()| self.kept(k, &line));
            checked
                .and_then(|()| self.once(k))
                .map_err(|what| self.fail(what, output))?;
        }
        let Some(code) = code else { return Ok(()) };
        if ![0, 1, 75].contains(&code) {
            return Err(self.fail(format!("invariant 4: exit {code}"), output));
        }
        let not_out: Vec<&str> = KEYS
            .iter()
            .filter(|k| !lines.get(**k).is_some_and(Line::out))
            .copied()
            .collect();
        if matches!(step, Step::Run(_) | Step::Kill(..)) && code == 0 && !not_out.is_empty() {
            let what = format!("invariant 4: the run exits 0 with {not_out:?} not out");
            return Err(self.fail(what, output));
        }
        if let (Step::Retract(k), 0) = (step, code) {
            let left = self.live_of(*k);
            if !left.is_empty() || lines.get(KEYS[*k]).is_none_or(|l| l.status != "retracted") {
                let what = format!("invariant 4: retract exits 0, yet {left:?} are live");
                return Err(self.fail(what, output));
            }
        }
        Ok(())
    }

    /// The ids of key `k`'s statuses live on the fake.
    fn live_of(&self, k: usize) -> BTreeSet<String> {
        self.live()
            .iter()
            .map(|st| st["id"].as_str().unwrap().to_string())
            .filter(|id| self.seen.get(id).is_some_and(|s| s.key == k))
            .collect()
    }
}

impl Case {
    /// Invariant 2: every id on `k`'s line is a status of `k`, and its parts are of one text.
    fn owned(&self, k: usize, line: &Line) -> Result<(), String> {
        for id in line.ids() {
            match self.seen.get(&id) {
                Some(s) if s.key == k => {}
                Some(s) => {
                    return Err(format!(
                        "invariant 2: {}'s line holds {id}, a status of {}",
                        KEYS[k], KEYS[s.key]
                    ));
                }
                None => {
                    return Err(format!(
                        "invariant 2: {}'s line holds {id}, which the fake never held",
                        KEYS[k]
                    ));
                }
            }
        }
        let texts: BTreeSet<u32> = line
            .list("parts")
            .iter()
            .filter_map(|id| version(&self.seen[id].text))
            .collect();
        if texts.len() > 1 {
            return Err(format!(
                "invariant 2: {}'s parts are of two texts (versions {texts:?})",
                KEYS[k]
            ));
        }
        Ok(())
    }

    /// Invariants 1 and 3: each live status of `k` is on its line but the one part a pending
    /// line may have out unrecorded; the parts on the line are one chain of replies.
    fn kept(&self, k: usize, line: &Line) -> Result<(), String> {
        let parts = line.list("parts");
        for (i, id) in parts.iter().enumerate() {
            let want = i.checked_sub(1).map(|i| parts[i].clone());
            if self.seen[id].parent != want {
                return Err(format!(
                    "invariant 3: {}'s part {i} ({id}) replies to {:?}, not {want:?}",
                    KEYS[k], self.seen[id].parent
                ));
            }
        }
        let ids = line.ids();
        let unrecorded: Vec<String> = self
            .live_of(k)
            .into_iter()
            .filter(|id| !ids.contains(id))
            .collect();
        let next = |id: &String| self.seen[id].parent == parts.last().cloned();
        let allowed = match unrecorded.as_slice() {
            [] => true,
            [one] => line.status == "pending" && next(one),
            _ => false,
        };
        match allowed {
            true => Ok(()),
            false => Err(format!(
                "invariant 1: {}'s statuses {unrecorded:?} are live and not on its line",
                KEYS[k]
            )),
        }
    }

    /// Invariant 3: the fake never held two statuses of `k` at one place of its thread.
    fn once(&self, k: usize) -> Result<(), String> {
        let mut at: BTreeMap<usize, Vec<&String>> = BTreeMap::new();
        for (id, s) in self.seen.iter().filter(|(_, s)| s.key == k) {
            at.entry(s.depth).or_default().push(id);
        }
        match at.iter().find(|(_, ids)| ids.len() > 1) {
            None => Ok(()),
            Some((depth, ids)) => Err(format!(
                "invariant 3: {} has part {depth} twice on the fake: {ids:?}",
                KEYS[k]
            )),
        }
    }
}

impl Case {
    /// Calm runs, the post left as it is, until one exits 0 (at most three); then each key is
    /// whole exactly once, retracted, or waits for a person with a reason the story gives.
    fn settle(&mut self) -> Result<(), TestCaseError> {
        let mut output = String::new();
        for n in 0..3 {
            let step = Step::Run(Vec::new());
            self.log.push(format!("settle {n}: calm run"));
            let (code, out) = self.run(&[]);
            self.log
                .last_mut()
                .unwrap()
                .push_str(&format!(" → {code:?}"));
            self.check(&step, code, &out)?;
            output = out;
            if code == Some(0) {
                break;
            }
        }
        let lines = lines(&self.p);
        for (k, key) in KEYS.iter().enumerate() {
            let line = lines.get(*key).cloned().unwrap_or_default();
            let end = match line.status.as_str() {
                "done" => self.whole(k, &line),
                "retracted" => match self.live_of(k).is_empty() {
                    true => Ok("retracted".to_string()),
                    false => Err(format!("{} is retracted, yet live", KEYS[k])),
                },
                "failed" => self.waits(k, &line),
                _ => Err(format!("{} is not settled after calm runs", KEYS[k])),
            };
            met(format!(
                "end: {}",
                end.map_err(|what| self.fail(what, &output))?
            ));
        }
        let last = |k: usize| {
            let parts = lines.get(KEYS[k])?.list("parts");
            Some(self.seen.get(parts.last()?)?.text.clone())
        };
        if last(0).is_some() && last(0) == last(1) {
            met("two threads ending in the same part");
        }
        Ok(())
    }

    /// A done key's thread is on the fake once and whole: its line's parts, numbered 1/n…n/n,
    /// nothing else of the key ever stored.
    fn whole(&self, k: usize, line: &Line) -> Result<String, String> {
        let parts = line.list("parts");
        let n = parts.len();
        let ever = self.seen.values().filter(|s| s.key == k).count();
        let live = self.live_of(k);
        let listed: BTreeSet<String> = parts.iter().cloned().collect();
        if n < 2 || live != listed || ever != n {
            return Err(format!(
                "{} is done with parts {parts:?}, the fake has {live:?} live and held {ever}",
                KEYS[k]
            ));
        }
        for (i, id) in parts.iter().enumerate() {
            let numbered = format!("{}/{n}", i + 1);
            if !self.seen[id].text.trim_end().ends_with(&numbered) {
                return Err(format!(
                    "{}'s part {id} is not numbered {numbered}",
                    KEYS[k]
                ));
            }
        }
        Ok(format!("done, {n} parts"))
    }

    /// A failed key waits for a person: the run said 1, the line says why, and the story gave a
    /// reason the docs name (a part refused, or kept parts gone under an edit of the split).
    fn waits(&self, k: usize, line: &Line) -> Result<String, String> {
        let class = line.fields.get("class").cloned().unwrap_or_default();
        let reason = line.fields.get("reason").cloned().unwrap_or_default();
        if self.last != Some(1) || reason.is_empty() {
            return Err(format!(
                "{} is failed ({class}) and the last run exits {:?}, its reason {reason:?}",
                KEYS[k], self.last
            ));
        }
        let resumed_split = self.dropped && self.split_edited[k];
        if !(self.refused || resumed_split) {
            return Err(format!(
                "{} waits for a person ({class}: {reason}) with nothing in its story that asks for one",
                KEYS[k]
            ));
        }
        Ok(format!("waits for a person ({class})"))
    }
}

/// Play a story; the number of commands it ran.
fn play(steps: &[Step]) -> Result<usize, TestCaseError> {
    let mut case = Case::new();
    for (n, step) in steps.iter().enumerate() {
        case.play(n, step)?;
    }
    case.settle()?;
    if std::env::var_os("DAYRUN_THREAD_MODEL_VERBOSE").is_some() {
        println!("--- case\n{}", case.scene(""));
    }
    Ok(case.calls)
}

fn seed(n: u64) -> [u8; 32] {
    let mut seed = [0u8; 32];
    for (i, chunk) in seed.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(n.wrapping_mul(0xA24B_AED4_963E_E407) ^ i as u64).to_le_bytes());
    }
    seed
}

#[test]
fn random_lives_of_two_threads_keep_the_invariants() {
    let cases = env_number("DAYRUN_THREAD_MODEL_CASES", 20) as u32;
    let max_steps = env_number("DAYRUN_THREAD_MODEL_STEPS", 8) as usize;
    let seed_n = env_number("DAYRUN_THREAD_MODEL_SEED", 28);
    let config = Config {
        cases,
        max_shrink_iters: env_number("DAYRUN_THREAD_MODEL_SHRINK", 40) as u32,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed(seed_n)),
    );
    let (played, steps, calls) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let started = Instant::now();
    let stories = proptest::collection::vec(step(), 1..=max_steps);
    let result = runner.run(&stories, |story| {
        played.set(played.get() + 1);
        steps.set(steps.get() + story.len());
        calls.set(calls.get() + play(&story)?);
        Ok(())
    });
    let (played, steps, calls) = (played.get(), steps.get(), calls.get());
    println!(
        "thread model: seed={seed_n} cases={cases}; played (with any shrinking) {played} cases, {steps} steps, {calls} commands in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let shown: Vec<String> = MET.with(|m| {
        m.borrow()
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect()
    });
    println!("thread model: met {}", shown.join(", "));
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, story)) => panic!("{why}\nminimal case: {story:#?}"),
        Err(e) => panic!("{e}"),
    }
}

/// Play one story to its end, failing with its scene (a replay of a case the model found).
fn replay(steps: &[Step]) {
    if let Err(why) = play(steps) {
        panic!("{why}");
    }
}

/// The story the docs send to a person: a thread stopped between parts (a 429), its post edited
/// into another split, and its kept parts gone: the next runs send nothing and exit 1.
#[test]
fn a_resumed_thread_whose_split_changed_waits_for_a_person() {
    replay(&[
        Step::Run(vec![(1, Answer::Busy)]),
        Step::Edit {
            key: 0,
            split: true,
        },
        Step::DropSent,
    ]);
}

/// Issue 28, row 4: day 1's last part is refused while day 2's thread goes out whole; day 1 is
/// edited (a person's answer to the refusal), resumed from its kept parts, and its last part's
/// answer is lost. The
/// lookup finds two statuses with that text since day 1's attempt, and takes only the one that
/// replies to day 1's part 2.
#[test]
fn two_threads_ending_in_the_same_part_each_keep_their_own() {
    replay(&[
        Step::Run(vec![(2, Answer::Refused)]),
        Step::Edit {
            key: 0,
            split: true,
        },
        Step::Hour,
        Step::Run(vec![(0, Answer::CommitHang)]),
    ]);
}

/// Found by a story written for the model's steps (the model meets it too, rarely): a run
/// killed while part 2 of 3 is stored and its answer not yet back leaves `pending
/// parts=ID0`; the post is edited into another split and `state/masto.sent/` is removed. The
/// next run used to fail the key as `rejected` ("1 of its parts are out … nothing sent")
/// without looking for part 2, which was live on the instance and on no line: `retract` (the
/// advice) left it there, a reply to a deleted status, and "publish the rest by hand" sent it
/// twice. docs/state-file.md: "On a `pending` line, only the part after the last one listed
/// can be out unrecorded: the next run looks for that part before it sends it". Fixed: before
/// a thread cut off goes to a person, the part after the last one listed is looked for by
/// what it replies to (`Thread::replies_to`) and put on the line when it is there.
#[test]
fn a_thread_cut_off_is_refused_only_after_looking_for_its_next_part() {
    replay(&[
        Step::Kill(2, Some(true)),
        Step::Edit {
            key: 0,
            split: true,
        },
        Step::DropSent,
    ]);
}
