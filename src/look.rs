//! The lookup executor (`Looker`): a target's answer to one look, made into what the key's life
//! reads (`Seen`). A lookup says found, absent or cannot tell; absent counts only once the
//! attempt can no longer land (its deadline), and until then the answer is "not yet". A lookup
//! that fails (a 503, a timeout) is transient: looked again within the run, then by the next.
//! What the runner must do after a look (stop for a server that cannot be reached) comes back
//! with it (`Looked`).

use crate::clock::Clock;
use crate::content::Catalog;
use crate::error::Error;
use crate::known::{Found, Known};
use crate::life::copies::{self, Elsewhere, Sifted};
use crate::life::{Key, KeyLine, Looking, Receipt};
use crate::signals;
use crate::state::StateFile;
use crate::targets::{Attempts, Find, Lookup, Outgoing};
use jiff::Timestamp;
use serde_json::Value;
use std::time::Duration;

mod part;
mod seen;
mod survey;
pub(crate) use part::{PartLooker, PartSeen};
pub(crate) use seen::Seen;
pub(crate) use survey::survey;

/// The longest a run waits for an attempt's deadline; beyond it the next run looks again.
const MAX_WAIT: Duration = Duration::from_secs(600);

/// One target's lookups of one key, and what they read of the other keys.
pub(crate) struct Looker<'a> {
    /// The key looked up: its line is the one read (the lookups ask at its place,
    /// `Attempts::key`).
    pub key: Key,
    /// The target's lookup (`None`: it cannot look posts up), and the target's name.
    pub find: Option<&'a mut dyn Find>,
    pub target: &'a str,
    /// The target's state, where the key's line and the owners of ids are read.
    pub state: &'a StateFile,
    /// The content's posts, for the marks of the other keys' (`known::Known::others`).
    pub catalog: &'a Catalog,
    /// What the pass knows of other lines.
    pub known: &'a mut Known,
    /// A confirmation looks `polls` times `delay` apart (`Policy::confirm_polls`,
    /// `confirm_delay`), once and with no wait when the lookup sees a finished publish at once
    /// (`immediate`); `clock` says when the deadline is past.
    pub polls: u32,
    pub delay: Duration,
    pub immediate: bool,
    pub clock: &'a Clock,
}

/// What a look found, and the failure of one that showed the target's server cannot be
/// reached: the runner looks there no more for the other keys.
pub(crate) struct Looked {
    pub seen: Seen,
    pub unreachable: Option<Error>,
}

impl From<Seen> for Looked {
    fn from(seen: Seen) -> Looked {
        Looked {
            seen,
            unreachable: None,
        }
    }
}

