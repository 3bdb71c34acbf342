//! A run's survey: one listing read before a target's pass over several keys, which answers
//! their lookups where it provably reaches, instead of a listing per key. When a survey may
//! answer a lookup is decided here, for every target; how far its listing reaches is each
//! target's to check.

use super::Attempts;
use jiff::Timestamp;
use jiff::civil::Date;
use life::Key;
use std::time::Instant;

/// How long a survey may answer for a key dayrun never attempted (pre-submit dedup): a copy
/// another machine made since the listing was read is not in it, so an older read would widen
/// that race from one request to the whole pass. Past it, such keys are looked up live.
pub const FRESH: std::time::Duration = std::time::Duration::from_secs(60);

/// What a target read once for the keys of a run, and when it began reading.
#[derive(Debug)]
pub struct Survey<T> {
    read: Timestamp,
    /// When it was read, by the machine's monotonic clock (how old it is).
    started: Instant,
    held: T,
}

impl<T> Survey<T> {
    /// `read`: the run's clock when the listing's first request was about to go out.
    pub fn new(read: Timestamp, held: T) -> Survey<T> {
        Survey {
            read,
            started: Instant::now(),
            held,
        }
    }

    /// What the survey holds, when it may answer a lookup for `attempts`: when every attempt
    /// of the key could no longer land by the time the listing began, or, for a key with no
    /// attempt yet (pre-submit dedup), while the read is younger than `FRESH`. A listing read
    /// before an attempt's deadline says nothing of where that attempt lands, however far it
    /// reaches, so such a key is looked up live (a create of this run whose answer was lost
    /// is always later than the survey). Whether the listing reaches the key's place is the
    /// target's to check on what this returns.
    pub fn for_lookup(&self, attempts: &Attempts) -> Option<&T> {
        let may = match attempts.deadline {
            Some(deadline) => deadline <= self.read,
            None => self.started.elapsed() <= FRESH,
        };
        may.then_some(&self.held)
    }
}

/// The run's keys (ascending) as stretches `(first, last)` to list together: a key more than
/// `gap` days after the one before it starts a new stretch, so that one old key does not make
/// a listing of everything since.
pub fn stretches(keys: &[Key], gap: i64) -> Vec<(Date, Date)> {
    let mut out: Vec<(Date, Date)> = Vec::new();
    for key in keys.iter().map(|k| k.day()) {
        match out.last_mut() {
            Some((_, last)) if crate::clock::days_between(*last, key) <= gap => {
                *last = key.max(*last);
            }
            _ => out.push((key, key)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Date {
        text.parse().unwrap()
    }

    fn key(text: &str) -> Key {
        text.parse().unwrap()
    }

    #[test]
    fn a_survey_answers_only_attempts_that_could_no_longer_land_when_it_was_read() {
        let read: Timestamp = "2026-11-29T07:00:00Z".parse().unwrap();
        let survey = Survey::new(read, "listing");
        let value = serde_json::Value::Null;
        let mut attempts = Attempts::none_yet(key("2026-11-20"), &[], &value);
        assert_eq!(survey.for_lookup(&attempts), Some(&"listing"), "no attempt");
        attempts.deadline = Some(read);
        assert_eq!(survey.for_lookup(&attempts), Some(&"listing"), "past it");
        attempts.deadline = Some("2026-11-29T07:00:01Z".parse().unwrap());
        assert_eq!(survey.for_lookup(&attempts), None, "may still land");
    }

    #[test]
    fn a_survey_older_than_fresh_no_longer_answers_for_keys_never_attempted() {
        let read: Timestamp = "2026-11-29T07:00:00Z".parse().unwrap();
        let mut survey = Survey::new(read, "listing");
        survey.started = Instant::now() - FRESH - std::time::Duration::from_secs(1);
        let value = serde_json::Value::Null;
        let mut attempts = Attempts::none_yet(key("2026-11-20"), &[], &value);
        assert_eq!(survey.for_lookup(&attempts), None, "dedup looks live");
        attempts.deadline = Some(read);
        assert_eq!(
            survey.for_lookup(&attempts),
            Some(&"listing"),
            "an attempt past its deadline when it was read: still proven"
        );
    }

    #[test]
    fn keys_far_apart_are_listed_apart() {
        let keys = ["2026-01-01", "2026-01-03", "2026-01-10", "2026-03-01"].map(key);
        assert_eq!(
            stretches(&keys, 7),
            [
                (day("2026-01-01"), day("2026-01-10")),
                (day("2026-03-01"), day("2026-03-01"))
            ]
        );
        assert_eq!(stretches(&[], 7), []);
    }
}
