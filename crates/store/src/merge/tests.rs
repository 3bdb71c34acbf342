//! The merge driver's own cases: the order of lines, what survives, and the files around them.

use super::*;

fn line(text: &str) -> KeyLine {
    KeyLine::of(&Record::parse(text).unwrap().unwrap())
}

fn merged(a: &str, b: &str) -> String {
    let (one, _) = life::merge(&line(a), &line(b));
    let (two, _) = life::merge(&line(b), &line(a));
    assert_eq!(one, two, "the merge depends on which side is ours");
    one.record().to_line().to_string()
}

#[test]
fn the_order_is_retracted_retracting_done_updating_pending_failed() {
    let failed = "2026-11-29 failed 2026-11-29T09:00:00Z class=retry-safe";
    let pending =
        "2026-11-29 pending 2026-11-29T08:00:00Z attempt=1 sent=maybe since=2026-11-29T08:00:00Z";
    let updating = "2026-11-29 pending 2026-11-29T08:30:00Z op=update id=7";
    let done = "2026-11-29 done 2026-11-29T07:00:00Z id=7";
    let retracting = "2026-11-29 pending 2026-11-29T06:00:00Z op=retract id=7";
    let retracted = "2026-11-29 retracted 2026-11-29T05:00:00Z id=7";
    let ladder = [failed, pending, updating, done, retracting, retracted];
    for (i, low) in ladder.iter().enumerate() {
        for high in &ladder[i + 1..] {
            let want = line(high).record().to_line().to_string();
            let got = merged(low, high);
            assert!(
                got.starts_with(&want[..want.find(' ').unwrap() + 12]),
                "{low} vs {high}: {got}"
            );
            assert_eq!(line(&got).phase, line(high).phase, "{low} vs {high}");
        }
    }
    // A later copy wins over everything of an earlier one, and keeps the earlier copy's id.
    let next = "2026-11-29 pending 2026-11-29T04:00:00Z generation=1 attempt=1 sent=maybe since=2026-11-29T04:00:00Z";
    let got = line(&merged(done, next));
    assert_eq!(got.copies.current.generation, 1);
    assert_eq!(got.copies.older, ["7"]);
    // Same rank: the later time.
    let later = "2026-11-29 done 2026-11-29T07:00:01Z id=7";
    assert_eq!(merged(done, later), later);
}

#[test]
fn an_unfinished_key_keeps_every_attempt_that_may_have_landed() {
    let a = "2026-11-29 failed 2026-11-29T09:00:00Z class=retry-safe sent=maybe since=2026-11-29T08:00:00Z marks=aa";
    let b = "2026-11-29 pending 2026-11-29T07:00:00Z attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=bb";
    assert_eq!(
        merged(a, b),
        "2026-11-29 pending 2026-11-29T07:00:00Z attempt=1 sent=maybe since=2026-11-29T07:00:00Z marks=bb,aa"
    );
}

#[test]
fn two_different_ids_are_a_conflict_that_keeps_both_visible() {
    let a = line("2026-11-29 done 2026-11-29T07:00:00Z id=7");
    let b = line("2026-11-29 done 2026-11-29T07:05:00Z id=9");
    let (record, conflict) = life::merge(&a, &b);
    assert_eq!(
        record.record().to_line(),
        "2026-11-29 done 2026-11-29T07:05:00Z id=9 copies=7"
    );
    assert_eq!(
        conflict,
        Some(Conflict {
            key: a.key,
            ids: ["7".into(), "9".into()]
        })
    );
    assert_eq!(life::merge(&a, &a).1, None);
}

#[test]
fn an_update_in_flight_and_a_done_line_of_one_copy_keep_both_ids() {
    // Issue 20 row 9: `pending op=update id=7` against `done id=9` dropped id 7.
    let a = line("2026-11-29 pending 2026-11-29T08:00:00Z op=update id=7");
    let b = line("2026-11-29 done 2026-11-29T07:00:00Z id=9");
    for (x, y) in [(&a, &b), (&b, &a)] {
        let (merged, conflict) = life::merge(x, y);
        assert_eq!(merged.live_ids(), ["9", "7"]);
        assert!(conflict.is_some());
    }
}

