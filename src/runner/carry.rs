//! What earlier attempts of a key may have left on the target: `sent=maybe`, when the first
//! such attempt started (`since`) and what each sent (`marks`). Kept on every line of the key
//! until it is done, so no later run sends it again without looking first. Every line of a key
//! also names which copy it is about: its generation and the record key chosen for it.

use crate::state::{Record, Status};
use jiff::Timestamp;

/// At most this many marks are kept per key (the newest).
const MAX_MARKS: usize = 8;
/// What dayrun 0.1 wrote on a `retry-safe` line after lookups it took for proof of absence.
const OLD_CONFIRMED_ABSENT: &str = "; confirmed absent after ";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Carry {
    /// Some attempt may have reached the target.
    pub maybe: bool,
    /// RFC 3339 start of the first attempt that may have reached it.
    pub since: Option<String>,
    /// Short hashes of what those attempts sent, oldest first.
    pub marks: Vec<String>,
    /// Which copy of the key: 0 for the first; a retracted copy's key is published again as
    /// the next, and `retry --force --new` makes the next on purpose.
    pub generation: u32,
    /// The record key chosen for this copy (`Target::record_key`), once a line has named it.
    pub rkey: Option<String>,
    /// The images uploaded for this copy (`media=`), reused by a resend.
    pub media: Option<String>,
}

impl Carry {
    /// Read from a key's current line. A `pending` line always counts: its attempt may have
    /// landed (a line written by an older dayrun has no `since`: its own time stands in). So
    /// does an older dayrun's `retry-safe` line that says "confirmed absent": that lookup could
    /// not prove absence (a list that lagged or was cut short).
    pub fn of(record: Option<&Record>) -> Carry {
        let Some(record) = record else {
            return Carry::default();
        };
        let generation = record
            .get("generation")
            .and_then(|g| g.parse::<u32>().ok())
            .unwrap_or(0);
        // A retracted copy is gone: whatever comes next for the key is the next copy, with a
        // record key of its own (the old one may still be remembered by the server).
        let copy = match record.status {
            Status::Retracted => Carry {
                generation: generation + 1,
                ..Carry::default()
            },
            _ => Carry {
                generation,
                rkey: record.get("rkey").map(|r| r.into_owned()),
                media: record.get("media").map(|m| m.into_owned()),
                ..Carry::default()
            },
        };
        let pending = record.status == Status::Pending;
        let old_absent = record.get("sent").is_none()
            && record
                .get("reason")
                .is_some_and(|r| r.contains(OLD_CONFIRMED_ABSENT));
        if !pending && !old_absent && record.get("sent").as_deref() != Some("maybe") {
            return copy;
        }
        Carry {
            maybe: true,
            since: Some(
                record
                    .get("since")
                    .map_or_else(|| record.at().to_string(), |s| s.into_owned()),
            ),
            marks: record
                .get("marks")
                .map(|m| {
                    m.split(',')
                        .filter(|m| !m.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            ..copy
        }
    }

    /// The next copy of a published key (`retry --force --new`): a new generation, whose
    /// record key is chosen afresh.
    pub fn next_copy(&self) -> Carry {
        Carry {
            generation: self.generation + 1,
            rkey: None,
            media: None,
            ..self.clone()
        }
    }

    /// The carry after one more attempt that may reach the target.
    pub fn with_attempt(&self, marks: &[String], started: &str) -> Carry {
        let mut next = self.clone();
        next.maybe = true;
        next.since.get_or_insert_with(|| started.to_string());
        next.marks.retain(|m| !marks.contains(m));
        next.marks.extend(marks.iter().cloned());
        let extra = next.marks.len().saturating_sub(MAX_MARKS);
        next.marks.drain(..extra);
        next
    }

    /// These marks and `more`, without repeats (what a lookup compares).
    pub fn marks_and(&self, more: &[String]) -> Vec<String> {
        let mut all = self.marks.clone();
        all.extend(more.iter().filter(|m| !self.marks.contains(m)).cloned());
        all
    }

    pub fn since(&self) -> Option<Timestamp> {
        self.since.as_deref().and_then(|s| s.parse().ok())
    }

    /// Write the carry onto a line: which copy, and what earlier attempts may have left (only
    /// when one may have landed).
    pub fn stamp(&self, mut record: Record) -> Record {
        if self.generation > 0 {
            record = record.with("generation", self.generation.to_string());
        }
        if let Some(rkey) = &self.rkey {
            record = record.with("rkey", rkey);
        }
        if let Some(media) = &self.media {
            record = record.with("media", media);
        }
        if !self.maybe {
            return record;
        }
        record
            .with("sent", "maybe")
            .with("since", self.since.clone().unwrap_or_default())
            .with("marks", self.marks.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Date;

    fn key() -> Date {
        Date::new(2026, 11, 29).unwrap()
    }

    #[test]
    fn a_pending_line_of_an_older_dayrun_counts_from_its_own_time() {
        let pending = Record::new(key(), Status::Pending, "2026-11-29T07:00:00Z".into());
        let carry = Carry::of(Some(&pending));
        assert!(carry.maybe);
        assert_eq!(carry.since.as_deref(), Some("2026-11-29T07:00:00Z"));
        assert!(carry.marks.is_empty());
    }

    #[test]
    fn a_failure_that_sent_nothing_carries_nothing() {
        let failed = Record::new(key(), Status::Failed, "2026-11-29T07:00:00Z".into())
            .with("class", "retry-safe");
        assert_eq!(Carry::of(Some(&failed)), Carry::default());
        assert_eq!(Carry::of(None), Carry::default());
    }

    #[test]
    fn an_older_confirmed_absent_line_counts_as_maybe_sent() {
        let old = Record::new(key(), Status::Failed, "2026-11-28T07:00:30Z".into())
            .with("class", "retry-safe")
            .with(
                "reason",
                "POST: HTTP 500: upstream trouble; confirmed absent after 3 attempt(s)",
            );
        let carry = Carry::of(Some(&old));
        assert!(carry.maybe);
        assert_eq!(carry.since.as_deref(), Some("2026-11-28T07:00:30Z"));
    }

    #[test]
    fn marks_accumulate_keep_the_first_start_and_survive_the_line() {
        let first = Carry::default().with_attempt(&["aa".into()], "2026-11-29T07:00:00Z");
        let second = first.with_attempt(&["bb".into(), "aa".into()], "2026-11-29T08:00:00Z");
        assert_eq!(second.since.as_deref(), Some("2026-11-29T07:00:00Z"));
        assert_eq!(second.marks, ["bb", "aa"]);
        let line = second.stamp(Record::new(
            key(),
            Status::Failed,
            "2026-11-29T08:01:00Z".into(),
        ));
        assert_eq!(
            line.to_line(),
            "2026-11-29 failed 2026-11-29T08:01:00Z sent=maybe since=2026-11-29T07:00:00Z marks=bb,aa"
        );
        assert_eq!(Carry::of(Some(&line)), second);
    }

    #[test]
    fn only_the_newest_marks_are_kept() {
        let mut carry = Carry::default();
        for i in 0..12 {
            carry = carry.with_attempt(&[format!("m{i}")], "2026-11-29T07:00:00Z");
        }
        assert_eq!(carry.marks.len(), MAX_MARKS);
        assert_eq!(carry.marks.first().map(String::as_str), Some("m4"));
    }
}
