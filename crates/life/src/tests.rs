//! The table is the spec: `docs/life-of-a-key.md` lists every (state, event) pair with what it
//! leads to, and must be what `next` does; and what no pair may ever do, checked over all.

mod merged_maybe;
pub(crate) mod table;

use super::{Change, Decision, Exit, KeyLine, Lever, Mode, Phase, Then};
use table::Example;
use testkit::region;

const DOC: &str = "docs/life-of-a-key.md";
const BEGIN: &str = "<!-- the table: made by `life::table::markdown`, checked by a test -->\n";
const END: &str = "<!-- end of the table -->";

#[test]
fn the_docs_table_is_what_the_code_does_for_every_state_and_event() {
    let want = table::markdown();
    let have = region(DOC, BEGIN, END, &want);
    assert!(
        have == want,
        "{DOC} and `life::next` disagree; if the change is meant, run `DAYRUN_BLESS=1 cargo test -p dayrun-life` and review the diff\n--- docs\n{have}\n--- code\n{want}"
    );
    // Every pair is there.
    let rows = want
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| event"))
        .count();
    assert_eq!(rows, table::states().len() * table::events().len());
}

#[test]
fn the_readme_summary_is_what_a_run_does_with_each_state() {
    let want = table::summary();
    let have = region(
        "README.md",
        "<!-- the life of a key: made by `life::table::summary`, checked by a test -->\n",
        "<!-- end of the life of a key -->",
        &want,
    );
    assert_eq!(
        have, want,
        "README.md: run `DAYRUN_BLESS=1 cargo test -p dayrun-life`"
    );
}

/// Every (state, event) pair.
fn pairs() -> Vec<(String, Option<KeyLine>, String, Example, super::Step)> {
    let mut all = Vec::new();
    for (state, line) in table::states() {
        for (event, example) in table::events() {
            let step = table::outcome(line.as_ref(), &example);
            all.push((
                state.to_string(),
                line.clone(),
                event.to_string(),
                example,
                step,
            ));
        }
    }
    all
}

#[test]
fn no_event_drops_a_live_id_but_a_removal_or_a_human() {
    for (state, line, event, example, step) in pairs() {
        let Some(line) = line else { continue };
        let after = match &step.line {
            Change::Write(new) => new.live_ids(),
            Change::Keep => line.live_ids(),
            Change::Drop => Vec::new(),
        };
        let allowed = matches!(
            example,
            Example::Removed | Example::Human(super::Act::NotOurs { .. })
        ) || matches!(step.line, Change::Write(ref l) if matches!(l.phase, Phase::Retracted { .. }));
        for id in line.live_ids() {
            assert!(
                after.contains(&id) || allowed,
                "{state} + {event}: id {id} dropped ({:?})",
                step.line
            );
        }
    }
}

#[test]
fn what_may_have_landed_is_never_sent_again_without_a_look_or_a_humans_word() {
    for (state, line, event, example, step) in pairs() {
        let Some(line) = line else { continue };
        if !line.tried.maybe {
            continue;
        }
        let on_word = matches!(&example, Example::Visit(Mode::Retry(Lever::Absent), ..));
        // (A send that starts was decided before: by a look, or a human.)
        let proved = matches!(&example, Example::Looked("absent") | Example::Attempt);
        match &step.then {
            Then::Send(_) => assert!(proved, "{state} + {event}: sends without a look"),
            Then::Decide(Decision::Publish {
                look_first: false,
                new_copy: false,
                ..
            }) => assert!(on_word, "{state} + {event}: publishes without a look"),
            _ => {}
        }
    }
}

#[test]
fn a_post_that_is_not_out_never_lets_a_run_exit_0_while_it_waits() {
    // A failed key with an attempt on record (not put aside by hand), met by a plain run that
    // does not send it: the run exits non-zero, whatever the key's age.
    for (state, line, event, example, step) in pairs() {
        let Some(line) = line else { continue };
        let waits = matches!(line.phase, Phase::Failed(..) | Phase::Pending(_))
            && line.attempted()
            && !line.by_hand;
        let plain = matches!(&example, Example::Visit(Mode::Run { .. }, seen, _) if *seen != super::Seen::Gone);
        let acts = matches!(
            &step.then,
            Then::Decide(Decision::Publish { why, .. })
                if !matches!(why, super::Why::RetrySafe | super::Why::LookedAbsent | super::Why::LookAgain)
        );
        if waits && plain && !acts {
            assert_ne!(
                step.exit,
                Exit::Ok,
                "{state} + {event}: exits 0 while the post is not out"
            );
        }
    }
}

