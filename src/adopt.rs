//! `dayrun adopt`: record every due key as done without publishing (the first-run baseline).

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::life::{self, Act, Change, Ctx, Event, KeyLine, Mode, Phase, Rules};
use crate::state::locked_states;
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
            err!("dayrun: --until {until} is after today ({today}): adopting up to today");
            today
        }
        until => until.unwrap_or(today),
    };
    let catalog = Catalog::scan(&config.sources())?;
    let selected = config.select(targets)?;
    let names = selected.iter().map(|t| t.name.as_str());
    let shown = config.show(&config.state);
    let (_guard, mut states) = locked_states(&config.state, &shown, clock, names)?;
    let rules = Rules {
        catchup_days: config.catchup_days,
        ..Rules::default()
    };
    let mode = Mode::Run { backfill: false };
    for state in &mut states {
        let mut trace = Trace::new(&config.state, &state.target);
        let (mut adopted, mut drafts) = (0, 0);
        for &key in catalog.files.keys().filter(|k| k.day() <= until) {
            let line = state.get(key).map(KeyLine::of);
            if line.as_ref().is_some_and(|l| l.phase == Phase::Done) {
                continue;
            }
            let post = catalog.text(key).ok();
            if post.as_ref().is_some_and(|p| p.draft) {
                drafts += 1;
                continue;
            }
            let act = Act::Adopt {
                fp: post.map(|p| p.fingerprint).unwrap_or_default(),
            };
            let step = life::next(
                line.as_ref(),
                &Event::Human(&act),
                &Ctx::at(key, &clock.now(), clock.tz(), clock.today(), &rules, &mode),
            );
            if let Change::Write(line) = step.line {
                // No side effect: made durable all at once by the fold below.
                state.put(line.record());
            }
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
        out!(
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
