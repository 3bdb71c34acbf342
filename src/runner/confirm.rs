//! Looking a key up. A lookup says found, absent or cannot tell; absent counts only once the
//! attempt can no longer land (its deadline), and until then the answer is "not yet". A lookup
//! that fails (a 503, a timeout) is transient: looked again within the run, then by the next.

use super::TargetRun;
use super::report::Failed;
use crate::error::{Error, Kind};
use crate::known::Found;
use crate::life::Key;
use crate::life::Receipt;
use crate::life::copies::{self, Sifted};
use crate::life::{self, Event, KeyLine, Looking, Step, Then};
use crate::signals;
use crate::targets::{Attempts, Lookup};
use jiff::Timestamp;
use std::time::Duration;

/// The longest a run waits for an attempt's deadline; beyond it the next run looks again.
const MAX_WAIT: Duration = Duration::from_secs(600);

/// What one look found, before the rules judge it.
#[derive(Debug)]
pub(super) enum Seen {
    Found(Vec<Receipt>),
    Absent,
    NotYet(Timestamp),
    CannotTell(String),
    /// A copy on no line, and another key of the same text (`copies::Sifted::Whose`).
    Whose(String),
    Transient(String),
    Foreign(Vec<Receipt>),
    /// Refused for good: auth, or a broken setup.
    Refused(Error),
}

