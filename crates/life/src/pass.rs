//! A pass over a target's keys, judged from their lines alone before any post is read: which
//! keys the pass looks at, and which done keys it passes over without reading their posts.

use crate::day::{days_between, parse_key};
use crate::{Ctx, Decision, Event, Facts, KeyLine, Mode, Record, Rules, Seen, Status, Then};
use jiff::Timestamp;
use jiff::civil::Date;

/// Whether a pass looks at a key: one with a post (every run looks at every post), one whose
/// line is not done or retracted (or is, with an attempt beside it that may have landed), or
/// any key with a line when retracting.
pub fn looks_at(line: Option<&Record>, mode: &Mode, has_post: bool) -> bool {
    has_post
        || line.is_some_and(|r| {
            *mode == Mode::Retract
                || !matches!(r.status, Status::Done | Status::Retracted)
                || maybe_out(r)
        })
}

/// A done or retracted line that says `sent=maybe` (only a merge makes one: another runner's
/// attempt of the copy may have landed): its key is looked up, its post there or not. The
/// quick typed check.
fn maybe_out(record: &Record) -> bool {
    matches!(record.status, Status::Done | Status::Retracted) && record.has("sent")
}

/// How a key's line may be passed over without reading its post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// It may not: the key's life reads what it needs.
    No,
    Yes,
    /// Unless the post's file was modified after this time (the line's).
    Untouched(Timestamp),
}

impl Pass {
    /// Whether the line may be passed over at all (`Untouched` asks the file's time first).
    pub fn may(self) -> bool {
        self != Pass::No
    }
}

/// Whether a done line can be passed over without reading its post: in a plain run, when the
/// target sends no edits, the copy has no id, or the line is older than the edit window by more
/// than a day of zone offset (the first publish is never later than the line's own time) — then
/// unless the post's file changed since the line was written (an edit after the window is said
/// once: `Skip::LateEdit`). A refused edit is never passed over: it stands whatever the window.
/// A no-op run over 100k done keys reads nothing else, and stats only the posts of copies past
/// the window on a target that updates.
pub fn pass(line: Option<&Record>, mode: &Mode, rules: &Rules, today: Date) -> Pass {
    let Some(record) = line else {
        return Pass::No;
    };
    if record.status != Status::Done || !matches!(mode, Mode::Run { .. }) || maybe_out(record) {
        return Pass::No;
    }
    if !rules.updates || !record.has("id") {
        return Pass::Yes;
    }
    if record.has("edit_failed") {
        return Pass::No;
    }
    let at = record.at().get(..10).and_then(parse_key);
    let past = at.is_some_and(|at| days_between(at, today) > rules.edit_days + 1);
    match (past, record.at().parse()) {
        (true, Ok(at)) => Pass::Untouched(at),
        _ => Pass::No,
    }
}

