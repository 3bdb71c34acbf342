//! Issue 20's model-based property test: random lives of a few keys, through the real binary,
//! against the fake posts API and a small reference model (`model/spec.rs`, written from the
//! issue and the README). Each case is a sequence of steps (`model/steps.rs`): mornings' runs
//! with a fault per POST and per GET of each key (each class), an outage, runs SIGKILLed part
//! way, time passing (`DAYRUN_NOW` and `--today`), edits, deleted posts, `mark`, `retry` (and
//! `--absent`, `--force`, `--force --new`), `retract`, and merges of two diverged copies of the
//! state through `merge-state` (one side's command a `retry --force --new`, in some), and (issue
//! 28) edits while an attempt is pending, and runs held while their lock file is removed and a
//! second run starts. One case in four has a target that settles for 15 minutes, so a lookup
//! right after a lost answer says "not yet"; about one in three has keys 0 and 1 with the same
//! text, and a lookup that matches by text finds either's copies. Keys are dates, slugged (two
//! of one day, issue 32: a post with no line is asked about as a rename while another's file is
//! gone with its copy out), or a month, a week and a day (issue 33); in about one case in three
//! key 2's front matter names a time of its day (`times`), and runs then do not pin the day.
//! After every step, the first broken of:
//!
//! 1. the fake holds no second copy of a key unless a human said so (`--absent` wrongly,
//!    `--force --new`, `mark failed` on a published key) or two diverged sides sent one each;
//! 2. while a due post is not on the target and no human marked, put aside or retracted it,
//!    every run exits non-zero;
//! 3. no id is ever dropped: every id dayrun was told (a 201's id, an id on a line, `mark --id`)
//!    whose copy is still on the fake is on the key's line;
//! 4. each command's exit code is the model's;
//! 5. (row 11) before each run, `run --dry-run` and `status` exit with the code the state implies;
//! 6. (issue 28) no copy answers for another key or generation: every id on a key's line is, by
//!    the fake, a post of that key and of the line's generation (`older=`: an earlier one's),
//!    unless a human named it (`mark --id`);
//! 7. (issue 28, row 6) a `done` line's `fp=` is what its live copy holds, so a copy found after
//!    an edit keeps the attempt's fingerprint and a target that updates would send the edit;
//! 8. (issue 28, row 8) the second run started while the first holds the lock, its lock file
//!    removed, exits 75 and decides nothing;
//!
//! and then each key's line (status, class, lookup, by hand, sent=maybe) and its number of
//! copies on the fake are the model's. After a kill, each line must be one the run could have
//! written, and the model goes on from it.
//!
//! `DAYRUN_MODEL_CASES` (default 48), `DAYRUN_MODEL_STEPS` (most steps per case, default 20),
//! `DAYRUN_MODEL_SEED` and `DAYRUN_MODEL_SHRINK` (shrink iterations, default 300) size and replay
//! it; a failure prints its shrunk sequence; `DAYRUN_MODEL_VERBOSE` prints every case.
//! `model/found.rs` replays each divergence the search found, as a regression test.

use crate::fakes::fake_posts::PostsApi;
use crate::support::util::{Output, Project, bare, env_number};
use jiff::Timestamp;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use spec::{Exit, Key, Lever, Line, Mode, Pass, Rec, Script, Why};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use steps::{KEY_2_AT, KEYS, Keys, PERIOD_KEYS, SLUGGED_KEYS, START, Step, Story};
use world::{Obs, TARGET};

mod lock;
mod owners;
mod spec;
mod steps;
pub(crate) mod world;

thread_local! {
    /// What this thread's cases met, counted for the summary line (`what` → times).
    static SEEN: std::cell::RefCell<BTreeMap<String, usize>> = const {
        std::cell::RefCell::new(BTreeMap::new())
    };
}

fn seen(what: impl Into<String>) {
    SEEN.with(|s| *s.borrow_mut().entry(what.into()).or_default() += 1);
}

/// Minutes between two commands. Time also passes by 65 minutes or by hours (`Step::Pass`): no
/// sum of these is `escalate_after`'s 120, so no failure's age is ever within a minute of it,
/// and the model can say on which side it is.
const GAP: i64 = 7;
/// Minutes between two commands on a target that settles for 15 minutes: more than that, so a
/// run never waits (up to 10 minutes) for an earlier run's attempt to settle; a lookup right
/// after a lost answer says "not yet", and the next run's says found or absent.
const SLOW_GAP: i64 = 17;

