//! Issue 28: a merge never forgets an attempt that may have landed beside a done copy, and the
//! next run looks for it as a copy of that generation, never of a later one.

use crate::{
    Ctx, Decision, Event, Exit, How, KeyLine, Landed, Lever, Mode, Phase, Receipt, Record, Rules,
    Then, Verdict, merge,
};

fn line(text: &str) -> KeyLine {
    KeyLine::of(&Record::parse(text).unwrap().unwrap())
}

/// Runner A published the key as p-1; runner B, from the same state, sent it too, and its
/// answer and lookups failed: its attempt may be out.
fn sides() -> (KeyLine, KeyLine) {
    let a = line("2026-11-20 done 2026-11-20T07:00:03Z id=p-1 fp=f published=2026-11-20T07:00:03Z");
    let b = line(
        "2026-11-20 failed 2026-11-20T07:10:00Z class=unknown lookup=error fp=f attempt=1 first_failure=2026-11-20T07:10:00Z sent=maybe since=2026-11-20T07:09:00Z marks=m1",
    );
    (a, b)
}

fn merged() -> KeyLine {
    let (a, b) = sides();
    merge(&a, &b).0
}

/// The zone every test here runs in.
static UTC: jiff::tz::TimeZone = jiff::tz::TimeZone::UTC;

fn at<'a>(rules: &'a Rules, mode: &'a Mode, now: &str) -> Ctx<'a> {
    let tz = &UTC;
    let now: jiff::Timestamp = now.parse().unwrap();
    let zoned = now.to_zoned_datetime(tz.clone());
    Ctx::at(
        "2026-11-20".parse().unwrap(),
        &zoned,
        tz,
        zoned.date(),
        rules,
        mode,
    )
}

fn looked(line: &KeyLine, verdict: Verdict, looks: u32, ctx: &Ctx) -> crate::Step {
    let event = Event::Looked {
        verdict,
        first: false,
        looks,
        sends: 0,
        sendable: true,
    };
    crate::next(Some(line), &event, ctx)
}

#[test]
fn a_merge_keeps_what_the_other_side_may_have_sent_beside_a_done_copy() {
    let (a, b) = sides();
    for (x, y) in [(&a, &b), (&b, &a)] {
        let (merged, conflict) = merge(x, y);
        assert_eq!(conflict, None);
        assert_eq!(merged.phase, Phase::Done);
        assert_eq!(merged.copies.current.id.as_deref(), Some("p-1"));
        assert!(merged.tried.maybe, "the other side's attempt is forgotten");
        assert_eq!(merged.tried.since.as_deref(), Some("2026-11-20T07:09:00Z"));
        assert_eq!(merged.tried.marks, ["m1"]);
        let text = merged.record().to_line().to_string();
        assert!(text.contains(" sent=maybe "), "{text}");
    }
}

