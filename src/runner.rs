//! `dayrun run` and `dayrun retry`: decide per target and key, publish, record, trace.

use crate::clock::Clock;
use crate::config::{Config, Policy, TargetConfig};
use crate::content::Catalog;
use crate::error::{Class, Error, code};
use crate::lock;
use crate::outside::escape;
use crate::post::Post;
use crate::progress::Progress;
use crate::signals;
use crate::state::StateFile;
use crate::targets::{self, Context, Target};
use crate::trace::Trace;
use jiff::civil::Date;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

mod batch;
mod carry;
mod confirm;
mod deliver;
mod keys;
mod media;
pub(super) mod report;
mod retract;
mod target_run;
mod update;

/// What the command line asked for.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Print every decision; write nothing, send nothing.
    pub dry_run: bool,
    /// Publish stale keys too.
    pub backfill: bool,
    /// Only these keys (empty: all). Named keys are never stale.
    pub keys: Vec<Date>,
    /// Only these targets (empty: all).
    pub targets: Vec<String>,
    /// `dayrun retry`: a human asks to re-attempt failed keys now.
    pub retry: bool,
    /// With `retry`: publish done keys again.
    pub force: bool,
    /// With `retry`: the human checked the target and the post is not there; send without
    /// looking first (`retry --absent`).
    pub absent: bool,
    /// `dayrun retract`: take the named keys back instead of publishing.
    pub retract: bool,
    /// With `retry --force`: publish a second copy instead of updating the first.
    pub new: bool,
}

/// What happened, for the exit code and the summary.
#[derive(Debug, Default)]
struct Outcome {
    /// A target's setup is broken (a refused certificate): exit 2.
    config: bool,
    auth: bool,
    needs_human: bool,
    retry_later: bool,
}

impl Outcome {
    fn merge(&mut self, other: &Outcome) {
        self.config |= other.config;
        self.auth |= other.auth;
        self.needs_human |= other.needs_human;
        self.retry_later |= other.retry_later;
    }

    fn code(&self) -> i32 {
        if self.config {
            code::USAGE
        } else if self.auth {
            code::AUTH
        } else if self.needs_human {
            code::NEEDS_HUMAN
        } else if self.retry_later {
            code::TEMPFAIL
        } else {
            code::OK
        }
    }
}

/// Run the plan; returns the exit code. Errors that stop the whole run are printed here.
pub fn run(config: &Config, clock: &Clock, plan: &Plan) -> i32 {
    match execute(config, clock, plan) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dayrun: {err}");
            err.code()
        }
    }
}

