//! When an attempt can no longer land on the target: a lookup that finds it absent before then
//! proves nothing ("not yet"); after it, the attempt is provably not there.

use crate::{KeyLine, Phase};
use jiff::Timestamp;
use std::time::Duration;

/// How long after it started an attempt may still show up on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Landing {
    /// How long one request may run before dayrun gives up on it (the target's timeout).
    pub timeout: Duration,
    /// How long after dayrun gave up the target may still make it visible (`settle_secs`, or
    /// the kind's).
    pub settle: Duration,
}

impl Landing {
    /// When the attempt recorded on `line` can no longer land: from the line's time (else
    /// `now`), the settle time and a second (stamps have whole seconds); a pending line's
    /// attempt may also still be running, for the target's timeout.
    pub fn deadline(&self, line: &KeyLine, now: Timestamp) -> Timestamp {
        let at = line.time().unwrap_or(now);
        let mut wait = self.settle + Duration::from_secs(1);
        if matches!(line.phase, Phase::Pending(_)) {
            wait += self.timeout;
        }
        later(at, wait)
    }

    /// When an attempt whose answer was lost at `now` can no longer show up: it runs no more,
    /// so the settle time after.
    pub fn after_answer(&self, now: Timestamp) -> Timestamp {
        later(now, self.settle)
    }

    /// How the attempt recorded on `line` is looked for at `now`: absent only after its
    /// deadline, and the first look waits while the attempt could still land.
    pub fn confirm(&self, line: &KeyLine, now: Timestamp) -> Looking {
        let deadline = self.deadline(line, now);
        Looking::Confirm {
            deadline,
            wait_first: now < deadline,
        }
    }

    /// How an attempt whose answer was lost at `now` is looked for: after a wait, and absent
    /// only once the settle time is over.
    pub fn after_lost(&self, now: Timestamp) -> Looking {
        Looking::Confirm {
            deadline: self.after_answer(now),
            wait_first: true,
        }
    }
}

/// When a key is looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looking {
    /// Before any attempt (pre-submit dedup): one look, absent at once.
    Dedup,
    /// After an attempt: absent only once it can no longer land (`deadline`); `wait_first`:
    /// wait before the first look.
    Confirm {
        deadline: Timestamp,
        wait_first: bool,
    },
}

impl Looking {
    /// When the attempt looked for can no longer land (none for a look before any attempt).
    pub fn deadline(self) -> Option<Timestamp> {
        match self {
            Looking::Dedup => None,
            Looking::Confirm { deadline, .. } => Some(deadline),
        }
    }
}

/// `wait` after `at`, or the end of time.
fn later(at: Timestamp, wait: Duration) -> Timestamp {
    at.checked_add(wait).unwrap_or(Timestamp::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Record;

    const LANDING: Landing = Landing {
        timeout: Duration::from_secs(30),
        settle: Duration::from_secs(10),
    };

    fn line(text: &str) -> KeyLine {
        KeyLine::of(&Record::parse(text).unwrap().unwrap())
    }

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn a_pending_attempt_may_land_until_its_timeout_and_the_settle_time_have_passed() {
        let pending = line("2026-11-20 pending 2026-11-20T07:00:00Z");
        let now = at("2026-11-20T07:00:05Z");
        // 30 s of timeout, 10 s of settle, 1 s for the stamp's whole seconds.
        assert_eq!(LANDING.deadline(&pending, now), at("2026-11-20T07:00:41Z"));
    }

    #[test]
    fn a_failed_attempt_may_still_show_up_for_the_settle_time_only() {
        let failed = line("2026-11-20 failed 2026-11-20T07:00:00Z class=unknown");
        let now = at("2026-11-20T08:00:00Z");
        assert_eq!(LANDING.deadline(&failed, now), at("2026-11-20T07:00:11Z"));
    }

    #[test]
    fn a_lost_answer_may_still_show_up_for_the_settle_time_after_it() {
        let now = at("2026-11-20T07:00:00Z");
        assert_eq!(LANDING.after_answer(now), at("2026-11-20T07:00:10Z"));
        let forever = Landing {
            settle: Duration::MAX,
            ..LANDING
        };
        assert_eq!(forever.after_answer(now), Timestamp::MAX);
    }

    #[test]
    fn a_look_for_an_attempt_that_could_still_land_waits_first() {
        let pending = line("2026-11-20 pending 2026-11-20T07:00:00Z");
        let soon = at("2026-11-20T07:00:05Z");
        let deadline = at("2026-11-20T07:00:41Z");
        let looking = Looking::Confirm {
            deadline,
            wait_first: true,
        };
        assert_eq!(LANDING.confirm(&pending, soon), looking);
        assert_eq!(looking.deadline(), Some(deadline));
        assert_eq!(Looking::Dedup.deadline(), None);
        let later = at("2026-11-20T08:00:00Z");
        let looking = Looking::Confirm {
            deadline,
            wait_first: false,
        };
        assert_eq!(LANDING.confirm(&pending, later), looking);
    }

    #[test]
    fn a_look_after_a_lost_answer_always_waits_first() {
        let now = at("2026-11-20T07:00:00Z");
        let looking = Looking::Confirm {
            deadline: at("2026-11-20T07:00:10Z"),
            wait_first: true,
        };
        assert_eq!(LANDING.after_lost(now), looking);
    }
}
