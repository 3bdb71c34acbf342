//! The one place dayrun reads the time: "today" in the configured zone, and stamps for records.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime as Zoned};
use std::time::Instant;

pub use life::day::{days_between, looks_like_key, parse_key, stamp};

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

    /// Whether `--today` pinned the date: every key of that day is due, whatever its time.
    pub fn pinned(&self) -> bool {
        self.today.is_some()
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
