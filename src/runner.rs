//! `dayrun run`, `retry` and `retract`: each key on each target is moved through its life
//! (`crate::life`) by the one transition function; this module does what it says (read, send,
//! look, wait), records each line it returns, and traces and prints every action.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::{Exit, Mode};
use crate::lock;
use crate::post::Post;
use crate::progress::Progress;
use crate::say;
use crate::signals;
use crate::state::StateFile;
use crate::targets::{self, Context, Target};
use crate::tell;
use crate::trace::Trace;
use jiff::civil::Date;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Instant;

mod apply;
mod batch;
mod confirm;
mod deliver;
mod keys;
mod linked;
pub use apply::visit;
pub use linked::linked_states;
mod media;
pub(super) mod report;
mod retract;
mod stop;
mod survey;
mod target_run;
pub use target_run::rules;
mod thread;
mod update;

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    pub mode: Mode,
    /// Print every decision; write nothing, send nothing.
    pub dry_run: bool,
    /// Only these keys (empty: all). Named keys are never stale.
    pub keys: Vec<Date>,
    /// Only these targets (empty: all).
    pub targets: Vec<String>,
}

impl Plan {
    /// A plain `run`.
    pub fn run() -> Plan {
        Plan {
            mode: Mode::Run { backfill: false },
            dry_run: false,
            keys: Vec::new(),
            targets: Vec::new(),
        }
    }

    fn backfill(&self) -> bool {
        !matches!(self.mode, Mode::Run { backfill: false })
    }
}

/// Run the plan; returns the exit code. Errors that stop the whole run are printed here.
pub fn run(config: &Config, clock: &Clock, plan: &Plan) -> i32 {
    match execute(config, clock, plan) {
        Ok(code) => code,
        Err(err) => {
            say::err(&format!("dayrun: {err}"));
            err.code()
        }
    }
}

fn execute(config: &Config, clock: &Clock, plan: &Plan) -> Result<i32, Error> {
    let asked = config.select(&plan.targets)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    // A target whose setup is broken is left out (exit 2); the others still run.
    let (mut built, broken) = build(config, clock, &asked);
    let selected: Vec<&TargetConfig> = built.iter().map(|(cfg, _)| *cfg).collect();
    let mut exit = Exit::Ok;
    let shown_state = config.show(&config.state);
    if !plan.dry_run {
        signals::install();
    }
    let _lock = match plan.dry_run {
        true => None,
        false => Some(lock::acquire(&config.state, &shown_state, clock)?),
    };
    // Only a run that holds the lock says anything: a refused one did nothing.
    header(clock, plan, &asked);
    for (cfg, err) in broken {
        say_error(&format!("{}: not run: ", cfg.name), &err);
        exit.merge(Exit::Usage);
    }
    let mut states = load_states(config, &selected, &shown_state)?;
    let others = linked::others(config, &selected, &shown_state)?;
    let changed = !plan.dry_run && compact(&mut states)?;
    if plan.keys.is_empty() && plan.mode != Mode::Retract {
        exit.merge(standing_problems(&catalog, clock));
    }
    let posts = Posts::new(&catalog);
    let (quiet, told) = (Progress::none(), RefCell::new(BTreeSet::new()));
    let shared = Shared {
        clock,
        plan,
        today: clock.today(),
        state_dir: &config.state,
        told: &told,
        progress: &quiet,
    };
    let mut runs: Vec<TargetRun> = (built.iter_mut().zip(states.iter_mut()))
        .map(|((cfg, target), state)| TargetRun::new(config, cfg, target.as_mut(), state, shared))
        .collect();
    let extra = extra_keys(&mut runs, &catalog, plan);
    let all = || keys::walk(&catalog, &extra, &plan.keys);
    let progress = progress(plan, &mut runs, all(), &posts);
    for run in &mut runs {
        run.run.progress = &progress;
        // One read of the target for the keys its pass will look up (`survey.rs`).
        if signals::received().is_none() {
            run.survey(all());
        }
    }
    let result = walk_keys(&mut runs, all(), &posts, &others);
    progress.finish();
    exit.merge(finish_all(plan, &mut runs));
    drop(runs);
    if !plan.dry_run {
        exit.merge(fold_back(config, &mut states, changed));
    }
    result?;
    Ok(stopped().unwrap_or(exit.code()))
}

