//! The steps of a case and how they are drawn: mornings' runs with a fault per request, an
//! outage, runs killed part way, time passing, edits, deleted posts, human commands and merges of
//! two sides. Shrinking drops steps and turns faults into plain answers.

use super::spec::{Lever, Look, Script, Send};
use proptest::prelude::*;
use std::fmt;

/// The keys of every case (index 0, 1, 2): two due at the start, one scheduled.
pub const KEYS: [&str; 3] = ["2030-03-08", "2030-03-09", "2030-03-11"];
/// The same, in a case with slugged keys (`keys = ["date", "slug"]`, issue 32): keys 0 and 1
/// are one day's two posts, so a copy of one (a twin's too) must never answer for the other.
pub const SLUGGED_KEYS: [&str; 3] = ["2030-03-08", "2030-03-08-second", "2030-03-11-third"];
/// The same, in a case with week and month keys (`keys = ["date", "week", "month"]`, issue 33):
/// the month and the week have begun at the start (their first days 2030-03-01 and 03-04, in
/// the order keys sort), the day is scheduled.
pub const PERIOD_KEYS: [&str; 3] = ["2030-03", "2030-W10", "2030-03-11"];
/// In a case with times (`times = "front-matter"`), key 2's front matter names this instant.
pub const KEY_2_AT: &str = "2030-03-11T18:00:00Z";
/// The instant a case starts at.
pub const START: &str = "2030-03-09T07:00:00Z";

#[derive(Clone)]
pub enum Step {
    /// A morning's `run`: how the fake answers each key.
    Run(Vec<Script>),
    /// An outage: this many mornings' `run`s while the server refuses every connection, this
    /// many minutes apart (row 3: red once it lasts past `escalate_after`).
    Outage(u32, i64),
    /// A morning's `run`, held at its first request while `state/.lock` is removed and a
    /// second `run` starts (it must be kept out: issue 28, row 8).
    LockLost(Vec<Script>),
    /// A `run` SIGKILLed after this many milliseconds (if it is still running).
    Kill(Vec<Script>, u64),
    /// Time passes (minutes): keys fall due, failures age, keys leave the catch-up window.
    Pass(i64),
    /// A new version of the post (a deleted post comes back).
    Edit(usize),
    /// The post's file is deleted.
    Delete(usize),
    /// `mark KEY done` (with `--id` of a live copy when the fake holds one) or `mark KEY failed`.
    Mark { key: usize, done: bool },
    /// `retry KEY` with a lever. `--absent` is said only when the fake holds no copy, unless
    /// `wrongly` (a human who did not look well).
    Retry {
        key: usize,
        lever: Lever,
        wrongly: bool,
        script: Script,
    },
    /// `retract KEY --yes`.
    Retract(usize),
    /// The state copied to a second machine; a run on each (this side first), then
    /// `merge-state` of the two files.
    Merge(Vec<Script>, Vec<Script>),
    /// As `Merge`, but this side's command is `retry KEY --force --new` (this script): the
    /// merged lines carry generations (`older=`) from one side only.
    MergeNew(usize, Script, Vec<Script>),
    /// Steps played in a row (a drawn story: an edit while an attempt is pending).
    Seq(Vec<Step>),
}

struct Scripts<'a>(&'a [Script]);

impl fmt::Debug for Scripts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let busy: Vec<String> = self
            .0
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != Script::calm())
            .map(|(i, s)| format!("k{i}: {s:?}"))
            .collect();
        match busy.is_empty() {
            true => f.write_str("calm"),
            false => write!(f, "{}", busy.join("; ")),
        }
    }
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sends: Vec<String> = self.sends.iter().map(|s| format!("{s:?}")).collect();
        let sends = match sends.is_empty() {
            true => "Ok".to_string(),
            false => sends.join(","),
        };
        write!(f, "post {sends}")?;
        if self.look != Look::Ok {
            write!(f, " get {:?}", self.look)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Run(s) => write!(f, "run [{:?}]", Scripts(s)),
            Step::Outage(1, _) => write!(f, "run while the server is down"),
            Step::Outage(n, m) => write!(
                f,
                "{n} runs {}h{:02} apart while the server is down",
                m / 60,
                m % 60
            ),
            Step::LockLost(s) => {
                write!(f, "run, its lock file removed under it [{:?}]", Scripts(s))
            }
            Step::Kill(s, ms) => write!(f, "run killed at {ms} ms [{:?}]", Scripts(s)),
            Step::Pass(m) => write!(f, "{}h{:02} pass", m / 60, m % 60),
            Step::Edit(k) => write!(f, "edit k{k}"),
            Step::Delete(k) => write!(f, "delete k{k}"),
            Step::Mark { key, done: true } => write!(f, "mark k{key} done"),
            Step::Mark { key, done: false } => write!(f, "mark k{key} failed"),
            Step::Retry {
                key,
                lever,
                wrongly,
                script,
            } => {
                let flags = match lever {
                    Lever::Again => "",
                    Lever::Absent if *wrongly => " --absent (wrongly)",
                    Lever::Absent => " --absent",
                    Lever::Force => " --force",
                    Lever::ForceNew => " --force --new",
                };
                write!(f, "retry k{key}{flags} [{script:?}]")
            }
            Step::Retract(k) => write!(f, "retract k{k} --yes"),
            Step::Merge(a, b) => write!(f, "merge [{:?}] with [{:?}]", Scripts(a), Scripts(b)),
            Step::MergeNew(k, a, b) => write!(
                f,
                "merge [retry k{k} --force --new [{a:?}]] with [{:?}]",
                Scripts(b)
            ),
            Step::Seq(steps) => f.debug_list().entries(steps).finish(),
        }
    }
}

