//! `dayrun mark KEY done|failed`: record a key's outcome by hand, under the run lock.

use crate::cli::MarkArgs;
use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Class, Error, code};
use crate::state::{Record, Status, locked_states};
use crate::trace::Trace;
use jiff::civil::Date;

pub fn run(config: &Config, clock: &Clock, args: &MarkArgs) -> Result<i32, Error> {
    let key = crate::key(&args.key, "key")?;
    let status = match args.status.as_str() {
        "done" => Status::Done,
        "failed" => Status::Failed,
        other => {
            return Err(Error::usage(format!(
                "mark: `{other}` is not done or failed"
            )));
        }
    };
    if status == Status::Failed && args.id.is_some() {
        return Err(Error::usage("mark: --id goes with done"));
    }
    let fp = fingerprint(config, key);
    let (_guard, mut states) = locked_states(config, clock, &args.target)?;
    for state in &mut states {
        let mut record = Record::new(key, status, clock.stamp()).with("fp", &fp);
        record = match status {
            Status::Done => record
                .with("id", args.id.clone().unwrap_or_default())
                .with("reason", "marked by hand"),
            _ => record
                .with("class", Class::Rejected.as_str())
                .with("reason", "marked failed by hand")
                .with("by", "hand"),
        };
        let was = state
            .get(key)
            .map_or("none", |r| r.status.as_str())
            .to_string();
        let recorded = recorded(&record);
        state.set(record)?;
        state.compact()?;
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
            status.as_str(),
            &detail,
        );
        println!(
            "{key} {} marked {} (was {was}): {recorded}",
            state.target,
            status.as_str()
        );
    }
    if status == Status::Done && args.id.is_none() {
        let names: Vec<&str> = states.iter().map(|s| s.target.as_str()).collect();
        eprintln!(
            "dayrun: warning: no --id: later edits and retractions cannot find this post on {}; add --id ID if you know it",
            names.join(", ")
        );
    }
    crate::links::write(config)?;
    Ok(code::OK)
}

/// The current fingerprint of the key's post, so that a later edit is noticed. Without a post
/// file the mark is still recorded (it may have been published by other means), with a warning.
fn fingerprint(config: &Config, key: Date) -> String {
    let catalog = Catalog::scan(&config.content, &config.root).ok();
    if !catalog.as_ref().is_some_and(|c| c.files.contains_key(&key)) {
        let file = config.show(&config.content.join(format!("{key}.md")));
        eprintln!(
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
fn recorded(record: &Record) -> String {
    let line = record.to_line();
    let mut words = line.splitn(4, ' ');
    let (_key, status, _at) = (words.next(), words.next(), words.next());
    match words.next() {
        Some(fields) => format!("{} {fields}", status.unwrap_or_default()),
        None => status.unwrap_or_default().to_string(),
    }
}
