//! The metrics a run writes for node_exporter's textfile collector (`metrics_file`, `run
//! --metrics FILE`): the Prometheus text format, every series named `dayrun_…` in base units,
//! labelled only by project, target, state and class, written at the end of every run (a
//! failed one too) as a whole file that replaces the last (docs/monitoring.md lists them).
//! The per-target series are the facts `status` reads (`status::facts`), so they cannot
//! disagree with it.

use crate::clock::Clock;
use crate::config::Config;
use crate::status::facts::{Collect, Facts};
use crate::tally::Count;
use jiff::Timestamp;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// What the run itself was, beside its targets' facts.
pub(crate) struct Run {
    pub(crate) start: Timestamp,
    pub(crate) duration: Duration,
    pub(crate) exit: i32,
    /// Requests the run made to its targets (the ping's not counted).
    pub(crate) requests: u64,
}

/// Judge every key as `status` does and write the file; a file that cannot be written is
/// said in one line and changes nothing of the run's outcome.
pub(crate) fn write(config: &Config, clock: &Clock, run: &Run) {
    let Some(path) = &config.watch.metrics_file else {
        return;
    };
    let mut facts = Collect::default();
    // A state that cannot be judged (the run said why) still leaves the run's own series.
    let judged = crate::status::judge::judge(config, clock, &[], true, &mut facts).is_ok();
    let text = render(&config.watch.project, &facts.targets, judged, run);
    if let Err(e) = crate::fsutil::write_atomic(path, text.as_bytes()) {
        crate::say::err(&format!(
            "dayrun: warning: cannot write the metrics {}: {e} (the run's outcome stands)",
            crate::outside::escape(&config.show(path).display().to_string(), 4000)
        ));
    }
}

/// The file's text: each family's help, type and samples; a family without a sample (no
/// pending line, no success yet) is left out whole.
pub(crate) fn render(project: &str, targets: &[Facts], judged: bool, run: &Run) -> String {
    let mut text = String::new();
    let p = escape(project);
    for family in FAMILIES {
        let mut samples = String::new();
        let mut sample = |labels: &str, value: String| {
            let _ = writeln!(samples, "{}{{{labels}}} {value}", family.name);
        };
        for facts in targets {
            let labels = format!("project=\"{p}\",target=\"{}\"", escape(&facts.name));
            match family.of {
                Of::Count(count) => sample(&labels, count(facts).to_string()),
                Of::Stamp(stamp) => {
                    if let Some(at) = stamp(facts) {
                        sample(&labels, at.as_second().to_string());
                    }
                }
                Of::By(label, by) => {
                    for (value, n) in by(facts) {
                        sample(&format!("{labels},{label}=\"{value}\""), n.to_string());
                    }
                }
                Of::Run(_) => {}
            }
        }
        if let Of::Run(value) = family.of {
            sample(&format!("project=\"{p}\""), value(run, judged));
        }
        if !samples.is_empty() {
            let _ = writeln!(text, "# HELP {} {}", family.name, family.help);
            let _ = writeln!(text, "# TYPE {} {}", family.name, family.kind);
            text.push_str(&samples);
        }
    }
    text
}

/// A family of series: its name, type, help and where its samples come from.
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    of: Of,
}

/// Where a family's samples come from.
enum Of {
    /// A count per target.
    Count(fn(&Facts) -> u64),
    /// An instant per target, when there is one.
    Stamp(fn(&Facts) -> Option<Timestamp>),
    /// Counts per target by a label's value (every value present).
    By(&'static str, fn(&Facts) -> &BTreeMap<&'static str, u64>),
    /// The run's value (and whether its state could be judged).
    Run(fn(&Run, bool) -> String),
}

