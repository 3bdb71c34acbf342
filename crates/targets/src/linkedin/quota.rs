//! LinkedIn's rate limits, as its Rate Limiting page states them: daily limits per
//! application and per member that "reset at midnight UTC every day", and a request past one
//! "will receive a 429 response". The page names no header saying when to come back, so a 429
//! without `Retry-After` waits for the next midnight UTC: longer than the run waits, it leaves
//! the post (retry-safe) for a run after the reset instead of spending calls before it.

use crate::error::Error;
use jiff::Timestamp;
use std::time::Duration;

/// Seconds in a UTC day.
const DAY: i64 = 86_400;

/// How long from `now` until the daily limits reset (the next 00:00 UTC).
pub fn until_reset(now: Timestamp) -> Duration {
    let next = Timestamp::from_second((now.as_second().div_euclid(DAY) + 1) * DAY)
        .unwrap_or(Timestamp::MAX);
    Duration::try_from(next.duration_since(now)).unwrap_or(Duration::ZERO)
}

/// `err`, a 429 that named no wait, waiting for the reset after `now`.
pub fn until_midnight(err: Error, now: Timestamp) -> Error {
    let wait = until_reset(now);
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    err.retry_after(Some(wait)).hint(format!(
        "LinkedIn's daily API limits reset at midnight UTC (in {}): the post waits for a run after that",
        crate::clock::span(secs.try_into().unwrap_or(i64::MAX))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_reset_at_the_next_midnight_utc() {
        let at = |t: &str| until_reset(t.parse().unwrap());
        assert_eq!(at("2026-11-29T10:00:00Z"), Duration::from_secs(14 * 3600));
        assert_eq!(at("2026-11-29T23:59:58Z"), Duration::from_secs(2));
        assert_eq!(at("2026-11-29T23:59:59.5Z"), Duration::from_millis(500));
        assert_eq!(at("2026-11-30T00:00:00Z"), Duration::from_secs(24 * 3600));
        // Midnight UTC, not the local one: 18:00 in UTC-8 is 02:00 UTC.
        assert_eq!(
            at("2026-11-29T18:00:00-08:00"),
            Duration::from_secs(22 * 3600)
        );
    }
}
