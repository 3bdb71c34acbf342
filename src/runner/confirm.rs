//! Looking a key up after an attempt that may have landed. A lookup says found, absent or
//! cannot tell; absent counts only once the attempt can no longer land (its deadline), and
//! until then the answer is "not yet".

use super::TargetRun;
use crate::error::{Class, Error};
use crate::signals;
use crate::targets::{Attempts, Lookup, Receipt};
use jiff::Timestamp;
use std::time::Duration;

/// The longest a run waits for an attempt's deadline; beyond it the next run looks again.
const MAX_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug)]
pub(super) enum Verdict {
    /// There, once or more (the first receipt is the one to record).
    Found(Vec<Receipt>),
    /// Provably not there, and the attempt can no longer land.
    Absent,
    /// Not there yet, but the attempt could still land until this time.
    NotYet(Timestamp),
    /// The lookup failed or cannot say. The error keeps its class: auth stops the target.
    CannotTell(Error),
}

impl TargetRun<'_> {
    /// One look, with no deadline (pre-submit dedup, or the last look of `confirm`).
    pub(super) fn look(&mut self, attempts: &Attempts) -> Verdict {
        if !self.target.can_find() {
            return Verdict::CannotTell(Error::failure(
                Class::Unknown,
                format!("{} cannot look posts up", self.cfg.name),
            ));
        }
        match self.target.find(attempts) {
            Ok(Lookup::Found(receipts)) if !receipts.is_empty() => Verdict::Found(receipts),
            Ok(Lookup::Found(_) | Lookup::Absent) => Verdict::Absent,
            Ok(Lookup::CannotTell(why)) => Verdict::CannotTell(Error::failure(Class::Unknown, why)),
            Err(err) => Verdict::CannotTell(err),
        }
    }

    /// Look until the key is found or the lookup cannot tell, or it is absent past `deadline`.
    /// Looks `confirm_polls` times `confirm_delay` apart (`wait_first`: wait before the first);
    /// if the deadline is still ahead then, waits for it (up to `MAX_WAIT`) and looks once more.
    pub(super) fn confirm(
        &mut self,
        attempts: &Attempts,
        deadline: Timestamp,
        wait_first: bool,
    ) -> Verdict {
        let immediate = self.target.immediate();
        let polls = if immediate {
            1
        } else {
            self.policy.confirm_polls
        };
        let mut looks = 0;
        loop {
            if (looks > 0 || wait_first) && !immediate && !signals::sleep(self.policy.confirm_delay)
            {
                return Verdict::NotYet(deadline);
            }
            looks += 1;
            match self.look(attempts) {
                Verdict::Absent if !immediate && Timestamp::now() < deadline => {
                    if looks < polls {
                        continue;
                    }
                    let left = Duration::try_from(deadline.duration_since(Timestamp::now()))
                        .unwrap_or(Duration::ZERO);
                    if left > MAX_WAIT || !signals::sleep(left) {
                        return Verdict::NotYet(deadline);
                    }
                    return self.look(attempts);
                }
                verdict => return verdict,
            }
        }
    }
}