impl TargetRun<'_> {
    /// One look, with no deadline. A copy another key's line holds, an earlier generation's,
    /// or one a human ruled not this post never answers for this attempt
    /// (`life::copies::sift`); a copy whose content no attempt sent but whose id the line
    /// records as this generation's is ours (the post was edited since it went out).
    pub(super) fn look(&mut self, key: Key, attempts: &Attempts) -> Seen {
        let line = self.line(key);
        let own = line.as_ref().map(KeyLine::own_ids).unwrap_or_default();
        let find = match self.here.rules.can_find {
            true => self.target.as_find(),
            false => None,
        };
        let Some(find) = find else {
            return Seen::CannotTell(format!("{} cannot look posts up", self.cfg.name));
        };
        let exhaustive = find.lists_every_match();
        let answer = find.find(attempts);
        let receipts = match &answer {
            Ok(Lookup::Found(list) | Lookup::Foreign(list)) => list.as_slice(),
            _ => &[],
        };
        let found = Found {
            key,
            line: line.as_ref(),
            receipts,
            marks: attempts.marks,
        };
        let others = (self.known).others(found, self.state, self.run.catalog, find);
        let elsewhere = others.elsewhere();
        let sift = |list: Vec<Receipt>, exhaustive: bool| {
            copies::sift(line.as_ref(), list, elsewhere, exhaustive)
        };
        match answer {
            Ok(Lookup::Found(receipts)) => match sift(receipts, exhaustive) {
                Sifted::Found(found) => Seen::Found(found),
                Sifted::Absent => Seen::Absent,
                Sifted::CannotTell(why) => Seen::CannotTell(why),
                Sifted::Whose(why) => Seen::Whose(why),
            },
            Ok(Lookup::Absent) => Seen::Absent,
            Ok(Lookup::CannotTell(why)) if !self.here.rules.can_find => {
                Seen::CannotTell(format!("{} cannot look posts up: {why}", self.cfg.name))
            }
            Ok(Lookup::CannotTell(why)) => Seen::CannotTell(why),
            Ok(Lookup::Foreign(receipts)) => {
                // Copies whose content no attempt sent: the same-text rule (twins) is not
                // theirs to answer; whatever sift cannot tell stays so.
                let foreign = copies::Elsewhere {
                    held: elsewhere.held,
                    ..copies::Elsewhere::default()
                };
                let left = match copies::sift(line.as_ref(), receipts, foreign, true) {
                    Sifted::Found(left) => left,
                    Sifted::Absent => Vec::new(),
                    Sifted::CannotTell(why) | Sifted::Whose(why) => {
                        return Seen::CannotTell(why);
                    }
                };
                let (recorded, left): (Vec<_>, Vec<_>) =
                    left.into_iter().partition(|r| own.contains(&r.id));
                match (recorded, left) {
                    (recorded, _) if !recorded.is_empty() => Seen::Found(recorded),
                    (_, left) if left.is_empty() => Seen::Absent,
                    (_, left) => Seen::Foreign(left),
                }
            }
            Err(err) => {
                // A server that cannot be reached is not looked at again for the other keys.
                if err.unreachable().is_some() {
                    self.stop_for(key, &err);
                }
                classify(err)
            }
        }
    }

    /// Look until the key is found or the lookup cannot tell, or it is absent past `deadline`.
    /// Looks `confirm_polls` times `confirm_delay` apart (`wait_first`: wait before the first);
    /// if the deadline is still ahead then, waits for it (up to `MAX_WAIT`) and looks once more.
    /// A target that cannot look is answered at once, with no wait.
    pub(super) fn confirm(
        &mut self,
        key: Key,
        attempts: &Attempts,
        deadline: Timestamp,
        wait_first: bool,
    ) -> Seen {
        let immediate = self.here.immediate;
        let polls = match immediate {
            true => 1,
            false => self.cfg.policy.confirm_polls,
        };
        let mut looks = 0;
        loop {
            if (looks > 0 || wait_first)
                && !immediate
                && !signals::sleep(self.cfg.policy.confirm_delay)
            {
                return Seen::NotYet(deadline);
            }
            looks += 1;
            match self.look(key, attempts) {
                Seen::Absent if !immediate && self.run.clock.now().timestamp() < deadline => {
                    if looks < polls {
                        continue;
                    }
                    let left = Duration::try_from(
                        deadline.duration_since(self.run.clock.now().timestamp()),
                    )
                    .unwrap_or(Duration::ZERO);
                    if left > MAX_WAIT || !signals::sleep(left) {
                        return Seen::NotYet(deadline);
                    }
                    return self.look(key, attempts);
                }
                seen => return seen,
            }
        }
    }

    /// Look (with `confirm`), and look again after a failed lookup while the rules allow;
    /// then hand the answer to the key's life; `keeps`: what a found copy's done line keeps.
    pub(super) fn judge(&mut self, key: Key, ask: Ask, keeps: life::Keeps) -> Result<Step, Error> {
        let line = self.line(key);
        // Before any attempt only what a send now would carry is looked for; after one, every
        // attempt on the line, from its first (`KeyLine::sought`).
        let sought = match ask.looking {
            Looking::Dedup => None,
            Looking::Confirm { .. } => line.as_ref().map(|l| l.sought(ask.marks)),
        };
        let attempts = Attempts {
            key: line.as_ref().map_or(key, KeyLine::place_key),
            marks: sought.as_ref().map_or(ask.marks, |s| &s.marks),
            since: sought.as_ref().and_then(|s| s.since),
            last: sought.as_ref().and_then(|s| s.last),
            sent: ask.sent,
            native: ask.native,
            generation: ask.generation,
            deadline: ask.looking.deadline(),
        };
        let (attempts, mut looking) = (&attempts, ask.looking);
        let (sends, sendable) = (ask.sends, ask.sendable);
        let first = looking == Looking::Dedup;
        let mut looks = 0;
        loop {
            let seen = match looking {
                Looking::Dedup => self.look(key, attempts),
                Looking::Confirm {
                    deadline,
                    wait_first,
                } => self.confirm(key, attempts, deadline, wait_first),
            };
            if matches!(seen, Seen::Transient(_)) {
                looks += 1;
            }
            let failure = seen.failure(|err| self.failed(err, None));
            let parts;
            let verdict = match &seen {
                Seen::Found(receipts) => {
                    let mut found = keeps.clone();
                    found.copy = self
                        .target
                        .as_names()
                        .and_then(|n| n.copy_of(attempts.key, &receipts[0].id));
                    parts = found;
                    life::Verdict::Found(parts.landed(receipts, life::How::Confirmed, first))
                }
                seen => seen.verdict(failure.as_ref()),
            };
            let step = self.apply(
                key,
                &Event::Looked {
                    verdict,
                    first,
                    looks,
                    sends,
                    sendable,
                },
            )?;
            self.trace_look(key, &seen, &step, first);
            if let Seen::Refused(err) = &seen {
                self.stop_for(key, err);
            }
            match step.then {
                Then::Look(wait) => {
                    if !signals::sleep(wait) {
                        return Ok(step);
                    }
                    if let Looking::Confirm { wait_first, .. } = &mut looking {
                        *wait_first = false;
                    }
                }
                _ => return Ok(step),
            }
        }
    }

    /// The trace line of one lookup's answer (`tell::look`).
    fn trace_look(&mut self, key: Key, seen: &Seen, step: &Step, first: bool) {
        use crate::tell::look::{self, Answer};
        let answer = match seen {
            Seen::Found(_) => return,
            Seen::Absent => Answer::Absent {
                sending: matches!(step.then, Then::Send(_)),
            },
            Seen::NotYet(_) => Answer::NotYet(step.say.as_deref()),
            Seen::CannotTell(why) | Seen::Whose(why) => Answer::CannotTell(why),
            Seen::Transient(why) => Answer::Transient(why),
            Seen::Foreign(receipts) => {
                Answer::Foreign(receipts.iter().map(|r| r.id.as_str()).collect())
            }
            Seen::Refused(err) => Answer::Refused(err.reason()),
        };
        if let Some(line) = look::look(answer, first) {
            self.voice
                .trace(key, line.action, line.result, &line.detail);
        }
    }
}

