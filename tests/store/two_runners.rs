//! Issue 13's two-runner simulation: two machines run dayrun from their own clones of one
//! repository, share nothing but that repository ("origin", a bare repo) and the targets (an
//! in-process fake posts API with an exact `{key}` lookup, and a folder), and push their state
//! with the merge driver. Pushes fail at random, a failed runner may lose its clone (a CI job,
//! a pod), and each round's steps of A and B interleave at random: B often runs from the
//! commit before A's state. Every due key must be published exactly once, no key may go
//! missing from the merged state, and no merge may conflict.
//!
//! `DAYRUN_TWO_RUNNERS_SEED=N` replays one seed; `DAYRUN_TWO_RUNNERS_SEEDS` sets how many.

use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::git::{self, git, must};
use crate::support::util::{Rng, env_number};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const ROUNDS: u64 = 6;

/// What the simulation counts, over all seeds.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    pushes_failed: usize,
    clones_lost: usize,
    rejected: usize,
    /// State files and traces the driver merged (both sides had changed them).
    merges: usize,
    dedup: usize,
    duplicates: usize,
    lost: usize,
    merge_conflicts: usize,
    journals_left: usize,
    problems: Vec<String>,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.runs += o.runs;
        self.pushes_failed += o.pushes_failed;
        self.clones_lost += o.clones_lost;
        self.rejected += o.rejected;
        self.merges += o.merges;
        self.dedup += o.dedup;
        self.duplicates += o.duplicates;
        self.lost += o.lost;
        self.merge_conflicts += o.merge_conflicts;
        self.journals_left += o.journals_left;
        self.problems.extend(o.problems);
    }
}

/// One seed's world: origin, an author's clone that adds posts, the two runners, the targets.
struct World {
    root: PathBuf,
    api: PostsApi,
    /// Each published JSON's inode when first seen, held alive by a hard link in `seen/` (a
    /// rewrite of the file is a second publish, and no reused inode can hide it).
    seen: BTreeMap<String, u64>,
    /// Every key origin's state files ever held, per target.
    ever: BTreeSet<(String, String)>,
    rng: Rng,
    seed: u64,
}