impl Looker<'_> {
    /// Look as `looking` says: once (`Dedup`), or until the attempt's deadline (`confirm`).
    pub(crate) fn see(&mut self, attempts: &Attempts, looking: Looking) -> Looked {
        match looking {
            Looking::Dedup => self.look(attempts),
            Looking::Confirm {
                deadline,
                wait_first,
            } => self.confirm(attempts, deadline, wait_first),
        }
    }

    /// Look for the copy of a post the key's attempts may have made, as `looking` says: before
    /// any attempt (`Dedup`), what a send now would carry (`out`); after one, every attempt on
    /// the key's line, from its first (`KeyLine::sought`), with what was sent when the lookup
    /// needs it (`kept`, `Find::keeps_payload`).
    pub(crate) fn post(
        &mut self,
        out: &Outgoing,
        kept: Option<&Value>,
        looking: Looking,
    ) -> Looked {
        let line = self.state.get(self.key).map(KeyLine::of);
        let first = looking == Looking::Dedup;
        let sought = (line.as_ref().filter(|_| !first)).map(|l| l.sought(&out.marks));
        let attempts = Attempts {
            key: line.as_ref().map_or(self.key, KeyLine::place_key),
            marks: sought.as_ref().map_or(&out.marks, |s| &s.marks),
            since: sought.as_ref().and_then(|s| s.since),
            last: sought.as_ref().and_then(|s| s.last),
            sent: kept.unwrap_or(&out.body),
            native: &out.native,
            generation: out.generation,
            deadline: looking.deadline(),
        };
        self.see(&attempts, looking)
    }

    /// One look, with no deadline. A copy another key's line holds, an earlier generation's,
    /// or one a human ruled not this post never answers for this attempt
    /// (`life::copies::sift`); a copy whose content no attempt sent but whose id the line
    /// records as this generation's is ours (the post was edited since it went out).
    fn look(&mut self, attempts: &Attempts) -> Looked {
        let line = self.state.get(self.key).map(KeyLine::of);
        let Some(find) = self.find.as_deref_mut() else {
            return Seen::CannotTell(format!("{} cannot look posts up", self.target)).into();
        };
        let exhaustive = find.lists_every_match();
        let answer = find.find(attempts);
        let receipts = match &answer {
            Ok(Lookup::Found(list) | Lookup::Foreign(list)) => list.as_slice(),
            _ => &[],
        };
        let found = Found {
            key: self.key,
            line: line.as_ref(),
            receipts,
            marks: attempts.marks,
        };
        let others = (self.known).others(found, self.state, self.catalog, find);
        let elsewhere = others.elsewhere();
        match answer {
            Ok(Lookup::Found(receipts)) => {
                match copies::sift(line.as_ref(), receipts, elsewhere, exhaustive) {
                    Sifted::Found(found) => Seen::Found(found),
                    Sifted::Absent => Seen::Absent,
                    Sifted::CannotTell(why) => Seen::CannotTell(why),
                    Sifted::Whose(why) => Seen::Whose(why),
                }
                .into()
            }
            Ok(Lookup::Absent) => Seen::Absent.into(),
            Ok(Lookup::CannotTell(why)) => Seen::CannotTell(why).into(),
            Ok(Lookup::Foreign(receipts)) => foreign(line.as_ref(), receipts, elsewhere).into(),
            // A server that cannot be reached is not looked at again for the other keys.
            Err(err) => Looked {
                unreachable: err.unreachable().is_some().then(|| err.clone()),
                seen: seen::classify(err),
            },
        }
    }

    /// Look until the key is found or the lookup cannot tell, or it is absent past `deadline`.
    /// Looks `polls` times `delay` apart (`wait_first`: wait before the first); if the
    /// deadline is still ahead then, waits for it (up to `MAX_WAIT`) and looks once more. A
    /// target that cannot look is answered at once, with no wait.
    fn confirm(&mut self, attempts: &Attempts, deadline: Timestamp, wait_first: bool) -> Looked {
        let immediate = self.immediate;
        let polls = match immediate {
            true => 1,
            false => self.polls,
        };
        let mut looks = 0;
        loop {
            if (looks > 0 || wait_first) && !immediate && !signals::sleep(self.delay) {
                return Seen::NotYet(deadline).into();
            }
            looks += 1;
            let looked = self.look(attempts);
            let absent = matches!(looked.seen, Seen::Absent);
            if !absent || immediate || self.clock.now().timestamp() >= deadline {
                return looked;
            }
            if looks < polls {
                continue;
            }
            let left = Duration::try_from(deadline.duration_since(self.clock.now().timestamp()))
                .unwrap_or(Duration::ZERO);
            if left > MAX_WAIT || !signals::sleep(left) {
                return Seen::NotYet(deadline).into();
            }
            return self.look(attempts);
        }
    }
}

/// What a lookup's copies whose content no attempt sent say (`Lookup::Foreign`): the same-text
/// rule (twins) is not theirs to answer, and whatever sift cannot tell stays so; one whose id
/// `line` records as this generation's is ours.
fn foreign(line: Option<&KeyLine>, receipts: Vec<Receipt>, elsewhere: Elsewhere) -> Seen {
    let foreign = Elsewhere {
        held: elsewhere.held,
        ..Elsewhere::default()
    };
    let left = match copies::sift(line, receipts, foreign, true) {
        Sifted::Found(left) => left,
        Sifted::Absent => Vec::new(),
        Sifted::CannotTell(why) | Sifted::Whose(why) => return Seen::CannotTell(why),
    };
    let own = line.map(KeyLine::own_ids).unwrap_or_default();
    let (recorded, left): (Vec<_>, Vec<_>) = left.into_iter().partition(|r| own.contains(&r.id));
    match (recorded, left) {
        (recorded, _) if !recorded.is_empty() => Seen::Found(recorded),
        (_, left) if left.is_empty() => Seen::Absent,
        (_, left) => Seen::Foreign(left),
    }
}
