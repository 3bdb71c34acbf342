//! The one place dayrun reads the time: "today" in the configured zone, and stamps for records.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime as Zoned};
use std::time::Instant;

/// Today's date and the current instant, in one time zone; `--today` pins the date, and
/// `DAYRUN_NOW` the instant the run starts at (tests move time with it; it then runs on).
#[derive(Debug, Clone)]
pub struct Clock {
    tz: TimeZone,
    today: Option<Date>,
    /// A set start: that instant, when the process started.
    start: Option<(Timestamp, Instant)>,
}

/// A span of time as people write it, in its largest whole unit: `90s`, `45m`, `20h`, `3d`.
pub fn span(secs: i64) -> String {
    match secs.max(0) {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The variable that sets the instant a command starts at (RFC 3339), for tests of time.
pub const NOW_VAR: &str = "DAYRUN_NOW";

impl Clock {
    pub fn new(tz: TimeZone, today: Option<Date>) -> Clock {
        Clock {
            tz,
            today,
            start: None,
        }
    }

    /// The clock, started at `now` instead of the real time.
    pub fn starting_at(self, now: Timestamp) -> Clock {
        Clock {
            start: Some((now, Instant::now())),
            ..self
        }
    }

    /// The date that decides which keys are due.
    pub fn today(&self) -> Date {
        self.today.unwrap_or_else(|| self.now().date())
    }

    pub fn now(&self) -> Zoned {
        self.instant().to_zoned_datetime(self.tz.clone())
    }

    /// The current instant (real, or as `DAYRUN_NOW` set it, moving on from there).
    pub fn instant(&self) -> Timestamp {
        match self.start {
            None => Timestamp::now(),
            Some((at, since)) => at.checked_add(since.elapsed()).unwrap_or(Timestamp::MAX),
        }
    }

    /// RFC 3339 with the zone's offset and whole seconds, e.g. `2026-11-29T09:00:04+08:00`.
    pub fn stamp(&self) -> String {
        stamp(&self.now())
    }

    pub fn tz(&self) -> &TimeZone {
        &self.tz
    }
}

pub fn stamp(zoned: &Zoned) -> String {
    zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

/// Whole days from `from` to `to` (negative when `to` is earlier).
pub fn days_between(from: Date, to: Date) -> i64 {
    to.duration_since(from).as_secs() / 86_400
}

/// Parse a key: exactly `YYYY-MM-DD` and a real calendar date (jiff alone accepts `20261129`).
pub fn parse_key(s: &str) -> Option<Date> {
    if !looks_like_key(s) {
        return None;
    }
    let b = s.as_bytes();
    let num = |range: std::ops::Range<usize>| {
        b[range]
            .iter()
            .fold(0i16, |n, d| n * 10 + i16::from(d - b'0'))
    };
    Date::new(num(0..4), num(5..7) as i8, num(8..10) as i8).ok()
}

/// True when `s` has the key's shape (digits and dashes) whether or not the date exists.
pub fn looks_like_key(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_strict_real_dates() {
        let cases = [
            ("2026-11-29", true),
            ("2024-02-29", true),
            ("2026-02-29", false),
            ("2026-02-30", false),
            ("2026-13-01", false),
            ("20261129", false),
            ("2026-1-29", false),
            ("2026-11-29 ", false),
            ("+2026-11-29", false),
            ("2026/11/29", false),
            ("", false),
        ];
        for (input, ok) in cases {
            assert_eq!(parse_key(input).is_some(), ok, "{input:?}");
        }
        assert!(looks_like_key("2026-02-30"));
    }

    #[test]
    fn stamp_has_an_offset() {
        let tz = TimeZone::get("Asia/Shanghai").unwrap();
        let z = "2026-11-29T01:00:04Z"
            .parse::<Timestamp>()
            .unwrap()
            .to_zoned_datetime(tz);
        assert_eq!(stamp(&z), "2026-11-29T09:00:04+08:00");
    }
}