impl World {
    fn new(seed: u64, dedup: &str) -> World {
        let root = std::env::temp_dir().join(format!("dayrun-two-{}-{seed}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("seen")).unwrap();
        let api = PostsApi::start();
        let config = format!(
            "timezone = \"UTC\"\ncatchup_days = 30\n\n[targets.blog]\nkind = \"http\"\nurl = \"{}\"\nlist_url = \"{}?key={{key}}\"\ntimeout_secs = 1\nconnect_timeout_secs = 1\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n{dedup}\n\n[targets.outbox]\nkind = \"folder\"\ndir = \"{}\"\n{dedup}\n",
            api.server.url("/posts"),
            api.server.url("/posts"),
            root.join("outbox").display(),
        );
        must(&root, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
        let author = root.join("author");
        git::init(&author);
        git::use_driver(&author, &git::driver());
        std::fs::create_dir_all(author.join("content")).unwrap();
        std::fs::write(author.join("dayrun.toml"), &config).unwrap();
        std::fs::write(author.join(".gitattributes"), git::ATTRIBUTES).unwrap();
        std::fs::write(author.join(".gitignore"), git::IGNORE).unwrap();
        std::fs::write(author.join("content/.keep"), "").unwrap();
        must(&author, &["add", "-A"]);
        must(
            &author,
            &["commit", "-qm", "a project run from two machines"],
        );
        must(&author, &["remote", "add", "origin", "../origin.git"]);
        must(&author, &["push", "-q", "origin", "main"]);
        let rng = Rng::new(seed);
        // Faults on the http target: a commit answered 500, a 503 that commits nothing.
        let mut faults = Rng::new(seed ^ 0x5eed);
        api.state.lock().unwrap().chooser = Some(Box::new(move || match faults.below(10) {
            0 => Fault::CommitStatus(500),
            1 => Fault::Reject(503),
            _ => Fault::Normal,
        }));
        World {
            root,
            api,
            seen: BTreeMap::new(),
            ever: BTreeSet::new(),
            rng,
            seed,
        }
    }

    /// The author writes the day's post (and sometimes tomorrow's) and pushes it.
    fn write_posts(&mut self, day: u64) {
        let author = self.root.join("author");
        let mut days = vec![day];
        if self.rng.below(3) == 0 {
            days.push(day + 1);
        }
        for d in days {
            let key = format!("2026-11-{d:02}");
            let body = format!("# Notes of {key}\n\nWritten for the two-runner drill.\n");
            std::fs::write(author.join(format!("content/{key}.md")), body).unwrap();
        }
        must(&author, &["add", "-A"]);
        // Nothing to commit when tomorrow's post was written yesterday.
        if git(&author, &["commit", "-qm", "posts"]).ok {
            must(&author, &["pull", "-q", "--no-rebase", "origin", "main"]);
            must(&author, &["push", "-q", "origin", "main"]);
        }
    }

    fn clone_dir(&self, runner: char) -> PathBuf {
        self.root.join(runner.to_string())
    }

    /// `git pull --no-rebase`, counting merges and conflicts (a conflict is left to the
    /// final count, then given up: the clone goes back to origin's commit).
    fn pull(&mut self, dir: &Path, tally: &mut Tally) {
        let pull = git(dir, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
        if !pull.ok || pull.text().contains("CONFLICT") {
            tally.merge_conflicts += 1;
            tally
                .problems
                .push(format!("seed {}: {}", self.seed, pull.text()));
            let _ = git(dir, &["merge", "--abort"]);
            must(dir, &["reset", "-q", "--hard", "origin/main"]);
            return;
        }
        // A state file or trace both sides changed: merged by the driver.
        tally.merges += pull.text().matches("Auto-merging state/").count();
    }

    fn sync(&mut self, runner: char, tally: &mut Tally) {
        let dir = self.clone_dir(runner);
        if !dir.exists() {
            must(
                &self.root,
                &["clone", "-q", "origin.git", &runner.to_string()],
            );
            git::quiet(&dir);
            git::use_driver(&dir, &git::driver());
            return;
        }
        self.pull(&dir, tally);
    }

    fn run(&mut self, runner: char, day: u64, tally: &mut Tally) {
        let dir = self.clone_dir(runner);
        let out = Command::new(env!("CARGO_BIN_EXE_dayrun"))
            .arg("-C")
            .arg(&dir)
            .args(["run", &format!("--today=2026-11-{day:02}")])
            .env("TZ", "UTC")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        tally.runs += 1;
        let code = out.status.code().unwrap_or(-1);
        if ![0, 1, 75].contains(&code) {
            let err = String::from_utf8_lossy(&out.stderr);
            tally.problems.push(format!(
                "seed {}: {runner} run exit {code}: {err}",
                self.seed
            ));
        }
        for entry in std::fs::read_dir(dir.join("state")).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if code == 0 && name.ends_with(".journal") {
                tally.journals_left += 1;
            }
        }
        self.look_at_outbox(tally);
    }

    /// Count rewrites of published files: each is a second publish of its key.
    fn look_at_outbox(&mut self, tally: &mut Tally) {
        for entry in std::fs::read_dir(self.root.join("outbox"))
            .into_iter()
            .flatten()
        {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.starts_with('.') {
                continue;
            }
            let ino = std::fs::metadata(&path).unwrap().ino();
            let link = self.root.join("seen").join(&name);
            match self.seen.get(&name) {
                Some(was) if *was == ino => continue,
                Some(_) => tally.duplicates += 1,
                None => {}
            }
            let _ = std::fs::remove_file(&link);
            std::fs::hard_link(&path, &link).unwrap();
            self.seen.insert(name, ino);
        }
    }

    /// Commit the state and push; a push may fail (the network, a cancelled job), and then the
    /// runner may lose its clone too. A rejected push pulls with the driver and tries again.
    fn commit_push(&mut self, runner: char, can_fail: bool, tally: &mut Tally) {
        let dir = self.clone_dir(runner);
        let mut files: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(dir.join("state")).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".state") || name.ends_with(".log") {
                files.push(format!("state/{name}"));
            }
        }
        if !files.is_empty() {
            let mut add = vec!["add", "--"];
            add.extend(files.iter().map(String::as_str));
            must(&dir, &add);
            // Fails when the run changed nothing: there is then nothing to commit.
            git(
                &dir,
                &["commit", "-qm", &format!("state from runner {runner}")],
            );
        }
        if can_fail && self.rng.below(10) < 3 {
            tally.pushes_failed += 1;
            if self.rng.below(2) == 0 {
                tally.clones_lost += 1;
                std::fs::remove_dir_all(&dir).unwrap();
            }
            return;
        }
        for _ in 0..5 {
            if git(&dir, &["push", "-q", "origin", "main"]).ok {
                // Origin now holds this clone's commit: its state files are origin's.
                for target in ["blog", "outbox"] {
                    let text = std::fs::read_to_string(dir.join(format!("state/{target}.state")));
                    for key in keys(&text.unwrap_or_default()) {
                        self.ever.insert((target.to_string(), key));
                    }
                }
                return;
            }
            tally.rejected += 1;
            self.pull(&dir, tally);
        }
        tally
            .problems
            .push(format!("seed {}: {runner} could not push", self.seed));
    }

    fn origin_state(&self, target: &str) -> String {
        let origin = self.root.join("origin.git");
        let spec = format!("main:state/{target}.state");
        git(&origin, &["show", &spec]).out
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Keys of a state file's text, with their status.
fn statuses(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| l.starts_with("20"))
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().into(), w.next().unwrap_or("").into())
        })
        .collect()
}

fn keys(text: &str) -> BTreeSet<String> {
    statuses(text).into_keys().collect()
}

