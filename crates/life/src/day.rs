//! Days and timestamps as values: the key's date, whole days between dates, the stamp a line
//! carries. No clock: the moment comes in from the caller.

use jiff::ZonedDateTime as Zoned;
use jiff::civil::Date;

/// RFC 3339 with the zone's offset and whole seconds, e.g. `2026-11-29T09:00:04+08:00`.
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
    use jiff::Timestamp;
    use jiff::tz::TimeZone;

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
