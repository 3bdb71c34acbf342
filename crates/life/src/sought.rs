//! What a lookup of a key's attempts carries, read from its line: the marks of what they sent,
//! when the first began and when the latest began. One rule for every lookup (before a resend,
//! after a lost answer, a key whose post is gone, a thread's part), so that each gets the
//! attempts' own marks and the same window.

use crate::{KeyLine, Op, Phase};
use jiff::Timestamp;

/// The attempts a lookup looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sought {
    /// The marks of what each attempt sent, then those of what would be sent now.
    pub marks: Vec<String>,
    /// When the first attempt that may have landed began.
    pub since: Option<Timestamp>,
    /// When the latest began: a pending publish's own time; otherwise the line's time is when
    /// a failure or a merge was written, after the attempt, so the first attempt's stands in.
    pub last: Option<Timestamp>,
}

impl KeyLine {
    /// The attempts on this line, and `now`: the marks of what a resend would send.
    pub fn sought(&self, now: &[String]) -> Sought {
        let pending = matches!(self.phase, Phase::Pending(Op::Publish));
        Sought {
            marks: self.marks_and(now),
            since: self.since(),
            last: pending.then(|| self.time()).flatten().or(self.since()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{KeyLine, Record};

    fn line(text: &str) -> KeyLine {
        KeyLine::of(&Record::parse(text).unwrap().unwrap())
    }

    #[test]
    fn a_pending_publish_is_looked_for_from_its_own_time_any_other_line_from_its_first_attempt() {
        let pending = line(
            "2026-11-20 pending 2026-11-20T08:05:00Z sent=maybe since=2026-11-20T08:00:00Z marks=a,b",
        );
        let sought = pending.sought(&["b".into(), "c".into()]);
        assert_eq!(sought.marks, ["a", "b", "c"]);
        assert_eq!(sought.since, Some("2026-11-20T08:00:00Z".parse().unwrap()));
        assert_eq!(sought.last, Some("2026-11-20T08:05:00Z".parse().unwrap()));
        // A merged done line (or a failure) was written after its attempt: not its start.
        let merged = line(
            "2026-11-20 done 2026-11-21T09:00:00Z id=1 sent=maybe since=2026-11-20T08:00:00Z marks=a",
        );
        assert_eq!(merged.sought(&[]).last, merged.sought(&[]).since);
        assert_eq!(merged.sought(&[]).marks, ["a"]);
    }
}
