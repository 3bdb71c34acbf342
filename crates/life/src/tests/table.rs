//! The life of a key as tables, computed by `next` itself: every state a line can be in, every
//! event that can meet it, and what follows. `docs/life-of-a-key.md` holds these tables (the
//! spec, read by people) and a test checks it against them, so neither can drift.

use crate::Class;
use crate::Key;
use crate::Receipt;
use crate::Record;
use crate::{
    Act, Answer, Change, Ctx, Decision, Event, Exit, Failure, How, KeyLine, Landed, Lever, Looked,
    Mode, Op, Phase, Rules, Seen, Step, Then, Verdict,
};
use jiff::Timestamp;

/// The key of every example: its post is due today.
const KEY: &str = "2026-11-29";
/// When every example happens.
const NOW: &str = "2026-11-29T08:00:00Z";

/// The states a key's line can be in, each as a line dayrun writes.
pub fn states() -> Vec<(&'static str, Option<KeyLine>)> {
    let line = |text: &str| {
        let record = Record::parse(&format!("{KEY} {text}"))
            .expect("a valid example line")
            .expect("a record");
        Some(KeyLine::of(&record))
    };
    let at = "2026-11-29T07:00:00Z";
    let maybe = "sent=maybe since=2026-11-29T07:00:00Z marks=aa";
    vec![
        ("no line", None),
        (
            "pending",
            line(&format!("pending {at} fp=f attempt=1 {maybe}")),
        ),
        (
            "pending op=update",
            line(&format!("pending {at} op=update id=7 fp=f published={at}")),
        ),
        (
            "pending op=retract",
            line(&format!("pending {at} op=retract id=7 fp=f")),
        ),
        (
            "done",
            line(&format!("done {at} id=7 fp=f published={at} payload=p")),
        ),
        (
            "done sent=maybe (merged)",
            line(&format!(
                "done {at} id=7 fp=f published={at} payload=p {maybe}"
            )),
        ),
        (
            "failed by hand, holds=",
            line(&format!(
                "failed {at} class=rejected by=hand reason=x id=7 fp=f holds=e,p0 published={at} payload=p0"
            )),
        ),
        (
            "failed retry-safe",
            line(&format!(
                "failed {at} class=retry-safe reason=x fp=f attempt=1 first_failure={at}"
            )),
        ),
        (
            "failed unknown lookup=absent",
            line(&format!(
                "failed {at} class=unknown lookup=absent reason=x fp=f attempt=1 first_failure={at} {maybe}"
            )),
        ),
        (
            "failed unknown lookup=error",
            line(&format!(
                "failed {at} class=unknown lookup=error reason=x fp=f attempt=1 first_failure={at} {maybe}"
            )),
        ),
        (
            "failed unknown",
            line(&format!(
                "failed {at} class=unknown reason=x fp=f attempt=1 first_failure={at} {maybe}"
            )),
        ),
        (
            "failed rejected",
            line(&format!(
                "failed {at} class=rejected reason=x fp=f attempt=1 first_failure={at}"
            )),
        ),
        (
            "failed auth",
            line(&format!(
                "failed {at} class=auth reason=x fp=f cred=c attempt=1 first_failure={at}"
            )),
        ),
        (
            "failed local",
            line(&format!("failed {at} class=local reason=x")),
        ),
        (
            "failed by=hand",
            line(&format!("failed {at} class=rejected by=hand reason=x fp=f")),
        ),
        ("retracted", line(&format!("retracted {at} id=7 fp=f"))),
        (
            "retracted sent=maybe (merged)",
            line(&format!("retracted {at} id=7 fp=f {maybe}")),
        ),
        (
            "pending parts=2",
            line(&format!(
                "pending {at} id=7 parts=7,8 fp=f attempt=1 {maybe}"
            )),
        ),
        (
            "done edit_failed=p",
            line(&format!(
                "done {at} reason=x id=7 fp=f published={at} payload=o edit_failed=p"
            )),
        ),
        (
            "done parts=2",
            line(&format!(
                "done {at} id=7 parts=7,8 fp=f published={at} payload=p"
            )),
        ),
    ]
}

