//! A key's lookups, judged by its life: each look (`look::Looker`, with this pass's lookup, the
//! key's line and what the pass knows of other lines) is handed to `life::next`, and looked
//! again while it says so; each answer is traced.

use super::TargetRun;
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Event, KeyLine, Looking, Step, Then};
use crate::look::{Looker, Seen};
use crate::signals;
use crate::targets::Attempts;

impl TargetRun<'_> {
    /// This pass's lookups of `key` (`look::Looker`).
    fn looker(&mut self, key: Key) -> Looker<'_> {
        Looker {
            key,
            find: match self.book.rules.can_find {
                true => self.target.as_find(),
                false => None,
            },
            target: &self.cfg.name,
            state: self.book.state,
            catalog: self.run.catalog,
            known: &mut self.book.known,
            polls: self.cfg.policy.confirm_polls,
            delay: self.cfg.policy.confirm_delay,
            immediate: self.here.immediate,
            clock: self.run.clock,
        }
    }

    /// Look for `key`'s `attempts` as `looking` says (`Looker::see`); a server that cannot be
    /// reached is not looked at again for the other keys (`stop_for`).
    pub(super) fn see(&mut self, key: Key, attempts: &Attempts, looking: Looking) -> Seen {
        let looked = self.looker(key).see(attempts, looking);
        if let Some(err) = &looked.unreachable {
            self.stop_for(key, err);
        }
        looked.seen
    }

    /// Look (`see`), and look again after a failed lookup while the rules allow;
    /// then hand the answer to the key's life; `keeps`: what a found copy's done line keeps.
    pub(super) fn judge(&mut self, key: Key, ask: Ask, keeps: life::Keeps) -> Result<Step, Error> {
        let line = self.book.line(key);
        // Before any attempt only what a send now would carry is looked for; after one, every
        // attempt on the line, from its first (`KeyLine::sought`).
        let sought = match ask.looking {
            Looking::Dedup => None,
            Looking::Confirm { .. } => line.as_ref().map(|l| l.sought(&ask.out.marks)),
        };
        let attempts = Attempts {
            key: line.as_ref().map_or(key, KeyLine::place_key),
            marks: sought.as_ref().map_or(&ask.out.marks, |s| &s.marks),
            since: sought.as_ref().and_then(|s| s.since),
            last: sought.as_ref().and_then(|s| s.last),
            sent: &ask.out.body,
            native: &ask.out.native,
            generation: ask.out.generation,
            deadline: ask.looking.deadline(),
        };
        let wanted = Wanted::Copy(keeps);
        match self.look_for(
            key,
            &attempts,
            ask.looking,
            (ask.sends, ask.sendable),
            &wanted,
        )? {
            Judged::Step(step) => Ok(step),
            Judged::PartFound => unreachable!("a copy is looked for, not a part"),
        }
    }

    /// Look for `attempts` as `looking` says (`see`) and hand each answer to the key's life,
    /// looking again while it says so. `sends`: sends made for the key this run; `sendable`: a
    /// post is there to send if what is looked for is absent. A copy found is judged here; a
    /// part found is put on the line when the thread says it is the part (`part_seen`).
    pub(super) fn look_for(
        &mut self,
        key: Key,
        attempts: &Attempts,
        mut looking: Looking,
        (sends, sendable): (u32, bool),
        wanted: &Wanted,
    ) -> Result<Judged, Error> {
        let first = looking == Looking::Dedup;
        let mut looks = 0;
        loop {
            let seen = self.see(key, attempts, looking);
            if matches!(seen, Seen::Transient(_)) {
                looks += 1;
            }
            let failure = seen.failure(|err| self.failed(err, None));
            let (found, as_part);
            let verdict = match (&seen, wanted) {
                (Seen::Found(receipts), Wanted::Copy(keeps)) => {
                    found = self.found_copy(attempts.key, receipts, keeps);
                    life::Verdict::Found(found.landed(receipts, life::How::Confirmed, first))
                }
                (Seen::Found(_) | Seen::Foreign(_), Wanted::Part(n)) => {
                    match self.part_seen(key, *n, &seen)? {
                        Some(seen) => as_part = seen,
                        None => return Ok(Judged::PartFound),
                    }
                    as_part.verdict(None)
                }
                (seen, _) => seen.verdict(failure.as_ref().map(|f| f.borrow())),
            };
            let step = self.book.apply(
                key,
                &Event::Looked {
                    verdict,
                    first,
                    looks,
                    sends,
                    sendable,
                },
            )?;
            if let Wanted::Copy(_) = wanted {
                self.trace_look(key, &seen, &step, first);
            }
            if let Seen::Refused(err) = &seen {
                self.stop_for(key, err);
            }
            match step.then {
                Then::Look(wait) => {
                    if !signals::sleep(wait) {
                        return Ok(Judged::Step(step));
                    }
                    if let Looking::Confirm { wait_first, .. } = &mut looking {
                        *wait_first = false;
                    }
                }
                _ => return Ok(Judged::Step(step)),
            }
        }
    }

    /// What the done line of a copy found keeps: `keeps`, and which copy it is when the
    /// platform named it (`Names::copy_of`).
    fn found_copy(&self, key: Key, receipts: &[life::Receipt], keeps: &life::Keeps) -> life::Keeps {
        let mut found = keeps.clone();
        found.copy = self
            .target
            .as_names()
            .and_then(|n| n.copy_of(key, &receipts[0].id));
        found
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

/// What a look is for.
pub(super) enum Wanted {
    /// The key's copy; the done line of a copy found keeps these.
    Copy(life::Keeps),
    /// Part `n` of the key's thread, looked for by its own mark.
    Part(usize),
}

/// What a look came to: the key's life's step, or part `n` found and on the line.
pub(super) enum Judged {
    Step(Step),
    PartFound,
}

/// What a lookup is asked: how to look, for what, and what the key's life needs to judge the
/// answer.
pub(super) struct Ask<'a> {
    pub looking: Looking,
    /// What a send now would carry (its marks are looked for beside those of the line's
    /// attempts), or what was sent, for a lookup handed it (`Find::keeps_payload`); what the
    /// platform chose for the copy, and which copy it is.
    pub out: &'a crate::targets::Outgoing,
    /// Sends made for the key this run.
    pub sends: u32,
    /// A post is there to send if the copy is absent.
    pub sendable: bool,
}