/// A case being played: the world and the model side by side.
struct Case {
    api: PostsApi,
    p: Project,
    keys: Vec<String>,
    now: Timestamp,
    /// The target's settle time, in minutes.
    settle: i64,
    model: Vec<Key>,
    /// Ids dayrun was told, per key.
    known: Vec<BTreeSet<String>>,
    /// Ids a human named (`mark --id`): the human's word, whoever's copy they are.
    by_hand: BTreeSet<String>,
    /// Keys 0 and 1 have the same text, and a lookup finds either's copies (matching by text).
    twins: bool,
    /// Keys are slugged (`SLUGGED_KEYS`).
    slugged: bool,
    /// Key 2 is due at its front matter's time (`KEY_2_AT`), and runs do not pin the day.
    timed: bool,
    /// The next `run` step is held at its first request while a second run tries to start.
    contend_next: bool,
    /// The next command is (as `contend_next` said when it was started).
    contend: std::cell::Cell<bool>,
    /// The latest version written of each post.
    versions: Vec<u32>,
    /// How many of the fake's answered ids have been counted.
    answered: usize,
    /// What happened so far, for the failure message.
    log: Vec<String>,
    calls: std::cell::Cell<usize>,
    /// Broken invariants found during a step, told after it (invariant number, what, output).
    later: std::cell::RefCell<Vec<(u8, String, String)>>,
}

fn minutes(m: i64) -> jiff::SignedDuration {
    jiff::SignedDuration::from_mins(m)
}

impl Case {
    fn new(settle: i64, twins: bool, (shape, timed): (Keys, bool)) -> Case {
        let api = PostsApi::start();
        api.state.lock().unwrap().hang = std::time::Duration::from_millis(1500);
        let p = Project::new();
        let (names, mut table) = match shape {
            Keys::Dates => (KEYS, String::new()),
            Keys::Slugged => (SLUGGED_KEYS, "keys = [\"date\", \"slug\"]\n".into()),
            Keys::Periods => (
                PERIOD_KEYS,
                "keys = [\"date\", \"week\", \"month\"]\n".into(),
            ),
        };
        seen(format!("case with {shape:?} keys"));
        if timed {
            seen("case with key 2 timed");
            table.push_str("timezone = \"UTC\"\ntimes = \"front-matter\"\n");
        }
        p.file(
            "dayrun.toml",
            format!("{table}{}", world::config(&api, settle)),
        );
        let keys: Vec<String> = names.iter().map(|k| k.to_string()).collect();
        let now: Timestamp = START.parse().unwrap();
        if twins {
            world::twins(&api, &keys[0], &keys[1]);
        }
        let at = |k: usize| (timed && k == 2).then(|| KEY_2_AT.parse::<Timestamp>().unwrap());
        for (k, key) in keys.iter().enumerate() {
            p.file(
                &format!("content/{key}.md"),
                world::post_text_at(&name(twins, k, key), 1, at(k)),
            );
        }
        let model = keys
            .iter()
            .enumerate()
            .map(|(k, name)| Key {
                date: name.parse::<::life::Key>().unwrap().day(),
                last: name.parse::<::life::Key>().unwrap().last_day(),
                due: at(k),
                file: Some(1),
                line: Line::none(now),
                live: 0,
                older_live: 0,
                allowed: 0,
                named: 0,
                noted: false,
            })
            .collect();
        Case {
            api,
            p,
            keys,
            now,
            settle,
            model,
            known: vec![BTreeSet::new(); KEYS.len()],
            by_hand: BTreeSet::new(),
            twins,
            slugged: shape == Keys::Slugged,
            timed,
            contend_next: false,
            contend: std::cell::Cell::new(false),
            versions: vec![1; KEYS.len()],
            answered: 0,
            log: Vec::new(),
            calls: std::cell::Cell::new(0),
            later: std::cell::RefCell::new(Vec::new()),
        }
    }

    fn gap(&self) -> i64 {
        match self.settle {
            0 => GAP,
            _ => SLOW_GAP,
        }
    }

    /// `--today` pinned to the case's day, unless its keys have times (`times`): a pinned day
    /// makes every key of it due, whatever its time.
    fn pin(&self) -> Option<String> {
        (!self.timed).then(|| format!("--today={}", self.today()))
    }

    fn today(&self) -> String {
        self.now
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .date()
            .to_string()
    }

    /// Run `args` in `p` at the case's now with these scripts; the exit (`None`: killed).
    fn call(
        &self,
        p: &Project,
        args: &[&str],
        scripts: &[Script],
        kill: Option<u64>,
    ) -> (Option<i32>, String) {
        world::script(&self.api, &self.keys, scripts);
        let out = match self.contend.take() {
            true => self.contended(p, args),
            false => world::run(p, self.now, args, kill),
        };
        // Requests the command sent and stopped waiting for (killed, or timed out) are answered
        // as its scripts say, not as the next command's.
        let backlog = match out.0 {
            None => 20,
            Some(_) => 2,
        };
        self.api.server.settle(
            std::time::Duration::from_millis(backlog),
            std::time::Duration::from_secs(2),
        );
        world::script(
            &self.api,
            &self.keys,
            &vec![Script::calm(); self.keys.len()],
        );
        self.calls.set(self.calls.get() + 1);
        out
    }