fn execute(config: &Config, clock: &Clock, plan: &Plan) -> Result<i32, Error> {
    let selected = config.select(&plan.targets)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    // A target whose setup is broken is left out (exit 2); the others still run.
    let mut outcome = Outcome::default();
    let mut built = Vec::new();
    let mut usable = Vec::new();
    let mut broken = Vec::new();
    let all = selected.clone();
    for cfg in selected {
        let target = targets::build(&Context {
            config,
            target: cfg,
            clock,
        });
        match target {
            Ok(target) => {
                built.push(target);
                usable.push(cfg);
            }
            Err(err) => {
                broken.push((cfg, err));
                outcome.config = true;
            }
        }
    }
    let selected = usable;
    let shown_state = config.show(&config.state);
    if !plan.dry_run {
        signals::install();
    }
    let _lock = match plan.dry_run {
        true => None,
        false => Some(lock::acquire(&config.state, &shown_state, clock)?),
    };
    // Only a run that holds the lock says anything: a refused one did nothing.
    header(clock, plan, &all);
    for (cfg, err) in broken {
        println!("{}: not run: {}", cfg.name, escape(&err.located(), 4000));
        if let Some(hint) = &err.hint {
            println!("  {}", escape(hint, 4000));
        }
    }
    let mut states = Vec::new();
    for cfg in &selected {
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
        let state = StateFile::load(&config.state, &cfg.name, &shown_state)?;
        if let Some(torn) = &state.torn {
            eprintln!("dayrun: note: {torn}");
        }
        states.push(state);
    }
    let mut changed = false;
    if !plan.dry_run {
        for state in &mut states {
            changed |= state.is_dirty();
            state.compact()?;
        }
    }

    if plan.keys.is_empty() {
        for problem in &catalog.problems {
            println!("{}", escape(&problem.located(), 4000));
            if let Some(hint) = &problem.hint {
                println!("  {}", escape(hint, 4000));
            }
            outcome.needs_human = true;
        }
    }
    let mut posts = Posts {
        catalog: &catalog,
        current: None,
    };
    let today = clock.today();
    let quiet = Progress::none();
    let mut runs: Vec<TargetRun> = selected
        .iter()
        .zip(built.iter_mut())
        .zip(states.iter_mut())
        .map(|((cfg, target), state)| TargetRun {
            cfg,
            policy: &cfg.policy,
            target: target.as_mut(),
            state,
            state_dir: &config.state,
            trace: Trace::new(&config.state, &cfg.name),
            clock,
            plan,
            today,
            catchup_days: config.catchup_days,
            stopped: None,
            last_write: None,
            outcome: Outcome::default(),
            tally: BTreeMap::new(),
            stale: Vec::new(),
            drafts: Vec::new(),
            deleted: Vec::new(),
            progress: &quiet,
            batch: batch::Batch::default(),
        })
        .collect();
    // Key by key, every target in turn: each post is read once and dropped after its key, so
    // memory does not grow with the number of posts.
    let extra: BTreeSet<Date> = runs
        .iter_mut()
        .flat_map(|run| run.keys_without_post(&catalog))
        .collect();
    let all = || keys::walk(&catalog, &extra, &plan.keys);
    let progress = match Progress::wanted(plan.dry_run) {
        true => Progress::new(work(&mut runs, all(), &mut posts)),
        false => Progress::none(),
    };
    for run in &mut runs {
        run.progress = &progress;
    }
    let result = (|| {
        for (key, has_post) in all() {
            if signals::received().is_some() {
                break;
            }
            for run in runs.iter_mut() {
                run.flush_if_due()?;
                if run.looks_at(key, has_post) {
                    run.step(key, &mut posts)?;
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
        Ok::<(), Error>(())
    })();
    progress.finish();
    for run in &mut runs {
        run.finish();
        outcome.merge(&run.outcome);
    }
    drop(runs);
    // Fold the journal back even when a state write failed midway: what was recorded stays.
    if !plan.dry_run {
        for state in &mut states {
            changed |= state.is_dirty();
            if let Err(e) = state.compact() {
                eprintln!("dayrun: {e}");
            }
        }
        let missing = config.links_file.as_ref().is_some_and(|f| !f.exists());
        if changed || missing {
            crate::links::write(config).unwrap_or_else(|e| eprintln!("dayrun: {e}"));
        }
    }
    result?;
    if let Some(signal) = signals::received() {
        eprintln!(
            "dayrun: stopped by signal {signal} after recording the action in flight; the next run goes on from there"
        );
        return Ok(signals::exit_code(signal));
    }
    Ok(outcome.code())
}

/// The first line of every run, so that an appended log splits into runs: when, which dayrun,
/// what it was asked, which targets.
fn header(clock: &Clock, plan: &Plan, selected: &[&TargetConfig]) {
    let what = match (plan.retract, plan.retry, plan.dry_run) {
        (true, _, true) => "retract --dry-run",
        (true, _, false) => "retract",
        (_, true, _) => "retry",
        (_, false, true) => "run --dry-run",
        (_, false, false) => "run",
    };
    let targets: Vec<String> = selected
        .iter()
        .map(|t| format!("{} ({})", t.name, t.kind))
        .collect();
    println!(
        "== {} dayrun {} {what}, today {}; targets: {}",
        clock.stamp(),
        env!("CARGO_PKG_VERSION"),
        clock.today(),
        targets.join(", ")
    );
}

/// How many keys the runs will publish or confirm (for the progress bar).
fn work(runs: &mut [TargetRun], all: impl Iterator<Item = (Date, bool)>, posts: &mut Posts) -> u64 {
    let mut total = 0;
    for (key, has_post) in all {
        for run in runs.iter_mut() {
            if run.looks_at(key, has_post)
                && matches!(
                    run.decide(key, posts),
                    Decision::Publish(_) | Decision::Confirm
                )
            {
                total += 1;
            }
        }
    }
    total
}

/// The post of the key being worked on, read on demand, once, whatever the number of targets.
struct Posts<'a> {
    catalog: &'a Catalog,
    current: Option<(Date, Result<Post, Error>)>,
}

impl Posts<'_> {
    fn get(&mut self, key: Date) -> Result<&Post, &Error> {
        if self.current.as_ref().is_none_or(|(k, _)| *k != key) {
            self.current = Some((key, self.catalog.post(key)));
        }
        self.current.as_ref().expect("set above").1.as_ref()
    }
}

/// What to do with one key on one target.
#[derive(Debug, PartialEq)]
enum Decision {
    SkipDone,
    Scheduled,
    Stale,
    /// `draft: true`: never published while it says so.
    Draft,
    /// Failed earlier and nothing changed: a human decides (`retry`, `mark`).
    Waiting(String),
    /// Publish; the string says why (shown with the action).
    Publish(&'static str),
    /// A pending key from an earlier run: look on the target first.
    Confirm,
    /// Taken back by `dayrun retract`: never published again by a run.
    Retracted,
    /// Done, within its edit window: send the edit if it changed (`true`: asked by `retry
    /// --force`, sent even when nothing changed).
    CheckEdit(bool),
}

struct TargetRun<'a> {
    cfg: &'a TargetConfig,
    policy: &'a Policy,
    target: &'a mut dyn Target,
    state: &'a mut StateFile,
    state_dir: &'a std::path::Path,
    trace: Trace,
    clock: &'a Clock,
    plan: &'a Plan,
    today: Date,
    catchup_days: i64,
    /// Set when the target must not be written to again in this run (auth, long rate limit).
    stopped: Option<String>,
    last_write: Option<Instant>,
    outcome: Outcome,
    tally: BTreeMap<&'static str, usize>,
    stale: Vec<Date>,
    drafts: Vec<Date>,
    /// Done keys whose post file is gone.
    deleted: Vec<Date>,
    progress: &'a Progress,
    /// Keys queued for the next group commit (`batch.rs`).
    batch: batch::Batch,
}

fn detail(err: &Error) -> String {
    let class = err.class().map_or("error", Class::as_str);
    format!("class={class} reason={:?}", err.reason())
}

pub(super) fn describe(post: &Post) -> String {
    format!(
        "{:?} tags={} summary={:?}",
        post.title,
        post.tags.join(","),
        post.summary
    )
}
