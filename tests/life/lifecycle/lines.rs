//! Rows 7, 8 and 10: what goes on a key's line, and what does not. A line that proves nothing
//! was sent goes with its post; `mark --id` writes one target's line; a reason says the last
//! attempt, and the attempts are counted in fields of their own.

use super::{KEY, at, field, line_of, morning, plus};
use crate::support::util::Project;

#[test]
fn row_07_a_broken_post_deleted_before_it_was_ever_published_is_forgotten_quietly() {
    let p = Project::new();
    p.file(&format!("content/{KEY}.md"), "no title here\n");
    morning(&p, &at(KEY, "07:00"), &[])
        .code(1)
        .stdout_has(&format!("content/{KEY}.md: no title"));
    assert_eq!(p.statuses("outbox"), [format!("{KEY} failed")]);
    // The writer gives up on it and deletes the file: the next run forgets it, in one line.
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    let out = morning(&p, &at(&plus(KEY, 1), "07:00"), &[]);
    out.code(0);
    let told: Vec<&str> = out.stdout.lines().filter(|l| l.contains(KEY)).collect();
    assert_eq!(told.len(), 1, "{}", out.stdout);
    assert!(told[0].contains("forgotten"), "{}", told[0]);
    assert!(
        p.state_lines("outbox").is_empty(),
        "{:?}",
        p.state_lines("outbox")
    );
    // Gone for good: the morning after says nothing of it.
    let out = morning(&p, &at(&plus(KEY, 2), "07:00"), &[]);
    out.code(0);
    assert!(!out.stdout.contains(KEY), "{}", out.stdout);
}

#[test]
fn row_08_mark_done_with_an_id_needs_a_target_when_there_are_several() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.a]\nkind = \"folder\"\ndir = \"a\"\n\n[targets.b]\nkind = \"folder\"\ndir = \"b\"\n",
    );
    p.post(KEY, "Published by hand on a");
    let before = p.tree(&["state/.lock"]);
    let out = p.run(&["mark", KEY, "done", "--id", "4812"]);
    out.code(2).stderr_has("--target");
    assert_eq!(
        p.tree(&["state/.lock"]),
        before,
        "a refused mark wrote something"
    );
    // Named, it goes to that target only.
    p.run(&["mark", KEY, "done", "--id", "4812", "--target", "a"])
        .code(0);
    assert_eq!(field(&line_of(&p, "a", KEY), "id").as_deref(), Some("4812"));
    assert!(p.state_lines("b").is_empty(), "{:?}", p.state_lines("b"));
}

/// Each call sends the post and loses the answer, saying which attempt it was.
const LOSES_EACH_ANSWER: &str = "#!/bin/sh\ncat > /dev/null\necho \"$DAYRUN_KEY\" >> calls.txt\necho \"attempt $(wc -l < calls.txt) lost its answer\" >&2\nexit 3\n";

/// Its lookup cannot tell.
const CANNOT_TELL: &str = "#!/bin/sh\ncat > /dev/null\necho 'the site is unreadable' >&2\nexit 2\n";

#[test]
fn row_10_after_several_attempts_the_reason_says_the_last_and_the_counts_have_fields() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\nconfirm = [\"./confirm.sh\"]\ntimeout_secs = 2\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\ndedup = false\n",
    );
    p.script("publish.sh", LOSES_EACH_ANSWER)
        .script("confirm.sh", CANNOT_TELL);
    p.post(KEY, "Today");
    morning(&p, &at(KEY, "07:00"), &[]).code(1);
    // The human looked, twice, and found nothing: sent again each time, lost again each time.
    for now in ["08:00", "09:00"] {
        p.run_at(&at(KEY, now), &["retry", KEY, "--absent"]).code(1);
    }
    assert_eq!(p.read("calls.txt").lines().count(), 3);
    // The next morning's run tells it once, without wrapping.
    let out = morning(&p, &at(KEY, "10:00"), &[]);
    out.code(1);
    assert!(
        !out.stdout.contains("outcome unknown (outcome unknown"),
        "{}",
        out.stdout
    );
    let line = line_of(&p, "site", KEY);
    let reason = field(&line, "reason").unwrap_or_default();
    assert_eq!(reason.matches("outcome unknown").count(), 1, "{line}");
    assert!(
        reason.contains("attempt 3 lost its answer")
            && !reason.contains("attempt 1")
            && !reason.contains("attempt 2"),
        "the reason is not the last attempt's: {line}"
    );
    assert_eq!(field(&line, "attempt").as_deref(), Some("3"), "{line}");
    // The first of the three failures was the morning's, at 07:00.
    let first = field(&line, "first_failure").unwrap_or_default();
    assert!(
        first.starts_with("2026-11-29T07:00"),
        "first_failure={first} is not when the first attempt failed (07:00): {line}"
    );
}