    /// `args` run while a second run tries to start with the lock file removed (row 8).
    fn contended(&self, p: &Project, args: &[&str]) -> (Option<i32>, String) {
        let (out, second) = lock::contended(&self.api, p, self.now, args);
        let Some(second) = second else {
            seen("lock removed: no request to hold the run at");
            return out;
        };
        seen("lock removed under a run");
        self.calls.set(self.calls.get() + 1);
        if let Some(what) = lock::kept_out(&second) {
            let output = format!("{}\n(the second run)\n{}", out.1, second.1);
            self.later.borrow_mut().push((8, what, output));
        }
        out
    }

    fn live(&self) -> BTreeMap<String, Vec<String>> {
        world::live(&self.api)
    }

    /// Ids the fake answered since the last look (each copy's id in a 201).
    fn take_answered(&mut self) -> Vec<(String, String)> {
        let s = self.api.state.lock().unwrap();
        let new = s.answered[self.answered..].to_vec();
        self.answered = s.answered.len();
        new
    }

    fn index(&self, key: &str) -> usize {
        self.keys.iter().position(|k| k == key).unwrap()
    }

    /// Everything a failure message shows: the steps so far, the lines, the fake's copies.
    fn scene(&self, output: &str) -> String {
        let lines = world::lines(&self.p.root);
        let mut out = String::from("--- steps\n");
        for line in &self.log {
            out.push_str(&format!("{line}\n"));
        }
        out.push_str("--- state lines\n");
        for obs in lines.values() {
            out.push_str(&format!("{}\n", obs.text));
        }
        out.push_str(&format!("--- live copies on the fake: {:?}\n", self.live()));
        out.push_str("--- model\n");
        for (k, key) in self.model.iter().enumerate() {
            out.push_str(&format!(
                "k{k} {}: file {:?}, {:?}, live {}\n",
                key.date, key.file, key.line, key.live
            ));
        }
        out.push_str(&format!("--- output of the step\n{output}"));
        out
    }

    fn fail(&self, what: String, output: &str) -> TestCaseError {
        TestCaseError::fail(format!("{what}\n{}", self.scene(output)))
    }

    fn play(&mut self, n: usize, step: &Step) -> Result<(), TestCaseError> {
        if let Step::Seq(steps) = step {
            for step in steps {
                self.play(n, step)?;
            }
            return Ok(());
        }
        self.log.push(format!("{n}: {step:?} (failed here)"));
        self.read_named();
        let (text, output) = match step {
            Step::Run(scripts) => self.run(scripts, None, false)?,
            Step::LockLost(scripts) => {
                self.contend_next = true;
                self.run(scripts, None, false)?
            }
            Step::Outage(mornings, apart) => {
                // Every connection refused: each POST and each GET fails retry-safe, and after the
                // first the run tries no other key (issue 29 row 8).
                let refused = Script {
                    sends: vec![spec::Send::Refused],
                    look: spec::Look::Refused,
                };
                let mut said = (String::new(), String::new());
                for morning in 0..*mornings {
                    if morning > 0 {
                        self.now += minutes(*apart);
                        // What the last morning wrote (`gone=` on a line it first saw gone)
                        // is what this one's rename rule reads.
                        self.read_named();
                    }
                    let (text, output) =
                        self.run(&vec![refused.clone(); self.keys.len()], None, true)?;
                    said.0.push_str(&text);
                    said.1.push_str(&output);
                }
                said
            }
            Step::Kill(scripts, ms) => self.run(scripts, Some(*ms), false)?,
            Step::Pass(m) => {
                self.now += minutes(*m);
                (String::new(), String::new())
            }
            Step::Edit(k) => {
                // Twins keep their one text: an edit of one brings a deleted post back as it was.
                if !(self.twins && *k < 2) {
                    self.versions[*k] += 1;
                }
                let v = self.versions[*k];
                self.p.file(
                    &format!("content/{}.md", self.keys[*k]),
                    world::post_text_at(
                        &name(self.twins, *k, &self.keys[*k]),
                        v,
                        self.model[*k].due,
                    ),
                );
                self.model[*k].file = Some(v);
                (String::new(), String::new())
            }
            Step::Delete(k) => {
                let _ = std::fs::remove_file(self.p.path(&format!("content/{}.md", self.keys[*k])));
                self.model[*k].file = None;
                (String::new(), String::new())
            }
            Step::Mark { key, done } => self.mark(*key, *done)?,
            Step::Retry {
                key,
                lever,
                wrongly,
                script,
            } => self.retry(*key, *lever, *wrongly, script)?,
            Step::Retract(k) => self.retract(*k)?,
            Step::Seq(_) => unreachable!("played above"),
            Step::Merge(a, b) => self.merge(a, b, None)?,
            Step::MergeNew(k, script, b) => self.merge(&[], b, Some((*k, script)))?,
        };
        *self.log.last_mut().expect("pushed above") = format!("{n}: {step:?}{text}");
        self.check_after(&output)
    }