#[test]
fn a_retracted_copy_and_a_live_one_of_the_same_generation_keep_the_live_one() {
    let a = line("2026-11-29 retracted 2026-11-29T08:00:00Z id=7");
    let b = line("2026-11-29 done 2026-11-29T07:00:00Z id=9");
    let (merged, conflict) = life::merge(&a, &b);
    assert_eq!(merged.live_ids(), ["9"]);
    assert!(conflict.is_some());
    let c = line("2026-11-29 retracted 2026-11-29T07:00:00Z id=9");
    assert_eq!(life::merge(&a, &c).1, None, "both removed: nothing live");
}

#[test]
fn files_merge_per_key_with_comments_and_the_format_line() {
    let o = "# dayrun state format 2\n# my notes\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n";
    let a = "# dayrun state format 2\n# my notes\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n";
    let b = "# my notes\n# and theirs\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-30 pending 2026-11-30T07:00:00Z attempt=1\n";
    let (one, c1) = merge_texts(o, a, b).unwrap();
    let (two, c2) = merge_texts(o, b, a).unwrap();
    assert_eq!(one, two);
    assert!(c1.is_empty() && c2.is_empty());
    assert_eq!(
        one,
        format!(
            "# dayrun state format {FORMAT}\n# my notes\n# and theirs\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n2026-11-30 pending 2026-11-30T07:00:00Z attempt=1 sent=maybe since=2026-11-30T07:00:00Z\n"
        )
    );
    let newer = format!("# dayrun state format {}\n", FORMAT + 1);
    assert!(
        merge_texts(o, a, &newer)
            .unwrap_err()
            .contains("newer dayrun")
    );
}

/// Both merges of `a` and `b`, the same whichever side is ours: the line and the conflict.
fn merged_with_conflict(a: &str, b: &str) -> (String, Option<[String; 2]>) {
    let (one, c1) = life::merge(&line(a), &line(b));
    let (two, c2) = life::merge(&line(b), &line(a));
    assert_eq!(one, two, "the merge depends on which side is ours");
    assert_eq!(c1, c2, "the conflict depends on which side is ours");
    (one.record().to_line().to_string(), c1.map(|c| c.ids))
}