#[test]
fn a_platforms_namespaced_field_is_the_copys_and_any_other_is_kept_as_written() {
    use crate::Record;
    let text = "2026-11-20 pending 2026-11-20T08:00:00+00:00 generation=1 nostr.created=1763625600 note=mine";
    let line = KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let copy = &line.copies.current;
    assert_eq!(copy.native.get("nostr.created"), Some("1763625600"));
    assert_eq!(line.extra, [("note".to_string(), "mine".to_string())]);
    let record = line.record();
    let printed = record.to_line();
    assert!(
        printed.contains(" generation=1 nostr.created=1763625600 "),
        "{printed}"
    );
    assert!(printed.ends_with(" note=mine"), "{printed}");
}

#[test]
fn a_copys_version_is_kept_from_the_receipt_and_sent_back_as_written() {
    use crate::Receipt;
    use crate::Record;
    let text = "2026-11-20 done 2026-11-20T08:00:00+00:00 id=abc version=2026-11-20T08:00:00.000Z";
    let line = KeyLine::of(&Record::parse(text).unwrap().unwrap());
    assert_eq!(
        line.copies.current.native.get("version"),
        Some("2026-11-20T08:00:00.000Z")
    );
    assert!(
        line.record()
            .to_line()
            .contains(" version=2026-11-20T08:00:00.000Z")
    );
    let hostile = Receipt {
        native: crate::Native::one("version", "2026 \"x\""),
        ..Receipt::id("abc")
    };
    assert_eq!(
        super::checked(&hostile).unwrap().native.get("version"),
        None
    );
    let fine = Receipt {
        native: crate::Native::one("version", "2026-11-21T08:00:00.000Z"),
        ..Receipt::id("abc")
    };
    assert_eq!(
        super::checked(&fine).unwrap().native.get("version"),
        Some("2026-11-21T08:00:00.000Z")
    );
}

/// The zone of the tests below.
static UTC: jiff::tz::TimeZone = jiff::tz::TimeZone::UTC;

/// A run on 2026-11-29 at 08:00 UTC, for the key of that day.
fn run_ctx<'a>(rules: &'a super::Rules, mode: &'a Mode) -> super::Ctx<'a> {
    let now: jiff::Timestamp = "2026-11-29T08:00:00Z".parse().unwrap();
    super::Ctx {
        key: "2026-11-29".parse().unwrap(),
        now,
        tz: &UTC,
        stamp: now.to_string(),
        today: now.to_zoned_datetime(UTC.clone()).date(),
        rules,
        mode,
        named: false,
        pinned: false,
        due: None,
        credential: None,
    }
}

#[test]
fn a_threads_split_is_written_on_its_pending_line_kept_through_a_failure_and_dropped_when_done() {
    use super::{Answer, Event, How, Landed, Rules};
    use crate::Receipt;
    use crate::Record;
    let (rules, mode) = (Rules::default(), Mode::Run { backfill: false });
    let ctx = run_ctx(&rules, &mode);
    let text = "2026-11-29 pending 2026-11-29T07:00:00Z id=7 fp=f parts=7,8 attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=aa";
    let pending = KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let step = super::next(Some(&pending), &Event::Split("0123456789abcdef"), &ctx);
    let written = step.written().expect("the split on the line").clone();
    let printed = written.record().to_line().to_string();
    assert!(
        printed.contains(" parts=7,8 split=0123456789abcdef attempt=1 "),
        "{printed}"
    );
    let read = KeyLine::of(&Record::parse(&printed).unwrap().unwrap());
    assert_eq!(
        read.copies.current.split.as_deref(),
        Some("0123456789abcdef")
    );
    // The same split again writes nothing; a line that is not a pending publish is left alone.
    let again = super::next(Some(&read), &Event::Split("0123456789abcdef"), &ctx);
    assert!(again.written().is_none());
    assert!(
        super::next(None, &Event::Split("0123456789abcdef"), &ctx)
            .written()
            .is_none()
    );
    let receipts = [Receipt::id("7")];
    let landed = Landed {
        receipts: &receipts,
        how: How::Published,
        fp: "f",
        payload: "p",
        media: None,
        copy: None,
    };
    let done = super::next(
        Some(&read),
        &Event::Answered {
            answer: Answer::Landed(landed),
            before: None,
            sends: 0,
        },
        &ctx,
    );
    let done = done.written().expect("the done line");
    assert_eq!(done.copies.current.split, None);
    assert_eq!(done.copies.current.parts.len(), 2);
}