/// Whether visiting a key will look it up on the target (a confirm, a look before a resend,
/// pre-submit dedup), judged from its line: the post is taken as ready to send, unread, so a
/// draft or a broken post only widens the survey (the one read of a target's listing a pass
/// makes for the keys it will look up). A key the pass passes over (`pass`) is not asked.
pub fn will_look(line: Option<&KeyLine>, has_post: bool, ctx: &Ctx) -> bool {
    let ready = match has_post {
        true => Seen::Ready(Facts {
            fp: line.and_then(|l| l.fp.clone()).unwrap_or_default(),
            payload: None,
            blocked: None,
            carry: None,
            due: None,
        }),
        false => Seen::Gone,
    };
    let mut step = crate::next(line, &Event::Visit(None), ctx);
    if step.then == Then::Read {
        step = crate::next(line, &Event::Visit(Some(&ready)), ctx);
    }
    match step.then {
        Then::Decide(Decision::Confirm | Decision::LookBeside) => true,
        Then::Decide(Decision::Publish {
            look_first,
            new_copy,
            ..
        }) => crate::sending(line, look_first, new_copy, ctx)
            .before
            .looks(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lever;

    fn done(at: &str) -> Record {
        Record::parse(&format!("2026-11-20 done {at} id=7"))
            .unwrap()
            .unwrap()
    }

    fn updates() -> Rules {
        Rules {
            updates: true,
            ..Rules::default()
        }
    }

    const RUN: Mode = Mode::Run { backfill: false };

    fn day(s: &str) -> Date {
        parse_key(s).unwrap()
    }

    #[test]
    fn a_pass_looks_at_every_post_every_unfinished_line_and_every_line_when_retracting() {
        let pending = Record::parse("2026-11-20 pending 2026-11-20T07:00:00Z").unwrap();
        let done = done("2026-11-20T07:00:00Z");
        assert!(looks_at(None, &RUN, true));
        assert!(!looks_at(None, &RUN, false));
        assert!(looks_at(pending.as_ref(), &RUN, false));
        assert!(!looks_at(Some(&done), &RUN, false));
        assert!(looks_at(Some(&done), &Mode::Retract, false));
    }

    #[test]
    fn a_done_line_is_passed_over_when_the_target_sends_no_edits_or_the_copy_has_no_id() {
        let line = done("2026-11-20T07:00:00Z");
        let today = day("2026-11-21");
        assert_eq!(pass(Some(&line), &RUN, &Rules::default(), today), Pass::Yes);
        let no_id = Record::parse("2026-11-20 done 2026-11-20T07:00:00Z").unwrap();
        assert_eq!(pass(no_id.as_ref(), &RUN, &updates(), today), Pass::Yes);
        // Within the edit window the post is read: an edit may be sent.
        assert_eq!(pass(Some(&line), &RUN, &updates(), today), Pass::No);
    }

    #[test]
    fn past_the_edit_window_and_a_day_a_done_line_is_passed_over_unless_its_post_changed() {
        let at = "2026-11-20T07:00:00Z";
        let line = done(at);
        // edit_days (7) + 1 day of zone offset: the eighth day is still read, the ninth not.
        assert_eq!(
            pass(Some(&line), &RUN, &updates(), day("2026-11-28")),
            Pass::No
        );
        assert_eq!(
            pass(Some(&line), &RUN, &updates(), day("2026-11-29")),
            Pass::Untouched(at.parse().unwrap())
        );
    }

    #[test]
    fn a_refused_edit_a_retry_or_a_line_not_done_is_never_passed_over() {
        let late = day("2026-12-20");
        let refused = Record::parse("2026-11-20 done 2026-11-20T07:00:00Z id=7 edit_failed=p")
            .unwrap()
            .unwrap();
        assert_eq!(pass(Some(&refused), &RUN, &updates(), late), Pass::No);
        let line = done("2026-11-20T07:00:00Z");
        let retry = Mode::Retry(Lever::Again);
        assert_eq!(pass(Some(&line), &retry, &Rules::default(), late), Pass::No);
        let failed = Record::parse("2026-11-20 failed 2026-11-20T07:00:00Z class=rejected")
            .unwrap()
            .unwrap();
        assert_eq!(pass(Some(&failed), &RUN, &Rules::default(), late), Pass::No);
        assert_eq!(pass(None, &RUN, &Rules::default(), late), Pass::No);
    }
    fn judged(line: Option<&KeyLine>, has_post: bool, rules: &Rules) -> bool {
        let tz = jiff::tz::TimeZone::UTC;
        let now: Timestamp = "2026-11-20T09:00:00Z".parse().unwrap();
        let zoned = now.to_zoned_datetime(tz.clone());
        let ctx = Ctx::at(
            crate::Key::of_day(day("2026-11-20")),
            &zoned,
            &tz,
            zoned.date(),
            rules,
            &RUN,
        );
        will_look(line, has_post, &ctx)
    }

    #[test]
    fn a_pass_will_look_up_a_pending_key_and_a_first_send_with_dedup_on() {
        let pending = Record::parse("2026-11-20 pending 2026-11-20T07:00:00Z fp=f sent=maybe")
            .unwrap()
            .unwrap();
        let pending = KeyLine::of(&pending);
        assert!(judged(Some(&pending), true, &Rules::default()));
        // Its post gone: still looked up (a copy may be out).
        assert!(judged(Some(&pending), false, &Rules::default()));
        // A first send looks first only with dedup on, on a target that can look.
        assert!(judged(None, true, &Rules::default()));
        let no_dedup = Rules {
            dedup: false,
            ..Rules::default()
        };
        assert!(!judged(None, true, &no_dedup));
        let cannot_find = Rules {
            can_find: false,
            ..Rules::default()
        };
        assert!(!judged(None, true, &cannot_find));
    }

    #[test]
    fn a_pass_will_not_look_up_a_done_key_or_a_key_with_no_post_and_no_line() {
        let line = KeyLine::of(&done("2026-11-20T07:00:00Z"));
        assert!(!judged(Some(&line), true, &updates()));
        assert!(!judged(None, false, &Rules::default()));
    }
}