    /// Each key's `named`, as the state and the fake say before a step: the live copies of the
    /// key its line names (`id=`, `copies=`).
    fn read_named(&mut self) {
        let (lines, live) = (world::lines(&self.p.root), self.live());
        for (i, key) in self.keys.iter().enumerate() {
            let held = live.get(key).cloned().unwrap_or_default();
            let named: BTreeSet<String> = lines.get(key).map_or_else(BTreeSet::new, |obs| {
                let mut ids = obs.list("id");
                ids.extend(obs.list("copies"));
                ids.into_iter().filter(|id| held.contains(id)).collect()
            });
            self.model[i].named = named.len();
            self.model[i].noted = lines.get(key).is_some_and(|obs| obs.get("gone").is_some());
        }
    }

    /// A morning's run (killed after `kill` ms when given; `down`: the server refuses every
    /// connection, and `scripts` say so for the model).
    fn run(
        &mut self,
        scripts: &[Script],
        kill: Option<u64>,
        down: bool,
    ) -> Result<(String, String), TestCaseError> {
        self.now += minutes(self.gap());
        let today = self.pin();
        let before = self.model.clone();
        let mut pass = Pass::new(self.now, Mode::Run, false, scripts);
        pass.settle = self.settle;
        pass.twins = self.twins;
        pass.slugged = self.slugged;
        pass.pinned = !self.timed;
        self.implied(&pass, today.as_deref());
        for i in 0..self.model.len() {
            pass.visit_at(i, &mut self.model);
        }
        if let Some(why) = pass.unmodeled {
            return Err(TestCaseError::reject(why));
        }
        if down {
            self.api.server.down();
        }
        self.contend.set(std::mem::take(&mut self.contend_next));
        let world = match down {
            true => vec![Script::calm(); self.keys.len()],
            false => scripts.to_vec(),
        };
        let run: Vec<&str> = ["run"].into_iter().chain(today.as_deref()).collect();
        let (code, output) = self.call(&self.p, &run, &world, kill);
        if down {
            self.api.server.up();
        }
        self.sane(&pass, &output)?;
        match code {
            Some(code) => {
                self.take_answered_into_known();
                self.stranded(code, &self.model, &output)?;
                self.exit_is(code, pass.exit, &output)?;
                Ok((format!(" → {code}"), output))
            }
            None => {
                self.after_kill(&before, &pass, &output)?;
                seen("kill mid-run");
                Ok((" → killed".into(), output))
            }
        }
    }