#[test]
fn a_thread_that_went_further_on_the_losing_side_keeps_its_later_parts() {
    // Issue 28 row 7: both runners resumed a killed thread; the one that sent part 2 wrote the
    // earlier line, and the later line of the other side dropped part 2 from `parts=`.
    let later = "2026-11-29 pending 2026-11-29T08:00:00Z id=a parts=a;ca,b;cb attempt=2";
    let further = "2026-11-29 pending 2026-11-29T07:30:00Z id=a parts=a;ca,b;cb,c;cc attempt=1";
    let (got, conflict) = merged_with_conflict(later, further);
    assert_eq!(
        got,
        "2026-11-29 pending 2026-11-29T08:00:00Z id=a parts=a;ca,b;cb,c;cc attempt=2 sent=maybe since=2026-11-29T07:30:00Z"
    );
    assert_eq!(conflict, None, "one thread, sent further on one side");
    // A retract on its way wins over the done line; the parts it has not removed yet, and
    // those only the done line knows, stay for it to remove.
    let retracting = "2026-11-29 pending 2026-11-29T09:00:00Z op=retract id=a parts=a";
    let done = "2026-11-29 done 2026-11-29T07:00:00Z id=a parts=a,b,c";
    let (got, conflict) = merged_with_conflict(retracting, done);
    assert_eq!(
        got,
        "2026-11-29 pending 2026-11-29T09:00:00Z op=retract id=a parts=a,b,c"
    );
    assert_eq!(conflict, None);
    // A line with no `parts=` is a thread of one part, its `id=`.
    let single = "2026-11-29 done 2026-11-29T09:00:00Z id=a";
    let (got, conflict) = merged_with_conflict(single, done);
    assert_eq!(got, "2026-11-29 done 2026-11-29T09:00:00Z id=a parts=a,b,c");
    assert_eq!(conflict, None);
    // The side that wins with nothing sent takes the loser's copy with its thread.
    let failed = "2026-11-29 failed 2026-11-29T09:00:00Z class=retry-safe";
    let pending = "2026-11-29 pending 2026-11-29T08:00:00Z id=a parts=a,b attempt=1";
    let (got, _) = merged_with_conflict(failed, pending);
    assert_eq!(
        line(&got)
            .copies
            .current
            .parts
            .iter()
            .map(|p| &p.id[..])
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn two_runners_that_each_sent_a_part_keep_both_and_say_so() {
    let one = "2026-11-29 done 2026-11-29T07:05:00Z id=a parts=a,b,c";
    let two = "2026-11-29 done 2026-11-29T07:00:00Z id=a parts=a,b,d,e";
    let (got, conflict) = merged_with_conflict(one, two);
    assert_eq!(
        got,
        "2026-11-29 done 2026-11-29T07:05:00Z id=a copies=d,e parts=a,b,c"
    );
    assert_eq!(conflict, Some(["c".into(), "d".into()]));
    // Two threads of one copy from their first part: the other's every part is a duplicate.
    let other = "2026-11-29 done 2026-11-29T07:00:00Z id=x parts=x,y";
    let (got, conflict) = merged_with_conflict(one, other);
    assert_eq!(
        got,
        "2026-11-29 done 2026-11-29T07:05:00Z id=a copies=x,y parts=a,b,c"
    );
    assert_eq!(conflict, Some(["a".into(), "x".into()]));
    // The copies either side had stay too, without repeats.
    let with_copies = "2026-11-29 done 2026-11-29T07:00:00Z id=a copies=d,q parts=a,b,d";
    let (got, conflict) = merged_with_conflict(one, with_copies);
    assert_eq!(
        got,
        "2026-11-29 done 2026-11-29T07:05:00Z id=a copies=d,q parts=a,b,c"
    );
    assert_eq!(conflict, Some(["c".into(), "d".into()]));
}

#[test]
fn an_earlier_generations_thread_is_kept_whole_as_history() {
    let next = "2026-11-29 pending 2026-11-29T04:00:00Z generation=1 attempt=1";
    let thread = "2026-11-29 done 2026-11-29T07:00:00Z id=a copies=q parts=a,b,c";
    let (got, conflict) = merged_with_conflict(next, thread);
    assert_eq!(line(&got).copies.older, ["a", "b", "c", "q"]);
    assert_eq!(conflict, None, "history, not a duplicate");
    assert_eq!(line(&got).live_ids(), ["a", "b", "c", "q"]);
    // A retracted thread of an earlier generation is not live: nothing of it is kept.
    let gone = "2026-11-29 retracted 2026-11-29T07:00:00Z id=a parts=a,b,c";
    let (got, _) = merged_with_conflict(next, gone);
    assert!(line(&got).copies.older.is_empty(), "{got}");
}

#[test]
fn a_retracted_thread_takes_its_parts_along_but_not_another_copys() {
    // The retract took the thread back from its first part: the other side's parts of it are
    // that thread, gone (dayrun's retracted line lists no parts: each left as it went).
    let retracted = "2026-11-29 retracted 2026-11-29T08:00:00Z id=a";
    let done = "2026-11-29 done 2026-11-29T07:00:00Z id=a parts=a,b,c";
    let (got, conflict) = merged_with_conflict(retracted, done);
    assert_eq!(got, retracted);
    assert_eq!(conflict, None);
    // A thread that starts elsewhere is another copy: live, every part of it kept.
    let other = "2026-11-29 done 2026-11-29T07:00:00Z id=x parts=x,y";
    let (got, conflict) = merged_with_conflict(retracted, other);
    assert_eq!(
        got,
        "2026-11-29 retracted 2026-11-29T08:00:00Z id=a copies=x,y"
    );
    assert_eq!(line(&got).live_ids(), ["x", "y"]);
    assert_eq!(conflict, Some(["a".into(), "x".into()]));
}

/// A line of a thread as dayrun writes one, or a human might: `phase`, which copy, its first
/// part, the parts after it, and what else the line lists.
fn thread_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let phase = prop_oneof![
        Just(("done", "")),
        Just(("pending", "")),
        Just(("pending", " op=update")),
        Just(("pending", " op=retract")),
        Just(("failed", " class=retry-safe")),
        Just(("retracted", "")),
    ];
    let rest = proptest::collection::vec(0u8..4, 0..4);
    let extra = (any::<bool>(), any::<bool>());
    (phase, 0u32..2, 6u8..9, 0u8..3, any::<bool>(), rest, extra).prop_map(
        |((status, op), generation, hour, root, listed, rest, (copies, older))| {
            let mut text = format!("2026-11-29 {status} 2026-11-29T{hour:02}:00:00Z{op}");
            // Root 0: nothing sent yet (never on a retracted line). A target never gives two
            // copies one id: each generation's ids are its own.
            let root = match (root, status) {
                (0, "retracted") => Some(format!("a{generation}")),
                (0, _) => None,
                (1, _) => Some(format!("a{generation}")),
                _ => Some(format!("x{generation}")),
            };
            if let Some(root) = &root {
                text.push_str(&format!(" id={root}"));
            }
            if copies {
                text.push_str(" copies=q");
            }
            if older {
                text.push_str(" older=o");
            }
            if generation > 0 {
                text.push_str(&format!(" generation={generation}"));
            }
            if let (Some(root), true) = (root, listed) {
                let mut parts = vec![root.clone()];
                for n in rest {
                    let id = format!("p{generation}{n}");
                    if !parts.contains(&id) {
                        parts.push(id);
                    }
                }
                text.push_str(&format!(" parts={}", parts.join(",")));
            }
            text
        },
    )
}

proptest::proptest! {
    /// Issue 28 row 7, for any two threads: the same line whichever side is ours, no live id of
    /// either side lost (but a thread the winning retract took back from its first part), and
    /// a line dayrun reads, its `id=` still part 0.
    #[test]
    fn threads_merge_the_same_either_way_and_keep_every_live_part(a in thread_line(), b in thread_line()) {
        let (x, y) = (line(&a), line(&b));
        let (one, c1) = life::merge(&x, &y);
        let (two, c2) = life::merge(&y, &x);
        proptest::prop_assert_eq!(&one, &two, "the merge depends on which side is ours");
        proptest::prop_assert_eq!(c1, c2);
        let live = one.live_ids();
        let taken_back = |side: &KeyLine| {
            matches!(one.phase, life::Phase::Retracted { .. })
                && one.copies.current.generation == side.copies.current.generation
                && one.copies.current.id.is_some()
                && side.copies.current.parts.first().map(|p| &p.id).or(side.copies.current.id.as_ref())
                    == one.copies.current.id.as_ref()
        };
        for side in [&x, &y] {
            let excused: Vec<String> = match taken_back(side) {
                true => side.copies.current.id.iter().chain(side.copies.current.parts.iter().map(|p| &p.id)).cloned().collect(),
                false => Vec::new(),
            };
            for id in side.live_ids() {
                proptest::prop_assert!(
                    live.contains(&id) || excused.contains(&id),
                    "{id} of {} lost: {}", side.record().to_line(), one.record().to_line()
                );
            }
        }
        let printed = one.record().to_line().to_string();
        proptest::prop_assert!(Record::parse(&printed).is_ok(), "{printed}");
        if let (Some(first), Some(id)) = (one.copies.current.parts.first(), &one.copies.current.id) {
            proptest::prop_assert_eq!(&first.id, id, "{}", printed);
        }
        let longest = x.copies.current.parts.len().max(y.copies.current.parts.len());
        proptest::prop_assert!(one.copies.current.parts.len() <= longest, "{printed}");
    }
}
