//! A target's delivery policy: how hard to try, how long to wait and what to look up, from the
//! keys every target table takes (`retries`, `settle_secs`, `on_edit`, …).

use life::defaults;
use std::time::Duration;

/// How hard to try and how long to wait, per target.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Extra attempts after a retry-safe failure within one run (`retries`, default 2).
    pub retries: u32,
    /// First backoff; it doubles per retry (`backoff_secs`, default 2).
    pub backoff: Duration,
    /// Longest Retry-After we wait for; longer stops the target for this run
    /// (`retry_after_cap_secs`, default 60).
    pub retry_after_cap: Duration,
    /// Looks at the target after an unknown outcome (`confirm_polls`, default 3).
    pub confirm_polls: u32,
    /// Wait before each look (`confirm_delay_secs`, default 5).
    pub confirm_delay: Duration,
    /// Least time between two writes to this target (`min_interval_secs`, default 0).
    pub min_interval: Duration,
    /// Look for the post on the target before its first attempt (`dedup`, default true).
    pub dedup: Dedup,
    /// How long after dayrun gave up on a request the target may still show it
    /// (`settle_secs`; default per kind, see `Target::settle`).
    pub settle: Option<Duration>,
    /// Send an edit made after publishing to the copy, in place (`on_edit = "update"`), or
    /// leave the copy as it is (`"ignore"`); `None`: the kind's default (`Target::updates`).
    pub on_edit: Option<bool>,
    /// Edits are sent for this many days after the first publish (`edit_days`, default 7).
    pub edit_days: i64,
    /// A failure that lasts this long turns the timer red: retry-safe failures and failed
    /// lookups exit 1 from then on, and a lookup that keeps failing goes to a human
    /// (`escalate_after`, default 20 hours: red by the second morning of a daily timer).
    pub escalate_after: Duration,
}

/// Pre-submit dedup: whether to look for a copy before the first attempt, and what a lookup
/// that cannot tell means there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dedup {
    /// Never look before the first attempt (`dedup = false`).
    Off,
    /// Look; when the lookup cannot tell, warn and send (`dedup = true`, the default).
    BestEffort,
    /// Look; when the lookup cannot tell, do not send: a human decides (`dedup = "strict"`).
    Strict,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            retries: defaults::RETRIES,
            backoff: defaults::BACKOFF,
            retry_after_cap: Duration::from_secs(60),
            confirm_polls: 3,
            confirm_delay: Duration::from_secs(5),
            min_interval: Duration::ZERO,
            dedup: Dedup::BestEffort,
            settle: None,
            on_edit: None,
            edit_days: defaults::EDIT_DAYS,
            escalate_after: defaults::ESCALATE_AFTER,
        }
    }
}

/// The delivery keys every target table takes, besides its kind's own (see `Policy`).
pub const POLICY_KEYS: [&str; 11] = [
    "retries",
    "backoff_secs",
    "retry_after_cap_secs",
    "confirm_polls",
    "confirm_delay_secs",
    "min_interval_secs",
    "dedup",
    "settle_secs",
    "on_edit",
    "edit_days",
    "escalate_after",
];

/// Take the delivery keys out of a target table. `Err((key, message))` names the bad key.
pub(super) fn take_policy(table: &mut toml::Table) -> Result<Policy, (&'static str, String)> {
    let mut policy = Policy::default();
    if let Some(v) = table.remove("retries") {
        policy.retries = v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n <= 10)
            .ok_or((
                "retries",
                "`retries` must be a whole number from 0 to 10".into(),
            ))?;
    }
    if let Some(v) = table.remove("confirm_polls") {
        policy.confirm_polls = v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=100).contains(n))
            .ok_or((
                "confirm_polls",
                "`confirm_polls` must be a whole number from 1 to 100".into(),
            ))?;
    }
    if let Some(v) = table.remove("dedup") {
        policy.dedup = match (v.as_bool(), v.as_str()) {
            (Some(true), _) => Dedup::BestEffort,
            (Some(false), _) => Dedup::Off,
            (_, Some("strict")) => Dedup::Strict,
            _ => {
                return Err(("dedup", "`dedup` must be true, false or \"strict\"".into()));
            }
        };
    }
    if let Some(v) = table.remove("on_edit") {
        policy.on_edit = Some(match v.as_str() {
            Some("update") => true,
            Some("ignore") => false,
            _ => {
                return Err((
                    "on_edit",
                    "`on_edit` must be \"update\" or \"ignore\"".into(),
                ));
            }
        });
    }
    if let Some(v) = table.remove("edit_days") {
        policy.edit_days = v.as_integer().filter(|n| (0..=3650).contains(n)).ok_or((
            "edit_days",
            "`edit_days` must be a whole number of days from 0 to 3650".into(),
        ))?;
    }
    if let Some(v) = table.remove("escalate_after") {
        policy.escalate_after = v.as_str().and_then(duration).ok_or((
            "escalate_after",
            "`escalate_after` must be a duration such as \"20h\", \"90m\" or \"2d\"".into(),
        ))?;
    }
    if let Some(v) = table.remove("settle_secs") {
        policy.settle = Some(seconds(&v).ok_or((
            "settle_secs",
            "`settle_secs` must be a number of seconds, 0 or more".into(),
        ))?);
    }
    let secs = [
        ("backoff_secs", &mut policy.backoff),
        ("retry_after_cap_secs", &mut policy.retry_after_cap),
        ("confirm_delay_secs", &mut policy.confirm_delay),
        ("min_interval_secs", &mut policy.min_interval),
    ];
    for (key, slot) in secs {
        if let Some(v) = table.remove(key) {
            *slot = seconds(&v).ok_or((
                key,
                format!("`{key}` must be a number of seconds, 0 or more"),
            ))?;
        }
    }
    Ok(policy)
}

/// A duration written for people: `20h`, `90m`, `2d`, `1d 12h`, `30 minutes` (a day is 24 hours).
pub fn duration(text: &str) -> Option<Duration> {
    let span: jiff::Span = text.trim().parse().ok()?;
    let secs = span
        .total((
            jiff::Unit::Second,
            jiff::SpanRelativeTo::days_are_24_hours(),
        ))
        .ok()?;
    (secs.is_finite() && (0.0..=366.0 * 86_400.0).contains(&secs))
        .then(|| Duration::from_secs_f64(secs))
}

/// A duration given in (possibly fractional) seconds.
pub fn seconds(v: &toml::Value) -> Option<Duration> {
    let secs = v.as_float().or_else(|| v.as_integer().map(|n| n as f64))?;
    (secs.is_finite() && (0.0..=86_400.0).contains(&secs)).then(|| Duration::from_secs_f64(secs))
}