/// The exit code of a run a signal stopped, said as such.
fn stopped() -> Option<i32> {
    let signal = signals::received()?;
    say::err(&format!(
        "dayrun: stopped by signal {signal} after recording the action in flight; the next run goes on from there"
    ));
    Some(signals::exit_code(signal))
}

/// A selected target with what building it gave: the target, or why its setup is broken.
type Built<'a, T> = Vec<(&'a TargetConfig, T)>;

/// The selected targets, built, each with its config; and those whose setup is broken.
fn build<'a>(
    config: &Config,
    clock: &Clock,
    selected: &[&'a TargetConfig],
) -> (Built<'a, Box<dyn Target>>, Built<'a, Error>) {
    let (mut built, mut broken) = (Vec::new(), Vec::new());
    for &cfg in selected {
        let target = targets::build(&Context {
            config,
            target: cfg,
            clock,
        });
        match target {
            Ok(target) => built.push((cfg, target)),
            Err(err) => broken.push((cfg, err)),
        }
    }
    (built, broken)
}

/// Says an error that keeps something from being done, after `before`, and its hint.
fn say_error(before: &str, err: &Error) {
    for line in tell::header::error_lines(before, err) {
        say::out(&line);
    }
}

/// The selected targets' state files, loaded (a torn line is noted).
fn load_states(
    config: &Config,
    selected: &[&TargetConfig],
    shown_state: &std::path::Path,
) -> Result<Vec<StateFile>, Error> {
    let mut states = Vec::new();
    for cfg in selected {
        // Files written later in the run: a link planted there is refused before any send.
        let log = Trace::path(&config.state, &cfg.name);
        crate::fsutil::refuse_link(&log).map_err(|e| {
            Error::io(
                crate::error::Kind::State,
                &config.show(&log),
                "use the trace",
                &e,
            )
        })?;
        let state = StateFile::load(&config.state, &cfg.name, shown_state)?;
        if let Some(torn) = &state.torn {
            say::err(&format!("dayrun: note: {torn}"));
        }
        states.push(state);
    }
    Ok(states)
}

/// Fold each journal into its state file before the run; whether any line had changed.
fn compact(states: &mut [StateFile]) -> Result<bool, Error> {
    let mut changed = false;
    for state in states {
        changed |= state.is_dirty();
        state.compact()?;
    }
    Ok(changed)
}

/// The content's standing problems, said; each needs a human (exit 1).
fn standing_problems(catalog: &Catalog, clock: &Clock) -> Exit {
    let mut exit = Exit::Ok;
    for problem in catalog.standing_problems(clock.today()) {
        say_error("", &problem);
        exit.merge(Exit::NeedsHuman);
    }
    exit
}

/// The keys walked besides the posts (`keys_without_post`), and in a retract the named keys.
fn extra_keys(runs: &mut [TargetRun], catalog: &Catalog, plan: &Plan) -> BTreeSet<Date> {
    let mut extra: BTreeSet<Date> = runs
        .iter_mut()
        .flat_map(|run| run.keys_without_post(catalog))
        .collect();
    if plan.mode == Mode::Retract {
        // A retract works from the state line alone: a key whose file is gone is walked too.
        extra.extend(plan.keys.iter().copied());
    }
    extra
}

/// Key by key, every target in turn: each post is read once and dropped after its key, so
/// memory does not grow with the number of posts. Stops at a signal.
fn walk_keys(
    runs: &mut [TargetRun],
    all: impl Iterator<Item = (Date, bool)>,
    posts: &Posts,
    others: &BTreeMap<String, StateFile>,
) -> Result<(), Error> {
    for (key, has_post) in all {
        if signals::received().is_some() {
            break;
        }
        // In dependency order: a target whose template links to another's copy sees the
        // line that target has just written for the key.
        for i in 0..runs.len() {
            let (before, rest) = runs.split_at_mut(i);
            let run = &mut rest[0];
            run.flush_if_due()?;
            if run.looks_at(key, has_post) {
                run.gather(key, before, others)?;
                run.step(key, has_post, posts)?;
            }
        }
    }
    // Queued keys were not started: a stopped run leaves them to the next.
    for run in runs.iter_mut() {
        match signals::received() {
            None => run.flush()?,
            Some(_) => run.drop_queued(),
        }
    }
    Ok(())
}

