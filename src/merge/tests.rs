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
    assert_eq!(got.copy.generation, 1);
    assert_eq!(got.older, ["7"]);
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
