//! The first line of every run (so that an appended log splits into runs), and the lines of an
//! error that keeps something from being done, as a run and `status` say them.

use crate::config::TargetConfig;
use crate::error::Error;
use crate::life::Key;
use crate::life::{Lever, Mode};
use crate::outside::escape;
use jiff::civil::Date;
use std::fmt::Write as _;

/// What a run's first line says: when, what it was asked, which targets.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    /// The run's time, stamped.
    pub stamp: &'a str,
    pub today: Date,
    pub mode: &'a Mode,
    pub dry_run: bool,
    /// The keys and targets named on the command line.
    pub keys: &'a [Key],
    pub targets: &'a [String],
    /// The targets the run goes over.
    pub selected: &'a [&'a TargetConfig],
}

impl Header<'_> {
    /// `== STAMP dayrun VERSION WHAT, today DAY; targets: NAME (KIND), …`.
    pub fn line(&self) -> String {
        let mut what = match self.mode {
            Mode::Retract => "retract".to_string(),
            Mode::Retry(lever) => match lever {
                Lever::Again => "retry".into(),
                Lever::Absent => "retry --absent".into(),
                Lever::New => "retry --new".into(),
                Lever::Force => "retry --force".into(),
                Lever::ForceNew => "retry --force --new".into(),
                Lever::NotOurs(id) => format!("retry --not-ours {}", escape(id, 200)),
            },
            Mode::Run { backfill: true } => "run --backfill".into(),
            Mode::Run { backfill: false } => "run".into(),
        };
        if self.dry_run {
            what.push_str(" --dry-run");
        }
        for key in self.keys {
            let _ = match self.mode {
                Mode::Run { .. } => write!(what, " --key {key}"),
                _ => write!(what, " {key}"),
            };
        }
        for target in self.targets {
            let _ = write!(what, " --target {}", escape(target, 200));
        }
        let targets: Vec<String> = (self.selected.iter())
            .map(|t| format!("{} ({})", t.name, escape(&t.kind, 100)))
            .collect();
        format!(
            "== {} dayrun {} {what}, today {}; targets: {}",
            self.stamp,
            env!("CARGO_PKG_VERSION"),
            self.today,
            targets.join(", ")
        )
    }
}

/// An error that keeps something from being done, after `before`, and its hint under it.
pub fn error_lines(before: &str, err: &Error) -> Vec<String> {
    let mut lines = vec![format!("{before}{}", escape(&err.located(), 4000))];
    if let Some(hint) = &err.hint {
        lines.push(super::line::under(&escape(hint, 4000)));
    }
    lines
}
