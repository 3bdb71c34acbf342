//! `dayrun mark KEY… done|failed|retracted`: record keys' outcome by hand, under the run lock.
//! Each mark
//! goes through the key's life (`life::Act`), which keeps what the line knows: every live id,
//! and every attempt that may have landed.

use crate::cli::MarkArgs;
use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::life::Key;
use crate::life::{self, Act, Change, Event, KeyLine, Mode, Rules};
use crate::state::{StateFile, locked_states};
use crate::trace::Trace;

pub fn run(config: &Config, clock: &Clock, args: &MarkArgs) -> Result<i32, Error> {
    let (keys, status, done) = words(args)?;
    if let Some(id) = &args.id {
        check_id(id, done, keys.len())?;
    }
    let selected = config.select(&args.target)?;
    if args.id.is_some() && selected.len() > 1 {
        let names: Vec<&str> = selected.iter().map(|t| t.name.as_str()).collect();
        return Err(Error::usage(format!(
            "mark --id: an id belongs to one target; add --target NAME (one of {})",
            names.join(", ")
        )));
    }
    let catalog = Catalog::scan(&config.sources()).ok();
    let names = selected.iter().map(|t| t.name.as_str());
    let shown = config.show(&config.state);
    let (_guard, mut states) = locked_states(&config.state, &shown, clock, names)?;
    for &key in &keys {
        let act = match status {
            "retracted" => Act::MarkRetracted,
            _ if done => Act::MarkDone {
                id: args.id.clone(),
                fp: fingerprint(config, catalog.as_ref(), key),
            },
            _ => Act::MarkFailed {
                fp: fingerprint(config, catalog.as_ref(), key),
            },
        };
        for state in &mut states {
            mark(config, clock, state, key, &act, args, status)?;
        }
    }
    for state in &mut states {
        state.compact()?;
    }
    if done && args.id.is_none() {
        let names: Vec<&str> = states.iter().map(|s| s.target.as_str()).collect();
        err!(
            "dayrun: warning: no --id: later edits and retractions cannot find this post on {}; add --id ID if you know it",
            names.join(", ")
        );
    }
    crate::links::write(config)?;
    Ok(code::OK)
}

/// The command's words: the keys, then `done`, `failed` or `retracted` (as written, and
/// whether it is done).
fn words(args: &MarkArgs) -> Result<(Vec<Key>, &str, bool), Error> {
    let usage = "mark: name the key(s), then `done`, `failed` or `retracted`, e.g. `dayrun mark 2026-11-29 done --id 4812 --target blog`";
    let Some((status, keys)) = args.words.split_last() else {
        return Err(Error::usage(usage));
    };
    if keys.is_empty() {
        return Err(Error::usage(usage));
    }
    let keys: Vec<Key> = keys
        .iter()
        .map(|k| crate::key(k, "key"))
        .collect::<Result<_, _>>()?;
    let done = match status.as_str() {
        "done" => true,
        "failed" | "retracted" => false,
        other => {
            return Err(Error::usage(format!(
                "mark: `{other}` is not done, failed or retracted (the keys come first, then the word)"
            )));
        }
    };
    Ok((keys, status, done))
}

/// `--id` names the one copy of one key marked done, and is an id a target could have given.
fn check_id(id: &str, done: bool, keys: usize) -> Result<(), Error> {
    if !done {
        return Err(Error::usage("mark: --id goes with done"));
    }
    if keys > 1 {
        return Err(Error::usage(
            "mark: --id names one copy: mark one key at a time",
        ));
    }
    let receipt = crate::life::Receipt::id(id.to_string());
    life::checked(&receipt).map_err(|why| Error::usage(format!("mark --id: {why}")))?;
    Ok(())
}

/// Mark `key` on `state` by `act`, as its life allows (what it refuses is said), traced and
/// told; `status`: the word the mark was asked with.
fn mark(
    config: &Config,
    clock: &Clock,
    state: &mut StateFile,
    key: Key,
    act: &Act,
    args: &MarkArgs,
    status: &str,
) -> Result<(), Error> {
    let line = state.get(key).map(KeyLine::of);
    let rules = Rules {
        catchup_days: config.catchup_days,
        ..Rules::default()
    };
    let mode = Mode::Run { backfill: false };
    let ctx = life::Ctx::at(key, &clock.now(), clock.tz(), clock.today(), &rules, &mode);
    let step = life::next(line.as_ref(), &Event::Human(act), &ctx);
    let was = line.as_ref().map_or("none", |l| l.record().status.as_str());
    let Change::Write(new) = &step.line else {
        if let Some(text) = &step.say {
            let text = crate::outside::escape(text, 4000);
            err!("dayrun: {key} {}: {text}", state.target);
        }
        return Ok(());
    };
    let record = new.record();
    let recorded = recorded(&record);
    state.set(record)?;
    let detail = format!(
        "was={was}{}",
        args.id
            .as_ref()
            .map(|id| format!(" id={id}"))
            .unwrap_or_default()
    );
    Trace::new(&config.state, &state.target).line(
        &clock.stamp(),
        &key.to_string(),
        "mark",
        status,
        &detail,
    );
    out!(
        "{key} {} marked {status} (was {was}): {}",
        state.target,
        crate::outside::escape(&recorded, 4000)
    );
    Ok(())
}

/// The current fingerprint of the key's post, so that a later edit is noticed. Without a post
/// file the mark is still recorded (it may have been published by other means), with a warning.
fn fingerprint(config: &Config, catalog: Option<&Catalog>, key: Key) -> String {
    if !catalog.is_some_and(|c| c.files.contains_key(&key)) {
        let file = config.show(&config.content.join(format!("{key}.md")));
        err!(
            "dayrun: warning: there is no {} for {key}; recording the mark anyway",
            file.display()
        );
    }
    catalog
        .and_then(|c| c.text(key).ok())
        .map(|p| p.fingerprint)
        .unwrap_or_default()
}

/// What the state line says, without its key and time: its status and fields.
fn recorded(record: &crate::life::Record) -> String {
    let line = record.to_line();
    let mut words = line.splitn(4, ' ');
    let (_key, status, _at) = (words.next(), words.next(), words.next());
    match words.next() {
        Some(fields) => format!("{} {fields}", status.unwrap_or_default()),
        None => status.unwrap_or_default().to_string(),
    }
}
