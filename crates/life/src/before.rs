//! What comes before sending a key's post, from its line and the run's mode: a look when an
//! earlier attempt may have landed, pre-submit dedup before the first attempt, or a person's
//! word that it is absent; and which generation of the key's copy the send makes.

use super::{Ctx, KeyLine, Lever, Mode, Native, Phase, Then};
use std::time::Duration;

/// What comes before a send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// An earlier attempt may have landed: look, and send only if it is provably absent.
    Look,
    /// The first attempt: look for a copy already there (pre-submit dedup).
    Dedup,
    /// An earlier attempt may have landed, and a person said it did not (`retry --absent`).
    OnWord,
    /// Nothing: send.
    Send,
}

impl Before {
    /// Whether the target is asked about the key before anything is sent.
    pub fn looks(self) -> bool {
        matches!(self, Before::Look | Before::Dedup)
    }

    /// What the runner carries out first: the look, when there is one, else the send.
    pub fn first(self) -> Then {
        match self.looks() {
            true => Then::Look(Duration::ZERO),
            false => Then::Send(Duration::ZERO),
        }
    }
}

/// How a decided publish goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sending {
    pub before: Before,
    /// The send makes a new copy of the key: asked for (`new_copy`), or after a retract.
    pub fresh: bool,
    /// The generation of the copy the send makes: the line's, one more when `fresh`.
    pub generation: u32,
}

impl Sending {
    /// What only the platform reads of the copy this send makes: what `line` keeps of it (a
    /// fresh copy starts with nothing of the last one's), with what the platform chooses now
    /// (`chosen`: a record key) where it keeps nothing.
    pub fn native(&self, line: Option<&KeyLine>, chosen: &Native) -> Native {
        let kept = line.filter(|_| !self.fresh);
        let mut native = kept.map_or_else(Native::new, |l| l.copies.current.native.clone());
        native.fill(chosen);
        native
    }
}

/// How the publish a visit decided (`Decision::Publish { look_first, new_copy, .. }`) goes
/// out. The run, its survey and the dry run ask this one function.
pub fn sending(line: Option<&KeyLine>, look_first: bool, new_copy: bool, ctx: &Ctx) -> Sending {
    let fresh = new_copy || line.is_some_and(|l| matches!(l.phase, Phase::Retracted { .. }));
    let generation = line.map_or(0, |l| l.copies.current.generation) + u32::from(fresh);
    // A fresh copy never answers for the last one: an attempt of an older generation that
    // may have landed is that generation's (`older=` keeps it), not this send's.
    let maybe = line.is_some_and(|l| l.tried.maybe) && !fresh;
    let before = match () {
        _ if maybe && *ctx.mode == Mode::Retry(Lever::Absent) => Before::OnWord,
        _ if maybe && look_first => Before::Look,
        _ if first(line) && ctx.rules.dedup && ctx.rules.can_find => Before::Dedup,
        _ => Before::Send,
    };
    Sending {
        before,
        fresh,
        generation,
    }
}

/// Whether a send is still the key's first as far as the target can know: no line, or a
/// failed line of no attempt that proves nothing was ever sent (a key left untried by an
/// outage, a post that could not be prepared). Such a send is looked for first where dedup is on: a copy
/// made meanwhile by another runner, a person or an earlier state is found, not duplicated.
fn first(line: Option<&KeyLine>) -> bool {
    line.is_none_or(|l| l.attempt == 0 && l.proves_nothing_sent())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;
    use crate::tests::table;

    fn line(state: &str) -> Option<KeyLine> {
        let states = table::states();
        let (_, line) = states.into_iter().find(|(s, _)| *s == state).expect(state);
        line
    }

    fn ask(line: Option<&KeyLine>, look: bool, new: bool, rules: &Rules, mode: Mode) -> Sending {
        let tz = jiff::tz::TimeZone::UTC;
        let now: jiff::Timestamp = "2026-11-29T08:00:00Z".parse().unwrap();
        let ctx = Ctx {
            key: "2026-11-29".parse().unwrap(),
            now,
            tz: &tz,
            stamp: now.to_string(),
            today: "2026-11-29".parse().unwrap(),
            rules,
            mode: &mode,
            named: false,
            pinned: false,
            due: None,
            credential: None,
        };
        sending(line, look, new, &ctx)
    }

    const RUN: Mode = Mode::Run { backfill: false };

    #[test]
    fn an_attempt_that_may_have_landed_is_looked_for_unless_a_person_said_it_is_absent() {
        let rules = table::rules();
        let pending = line("pending");
        let sent = ask(pending.as_ref(), true, false, &rules, RUN);
        assert_eq!(
            (sent.before, sent.fresh, sent.generation),
            (Before::Look, false, 0)
        );
        let absent = Mode::Retry(Lever::Absent);
        assert_eq!(
            ask(pending.as_ref(), true, false, &rules, absent).before,
            Before::OnWord
        );
    }

    #[test]
    fn a_look_is_carried_out_before_the_send_whenever_one_comes_before_it() {
        let look = Then::Look(Duration::ZERO);
        assert_eq!(Before::Look.first(), look);
        assert_eq!(Before::Dedup.first(), look);
        let send = Then::Send(Duration::ZERO);
        assert_eq!(Before::OnWord.first(), send);
        assert_eq!(Before::Send.first(), send);
    }

    #[test]
    fn a_fresh_copy_is_the_next_generation_and_never_looks_for_the_last_one() {
        let rules = table::rules();
        let pending = line("pending");
        let sent = ask(pending.as_ref(), true, true, &rules, RUN);
        assert_eq!(
            (sent.before, sent.fresh, sent.generation),
            (Before::Send, true, 1)
        );
        let retracted = line("retracted");
        let sent = ask(retracted.as_ref(), false, false, &rules, RUN);
        assert!(sent.fresh && sent.generation == 1, "{sent:?}");
    }

    #[test]
    fn a_send_keeps_what_the_platform_chose_for_its_copy_and_a_fresh_copy_chooses_anew() {
        let rules = table::rules();
        let mut pending = line("pending").unwrap();
        pending.copies.current.native = Native::one("rkey", "kept");
        let mut chosen = Native::one("rkey", "new");
        chosen.set("version", "1");
        let again = ask(Some(&pending), true, false, &rules, RUN);
        let mut kept = Native::one("rkey", "kept");
        kept.set("version", "1");
        assert_eq!(again.native(Some(&pending), &chosen), kept);
        let fresh = ask(Some(&pending), true, true, &rules, RUN);
        assert_eq!(fresh.native(Some(&pending), &chosen), chosen);
    }

    #[test]
    fn only_a_first_attempt_is_deduplicated_and_only_where_dedup_is_on_and_can_find() {
        let mut rules = table::rules();
        rules.dedup = true;
        assert_eq!(ask(None, false, false, &rules, RUN).before, Before::Dedup);
        let failed = line("failed retry-safe");
        assert_eq!(
            ask(failed.as_ref(), false, false, &rules, RUN).before,
            Before::Send
        );
        // A key left untried by an outage (no attempt, nothing sent) is still a first send.
        let mut untried = failed.clone().unwrap();
        untried.attempt = 0;
        assert_eq!(
            ask(Some(&untried), false, false, &rules, RUN).before,
            Before::Dedup
        );
        rules.can_find = false;
        assert_eq!(ask(None, false, false, &rules, RUN).before, Before::Send);
        rules.can_find = true;
        rules.dedup = false;
        assert_eq!(ask(None, false, false, &rules, RUN).before, Before::Send);
    }
}