    /// After a kill: each key's line must be one its run could have written (the model takes
    /// it for the rest of the case), and the fake holds what the run sent until then.
    fn after_kill(
        &mut self,
        before: &[Key],
        pass: &Pass,
        output: &str,
    ) -> Result<(), TestCaseError> {
        let _ = self.take_answered();
        let lines = world::lines(&self.p.root);
        let live = self.live();
        for (i, was) in before.iter().enumerate() {
            let obs = lines.get(&self.keys[i]);
            let mut candidates = vec![was.line.clone()];
            candidates.extend(pass.trail[i].iter().cloned());
            let ff = obs.is_some_and(|o| o.first_failure().is_some());
            let found = candidates
                .iter()
                .rev()
                .find(|c| facts(c) == obs.map(Obs::facts) && c.since.is_some() == ff)
                .cloned();
            let Some(mut line) = found else {
                let what = format!(
                    "after a kill, {}'s line is none the run could have written: {:?}; could be {:?}",
                    self.keys[i],
                    obs.map(Obs::facts),
                    candidates.iter().map(facts).collect::<Vec<_>>()
                );
                return Err(self.fail(what, output));
            };
            if let Some(obs) = obs {
                line.since = obs.first_failure();
                line.written = obs.at.unwrap_or(self.now);
                line.generation = obs.generation();
                line.own = obs.own_live();
                line.older = obs.get("older").is_some();
            }
            let n = live.get(&self.keys[i]).map_or(0, Vec::len);
            if n < was.live || n > self.model[i].live {
                let what = format!(
                    "after a kill, the fake holds {n} copies of {}: the run could leave {}..={}",
                    self.keys[i], was.live, self.model[i].live
                );
                return Err(self.fail(what, output));
            }
            let older: Vec<String> = obs
                .and_then(|o| o.get("older"))
                .map(|o| o.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            let held = live.get(&self.keys[i]).cloned().unwrap_or_default();
            self.model[i].older_live = held.iter().filter(|id| older.contains(id)).count();
            self.model[i].line = line;
            self.model[i].live = n;
        }
        Ok(())
    }

    fn take_answered_into_known(&mut self) {
        for (key, id) in self.take_answered() {
            let i = self.index(&key);
            self.known[i].insert(id);
        }
    }

    /// The model broke a rule by itself: the model is wrong, or an earlier step went astray.
    fn sane(&self, pass: &Pass, output: &str) -> Result<(), TestCaseError> {
        for (_, note) in &pass.notes {
            seen(*note);
        }
        match &pass.broken {
            Some(why) => Err(self.fail(format!("the model itself: {why}"), output)),
            None => Ok(()),
        }
    }

    /// Invariant 2: a due post that is not out, and no human's word about it, makes the run
    /// exit non-zero. (Judged now, told after the step: see `check_after`.)
    fn stranded(&self, code: i32, model: &[Key], output: &str) -> Result<(), TestCaseError> {
        let live = self.live();
        let today: jiff::civil::Date = self.today().parse().unwrap();
        for (i, key) in model.iter().enumerate() {
            let out = live.get(&self.keys[i]).is_some_and(|l| !l.is_empty());
            let human = matches!(
                key.line.rec,
                Rec::Done | Rec::Retracted | Rec::Failed(Why::Aside)
            );
            let stale = key.line.rec == Rec::None && key.stale(self.now, today);
            let due = key.date <= today && key.due.is_none_or(|due| due <= self.now);
            if key.file.is_some() && due && !out && !human && !stale && code == 0 {
                let what = format!(
                    "invariant 2: {} is due and not on the target, no human acted, and the run exited 0",
                    self.keys[i]
                );
                self.later.borrow_mut().push((2, what, output.to_string()));
            }
        }
        Ok(())
    }

    /// Row 11: `run --dry-run` and `status` exit with the code the state implies (checked
    /// before a run, as at its moment; told after the step).
    fn implied(&self, pass: &Pass, today: Option<&str>) {
        let want = (0..self.model.len())
            .map(|i| pass.implied_at(i, &self.model))
            .max()
            .unwrap_or(Exit::Ok);
        for command in [&["run", "--dry-run"][..], &["status"]] {
            let args: Vec<&str> = command.iter().copied().chain(today).collect();
            let args = args.as_slice();
            let (code, output) = self.call(&self.p, args, &[], None);
            let code = code.unwrap_or(-1);
            if code != want.code() {
                let what = format!(
                    "row 11: `{}` exits {code}, the state implies {} ({want:?})",
                    args.join(" "),
                    want.code()
                );
                self.later.borrow_mut().push((5, what, output));
            }
        }
    }

    /// Invariant 4: the exit code is the model's. (Told after the step.)
    fn exit_is(&self, code: i32, want: Exit, output: &str) -> Result<(), TestCaseError> {
        seen(format!("exit {code}"));
        if code != want.code() {
            let what = format!(
                "invariant 4: exit {code}, the model says {} ({want:?})",
                want.code()
            );
            self.later.borrow_mut().push((4, what, output.to_string()));
        }
        Ok(())
    }

    /// After every step: invariants 1 to 4 (the first broken is told), then the model's lines
    /// and copies.
    fn check_after(&mut self, output: &str) -> Result<(), TestCaseError> {
        let lines = world::lines(&self.p.root);
        let live = self.live();
        let mut broken = std::mem::take(&mut *self.later.borrow_mut());
        for (i, key) in self.keys.iter().enumerate() {
            let copies = live.get(key).cloned().unwrap_or_default();
            let m = &self.model[i];
            if copies.len() > 1 + m.allowed {
                let what = format!(
                    "invariant 1: the fake holds {} copies of {key} ({copies:?}); allowed {}",
                    copies.len(),
                    1 + m.allowed
                );
                broken.push((1, what, output.to_string()));
            }
            let on_line = lines.get(key).map(Obs::ids).unwrap_or_default();
            for id in &self.known[i] {
                if copies.contains(id) && !on_line.contains(id) {
                    let what = format!(
                        "invariant 3: id {id} of {key} is live on the fake and not on its line"
                    );
                    broken.push((3, what, output.to_string()));
                }
            }
        }
        broken.extend(self.whose(&lines, output));
        if let Some((_, what, output)) = broken.into_iter().min_by_key(|(n, ..)| *n) {
            return Err(self.fail(what, &output));
        }
        for (i, key) in self.keys.iter().enumerate() {
            let copies = live.get(key).map_or(0, Vec::len);
            let (m, obs) = (&self.model[i], lines.get(key));
            seen(format!("line {}", obs.map_or("none".into(), Obs::facts)));
            if facts(&m.line) != obs.map(Obs::facts) {
                let what = format!(
                    "the line of {key}: {:?}, the model says {:?}",
                    obs.map(Obs::facts),
                    facts(&m.line)
                );
                return Err(self.fail(what, output));
            }
            if copies != m.live {
                let what = format!(
                    "the fake holds {copies} copies of {key}, the model says {}",
                    m.live
                );
                return Err(self.fail(what, output));
            }
        }
        for (i, key) in self.keys.iter().enumerate() {
            if let Some(obs) = lines.get(key) {
                self.known[i].extend(obs.ids());
            }
        }
        Ok(())
    }

    /// Invariants 6 and 7 on every line: whose copies its ids are, and what its copy holds.
    fn whose(&self, lines: &BTreeMap<String, Obs>, output: &str) -> Vec<(u8, String, String)> {
        let owners = owners::owners(&self.api);
        let mut broken = Vec::new();
        for (key, obs) in lines {
            if let Some(s) = owners::stranger(key, obs, &owners, &self.by_hand) {
                let what = format!(
                    "invariant 6: {key}'s line holds a copy not its own: {}",
                    s.why
                );
                broken.push((6, what, output.to_string()));
            }
            if let Some(why) = owners::untrue(obs, &owners, &self.by_hand) {
                broken.push((7, format!("invariant 7: {key}: {why}"), output.into()));
            }
        }
        broken
    }

    fn mark(&mut self, k: usize, done: bool) -> Result<(String, String), TestCaseError> {
        self.now += minutes(self.gap());
        let key = self.keys[k].clone();
        let newest = self
            .live()
            .get(&key)
            .and_then(|l| l.last().cloned())
            .filter(|_| done);
        let mut args = vec!["mark", key.as_str(), if done { "done" } else { "failed" }];
        if let Some(id) = &newest {
            args.extend(["--id", id, "--target", TARGET]);
        }
        let (code, output) = self.call(&self.p, &args, &[], None);
        let code = code.unwrap_or(-1);
        self.exit_is(code, Exit::Ok, &output)?;
        spec::mark(&mut self.model[k], done, newest.is_some(), self.now);
        if let Some(id) = newest {
            self.known[k].insert(id.clone());
            self.by_hand.insert(id.clone());
            return Ok((format!(" --id {id} → {code}"), output));
        }
        Ok((format!(" → {code}"), output))
    }

    fn retry(
        &mut self,
        k: usize,
        lever: Lever,
        wrongly: bool,
        script: &Script,
    ) -> Result<(String, String), TestCaseError> {
        self.now += minutes(self.gap());
        let key = self.keys[k].clone();
        let out = self.live().get(&key).is_some_and(|l| !l.is_empty());
        // A human says `--absent` only after looking, and looks well unless `wrongly`.
        let lever = match lever {
            Lever::Absent if out && !wrongly => Lever::Again,
            lever => lever,
        };
        let mut args = vec!["retry", key.as_str()];
        let flags: &[&str] = match lever {
            Lever::Again => &[],
            Lever::Absent => &["--absent"],
            Lever::Force => &["--force"],
            Lever::ForceNew => &["--force", "--new"],
        };
        args.extend(flags);
        let mut scripts = vec![Script::calm(); self.keys.len()];
        scripts[k] = script.clone();
        // The human's word: a copy beside a live one is theirs to ask for.
        if lever == Lever::ForceNew || (lever == Lever::Absent && out) {
            self.model[k].allowed += 1;
        }
        let m = &self.model[k];
        let want = if m.line.rec == Rec::None && m.file.is_none() {
            Exit::Usage
        } else {
            let mut pass = Pass::new(self.now, Mode::Retry(lever), true, &scripts);
            pass.settle = self.settle;
            pass.twins = self.twins;
            pass.slugged = self.slugged;
            pass.visit_at(k, &mut self.model);
            self.sane(&pass, "")?;
            pass.exit
        };
        let (code, output) = self.call(&self.p, &args, &scripts, None);
        let code = code.unwrap_or(-1);
        self.take_answered_into_known();
        self.exit_is(code, want, &output)?;
        Ok((format!(" as {lever:?} → {code}"), output))
    }

    /// `retract KEY --yes`: every live copy the line names goes, and the line says retracted.
    fn retract(&mut self, k: usize) -> Result<(String, String), TestCaseError> {
        self.now += minutes(self.gap());
        let key = self.keys[k].clone();
        let obs = world::lines(&self.p.root).get(&key).cloned();
        let named = obs.as_ref().map(Obs::live_ids).unwrap_or_default();
        let on_fake = self.live().get(&key).cloned().unwrap_or_default();
        let m = &self.model[k];
        // A done line that says `sent=maybe` (a merge kept the other side's attempt) waits too:
        // the next run looks for that attempt's copy first.
        let maybe_out = matches!(m.line.rec, Rec::Pending)
            || (matches!(m.line.rec, Rec::Failed(_) | Rec::Done) && m.line.maybe);
        // A copy the line does not name (a human's wrong `--absent`, an attempt of the other
        // side of a merge) is left: the retract works from the line alone (row 5) and checks
        // each removal by its id.
        let strangers = on_fake.iter().filter(|id| !named.contains(id)).count();
        let nothing = m.line.rec == Rec::None || maybe_out || named.is_empty();
        let want = match () {
            // What may be out cannot be retracted: the key waits as its line says (3 for a
            // refused credential, the state's own exit code), and nothing was retracted (1).
            _ if maybe_out && m.line.rec == Rec::Failed(Why::Auth) => Exit::Auth,
            _ if nothing => Exit::Human,
            _ => Exit::Ok,
        };
        let (code, output) = self.call(&self.p, &["retract", &key, "--yes"], &[], None);
        let code = code.unwrap_or(-1);
        self.exit_is(code, want, &output)?;
        let key_m = &mut self.model[k];
        if want == Exit::Ok {
            key_m.line = Line {
                rec: Rec::Retracted,
                maybe: false,
                own: false,
                older: false,
                since: None,
                written: self.now,
                ..key_m.line.clone()
            };
            key_m.live = strangers;
            key_m.older_live = 0;
        }
        Ok((format!(" → {code}"), output))
    }

    /// Two machines: the state copied, a run on each, then `merge-state` into this one.
    /// `new`: this side's command is `retry KEY --force --new` (its line then carries `older=`).
    fn merge(
        &mut self,
        a: &[Script],
        b: &[Script],
        new: Option<(usize, &Script)>,
    ) -> Result<(String, String), TestCaseError> {
        let base_text = std::fs::read_to_string(self.p.path(&format!("state/{TARGET}.state")))
            .unwrap_or_default();
        let other = world::fork(&self.p);
        let base = self.model.clone();
        // This side.
        let (ra, out_a) = match new {
            Some((k, script)) => self.retry(k, Lever::ForceNew, false, script)?,
            None => self.run(a, None, false)?,
        };
        let side_a = self.model.clone();
        // The other side, from the same state, later, against the same fake.
        self.now += minutes(self.gap());
        let today = self.pin();
        let mut model_b: Vec<Key> = base
            .iter()
            .zip(&side_a)
            // What the fake holds is the first side's doing; what the lines name, the state's
            // (`older_live`, `named`: the base's, which the other side runs from).
            .map(|(k, a)| Key {
                live: a.live,
                allowed: a.allowed,
                ..k.clone()
            })
            .collect();
        let mut pass = Pass::new(self.now, Mode::Run, false, b);
        pass.fork = true;
        pass.settle = self.settle;
        pass.twins = self.twins;
        pass.slugged = self.slugged;
        pass.pinned = !self.timed;
        for i in 0..model_b.len() {
            pass.visit_at(i, &mut model_b);
        }
        if let Some(why) = pass.unmodeled {
            return Err(TestCaseError::reject(why));
        }
        self.sane(&pass, "")?;
        let run: Vec<&str> = ["run"].into_iter().chain(today.as_deref()).collect();
        let (code, out_b) = self.call(&other, &run, b, None);
        let code = code.unwrap_or(-1);
        self.take_answered_into_known();
        self.stranded(code, &model_b, &out_b)?;
        self.exit_is(code, pass.exit, &format!("(the other side)\n{out_b}"))?;
        // Each side's line must be the model's before they are merged.
        let lines_a = world::lines(&self.p.root);
        let lines_b = world::lines(&other.root);
        for (i, key) in self.keys.iter().enumerate() {
            if facts(&model_b[i].line) != lines_b.get(key).map(Obs::facts) {
                return Err(self.fail(
                    format!(
                        "the other side's line of {key}: {:?}, the model says {:?}",
                        lines_b.get(key).map(Obs::facts),
                        facts(&model_b[i].line)
                    ),
                    &out_b,
                ));
            }
            if let Some(obs) = lines_b.get(key) {
                self.known[i].extend(obs.ids());
            }
        }
        // Two different ids of one copy: the post exists twice, and the driver says so.
        let conflict = self
            .keys
            .iter()
            .any(|key| match (lines_a.get(key), lines_b.get(key)) {
                (Some(x), Some(y)) => {
                    let (ix, iy) = (x.get("id"), y.get("id"));
                    ix.is_some()
                        && iy.is_some()
                        && ix != iy
                        && x.generation() == y.generation()
                        && (x.status != "retracted" || y.status != "retracted")
                }
                _ => false,
            });
        self.p.file("m/base", &base_text);
        let ours = self.p.path(&format!("state/{TARGET}.state"));
        let theirs = other.path(&format!("state/{TARGET}.state"));
        let base_file = self.p.path("m/base");
        let shown = format!("state/{TARGET}.state");
        let want = if conflict { Exit::Human } else { Exit::Ok };
        // Git calls the driver only for a file both sides have: one that only a side's
        // commands wrote (the other's wrote none) is taken as that side has it.
        let out = match (ours.exists(), theirs.exists()) {
            (true, true) => {
                let out = bare(
                    &self.p.root,
                    &[
                        "merge-state",
                        base_file.to_str().unwrap(),
                        ours.to_str().unwrap(),
                        theirs.to_str().unwrap(),
                        &shown,
                    ],
                );
                self.calls.set(self.calls.get() + 1);
                seen(format!("merge-state exit {}", want.code()));
                out
            }
            (false, true) => {
                std::fs::create_dir_all(ours.parent().unwrap()).unwrap();
                std::fs::copy(&theirs, &ours).unwrap();
                seen("merge: only the other side has a state file");
                taken()
            }
            (true, false) | (false, false) => {
                seen("merge: the other side has no state file");
                taken()
            }
        };
        let output = format!(
            "{out_a}\n(the other side)\n{out_b}\n(merge-state)\n{}{}",
            out.stdout, out.stderr
        );
        self.exit_is(out.code, want, &output)?;
        for (i, key) in self.model.iter_mut().enumerate() {
            key.line = spec::merge(&side_a[i].line, &model_b[i].line);
            key.live = model_b[i].live;
            key.older_live = side_a[i].older_live.max(model_b[i].older_live);
            key.allowed = model_b[i].allowed;
        }
        Ok((
            format!("{ra}, other side → {code}, merge-state → {}", out.code),
            output,
        ))
    }
}

/// What a merge git makes without the driver says: nothing, and clean.
fn taken() -> Output {
    Output {
        code: 0,
        stdout: String::new(),
        stderr: String::new(),
    }
}

/// The name in key `k`'s post: twins (keys 0 and 1) share one.
fn name(twins: bool, k: usize, key: &str) -> String {
    match twins && k < 2 {
        true => "twins".into(),
        false => key.into(),
    }
}

/// The facts of a model line, as `Obs::facts` prints an observed one.
fn facts(line: &Line) -> Option<String> {
    let failed = |class: &str, lookup: Option<&str>, by: bool| {
        let mut out = format!("failed class={class}");
        if let Some(l) = lookup {
            out.push_str(&format!(" lookup={l}"));
        }
        if by {
            out.push_str(" by=hand");
        }
        if line.maybe {
            out.push_str(" sent=maybe");
        }
        out
    };
    Some(match line.rec {
        Rec::None => return None,
        Rec::Pending => "pending".into(),
        Rec::Done if line.maybe => "done sent=maybe".into(),
        Rec::Done => "done".into(),
        Rec::Retracted => "retracted".into(),
        Rec::Failed(Why::RetrySafe) => failed("retry-safe", None, false),
        Rec::Failed(Why::Rejected) => failed("rejected", None, false),
        Rec::Failed(Why::Auth) => failed("auth", None, false),
        Rec::Failed(Why::Absent) => failed("unknown", Some("absent"), false),
        Rec::Failed(Why::LookupError) => failed("unknown", Some("error"), false),
        Rec::Failed(Why::CannotTell) => failed("unknown", None, false),
        Rec::Failed(Why::Aside) => failed("rejected", None, true),
    })
}

/// Play a story; the number of commands run.
fn play(story: &Story) -> Result<usize, TestCaseError> {
    let mut case = Case::new(story.settle, story.twins, (story.keys, story.timed));
    for (n, step) in story.steps.iter().enumerate() {
        case.play(n, step)?;
    }
    if std::env::var_os("DAYRUN_MODEL_VERBOSE").is_some() {
        println!("--- case\n{}", case.log.join("\n"));
    }
    Ok(case.calls.get())
}

fn seed(n: u64) -> [u8; 32] {
    let mut seed = [0u8; 32];
    for (i, chunk) in seed.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64).to_le_bytes());
    }
    seed
}