/// Every family, in the order written.
const FAMILIES: [Family; 18] = [
    Family {
        name: "dayrun_keys",
        kind: "gauge",
        help: "Keys on the target by state, as dayrun status counts them.",
        of: Of::By("state", |f| &f.keys),
    },
    Family {
        name: "dayrun_pending_oldest_timestamp_seconds",
        kind: "gauge",
        help: "Since when the oldest pending line has waited for its outcome (absent: none pending).",
        of: Of::Stamp(|f| f.oldest_pending),
    },
    Family {
        name: "dayrun_pending_deadline_seconds",
        kind: "gauge",
        help: "How long a pending line or a failure may last before it needs a person (escalate_after).",
        of: Of::Count(|f| f.deadline.as_secs()),
    },
    Family {
        name: "dayrun_failure_oldest_timestamp_seconds",
        kind: "gauge",
        help: "Since when the oldest failure has lasted (absent: none failing).",
        of: Of::Stamp(|f| f.oldest_failure),
    },
    Family {
        name: "dayrun_dedup_hits_total",
        kind: "counter",
        help: "Keys whose copy the pre-submit check found on the target before a first send, counted from the state lines.",
        of: Of::Count(|f| f.dedup),
    },
    Family {
        name: "dayrun_run_confirmed_keys",
        kind: "gauge",
        help: "Keys the last run confirmed on the target after an answer was lost.",
        of: Of::Count(|f| crate::tally::passes(&f.name, Count::Confirmed) as u64),
    },
    Family {
        name: "dayrun_failed_keys",
        kind: "gauge",
        help: "Failed keys by failure class.",
        of: Of::By("class", |f| &f.failed),
    },
    Family {
        name: "dayrun_held_back_keys",
        kind: "gauge",
        help: "Failed keys past the catch-up window: not sent again until a person says.",
        of: Of::Count(|f| f.held_back),
    },
    Family {
        name: "dayrun_retrying_keys",
        kind: "gauge",
        help: "Failed keys the next run retries by itself.",
        of: Of::Count(|f| f.retrying),
    },
    Family {
        name: "dayrun_waiting_keys",
        kind: "gauge",
        help: "Keys the next run goes on with by itself (an answer to confirm, a linked copy to wait for).",
        of: Of::Count(|f| f.waiting),
    },
    Family {
        name: "dayrun_needs_person_keys",
        kind: "gauge",
        help: "Keys that need a person: a run exits 1 or 3 for them.",
        of: Of::Count(|f| f.needs_person),
    },
    Family {
        name: "dayrun_last_success_timestamp_seconds",
        kind: "gauge",
        help: "When the newest done line was written: the last copy that landed or was confirmed.",
        of: Of::Stamp(|f| f.last_success),
    },
    Family {
        name: "dayrun_run_start_timestamp_seconds",
        kind: "gauge",
        help: "When the last run started.",
        of: Of::Run(|r, _| r.start.as_second().to_string()),
    },
    Family {
        name: "dayrun_run_duration_seconds",
        kind: "gauge",
        help: "How long the last run took.",
        of: Of::Run(|r, _| format!("{:.3}", r.duration.as_secs_f64())),
    },
    Family {
        name: "dayrun_run_exit_code",
        kind: "gauge",
        help: "The last run's exit code (0, 75, 1, 2 or 3).",
        of: Of::Run(|r, _| r.exit.to_string()),
    },
    Family {
        name: "dayrun_credential_expiry_timestamp_seconds",
        kind: "gauge",
        help: "When the target's credential expires, where the target knows it.",
        of: Of::Stamp(|f| f.credential_expiry),
    },
    Family {
        name: "dayrun_run_requests",
        kind: "gauge",
        help: "Requests the last run made to its targets.",
        of: Of::Run(|r, _| r.requests.to_string()),
    },
    Family {
        name: "dayrun_state_readable",
        kind: "gauge",
        help: "1 when the state and config could be judged after the last run, 0 when not (the run said why).",
        of: Of::Run(|_, judged| u8::from(judged).to_string()),
    },
];

/// A label's value as the text format wants it: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