/// Each target's summary line; the exit of every target's pass, and of a retract that
/// removed nothing.
fn finish_all(plan: &Plan, runs: &mut [TargetRun]) -> Exit {
    let mut exit = Exit::Ok;
    for run in runs.iter_mut() {
        run.finish();
        exit.merge(run.outcome.exit);
    }
    if plan.mode == Mode::Retract && !plan.dry_run && signals::received().is_none() {
        exit.merge(nothing_retracted(plan, runs));
    }
    exit
}

/// Fold the journal back even when a state write failed midway: what was recorded stays.
/// The links file is written again when a line changed or it is missing (exit 2 if it fails).
fn fold_back(config: &Config, states: &mut [StateFile], mut changed: bool) -> Exit {
    for state in states {
        changed |= state.is_dirty();
        if let Err(e) = state.compact() {
            say::err(&format!("dayrun: {e}"));
        }
    }
    let missing = config.links_file.as_ref().is_some_and(|f| !f.exists());
    if (changed || missing)
        && let Err(e) = crate::links::write(config)
    {
        say::err(&format!("dayrun: {e}"));
        return Exit::Usage;
    }
    Exit::Ok
}

/// A retract that removed nothing on any target for a key says so, and the run exits 1.
fn nothing_retracted(plan: &Plan, runs: &[TargetRun]) -> Exit {
    let mut exit = Exit::Ok;
    for key in &plan.keys {
        if runs.iter().all(|run| !run.outcome.removed.contains(key)) {
            let known = runs
                .iter()
                .any(|run| run.line(*key).is_some_and(|l| !l.live_ids().is_empty()));
            say::err(&tell::retract::nothing_retracted(*key, known));
            exit.merge(Exit::NeedsHuman);
        }
    }
    exit
}

/// The first line of every run (`tell::header`).
fn header(clock: &Clock, plan: &Plan, selected: &[&TargetConfig]) {
    let header = tell::header::Header {
        stamp: &clock.stamp(),
        today: clock.today(),
        mode: &plan.mode,
        dry_run: plan.dry_run,
        keys: &plan.keys,
        targets: &plan.targets,
        selected,
    };
    say::out(&header.line());
}

/// The progress bar, when one is wanted: over the keys the runs will publish or confirm.
fn progress(
    plan: &Plan,
    runs: &mut [TargetRun],
    all: impl Iterator<Item = (Date, bool)>,
    posts: &Posts,
) -> Progress {
    if !Progress::wanted(plan.dry_run) {
        return Progress::none();
    }
    let mut total = 0;
    for (key, has_post) in all {
        for run in runs.iter_mut() {
            if run.looks_at(key, has_post) && run.sends(key, has_post, posts) {
                total += 1;
            }
        }
    }
    Progress::new(total)
}

/// A post as read: shared by every target that looks at its key.
type Read = Rc<Result<Post, Error>>;

/// The post of the key being worked on, read on demand, once, whatever the number of targets.
struct Posts<'a> {
    catalog: &'a Catalog,
    current: RefCell<Option<(Date, Read)>>,
    /// The modification time of the key being worked on (`Catalog::modified`), stat'd once,
    /// and the folder it was stat'd in, kept open for the next.
    modified: RefCell<Modified>,
}

/// The last key's modification time, and the folder of its post, open.
#[derive(Default)]
struct Modified {
    of: Option<(Date, Option<std::time::SystemTime>)>,
    mtimes: crate::fsutil::Mtimes,
}

impl<'a> Posts<'a> {
    /// Nothing read yet.
    fn new(catalog: &'a Catalog) -> Self {
        Posts {
            catalog,
            modified: RefCell::default(),
            current: RefCell::new(None),
        }
    }

    /// Whether the post's file was modified after `at`, in a later second (a line's time is cut
    /// to the second). A file the system gives no time for counts as modified.
    fn touched_after(&self, key: Date, at: jiff::Timestamp) -> bool {
        let Modified { of, mtimes } = &mut *self.modified.borrow_mut();
        if of.as_ref().is_none_or(|(k, _)| *k != key) {
            *of = Some((key, self.catalog.modified(key, mtimes)));
        }
        let when = of.as_ref().and_then(|(_, when)| *when);
        let when = when.and_then(|when| jiff::Timestamp::try_from(when).ok());
        when.is_none_or(|when| when.as_second() > at.as_second())
    }