#[test]
fn what_a_platform_notes_mid_send_is_on_the_pending_line_at_once_and_only_there() {
    use super::{Event, Native, Op, Rules};
    use crate::Record;
    let (rules, mode) = (Rules::default(), Mode::Run { backfill: false });
    let ctx = run_ctx(&rules, &mode);
    let line = |text: &str| KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let printed = |line: &KeyLine| line.record().to_line().to_string();
    let pending = line(
        "2026-11-29 pending 2026-11-29T07:00:00Z fp=f rkey=3k2a attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=aa",
    );
    let made = Native::one("threads.container", "c1:1764400000:0123456789abcdef");
    let step = super::next(Some(&pending), &Event::Noted(&made), &ctx);
    let written = step.written().expect("on the pending line").clone();
    assert_eq!(written.phase, Phase::Pending(Op::Publish));
    assert_eq!(written.at, ctx.stamp, "the line takes the note's time");
    let text = printed(&written);
    assert!(
        text.contains(" rkey=3k2a threads.container=c1:1764400000:0123456789abcdef attempt=1 "),
        "{text}"
    );
    // Read back as written; a later note replaces it, and other fields stay.
    let read = line(&text);
    assert_eq!(read, written);
    let again = Native::one("threads.container", "c2:1764400100:0123456789abcdef");
    let step = super::next(Some(&read), &Event::Noted(&again), &ctx);
    let native = &step.written().unwrap().copies.current.native;
    assert_eq!(
        native.get("threads.container"),
        Some("c2:1764400100:0123456789abcdef")
    );
    assert_eq!(native.get("rkey"), Some("3k2a"));
    // A value that cannot be kept is not known; nothing but a pending publish is written.
    let odd = Native::one("threads.container", "a \"quoted\" value");
    let step = super::next(Some(&read), &Event::Noted(&odd), &ctx);
    assert_eq!(
        step.written()
            .unwrap()
            .copies
            .current
            .native
            .get("threads.container"),
        None
    );
    for other in [
        "2026-11-29 done 2026-11-29T07:00:00Z id=7 fp=f",
        "2026-11-29 pending 2026-11-29T07:00:00Z op=update id=7 fp=f",
        "2026-11-29 failed 2026-11-29T07:00:00Z class=rejected reason=x fp=f attempt=1",
    ] {
        let step = super::next(Some(&line(other)), &Event::Noted(&made), &ctx);
        assert!(step.written().is_none(), "{other}");
    }
    assert!(
        super::next(None, &Event::Noted(&made), &ctx)
            .written()
            .is_none()
    );
}

#[test]
fn a_retract_counts_a_threads_parts_as_parts_and_copies_as_copies() {
    use super::remove::removed_note;
    use crate::Record;
    let line = |text: &str| KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let thread = line("2026-11-20 done 2026-11-20T08:00:00+00:00 id=a parts=a,b,c copies=d");
    let cases: [(&[&str], &str); 5] = [
        (&["a"], ""),
        (&["c", "b", "a"], " (a thread of 3 parts removed)"),
        (
            &["d", "c", "b", "a"],
            " (a thread of 3 parts and 1 other copy removed)",
        ),
        (&["c", "b"], " (2 of the thread's 3 parts removed)"),
        (&["d", "x"], " (2 copies removed)"),
    ];
    for (removed, want) in cases {
        assert_eq!(removed_note(&thread, &ids(removed)), want, "{removed:?}");
    }
    let copies = line("2026-11-20 done 2026-11-20T08:00:00+00:00 id=a copies=d older=e");
    assert_eq!(
        removed_note(&copies, &ids(&["d", "e", "a"])),
        " (3 copies removed)"
    );
}

/// life is pure, in what clippy cannot check (`crates/life/clippy.toml` refuses files, the
/// environment, processes, threads, the network and the clock): no closures or function
/// pointers in its types, no lazy cells, and no crate of ours beneath it.
#[test]
fn life_is_pure() {
    let refused = [
        "dyn Fn",
        "impl Fn",
        "&dyn",
        "Box<dyn",
        " fn(",
        "<fn(",
        "(fn(",
        "OnceCell",
        "LazyCell",
        "RefCell",
        "dayrun_",
        "base::",
        "store::",
        "content::",
        "targets::",
    ];
    let sources = testkit::sources("crates/life/src");
    assert!(sources.len() > 10, "life's sources not found: {sources:?}");
    // This file names the words it refuses.
    for (path, text) in sources
        .into_iter()
        .filter(|(p, _)| !p.ends_with("life/src/tests.rs"))
    {
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in refused {
                assert!(
                    !code.contains(word),
                    "{path}:{}: `{word}` in life: {line}",
                    n + 1
                );
            }
        }
    }
}