/// What a lookup is asked: how to look, for what, and what the key's life needs to judge the
/// answer.
pub(super) struct Ask<'a> {
    pub looking: Looking,
    /// The marks a send now would carry, looked for beside those of the line's attempts.
    pub marks: &'a [String],
    /// What was (or would be) sent, for a lookup handed it (`Find::keeps_payload`).
    pub sent: &'a serde_json::Value,
    /// What the platform chose for the copy, and which copy it is.
    pub native: &'a life::Native,
    pub generation: u32,
    /// Sends made for the key this run.
    pub sends: u32,
    /// A post is there to send if the copy is absent.
    pub sendable: bool,
}

impl Seen {
    /// The failure of a refused look, as the key's life reads it (`made` makes it).
    pub(super) fn failure(&self, made: impl FnOnce(&Error) -> Failed) -> Option<Failed> {
        match self {
            Seen::Refused(err) => Some(made(err)),
            _ => None,
        }
    }

    /// What the key's life is told of a look that found no copy of its own; `failure`: the
    /// refused look's (`Seen::failure`).
    pub(super) fn verdict<'s>(&'s self, failure: Option<&'s Failed>) -> life::Verdict<'s> {
        match self {
            Seen::Found(_) => unreachable!("a copy found is judged by the one who looked"),
            Seen::Absent => life::Verdict::Absent,
            Seen::NotYet(until) => life::Verdict::NotYet(*until),
            Seen::CannotTell(why) => life::Verdict::CannotTell(why),
            Seen::Whose(why) => life::Verdict::Whose(why),
            Seen::Transient(why) => life::Verdict::Transient(why),
            Seen::Foreign(receipts) => life::Verdict::Foreign(receipts),
            Seen::Refused(_) => {
                life::Verdict::Refused(failure.expect("a refusal's failure").borrow())
            }
        }
    }
}

/// A failed lookup, as its class makes it (`life::look_failed`).
fn classify(err: Error) -> Seen {
    match life::look_failed(err.kind == Kind::Config, err.class()) {
        life::LookFailed::Refused => Seen::Refused(err),
        life::LookFailed::Transient => Seen::Transient(err.reason()),
        life::LookFailed::CannotTell => Seen::CannotTell(err.reason()),
    }
}
