//! `dayrun run`, `retry` and `retract`: the command's frame. It takes the lock, loads and
//! compacts the selected targets' state, builds one pass per target (`runner`), walks the keys
//! across every target (`walk.rs`), folds the journals back and answers with the exit code.

mod keys;
mod load;
mod walk;

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::{Exit, Mode};
use crate::lock;
use crate::plan::Plan;
use crate::posts::Posts;
use crate::progress::Progress;
use crate::runner::{Shared, TargetRun};
use crate::say;
use crate::signals;
use crate::targets::{self, Context};
use crate::tell;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Run the plan; returns the exit code. Errors that stop the whole run are printed here.
pub fn run(config: &Config, clock: &Clock, plan: &Plan) -> i32 {
    // The monitors hear of every run, a failed one too (docs/monitoring.md).
    let watch = crate::watch::Watch::start(config, clock, plan);
    let code = match execute(config, clock, plan) {
        Ok(code) => code,
        Err(err) => {
            say::err(&format!("dayrun: {err}"));
            err.code()
        }
    };
    watch.finish(code);
    code
}

fn execute(config: &Config, clock: &Clock, plan: &Plan) -> Result<i32, Error> {
    let asked = config.select(&plan.targets)?;
    let catalog = Catalog::scan(&config.sources())?;
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
    let mut states = load::states(config, &selected, &shown_state)?;
    let others = crate::known::others(config, &selected, &shown_state)?;
    let changed = !plan.dry_run && load::compact(&mut states)?;
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
        catalog: &catalog,
        told: &told,
        progress: &quiet,
    };
    let mut runs: Vec<TargetRun> = (built.iter_mut().zip(states.iter_mut()))
        .map(|((cfg, built), state)| {
            TargetRun::new(config, cfg, built.target.as_mut(), built.can, state, shared)
        })
        .collect();
    let extra = walk::extra_keys(&mut runs, &catalog, plan);
    let all = || keys::walk(&catalog, &extra, &plan.keys);
    let progress = walk::progress(plan, &mut runs, all(), &posts);
    for run in &mut runs {
        run.show_progress(&progress);
        // One read of the target for the keys its pass will look up (`survey.rs`).
        if signals::received().is_none() {
            run.survey(all());
        }
    }
    let result = walk::keys(&mut runs, all(), &posts, &others);
    progress.finish();
    exit.merge(walk::finish_all(plan, &mut runs));
    drop(runs);
    if !plan.dry_run {
        exit.merge(load::fold_back(config, &mut states, changed));
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

/// The selected targets, built, each with its config and what its settings say it can do;
/// and those whose setup is broken.
fn build<'a>(
    config: &Config,
    clock: &Clock,
    selected: &[&'a TargetConfig],
) -> (Built<'a, targets::Built>, Built<'a, Error>) {
    let (mut built, mut broken) = (Vec::new(), Vec::new());
    for &cfg in selected {
        let ctx = Context {
            config,
            target: cfg,
            clock,
        };
        match targets::build(&ctx) {
            Ok(target) => built.push((cfg, target)),
            Err(err) => broken.push((cfg, err)),
        }
    }
    (built, broken)
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

/// Says an error that keeps something from being done, after `before`, and its hint.
fn say_error(before: &str, err: &Error) {
    for line in tell::header::error_lines(before, err) {
        say::out(&line);
    }
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
