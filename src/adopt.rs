//! `dayrun adopt`: record every due key as done without publishing (the first-run baseline).

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::state::{Record, Status, locked_states};
use crate::trace::Trace;
use jiff::civil::Date;

pub fn run(
    config: &Config,
    clock: &Clock,
    until: Option<Date>,
    targets: &[String],
) -> Result<i32, Error> {
    let today = clock.today();
    let until = match until {
        Some(until) if until > today => {
            eprintln!("dayrun: --until {until} is after today ({today}): adopting up to today");
            today
        }
        until => until.unwrap_or(today),
    };
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let (_guard, mut states) = locked_states(config, clock, targets)?;
    for state in &mut states {
        let mut trace = Trace::new(&config.state, &state.target);
        let (mut adopted, mut drafts) = (0, 0);
        for &key in catalog.files.keys().filter(|k| **k <= until) {
            if state.get(key).is_some_and(|r| r.status == Status::Done) {
                continue;
            }
            let post = catalog.text(key).ok();
            if post.as_ref().is_some_and(|p| p.draft) {
                drafts += 1;
                continue;
            }
            let fp = post.map(|p| p.fingerprint).unwrap_or_default();
            let record = Record::new(key, Status::Done, clock.stamp())
                .with("fp", fp)
                .with("reason", "adopted");
            state.put(record);
            trace.line(
                &clock.stamp(),
                &key.to_string(),
                "adopt",
                "done",
                "reason=adopted",
            );
            adopted += 1;
        }
        state.compact()?;
        println!(
            "{}: adopted {adopted} key(s) up to {until} as done without publishing{}",
            state.target,
            if drafts > 0 {
                format!(" ({drafts} draft(s) left alone)")
            } else {
                String::new()
            }
        );
    }
    crate::links::write(config)?;
    Ok(code::OK)
}