fn send() -> impl Strategy<Value = Send> {
    prop_oneof![
        25 => Just(Send::Ok),
        16 => Just(Send::Busy),
        8 => Just(Send::Commit500),
        8 => Just(Send::Lost503),
        5 => Just(Send::CommitClose),
        // (A timeout costs the client's timeout, a second: rarer.)
        1 => Just(Send::CommitHang),
        1 => Just(Send::LostHang),
        6 => Just(Send::Reject),
        3 => Just(Send::Auth),
    ]
}

fn look() -> impl Strategy<Value = Look> {
    prop_oneof![
        60 => Just(Look::Ok),
        12 => Just(Look::FailOnce),
        16 => Just(Look::FailAlways),
        6 => Just(Look::Garbage),
        2 => Just(Look::Auth),
    ]
}

pub fn script() -> impl Strategy<Value = Script> {
    prop_oneof![
        1 => Just(Script::calm()),
        3 => (prop::collection::vec(send(), 1..=3), look())
            .prop_map(|(sends, look)| Script { sends, look }),
    ]
}

fn scripts() -> impl Strategy<Value = Vec<Script>> {
    prop::collection::vec(script(), KEYS.len())
}

fn key() -> impl Strategy<Value = usize> {
    0..KEYS.len()
}

fn lever() -> impl Strategy<Value = Lever> {
    prop_oneof![
        5 => Just(Lever::Again),
        3 => Just(Lever::Absent),
        2 => Just(Lever::ForceNew),
        2 => Just(Lever::Force),
    ]
}

pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        30 => scripts().prop_map(Step::Run),
        5 => (1u32..=3, prop_oneof![Just(65i64), Just(300), Just(1560)])
            .prop_map(|(n, m)| Step::Outage(n, m)),
        10 => prop_oneof![3 => Just(65i64), 4 => Just(300), 2 => Just(1560), 3 => Just(4440)]
            .prop_map(Step::Pass),
        6 => (scripts(), 0u64..60).prop_map(|(s, ms)| Step::Kill(s, ms)),
        3 => scripts().prop_map(Step::LockLost),
        6 => key().prop_map(Step::Edit),
        4 => key().prop_map(Step::Delete),
        6 => (key(), any::<bool>()).prop_map(|(key, done)| Step::Mark { key, done }),
        12 => (key(), lever(), prop::bool::weighted(0.25), script()).prop_map(
            |(key, lever, wrongly, script)| Step::Retry { key, lever, wrongly, script }
        ),
        5 => key().prop_map(Step::Retract),
        5 => (scripts(), scripts()).prop_map(|(a, b)| Step::Merge(a, b)),
        3 => (key(), script(), scripts()).prop_map(|(k, a, b)| Step::MergeNew(k, a, b)),
        4 => edit_while_pending(),
    ]
}

/// Issue 28, row 6: a send whose answer is lost (and whose lookup fails, so the attempt stays
/// pending), the post edited, then the next run, which finds the attempt's copy.
fn edit_while_pending() -> impl Strategy<Value = Step> {
    let lost = prop_oneof![
        Just(Send::Commit500),
        Just(Send::CommitClose),
        Just(Send::Lost503)
    ];
    (key(), lost).prop_map(|(k, lost)| {
        let mut first = vec![Script::calm(); KEYS.len()];
        first[k] = Script {
            sends: vec![lost],
            look: Look::FailAlways,
        };
        Step::Seq(vec![
            Step::Run(first),
            Step::Edit(k),
            Step::Run(vec![Script::calm(); KEYS.len()]),
        ])
    })
}

/// A case: the target's settle time (minutes), whether keys 0 and 1 have the same text, and
/// the steps.
#[derive(Clone)]
pub struct Story {
    pub settle: i64,
    pub twins: bool,
    /// The case's keys: `KEYS`, `SLUGGED_KEYS` or `PERIOD_KEYS`.
    pub keys: Keys,
    /// Key 2 is due at `KEY_2_AT` (`times`), and runs do not pin the day.
    pub timed: bool,
    pub steps: Vec<Step>,
}

/// Which keys a case has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    Dates,
    Slugged,
    Periods,
}

impl fmt::Debug for Story {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let twins = match self.twins {
            true => ", keys 0 and 1 with the same text",
            false => "",
        };
        let keys = match (self.keys, self.timed) {
            (Keys::Dates, false) => "",
            (Keys::Dates, true) => ", key 2 timed",
            (Keys::Slugged, false) => ", slugged keys",
            (Keys::Slugged, true) => ", slugged keys, key 2 timed",
            (Keys::Periods, false) => ", week and month keys",
            (Keys::Periods, true) => ", week and month keys, key 2 timed",
        };
        writeln!(
            f,
            "settle_secs = {}{twins}{keys}, then {} steps:",
            self.settle * 60,
            self.steps.len()
        )?;
        f.debug_list().entries(&self.steps).finish()
    }
}

pub fn case(max_steps: usize) -> impl Strategy<Value = Story> {
    // A settle time longer than a run waits (15 min): a lookup before then says "not yet".
    let settle = prop_oneof![3 => Just(0i64), 1 => Just(15)];
    let twins = prop::bool::weighted(0.3);
    let keys = prop_oneof![
        2 => Just(Keys::Dates),
        2 => Just(Keys::Slugged),
        1 => Just(Keys::Periods),
    ];
    let timed = prop::bool::weighted(0.3);
    (
        (settle, twins),
        (keys, timed),
        prop::collection::vec(step(), 1..=max_steps),
    )
        .prop_map(|((settle, twins), (keys, timed), steps)| Story {
            settle,
            twins,
            keys,
            timed,
            steps,
        })
}