/// Runner A published p-1 and then retracted it; runner B's attempt of the same copy may have
/// landed. A's retract took back the copy A knew, not one B's attempt may have made.
#[test]
fn a_retracted_line_keeps_the_other_sides_attempt_and_is_looked_up_never_sent() {
    let (_, b) = sides();
    let gone = line("2026-11-20 retracted 2026-11-20T08:00:00Z id=p-1");
    let merged = merge(&gone, &b).0;
    assert_eq!(merge(&b, &gone).0, merged, "either side ours");
    assert_eq!(merged.phase, Phase::Retracted { verified: true });
    assert!(merged.tried.maybe, "the other side's attempt is forgotten");
    let rules = Rules::default();
    for mode in [
        Mode::Run { backfill: false },
        Mode::Retry(Lever::Force),
        Mode::Retry(Lever::ForceNew),
    ] {
        let ctx = at(&rules, &mode, "2026-11-20T09:00:00Z");
        let step = crate::next(Some(&merged), &Event::Visit(None), &ctx);
        assert_eq!(step.then, Then::Decide(Decision::LookBeside), "{mode:?}");
    }
    let run = Mode::Run { backfill: false };
    let record = merged.record();
    assert!(
        crate::looks_at(Some(&record), &run, false),
        "a pass visits it"
    );
    let ctx = at(&rules, &run, "2026-11-20T09:00:00Z");
    // Found: a live copy of a retracted post, recorded for `retract` to remove.
    let found = [Receipt::id("p-3")];
    let landed = Landed {
        receipts: &found,
        how: How::Confirmed,
        fp: "f",
        payload: "x",
        media: None,
        copy: None,
    };
    let step = looked(&merged, Verdict::Found(landed), 0, &ctx);
    assert_eq!((step.exit, &step.then), (Exit::NeedsHuman, &Then::Stop));
    let next = step.written().expect("written");
    assert_eq!(next.phase, Phase::Retracted { verified: true });
    assert_eq!(
        (next.copies.duplicates.as_slice(), next.tried.maybe),
        (&["p-3".to_string()][..], false)
    );
    assert!(
        step.say
            .as_deref()
            .is_some_and(|s| s.contains("dayrun retract 2026-11-20 --yes"))
    );
    assert_eq!(next.live_ids(), ["p-3"]);
    // Absent once it can no longer land: nothing is out, and the line stays retracted.
    let step = looked(&merged, Verdict::Absent, 0, &ctx);
    let next = step.written().expect("written");
    assert_eq!(
        (next.phase, next.tried.maybe, step.exit),
        (Phase::Retracted { verified: true }, false, Exit::Ok)
    );
    // Cannot tell: a person looks, and says so with `mark KEY retracted`.
    let step = looked(&merged, Verdict::CannotTell("a list cut short"), 0, &ctx);
    assert_eq!(step.exit, Exit::NeedsHuman);
    let unsettled = step.written().expect("written").clone();
    assert!(
        unsettled
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("mark 2026-11-20 retracted"))
    );
    let retract = Mode::Retract;
    let rctx = at(&rules, &retract, "2026-11-20T09:00:00Z");
    let step = crate::next(Some(&unsettled), &Event::Visit(None), &rctx);
    assert!(
        matches!(step.then, Then::Decide(Decision::Wait(_))),
        "a retract waits"
    );
    let step = crate::next(
        Some(&unsettled),
        &Event::Human(&crate::Act::MarkRetracted),
        &ctx,
    );
    let marked = step.written().expect("written");
    assert_eq!(marked.phase, Phase::Retracted { verified: false });
    assert_eq!(marked.copies.current.generation, 0, "the same copy");
    assert!(!marked.tried.maybe && marked.first_failure.is_none());
    let visit = crate::next(Some(marked), &Event::Visit(None), &ctx);
    assert_eq!(
        (visit.exit, visit.then),
        (
            Exit::Ok,
            Then::Decide(Decision::Skip(crate::Skip::Retracted))
        )
    );
}

#[test]
fn a_done_copy_that_may_have_a_second_is_looked_up_whatever_is_asked_and_never_sent() {
    let rules = Rules::default();
    let merged = merged();
    for mode in [
        Mode::Run { backfill: false },
        Mode::Retry(Lever::Again),
        Mode::Retry(Lever::Force),
        Mode::Retry(Lever::ForceNew),
    ] {
        let ctx = at(&rules, &mode, "2026-11-20T09:00:00Z");
        let step = crate::next(Some(&merged), &Event::Visit(None), &ctx);
        assert_eq!(step.then, Then::Decide(Decision::LookBeside), "{mode:?}");
        // As if the look finds nothing more: 0, until its lookups fail.
        assert_eq!(step.exit, Exit::Ok, "{mode:?}");
    }
    let run = Mode::Run { backfill: false };
    let ctx = at(&rules, &run, "2026-11-20T09:00:00Z");
    assert!(crate::will_look(Some(&merged), false, &ctx));
    let record = merged.record();
    assert!(crate::looks_at(Some(&record), &run, false));
    let today = "2026-12-20".parse().unwrap();
    assert_eq!(
        crate::pass(Some(&record), &run, &rules, today),
        crate::Pass::No
    );
}

#[test]
fn the_other_sides_copy_found_beside_is_a_duplicate_of_this_generation() {
    let rules = Rules::default();
    let run = Mode::Run { backfill: false };
    let ctx = at(&rules, &run, "2026-11-20T09:00:00Z");
    let merged = merged();
    let found = [Receipt::id("p-3"), Receipt::id("p-1")];
    let landed = |receipts| Landed {
        receipts,
        how: How::Confirmed,
        fp: "f2",
        payload: "x",
        media: None,
        copy: None,
    };
    let step = looked(&merged, Verdict::Found(landed(&found)), 0, &ctx);
    let next = step.written().expect("written");
    assert_eq!(step.exit, Exit::NeedsHuman);
    assert!(
        step.say
            .as_deref()
            .is_some_and(|s| s.starts_with("DUPLICATE"))
    );
    assert_eq!(next.phase, Phase::Done);
    assert_eq!(next.copies.current.id.as_deref(), Some("p-1"));
    assert_eq!(next.copies.duplicates, ["p-3"]);
    assert_eq!(next.copies.current.generation, 0);
    assert!(!next.tried.maybe);
    // What the copy holds is what the line said, not the post now.
    assert_eq!(next.fp.as_deref(), Some("f"));
    // Only its own copy: nothing more is out.
    let own = [Receipt::id("p-1")];
    let step = looked(&merged, Verdict::Found(landed(&own)), 0, &ctx);
    assert_eq!(step.exit, Exit::Ok);
    assert!(
        step.written()
            .is_some_and(|l| !l.tried.maybe && l.copies.duplicates.is_empty())
    );
}