#[test]
fn random_lives_of_keys_keep_the_invariants_and_match_the_model() {
    let cases = env_number("DAYRUN_MODEL_CASES", 48) as u32;
    let max_steps = env_number("DAYRUN_MODEL_STEPS", 20) as usize;
    let seed_n = env_number("DAYRUN_MODEL_SEED", 20);
    let config = Config {
        cases,
        max_shrink_iters: env_number("DAYRUN_MODEL_SHRINK", 300) as u32,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed(seed_n)),
    );
    let (played, steps, calls) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let started = std::time::Instant::now();
    let result = runner.run(&steps::case(max_steps), |case| {
        played.fetch_add(1, Ordering::SeqCst);
        steps.fetch_add(case.steps.len(), Ordering::SeqCst);
        calls.fetch_add(play(&case)?, Ordering::SeqCst);
        Ok(())
    });
    println!(
        "model: seed={seed_n} cases={cases}; played (with any shrinking) {} cases, {} steps, {} commands in {:.1} s",
        played.load(Ordering::SeqCst),
        steps.load(Ordering::SeqCst),
        calls.load(Ordering::SeqCst),
        started.elapsed().as_secs_f64()
    );
    let seen = SEEN.with(|s| s.borrow().clone());
    let shown: Vec<String> = seen.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    println!("model: met {}", shown.join(", "));
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, story)) => panic!("{why}\nminimal case: {story:#?}"),
        Err(e) => panic!("{e}"),
    }
}

mod found;