#[test]
fn a_copy_put_aside_and_found_again_keeps_what_it_holds_not_what_the_retry_sent() {
    use super::{Act, Answer, Event, How, Landed, Rules, Verdict};
    use crate::Receipt;
    use crate::Record;
    let (rules, mode) = (Rules::default(), Mode::Run { backfill: false });
    let ctx = run_ctx(&rules, &mode);
    let text = "2026-11-29 done 2026-11-29T07:00:00Z id=7 fp=one published=2026-11-29T07:00:00Z payload=p1";
    let done = KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let act = Act::MarkFailed { fp: "two".into() };
    let aside = super::next(Some(&done), &Event::Human(&act), &ctx);
    let aside = aside.written().expect("the line put aside").clone();
    let printed = aside.record().to_line().to_string();
    assert!(
        printed.contains(" fp=two ") && printed.contains(" holds=one,p1"),
        "{printed}"
    );
    let aside = KeyLine::of(&Record::parse(&printed).unwrap().unwrap());
    // A second keep does not overwrite the first: `holds=` is what the copy holds.
    let mut again = aside.clone();
    again.fp = Some("three".into());
    again.keep_what_the_copy_holds();
    assert_eq!(again.copies.current.holds, aside.copies.current.holds);
    let found = |id: &str, how: How| {
        let receipts = [Receipt::id(id)];
        let landed = Landed {
            receipts: &receipts,
            how,
            fp: "two",
            payload: "p2",
            media: None,
            copy: None,
        };
        let event = Event::Looked {
            verdict: Verdict::Found(landed),
            first: false,
            looks: 1,
            sends: 1,
            sendable: true,
        };
        let step = super::next(Some(&aside), &event, &ctx);
        let line = step.written().expect("a done line").clone();
        (
            line.fp.unwrap(),
            line.edits.payload,
            line.copies.current.holds,
        )
    };
    // The copy the line names: what it holds. Another copy: what the attempt sent.
    assert_eq!(
        found("7", How::Confirmed),
        ("one".into(), Some("p1".into()), None)
    );
    assert_eq!(found("8", How::Confirmed).0, "two");
    // A send that answers with the copy's own id (a server that deduplicated it, as Mastodon
    // does within an hour of an Idempotency-Key) answered the copy as it is: what it holds.
    // A send that answers with a new id made a copy of the post as it is now.
    let sent = |id: &str| {
        let receipts = [Receipt::id(id)];
        let landed = Landed {
            receipts: &receipts,
            how: How::Published,
            fp: "two",
            payload: "p2",
            media: None,
            copy: None,
        };
        let answered = Event::Answered {
            answer: Answer::Landed(landed),
            before: None,
            sends: 0,
        };
        let step = super::next(Some(&aside), &answered, &ctx);
        step.written().unwrap().fp.clone()
    };
    assert_eq!(sent("8").as_deref(), Some("two"));
    assert_eq!(sent("7").as_deref(), Some("one"));
}

#[test]
fn a_line_seen_gone_notes_the_day_once_and_nothing_else_and_a_carry_forgets_it() {
    use super::{Event, Rules};
    use crate::Record;
    let (rules, mode) = (Rules::default(), Mode::Run { backfill: false });
    let ctx = run_ctx(&rules, &mode);
    let text = "2026-11-20-old done 2026-11-20T07:00:00Z id=7 fp=f";
    let done = KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let step = super::next(Some(&done), &Event::SeenGone, &ctx);
    assert_eq!(step.exit, super::Exit::Ok);
    let noted = step.written().expect("the day on the line").clone();
    let printed = noted.record().to_line().to_string();
    assert_eq!(
        printed,
        "2026-11-20-old done 2026-11-20T07:00:00Z gone=2026-11-29 id=7 fp=f"
    );
    let read = KeyLine::of(&Record::parse(&printed).unwrap().unwrap());
    assert_eq!(read.gone, Some(jiff::civil::date(2026, 11, 29)));
    // Seen again: the first day stands, nothing is written.
    let again = super::next(Some(&read), &Event::SeenGone, &ctx);
    assert!(again.written().is_none());
    // Carried over to a renamed post's key: that post is there.
    let key = "2026-11-29-new".parse().unwrap();
    assert_eq!(read.carried_to(key, "2026-11-29T08:00:00Z").gone, None);
    assert!(Record::parse("2026-11-20-old done 2026-11-20T07:00:00Z gone=soon").is_err());
}
