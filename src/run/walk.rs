//! The walk of a run: which keys besides the posts, how many the progress bar counts, key by
//! key every target's pass in dependency order, and each pass's end.

use crate::content::Catalog;
use crate::error::Error;
use crate::life::Key;
use crate::life::{Exit, Mode};
use crate::plan::Plan;
use crate::posts::Posts;
use crate::progress::Progress;
use crate::runner::TargetRun;
use crate::say;
use crate::signals;
use crate::state::StateFile;
use std::collections::{BTreeMap, BTreeSet};

/// The keys walked besides the posts (`keys_without_post`), and in a retract the named keys.
pub(super) fn extra_keys(runs: &mut [TargetRun], catalog: &Catalog, plan: &Plan) -> BTreeSet<Key> {
    let mut extra: BTreeSet<Key> = runs
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
pub(super) fn keys(
    runs: &mut [TargetRun],
    all: impl Iterator<Item = (Key, bool)>,
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
            if run.book.looks_at(key, has_post) {
                run.gather(key, before, others)?;
                run.step(key, has_post, posts)?;
            }
        }
    }
    // Queued keys were not started: a stopped run leaves them to the next. A run that saw
    // every key notes the lines whose file it is the first to see gone.
    for run in runs.iter_mut() {
        match signals::received() {
            None => run.flush().and_then(|()| run.book.settle_gone())?,
            Some(_) => run.drop_queued(),
        }
    }
    Ok(())
}

/// Each target's summary line; the exit of every target's pass, and of a retract that
/// removed nothing.
pub(super) fn finish_all(plan: &Plan, runs: &mut [TargetRun]) -> Exit {
    let mut exit = Exit::Ok;
    for run in runs.iter_mut() {
        exit.merge(run.finish());
    }
    if plan.mode == Mode::Retract && !plan.dry_run && signals::received().is_none() {
        exit.merge(nothing_retracted(plan, runs));
    }
    exit
}

/// A retract that removed nothing on any target for a key says so, and the run exits 1.
fn nothing_retracted(plan: &Plan, runs: &[TargetRun]) -> Exit {
    let mut exit = Exit::Ok;
    for key in &plan.keys {
        if runs.iter().all(|run| !run.removed(*key)) {
            let known = runs.iter().any(|run| run.knows_copy(*key));
            say::err(&crate::tell::retract::nothing_retracted(*key, known));
            exit.merge(Exit::NeedsHuman);
        }
    }
    exit
}

/// The progress bar, when one is wanted: over the keys the runs will publish or confirm.
pub(super) fn progress(
    plan: &Plan,
    runs: &mut [TargetRun],
    all: impl Iterator<Item = (Key, bool)>,
    posts: &Posts,
) -> Progress {
    if !Progress::wanted(plan.dry_run) {
        return Progress::none();
    }
    let mut total = 0;
    for (key, has_post) in all {
        for run in runs.iter_mut() {
            if run.book.looks_at(key, has_post) && run.book.sends(key, has_post, posts) {
                total += 1;
            }
        }
    }
    Progress::new(total)
}
