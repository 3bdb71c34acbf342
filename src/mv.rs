//! `dayrun mv OLD NEW`: a person's word that the post of key OLD is now the post of key NEW
//! (its file renamed). On every selected target, under the run lock, NEW takes OLD's line over
//! (`life::Event::Took`): its copies stay where they are (`place=`), so lookups, edits and
//! retracts keep finding them, and nothing is sent again. A run carries a line over by itself
//! when it can tell (`rename.rs`); this is for when it cannot.

use crate::cli::MvArgs;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::{Error, code};
use crate::life::{self, Change, Event, Key, KeyLine, Mode, Rules};
use crate::state::{StateFile, locked_states};
use crate::trace::Trace;

pub fn run(config: &Config, clock: &Clock, args: &MvArgs) -> Result<i32, Error> {
    let (old, new) = (crate::key(&args.old, "OLD")?, crate::key(&args.new, "NEW")?);
    if old == new {
        return Err(Error::usage(format!("mv: {old} is already {new}")));
    }
    let selected = config.select(&args.target)?;
    let names = selected.iter().map(|t| t.name.as_str());
    let shown = config.show(&config.state);
    let (_guard, mut states) = locked_states(&config.state, &shown, clock, names)?;
    check(&states, old, new)?;
    for state in &mut states {
        if let Some(line) = state.get(old).map(KeyLine::of) {
            take(config, clock, state, &line, new)?;
        }
    }
    let catalog = crate::content::Catalog::scan(&config.sources()).ok();
    if !catalog.is_some_and(|c| c.files.contains_key(&new)) {
        err!(
            "dayrun: warning: no post has the key {new} yet; the lines wait for it (name its file so)"
        );
    }
    crate::links::write(config)?;
    Ok(code::OK)
}

/// Nothing moves unless every target can take it: OLD has a line on one of them at least, and
/// NEW's line on none holds a copy or an attempt that may have made one (two keys' copies would
/// share one line). A line of NEW that sent nothing (the run's "renamed?" failure) is replaced.
fn check(states: &[StateFile], old: Key, new: Key) -> Result<(), Error> {
    let holds = |s: &&StateFile| {
        (s.get(new).map(KeyLine::of)).is_some_and(|l| !l.live_ids().is_empty() || l.tried.maybe)
    };
    if let Some(state) = states.iter().find(holds) {
        let target = &state.target;
        return Err(Error::usage(format!(
            "mv: {new} already has a copy on {target}: nothing moved; if that line is wrong, `dayrun retract {new} --target {target}` or edit the state file, then `dayrun mv {old} {new}` again"
        )));
    }
    if states.iter().all(|s| s.get(old).is_none()) {
        return Err(Error::usage(format!(
            "mv: {old} has no line on any target named: nothing to move (`dayrun status` lists the keys)"
        )));
    }
    Ok(())
}

/// `new` takes `line` over on `state`, traced and told.
fn take(
    config: &Config,
    clock: &Clock,
    state: &mut StateFile,
    line: &KeyLine,
    new: Key,
) -> Result<(), Error> {
    let rules = Rules::default();
    let mode = Mode::Run { backfill: false };
    let ctx = life::Ctx::at(new, &clock.now(), clock.tz(), clock.today(), &rules, &mode);
    let step = life::next(None, &Event::Took(line), &ctx);
    let Change::Write(taken) = step.line else {
        unreachable!("a line taken over is written")
    };
    let sent = store::sent::Sent::of(&config.state, &state.target);
    sent.carry(line.key, new)?;
    state.moved(line.key, taken.record())?;
    sent.forget(line.key);
    let (old, place) = (line.key, taken.place_key());
    Trace::new(&config.state, &state.target).line(
        &clock.stamp(),
        &new.to_string(),
        "mv",
        "done",
        &format!("from={old} place={place} (by hand)"),
    );
    out!(
        "{new} {} took {old}'s line over: its copies stay where they are ({place})",
        state.target
    );
    Ok(())
}
