//! A post's time of day (`times = "front-matter"`, issue 33): its front matter's `date`, as
//! Jekyll (`2013-05-06 02:12:52 +0200`), Hugo and Zola (`2026-12-01T18:00:00+01:00`, TOML's
//! datetimes too) write it. A time with no offset is in the configured zone: one that zone
//! skips (a DST gap) is moved forward by the gap, and one it repeats (an overlap) is the first
//! of the two. A date alone is the day's start, as without `times`. Either must be the day of
//! the file's name in that zone (for a week's or a month's post, one of its days).

use crate::outside::escape;
use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// The instant `text` names, which must fall on `days` (the key's first and last) in `zone`;
/// `None` for a date alone. `Err`: what is wrong, for the front matter's `date` line.
pub fn due(text: &str, days: (Date, Date), zone: &TimeZone) -> Result<Option<Timestamp>, String> {
    let text = text.trim();
    if text.len() <= 10 {
        let date: Date = text.parse().map_err(|_| not_a_date(text))?;
        return on_day(date, days, text).map(|()| None);
    }
    let text = jekyll_offset(text);
    let at = match text.parse::<Timestamp>() {
        Ok(at) => at,
        Err(_) => {
            let civil: DateTime = text.parse().map_err(|_| not_a_date(&text))?;
            (zone.to_ambiguous_timestamp(civil).compatible()).map_err(|_| not_a_date(&text))?
        }
    };
    let date = at.to_zoned_datetime(zone.clone()).date();
    on_day(date, days, &text).map(|()| Some(at))
}

/// Jekyll's `2013-05-06 02:12:52 +0200`, with the space before the offset that RFC 3339 has
/// not: the same instant written as `2013-05-06 02:12:52+0200`.
fn jekyll_offset(text: &str) -> String {
    match text.rsplit_once(' ') {
        Some((time, offset))
            if time.contains(':') && offset.starts_with(['+', '-']) && offset.len() <= 6 =>
        {
            format!("{time}{offset}")
        }
        _ => text.to_string(),
    }
}

fn on_day(date: Date, (first, last): (Date, Date), text: &str) -> Result<(), String> {
    let named = match first == last {
        true => format!("on {first}"),
        false => format!("from {first} to {last}"),
    };
    match (first..=last).contains(&date) {
        true => Ok(()),
        false => Err(format!(
            "front matter `date`: `{}` is on {date} in the configured time zone, and the file's name {named}: rename the file or fix the date, so that both name one day",
            escape(text, 60)
        )),
    }
}

fn not_a_date(text: &str) -> String {
    format!(
        "front matter `date`: `{}` is not a date and time (write 2026-12-01, 2026-12-01 18:00, or 2026-12-01T18:00:00+01:00)",
        escape(text, 60)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berlin() -> TimeZone {
        TimeZone::get("Europe/Berlin").unwrap()
    }

    fn at(text: &str, day: &str) -> Result<Option<String>, String> {
        let day: Date = day.parse().unwrap();
        let due = due(text, (day, day), &berlin())?;
        Ok(due.map(|t| t.to_string()))
    }

    #[test]
    fn each_generators_way_of_writing_a_time_names_one_instant() {
        let six = Ok(Some("2026-12-01T17:00:00Z".to_string()));
        for text in [
            "2026-12-01 18:00",
            "2026-12-01 18:00:00",
            "2026-12-01T18:00:00",
            "2026-12-01T18:00:00+01:00",
            "2026-12-01 18:00:00 +0100",
            "2026-12-01 17:00:00 +00:00",
            "2026-12-01T17:00:00Z",
        ] {
            assert_eq!(at(text, "2026-12-01"), six, "{text}");
        }
        assert_eq!(at("2026-12-01", "2026-12-01"), Ok(None));
    }

    #[test]
    fn a_time_the_zone_skips_moves_forward_and_one_it_repeats_is_the_first() {
        // 2026-03-29 02:30 does not exist in Berlin (clocks go from 02:00 to 03:00).
        assert_eq!(
            at("2026-03-29 02:30", "2026-03-29"),
            Ok(Some("2026-03-29T01:30:00Z".to_string()))
        );
        // 2026-10-25 02:30 happens twice (CEST, then CET): the first.
        assert_eq!(
            at("2026-10-25 02:30", "2026-10-25"),
            Ok(Some("2026-10-25T00:30:00Z".to_string()))
        );
    }

    #[test]
    fn a_date_on_another_day_than_the_files_name_or_not_a_date_is_an_error() {
        let other = at("2026-12-02 00:30", "2026-12-01").unwrap_err();
        assert!(other.contains("is on 2026-12-02"), "{other}");
        assert!(other.contains("the file's name on 2026-12-01"), "{other}");
        // 23:30 UTC on the 1st is the 2nd in Berlin.
        assert!(at("2026-12-01T23:30:00Z", "2026-12-01").is_err());
        assert!(at("2026-12-02", "2026-12-01").is_err());
        assert!(
            at("soon", "2026-12-01")
                .unwrap_err()
                .contains("is not a date")
        );
        assert!(at("2026-12-01 25:00", "2026-12-01").is_err());
    }

    #[test]
    fn a_periods_post_may_name_any_of_its_days() {
        let week: life::Key = "2026-W49".parse().unwrap();
        let days = (week.day(), week.last_day());
        let sunday = due("2026-12-06 18:00", days, &berlin()).unwrap();
        assert_eq!(sunday.unwrap().to_string(), "2026-12-06T17:00:00Z");
        let after = due("2026-12-07 08:00", days, &berlin()).unwrap_err();
        assert!(
            after.contains("the file's name from 2026-11-30 to 2026-12-06"),
            "{after}"
        );
    }
}
