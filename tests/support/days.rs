//! Dates near the real today, for the tests whose keys must be real dates (the real servers'
//! date windows, the bench's backfills).

/// Today in UTC, the zone of both dayrun (`timezone = "UTC"`) and the harness site. Keys must be
/// real dates near now: the lookup searches a date window around the key, and a post published
/// for today carries the time it was sent.
pub(crate) fn today() -> String {
    // A timestamp prints in UTC: `2026-11-29T07:00:00.123Z`.
    jiff::Timestamp::now().to_string()[..10].to_string()
}

/// A day well before `catchup_days`, so it publishes only with `--backfill` or `--key`.
pub(crate) fn days_ago(n: i64) -> String {
    let today: jiff::civil::Date = today().parse().unwrap();
    (today - jiff::Span::new().days(n)).to_string()
}
