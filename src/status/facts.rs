//! What a monitor reads of each target, summed from the judged rows (`judge.rs`) and never
//! from a rule of its own: its keys by state, since when its oldest pending line has waited
//! and its oldest failure has lasted, the copies found before a first send, its failures by
//! class, the keys held back, waiting or needing a person, and its last success.

use super::judge::{Judged, Sink};
use crate::config::TargetConfig;
use crate::error::Error;
use crate::life::{self, Class};
use crate::tally::Count;
use jiff::Timestamp;
use std::collections::BTreeMap;
use std::time::Duration;

/// Every state a key can be in on a target, as `status` words them (the `state` label).
pub(crate) const STATES: [Count; 8] = [
    Count::Done,
    Count::Pending,
    Count::Failed,
    Count::Retracted,
    Count::Due,
    Count::Scheduled,
    Count::Stale,
    Count::Draft,
];

/// How many keys that need a person a target keeps named (the rest are counted).
const NAMED: usize = 5;

/// One target's facts.
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    /// The target's name (`[targets.NAME]`).
    pub(crate) name: String,
    /// Keys by state, every state of `STATES` present.
    pub(crate) keys: BTreeMap<&'static str, u64>,
    /// Since when the oldest pending line has waited (its attempt's start).
    pub(crate) oldest_pending: Option<Timestamp>,
    /// Since when the oldest failure has lasted (`first_failure=`, else its line's time).
    pub(crate) oldest_failure: Option<Timestamp>,
    /// How long a pending line or a failure may last before it needs a person
    /// (`escalate_after`).
    pub(crate) deadline: Duration,
    /// Lines that record a copy found on the target before the first send (`dedup=1`).
    pub(crate) dedup: u64,
    /// Failed keys by class, every class present.
    pub(crate) failed: BTreeMap<&'static str, u64>,
    /// Failed keys past the catch-up window: not sent again until a person says.
    pub(crate) held_back: u64,
    /// Failed keys the next run retries by itself (they leave a run with 75).
    pub(crate) retrying: u64,
    /// Other keys the next run goes on with by itself (a lost answer to confirm, a linked
    /// copy to wait for: 75).
    pub(crate) waiting: u64,
    /// Keys that need a person (they leave a run with 1 or 3).
    pub(crate) needs_person: u64,
    /// The first few of those, as `KEY STATE (CLASS)`.
    pub(crate) named: Vec<String>,
    /// When the newest done line was written: the last copy that landed or was confirmed.
    pub(crate) last_success: Option<Timestamp>,
    /// When the target's credential expires, when the target knows (a LinkedIn token).
    pub(crate) credential_expiry: Option<Timestamp>,
}

impl Facts {
    fn new(cfg: &TargetConfig, rules: &life::Rules) -> Facts {
        Facts {
            name: cfg.name.clone(),
            keys: STATES.iter().map(|s| (s.word(), 0)).collect(),
            oldest_pending: None,
            oldest_failure: None,
            deadline: rules.escalate_after,
            dedup: 0,
            failed: Class::ALL.iter().map(|c| (c.as_str(), 0)).collect(),
            held_back: 0,
            retrying: 0,
            waiting: 0,
            needs_person: 0,
            named: Vec::new(),
            last_success: None,
            credential_expiry: None,
        }
    }

    /// Count one judged key in.
    fn add(&mut self, judged: &Judged) {
        let row = judged.row;
        *self.keys.entry(row.status.word()).or_default() += 1;
        let oldest = |held: Option<Timestamp>| match (held, judged.since) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match row.status {
            Count::Pending => self.oldest_pending = oldest(self.oldest_pending),
            Count::Failed => self.oldest_failure = oldest(self.oldest_failure),
            Count::Done => self.last_success = self.last_success.max(judged.at),
            _ => {}
        }
        if let Some(class) = row.class.as_deref().and_then(Class::parse) {
            *self.failed.entry(class.as_str()).or_default() += 1;
        }
        self.dedup += u64::from(judged.dedup);
        self.held_back += u64::from(row.held_back);
        match (row.exit, row.status) {
            (crate::error::code::TEMPFAIL, Count::Failed) => self.retrying += 1,
            (crate::error::code::TEMPFAIL, _) => self.waiting += 1,
            (crate::error::code::NEEDS_HUMAN | crate::error::code::AUTH, status) => {
                self.needs_person += 1;
                if self.named.len() < NAMED {
                    let class = row.class.as_deref().map(|c| format!(" ({c})"));
                    let word = match row.held_back {
                        true => "held back",
                        false => status.word(),
                    };
                    let named = format!("{} {word}{}", row.key, class.unwrap_or_default());
                    self.named.push(named);
                }
            }
            _ => {}
        }
    }

    /// Keys on the target, whatever their state.
    pub(crate) fn total(&self) -> u64 {
        self.keys.values().sum()
    }

    /// Failed keys, whatever their class.
    pub(crate) fn failing(&self) -> u64 {
        self.keys
            .get(Count::Failed.word())
            .copied()
            .unwrap_or_default()
    }
}

/// The facts of every target judged, in order.
#[derive(Default)]
pub(crate) struct Collect {
    pub(crate) targets: Vec<Facts>,
}

impl Sink for Collect {
    fn target(&mut self, cfg: &TargetConfig, rules: &life::Rules) -> Result<(), Error> {
        self.targets.push(Facts::new(cfg, rules));
        Ok(())
    }

    fn key(&mut self, judged: &Judged) -> Result<(), Error> {
        if let Some(facts) = self.targets.last_mut() {
            facts.add(judged);
        }
        Ok(())
    }

    fn end(&mut self, _: &TargetConfig) -> Result<(), Error> {
        Ok(())
    }

    fn expiry(&mut self, at: Option<Timestamp>) {
        if let Some(facts) = self.targets.last_mut() {
            facts.credential_expiry = at;
        }
    }
}