/// One seed: `ROUNDS` days with randomly interleaved runners, then a calm round where every
/// push works, then the count.
fn simulate(seed: u64, dedup: &str, tally: &mut Tally) {
    let mut w = World::new(seed, dedup);
    for day in 1..=ROUNDS {
        w.write_posts(day);
        // Each runner's round is sync, run, commit+push; a runner may sleep through a day.
        let mut steps: Vec<(char, u8)> = Vec::new();
        let (mut a, mut b) = (0u8, 0u8);
        let na = if w.rng.below(8) == 0 { 0 } else { 3 };
        while a < na || b < 3 {
            if b == 3 || (a < na && w.rng.below(2) == 0) {
                steps.push(('a', a));
                a += 1;
            } else {
                steps.push(('b', b));
                b += 1;
            }
        }
        for (runner, step) in steps {
            match step {
                0 => w.sync(runner, tally),
                1 => w.run(runner, day, tally),
                _ => w.commit_push(runner, true, tally),
            }
        }
    }
    w.api.state.lock().unwrap().chooser = None;
    for runner in ['a', 'b', 'a'] {
        w.sync(runner, tally);
        w.run(runner, ROUNDS, tally);
        w.commit_push(runner, false, tally);
    }
    // The count: every post file of the author's is a due key by now, or tomorrow's.
    let posts: BTreeSet<String> = std::fs::read_dir(w.root.join("author/content"))
        .unwrap()
        .filter_map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .strip_suffix(".md")
                .map(String::from)
        })
        .filter(|k| k.as_str() <= format!("2026-11-{ROUNDS:02}").as_str())
        .collect();
    let commits = w.api.commits();
    for key in &posts {
        let n = commits.get(key).copied().unwrap_or(0);
        tally.duplicates += n.saturating_sub(1);
        if n == 0 || !w.root.join(format!("outbox/{key}.json")).exists() {
            tally.lost += 1;
            tally
                .problems
                .push(format!("seed {seed}: {key} never published"));
        }
    }
    for target in ["blog", "outbox"] {
        let text = w.origin_state(target);
        tally.dedup += text.matches("dedup=1").count();
        let now = statuses(&text);
        for key in &posts {
            if now.get(key).map(String::as_str) != Some("done") {
                tally.lost += 1;
                tally.problems.push(format!(
                    "seed {seed}: {target} {key} not done in origin: {text}"
                ));
            }
        }
        for (t, key) in &w.ever {
            if t == target && !now.contains_key(key) {
                tally.lost += 1;
                tally
                    .problems
                    .push(format!("seed {seed}: {target} {key} dropped from origin"));
            }
        }
    }
}

fn seeds() -> Vec<u64> {
    match std::env::var("DAYRUN_TWO_RUNNERS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(seed) => vec![seed],
        None => {
            let first = env_number("DAYRUN_TWO_RUNNERS_FIRST", 1);
            (first..first + env_number("DAYRUN_TWO_RUNNERS_SEEDS", 10)).collect()
        }
    }
}

#[test]
fn two_runners_with_lost_pushes_publish_each_key_once_and_merge_without_conflicts() {
    let started = std::time::Instant::now();
    let seeds = seeds();
    // Seeds are independent worlds (their own server, origin and clones): a few at a time.
    let (next, total) = (AtomicUsize::new(0), Mutex::new(Tally::default()));
    std::thread::scope(|scope| {
        for _ in 0..env_number("DAYRUN_TWO_RUNNERS_THREADS", 4) {
            scope.spawn(|| {
                while let Some(seed) = seeds.get(next.fetch_add(1, Ordering::SeqCst)) {
                    println!("two_runners: seed {seed} (replay: DAYRUN_TWO_RUNNERS_SEED={seed})");
                    let mut tally = Tally::default();
                    simulate(*seed, "", &mut tally);
                    total.lock().unwrap().add(tally);
                }
            });
        }
    });
    let t = &total.into_inner().unwrap();
    println!(
        "two_runners: seeds={} rounds={ROUNDS} runs={} pushes_failed={} clones_lost={} rejected={} merges={} dedup={} journals_left={} in {:.1}s",
        seeds.len(),
        t.runs,
        t.pushes_failed,
        t.clones_lost,
        t.rejected,
        t.merges,
        t.dedup,
        t.journals_left,
        started.elapsed().as_secs_f64()
    );
    println!(
        "duplicates={} lost={} merge_conflicts={}",
        t.duplicates, t.lost, t.merge_conflicts
    );
    assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
    assert_eq!((t.duplicates, t.lost, t.merge_conflicts), (0, 0, 0));
    assert_eq!(
        t.journals_left, 0,
        "a run that ended normally left its journal"
    );
    if seeds.len() > 1 {
        // The drill did what it is for: lost state met a post already out, and git merged.
        assert!(t.dedup > 0 && t.merges > 0 && t.pushes_failed > 0, "{t:?}");
    }
}