#[test]
fn absent_settles_a_done_copy_and_a_failed_lookup_leaves_it_for_the_next_run() {
    let rules = Rules::default();
    let run = Mode::Run { backfill: false };
    let ctx = at(&rules, &run, "2026-11-20T09:00:00Z");
    let merged = merged();
    let step = looked(&merged, Verdict::Absent, 0, &ctx);
    assert_eq!(step.then, Then::Stop, "never sent");
    assert_eq!(step.exit, Exit::Ok);
    let next = step.written().expect("written");
    assert_eq!((next.phase, next.tried.maybe), (Phase::Done, false));
    // A failed lookup: looked again in the run, then the next run's (75), red once it lasts.
    let again = looked(&merged, Verdict::Transient("503"), 1, &ctx);
    assert!(matches!(again.then, Then::Look(_)));
    let step = looked(&merged, Verdict::Transient("503"), 9, &ctx);
    assert_eq!(step.exit, Exit::RetryLater);
    let kept = step.written().expect("written").clone();
    assert_eq!((kept.phase, kept.tried.maybe), (Phase::Done, true));
    assert!(kept.first_failure.is_some());
    let later = at(&rules, &run, "2026-11-22T09:00:00Z");
    let visit = crate::next(Some(&kept), &Event::Visit(None), &later);
    assert_eq!(visit.exit, Exit::NeedsHuman);
    assert_eq!(
        looked(&kept, Verdict::Transient("503"), 9, &later).exit,
        Exit::NeedsHuman
    );
}

#[test]
fn a_look_that_cannot_settle_it_keeps_the_copy_done_and_asks_a_person() {
    let rules = Rules::default();
    let run = Mode::Run { backfill: false };
    let ctx = at(&rules, &run, "2026-11-20T09:00:00Z");
    let merged = merged();
    let refused = crate::Failure {
        class: crate::Class::Auth,
        reason: "HTTP 401",
        cred: None,
        fp: None,
        payload: None,
        setup: false,
        wait: None,
        stop: true,
        hint: None,
    };
    for (verdict, exit) in [
        (Verdict::CannotTell("a list cut short"), Exit::NeedsHuman),
        (Verdict::Whose("p-3 on no line"), Exit::NeedsHuman),
        (Verdict::Refused(refused), Exit::Auth),
    ] {
        let step = looked(&merged, verdict, 9, &ctx);
        assert_eq!(step.exit, exit);
        assert_eq!(step.then, Then::Stop, "never sent");
        let next = step.written().expect("written");
        // Still published, its copy named, the other attempt still out: never a failed line
        // that a later run would send again.
        assert_eq!(next.phase, Phase::Done);
        assert_eq!(next.copies.current.id.as_deref(), Some("p-1"));
        assert!(next.tried.maybe);
        assert!(next.reason.as_deref().is_some_and(|r| r.contains("mark")));
    }
}

#[test]
fn a_retract_waits_for_the_look_and_a_target_that_cannot_look_asks_a_person() {
    let merged = merged();
    let rules = Rules::default();
    let retract = Mode::Retract;
    let ctx = at(&rules, &retract, "2026-11-20T09:00:00Z");
    let step = crate::next(Some(&merged), &Event::Visit(None), &ctx);
    assert!(
        matches!(&step.then, Then::Decide(Decision::Wait(why)) if why.contains("looks for it first")),
        "{:?}",
        step.then
    );
    let blind = Rules {
        can_find: false,
        ..Rules::default()
    };
    let run = Mode::Run { backfill: false };
    let ctx = at(&blind, &run, "2026-11-20T09:00:00Z");
    let step = crate::next(Some(&merged), &Event::Visit(None), &ctx);
    assert!(matches!(step.then, Then::Decide(Decision::Wait(_))));
    assert_eq!(step.exit, Exit::NeedsHuman);
}