/// An event of the table: its name, and what it is.
pub enum Example {
    /// The run reaches the key, in this mode, with its post seen so, this many hours after NOW.
    Visit(Mode, Seen, i64),
    Attempt,
    Sent(Option<Class>),
    Looked(&'static str),
    Human(Act),
    Retracting,
    Removed,
    NotRemoved,
    /// The next part of a thread landed.
    PartLanded,
}

/// The events, in the order the tables list them.
pub fn events() -> Vec<(&'static str, Example)> {
    let run = Mode::Run { backfill: false };
    let ready = || {
        Seen::Ready(crate::Facts {
            fp: "f".into(),
            payload: Some("p".into()),
            blocked: None,
            carry: None,
            due: None,
        })
    };
    let edited = Seen::Ready(crate::Facts {
        fp: "g".into(),
        payload: Some("p2".into()),
        blocked: None,
        carry: None,
        due: None,
    });
    // The target's template fails on the post, or a copy it links to will never come.
    let blocked = Seen::Ready(crate::Facts {
        blocked: Some("the template fails on it".into()),
        ..crate::Facts::clone(match &ready() {
            Seen::Ready(facts) => facts,
            _ => unreachable!("ready"),
        })
    });
    let retry = |lever| Example::Visit(Mode::Retry(lever), ready(), 0);
    vec![
        ("run", Example::Visit(run.clone(), ready(), 0)),
        (
            "run, post edited",
            Example::Visit(run.clone(), edited.clone(), 0),
        ),
        ("run, a day later", Example::Visit(run.clone(), ready(), 24)),
        (
            "run, five days later",
            Example::Visit(run.clone(), ready(), 120),
        ),
        (
            "run, post broken",
            Example::Visit(run.clone(), Seen::Broken("no title".into()), 0),
        ),
        (
            "run, text cannot be made",
            Example::Visit(run.clone(), blocked, 0),
        ),
        (
            "run, post edited, ten days later",
            Example::Visit(run.clone(), edited.clone(), 240),
        ),
        ("run, post gone", Example::Visit(run, Seen::Gone, 0)),
        ("retry", retry(Lever::Again)),
        ("retry --absent", retry(Lever::Absent)),
        ("retry --force", retry(Lever::Force)),
        ("retry --force --new", retry(Lever::ForceNew)),
        ("retract", Example::Visit(Mode::Retract, ready(), 0)),
        ("send starts", Example::Attempt),
        ("sent: published", Example::Sent(None)),
        ("sent: retry-safe", Example::Sent(Some(Class::RetrySafe))),
        ("sent: rejected", Example::Sent(Some(Class::Rejected))),
        ("sent: auth", Example::Sent(Some(Class::Auth))),
        ("sent: unknown", Example::Sent(Some(Class::Unknown))),
        ("looked: found", Example::Looked("found")),
        ("looked: absent", Example::Looked("absent")),
        ("looked: not yet", Example::Looked("not yet")),
        ("looked: cannot tell", Example::Looked("cannot tell")),
        ("looked: lookup failed", Example::Looked("transient")),
        ("looked: not ours", Example::Looked("not ours")),
        (
            "mark done --id 9",
            Example::Human(Act::MarkDone {
                id: Some("9".into()),
                fp: "f".into(),
            }),
        ),
        (
            "mark failed",
            Example::Human(Act::MarkFailed { fp: "f".into() }),
        ),
        ("mark retracted", Example::Human(Act::MarkRetracted)),
        (
            "retry --not-ours 8",
            Example::Human(Act::NotOurs {
                id: "8".into(),
                here: false,
            }),
        ),
        ("retract starts", Example::Retracting),
        ("a copy removed", Example::Removed),
        ("removal refused", Example::NotRemoved),
        ("next part landed", Example::PartLanded),
    ]
}

/// The rules every example is judged by: the defaults, on a target that looks posts up and
/// updates its copies.
pub fn rules() -> Rules {
    Rules {
        updates: true,
        retries: 0,
        ..Rules::default()
    }
}

/// What `next` makes of `event` on `line`.
pub fn outcome(line: Option<&KeyLine>, event: &Example) -> Step {
    let rules = rules();
    let tz = jiff::tz::TimeZone::UTC;
    let now: Timestamp = NOW.parse().expect("a time");
    let key: Key = KEY.parse().expect("a date");
    let (mode, hours) = match event {
        Example::Visit(mode, _, hours) => (mode.clone(), *hours),
        _ => (Mode::Run { backfill: false }, 0),
    };
    let now = now + jiff::SignedDuration::from_hours(hours);
    let ctx = Ctx {
        key,
        now,
        tz: &tz,
        stamp: now.to_string(),
        today: now.to_zoned_datetime(tz.clone()).date(),
        rules: &rules,
        mode: &mode,
        named: false,
        pinned: false,
        due: None,
        credential: Some("c"),
    };
    let receipts = [Receipt::id("9"), Receipt::id("10")];
    let landed = |n: usize| Landed {
        receipts: &receipts[..n],
        how: How::Confirmed,
        fp: "f",
        payload: "p",
        media: None,
        copy: None,
    };
    let failure = |class: Class| Failure {
        class,
        reason: "the server said so",
        cred: None,
        fp: Some("f"),
        payload: Some("p"),
        setup: false,
        wait: None,
        stop: class == Class::Auth,
        hint: None,
    };
    let attempt = [String::from("bb")];
    match event {
        Example::Visit(_, seen, _) => match crate::next(line, &Event::Visit(None), &ctx) {
            step if step.then == Then::Read => crate::next(line, &Event::Visit(Some(seen)), &ctx),
            step => step,
        },
        Example::Attempt => crate::next(
            line,
            &Event::Attempt {
                op: Op::Publish,
                fp: "f",
                marks: &attempt,
                payload: None,
                new_copy: false,
                native: &crate::Native::default(),
            },
            &ctx,
        ),
        Example::Sent(class) => {
            let answer = match class {
                None => Answer::Landed(Landed {
                    how: How::Published,
                    ..landed(1)
                }),
                Some(class) => Answer::Failed(failure(*class)),
            };
            crate::next(
                line,
                &Event::Answered {
                    answer,
                    before: line,
                    sends: 1,
                },
                &ctx,
            )
        }
        Example::Looked(what) => {
            let verdict = match *what {
                "found" => Verdict::Found(landed(1)),
                "absent" => Verdict::Absent,
                "not yet" => Verdict::NotYet(now + jiff::SignedDuration::from_secs(60)),
                "cannot tell" => Verdict::CannotTell("no exact lookup"),
                "transient" => Verdict::Transient("HTTP 503"),
                _ => Verdict::Foreign(&receipts[1..]),
            };
            crate::next(
                line,
                &Event::Looked {
                    verdict,
                    first: false,
                    looks: 1,
                    sends: 1,
                    sendable: true,
                },
                &ctx,
            )
        }
        Example::Human(act) => crate::next(line, &Event::Human(act), &ctx),
        Example::Retracting => crate::next(line, &Event::Retracting, &ctx),
        Example::Removed => crate::next(
            line,
            &Event::Removed {
                id: "7",
                verified: true,
            },
            &ctx,
        ),
        Example::PartLanded => {
            let part = crate::Part {
                id: "11".into(),
                native: None,
            };
            let n = line.map_or(0, |l| l.copies.current.parts.len());
            crate::next(
                line,
                &Event::PartLanded {
                    n,
                    part: &part,
                    url: None,
                    cut_off: false,
                },
                &ctx,
            )
        }
        Example::NotRemoved => crate::next(
            line,
            &Event::NotRemoved {
                class: Class::Rejected,
                reason: "HTTP 403",
                unsure: false,
                before: None,
            },
            &ctx,
        ),
    }
}

/// A line's state as the tables name it (`states` names them the same way).
pub fn name(line: Option<&KeyLine>) -> String {
    let Some(line) = line else {
        return "no line".into();
    };
    let mut name = match line.phase {
        Phase::Pending(Op::Publish) => "pending".to_string(),
        Phase::Pending(Op::Update) => "pending op=update".into(),
        Phase::Pending(Op::Retract) => "pending op=retract".into(),
        Phase::Done => "done".into(),
        Phase::Retracted { verified: true } => "retracted".into(),
        Phase::Retracted { verified: false } => "retracted verified=no".into(),
        Phase::Failed(class, looked) => {
            let mut name = format!("failed {class}");
            match looked {
                Looked::Absent => name.push_str(" lookup=absent"),
                Looked::Error => name.push_str(" lookup=error"),
                Looked::Nothing => {}
            }
            if line.by_hand {
                name = "failed by=hand".into();
            }
            name
        }
    };
    let mut more = Vec::new();
    if line.copies.current.generation > 0 {
        more.push(format!("generation={}", line.copies.current.generation));
    }
    if !line.copies.older.is_empty() {
        more.push(format!("older={}", line.copies.older.join(",")));
    }
    if !line.copies.duplicates.is_empty() {
        more.push(format!("copies={}", line.copies.duplicates.join(",")));
    }
    if !line.copies.foreign.is_empty() {
        more.push(format!("foreign={}", line.copies.foreign.join(",")));
    }
    if !line.copies.current.parts.is_empty() {
        more.push(format!("parts={}", line.copies.current.parts.len()));
    }
    if !more.is_empty() {
        name = format!("{name} {}", more.join(" "));
    }
    name
}

/// What comes next, in a few words.
fn then(then: &Then) -> String {
    match then {
        Then::Stop => String::new(),
        Then::Send(_) => "send".into(),
        Then::Look(_) => "look".into(),
        Then::ReadBack(_) => "read the copy back".into(),
        Then::Read => "read the post".into(),
        Then::Remove(id) => format!("remove {id}"),
        Then::Decide(decision) => match decision {
            Decision::Skip(skip) => format!("skip ({})", skip.word()),
            Decision::Publish {
                look_first,
                new_copy,
                ..
            } => match (look_first, new_copy) {
                (true, _) => "look, then send if absent".into(),
                (false, true) => "send as the next copy".into(),
                (false, false) => "send".into(),
            },
            Decision::Confirm => "look, then send if absent".into(),
            Decision::LookBeside => "look for further copies; nothing sent".into(),
            Decision::FinishUpdate => "read the copy back".into(),
            Decision::FinishRetract => "finish the retract".into(),
            Decision::CheckEdit { forced: true } => "send the edit".into(),
            Decision::CheckEdit { forced: false } => "send the edit if changed".into(),
            Decision::Wait(_) => "wait for a human".into(),
            Decision::EditFailed(_) => {
                "nothing sent; wait for a human (the edit was refused)".into()
            }
            Decision::Hold => "hold back".into(),
            Decision::Drop => "forget the line".into(),
            Decision::Broken(_) => "record the post's error".into(),
            Decision::Retract => "remove every live copy".into(),
            Decision::NothingToRetract(_) => "nothing to remove".into(),
        },
    }
}

fn exit(exit: Exit) -> &'static str {
    match exit {
        Exit::Ok => "0",
        Exit::RetryLater => "75",
        Exit::NeedsHuman => "1",
        Exit::Auth => "3",
        Exit::Usage => "2",
    }
}

