//! `dayrun mark KEY done|failed`: record a key's outcome by hand, under the run lock.

use crate::cli::MarkArgs;
use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Class, Error, code};
use crate::state::{Record, Status, locked_states};
use crate::trace::Trace;

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
    // The current fingerprint, when the post reads, so a later edit is noticed.
    let fp = Catalog::scan(&config.content, &config.root)
        .ok()
        .and_then(|c| c.post(key).ok())
        .map(|p| p.fingerprint)
        .unwrap_or_default();
    let (_guard, mut states) = locked_states(config, clock, &args.target)?;
    for state in &mut states {
        let mut record = Record::new(key, status, clock.stamp()).with("fp", &fp);
        record = match status {
            Status::Done => record
                .with("id", args.id.clone().unwrap_or_default())
                .with("reason", "marked by hand"),
            _ => record
                .with("class", Class::Rejected.as_str())
                .with("reason", "marked failed by hand"),
        };
        let was = state
            .get(key)
            .map_or("none", |r| r.status.as_str())
            .to_string();
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
            "{key} {} marked {} (was {was})",
            state.target,
            status.as_str()
        );
    }
    Ok(code::OK)
}