    fn get(&self, key: Date) -> Rc<Result<Post, Error>> {
        let mut current = self.current.borrow_mut();
        if current.as_ref().is_none_or(|(k, _)| *k != key) {
            *current = Some((key, Rc::new(self.catalog.post(key))));
        }
        Rc::clone(&current.as_ref().expect("set above").1)
    }
}

/// One target's pass over the keys (`target_run.rs`): its parts, grouped by what they are for.
struct TargetRun<'a> {
    cfg: &'a TargetConfig,
    target: &'a mut dyn Target,
    state: &'a mut StateFile,
    trace: Trace,
    /// What every target's pass shares: the clock, the plan, the day.
    run: Shared<'a>,
    /// What this target is: its rules, its credential, how its lookup behaves.
    here: Here,
    /// What the pass tells at its end: the exit code, the tally and the keys by kind.
    outcome: Outcome,
    /// Whether the target may be written to again, and when it last was.
    pace: Pace,
    /// Keys queued for the next group commit (`batch.rs`).
    batch: batch::Batch,
    /// What the pass knows of other lines: the linked targets' and the owners of ids.
    known: Known,
}

impl<'a> TargetRun<'a> {
    /// A target's pass, not started: its rules, and how its lookup behaves.
    fn new(
        config: &Config,
        cfg: &'a TargetConfig,
        target: &'a mut dyn Target,
        state: &'a mut StateFile,
        run: Shared<'a>,
    ) -> Self {
        let rules = target_run::rules(config, cfg);
        let credential = target.secrets().fingerprint();
        let find = target.as_find();
        debug_assert_eq!(
            find.is_some(),
            rules.can_find,
            "the registry and the target agree"
        );
        let (immediate, keeps_payload) =
            find.map_or((true, false), |f| (f.immediate(), f.keeps_payload()));
        TargetRun {
            cfg,
            target,
            state,
            trace: Trace::new(&config.state, &cfg.name),
            run,
            here: Here {
                rules,
                credential,
                immediate,
                keeps_payload,
            },
            outcome: Outcome::default(),
            pace: Pace::default(),
            batch: batch::Batch::default(),
            known: Known::default(),
        }
    }
}

/// What every target's pass shares.
#[derive(Clone, Copy)]
struct Shared<'a> {
    clock: &'a Clock,
    plan: &'a Plan,
    today: Date,
    state_dir: &'a std::path::Path,
    /// What was said this run about posts (their errors and warnings), shared by the targets:
    /// a post's error is told once, not once per target.
    told: &'a RefCell<BTreeSet<String>>,
    progress: &'a Progress,
}

/// What one target is, for the rules of its keys' lives.
struct Here {
    /// The target's rules for a key's life.
    rules: crate::life::Rules,
    /// A non-secret fingerprint of the target's credential (`Secrets::fingerprint`).
    credential: Option<String>,
    /// Whether its lookup sees a finished publish at once (or it has none: nothing to wait
    /// for), and whether it needs what each attempt sent (`Find`).
    immediate: bool,
    keeps_payload: bool,
}

/// What a target's pass tells at its end (`TargetRun::finish`).
#[derive(Default)]
struct Outcome {
    exit: Exit,
    tally: crate::tally::Tally,
    stale: Vec<Date>,
    drafts: Vec<Date>,
    /// Keys held back: they failed, and their date is past the catch-up window.
    held: Vec<Date>,
    /// Done keys whose post file is gone.
    deleted: Vec<Date>,
    /// Keys whose copies a retract removed (or found gone) here.
    removed: BTreeSet<Date>,
}

/// Whether the target may be written to again in this run (`stop.rs`), and when it last was.
#[derive(Default)]
struct Pace {
    stopped: Option<tell::Stop>,
    last_write: Option<Instant>,
}

/// What a target's pass knows of other lines.
#[derive(Default)]
struct Known {
    /// The lines, for the key at hand, of the targets this one's template links to
    /// (`linked.rs`).
    upstream: std::collections::BTreeMap<String, Option<crate::life::KeyLine>>,
    /// Which key's line holds each id here, read at the first lookup (`owners.rs`).
    owners: Option<store::owners::Owners>,
}