/// The whole table, one section per state: each event, the line after it, what comes next and
/// the exit code it leaves.
pub fn markdown() -> String {
    let mut out = String::new();
    for (state, line) in states() {
        out.push_str(&format!(
            "\n#### `{state}`\n\n| event | line after | then | exit |\n|---|---|---|---|\n"
        ));
        for (event, example) in events() {
            let step = outcome(line.as_ref(), &example);
            let after = match &step.line {
                Change::Keep => "(unchanged)".to_string(),
                Change::Drop => "(forgotten)".to_string(),
                Change::Write(new) => name(Some(new)),
            };
            out.push_str(&format!(
                "| {event} | {after} | {} | {} |\n",
                then(&step.then),
                exit(step.exit)
            ));
        }
    }
    out
}

/// The short table of the README: each state, what a run does with it, and the exit code it
/// leaves (a plain run, its post due and unchanged).
pub fn summary() -> String {
    let mut out = String::from("| state | a run | exit |\n|---|---|---|\n");
    let (_, run) = events().into_iter().next().expect("the run event");
    for (state, line) in states() {
        let step = outcome(line.as_ref(), &run);
        out.push_str(&format!(
            "| `{state}` | {} | {} |\n",
            then(&step.then),
            exit(step.exit)
        ));
    }
    out
}
