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
    let mut text = Text::default();
    let p = escape(project);
    for family in families() {
        let mut samples = String::new();
        match family.of {
            Of::Target(value) => {
                for facts in targets {
                    let labels = format!("project=\"{p}\",target=\"{}\"", escape(&facts.name));
                    value(facts, &labels, &mut samples);
                }
            }
            Of::Run(value) => value(run, judged, &format!("project=\"{p}\""), &mut samples),
        }
        text.family(&family, &samples);
    }
    text.0
}

/// The text being written.
#[derive(Default)]
struct Text(String);

impl Text {
    fn family(&mut self, family: &Family, samples: &str) {
        if samples.is_empty() {
            return;
        }
        let _ = writeln!(self.0, "# HELP {} {}", family.name, family.help);
        let _ = writeln!(self.0, "# TYPE {} {}", family.name, family.kind);
        for line in samples.lines() {
            let _ = writeln!(self.0, "{}{line}", family.name);
        }
    }
}

/// A family of series: its name, type, help and how its samples are made.
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    of: Of,
}

/// Where a family's samples come from; each writes `{labels} value` lines.
enum Of {
    /// One target's facts, with its labels.
    Target(fn(&Facts, &str, &mut String)),
    /// The run (and whether its state could be judged), with its labels.
    Run(fn(&Run, bool, &str, &mut String)),
}

/// A sample line, after the family's name.
fn sample(out: &mut String, labels: &str, value: impl std::fmt::Display) {
    let _ = writeln!(out, "{{{labels}}} {value}");
}

/// A timestamp's sample, when there is one.
fn stamp(out: &mut String, labels: &str, at: Option<Timestamp>) {
    if let Some(at) = at {
        sample(out, labels, at.as_second());
    }
}

/// Every family, in the order written.
fn families() -> Vec<Family> {
    let target = |name, kind, help, f| Family {
        name,
        kind,
        help,
        of: Of::Target(f),
    };
    let run = |name, help, f| Family {
        name,
        kind: "gauge",
        help,
        of: Of::Run(f),
    };
    vec![
        target(
            "dayrun_keys",
            "gauge",
            "Keys on the target by state, as dayrun status counts them.",
            |f, l, o| {
                for (state, n) in &f.keys {
                    sample(o, &format!("{l},state=\"{state}\""), n);
                }
            },
        ),
        target(
            "dayrun_pending_oldest_timestamp_seconds",
            "gauge",
            "Since when the oldest pending line has waited for its outcome (absent: none pending).",
            |f, l, o| stamp(o, l, f.oldest_pending),
        ),
        target(
            "dayrun_pending_deadline_seconds",
            "gauge",
            "How long a pending line or a failure may last before it needs a person (escalate_after).",
            |f, l, o| sample(o, l, f.deadline.as_secs()),
        ),
        target(
            "dayrun_failure_oldest_timestamp_seconds",
            "gauge",
            "Since when the oldest failure has lasted (absent: none failing).",
            |f, l, o| stamp(o, l, f.oldest_failure),
        ),
        target(
            "dayrun_dedup_hits_total",
            "counter",
            "Keys whose copy the pre-submit check found on the target before a first send, counted from the state lines.",
            |f, l, o| sample(o, l, f.dedup),
        ),
        target(
            "dayrun_run_confirmed_keys",
            "gauge",
            "Keys the last run confirmed on the target after an answer was lost.",
            |f, l, o| sample(o, l, crate::tally::passes(&f.name, Count::Confirmed)),
        ),
        target(
            "dayrun_failed_keys",
            "gauge",
            "Failed keys by failure class.",
            |f, l, o| {
                for (class, n) in &f.failed {
                    sample(o, &format!("{l},class=\"{class}\""), n);
                }
            },
        ),
        target(
            "dayrun_held_back_keys",
            "gauge",
            "Failed keys past the catch-up window: not sent again until a person says.",
            |f, l, o| sample(o, l, f.held_back),
        ),
        target(
            "dayrun_retrying_keys",
            "gauge",
            "Failed keys the next run retries by itself.",
            |f, l, o| sample(o, l, f.retrying),
        ),
        target(
            "dayrun_waiting_keys",
            "gauge",
            "Keys the next run goes on with by itself (an answer to confirm, a linked copy to wait for).",
            |f, l, o| sample(o, l, f.waiting),
        ),
        target(
            "dayrun_needs_person_keys",
            "gauge",
            "Keys that need a person: a run exits 1 or 3 for them.",
            |f, l, o| sample(o, l, f.needs_person),
        ),
        target(
            "dayrun_last_success_timestamp_seconds",
            "gauge",
            "When the newest done line was written: the last copy that landed or was confirmed.",
            |f, l, o| stamp(o, l, f.last_success),
        ),
        run(
            "dayrun_run_start_timestamp_seconds",
            "When the last run started.",
            |r, _, l, o| sample(o, l, r.start.as_second()),
        ),
        run(
            "dayrun_run_duration_seconds",
            "How long the last run took.",
            |r, _, l, o| sample(o, l, format!("{:.3}", r.duration.as_secs_f64())),
        ),
        run(
            "dayrun_run_exit_code",
            "The last run's exit code (0, 75, 1, 2 or 3).",
            |r, _, l, o| sample(o, l, r.exit),
        ),
        run(
            "dayrun_run_requests",
            "Requests the last run made to its targets.",
            |r, _, l, o| sample(o, l, r.requests),
        ),
        run(
            "dayrun_state_readable",
            "1 when the state and config could be judged after the last run, 0 when not (the run said why).",
            |_, judged, l, o| sample(o, l, u8::from(judged)),
        ),
    ]
}

/// A label's value as the text format wants it: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
