//! Rows 2, 3 and 11: what a key that waits makes every run exit with as the days pass. A key
//! that needs a human after an attempt fails every run, whatever its age; an outage turns red
//! after `escalate_after` and holds back what slips past the catch-up window; the dry run and
//! `status` exit as the run would.

use super::{KEY, at, blog, field, line_of, morning, plus, status};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::Project;

/// POSTs that reached the fake.
fn posts_sent(api: &PostsApi) -> usize {
    api.state.lock().unwrap().post_times.len()
}

/// What the fake meets a first morning with.
type Setup = fn(&PostsApi);

/// The POST's answer is lost, and the server refuses the lookup (HTTP 400): cannot tell.
fn lookup_refused(api: &PostsApi) {
    api.faults(&[Fault::CommitClose]).list_faults(&[400]);
}

/// The server refuses the post (HTTP 422).
fn rejected(api: &PostsApi) {
    api.faults(&[Fault::Reject(422)]);
}

/// Connection refused.
fn down(api: &PostsApi) {
    api.server.down();
}

#[test]
fn row_02_a_key_that_needs_a_human_after_an_attempt_fails_every_run_whatever_its_age() {
    // Three ways to need a human after an attempt: what the first morning meets, what it
    // exits with, and what the summary counts the key as from then on.
    let cases: [(&str, Setup, i32, &str); 3] = [
        ("cannot tell", lookup_refused, 1, "1 failed"),
        ("rejected", rejected, 1, "1 failed"),
        ("held back", down, 75, "1 held back"),
    ];
    for (case, setup, first_code, counted) in cases {
        let api = PostsApi::start();
        let p = blog(&api, "dedup = false");
        setup(&api);
        morning(&p, &at(KEY, "07:00"), &[]).code(first_code);
        let sent = posts_sent(&api);
        // Past the catch-up window (3 days), and far past it: every run exits 1 and counts it.
        for days in [4, 10, 30, 31] {
            let out = morning(&p, &at(&plus(KEY, days), "07:00"), &[]);
            assert_eq!(
                out.code, 1,
                "{case}, {days} days on: a key that needs a human went quiet\n{}",
                out.stdout
            );
            out.stdout_has(&format!("blog: {counted}"));
        }
        assert_eq!(posts_sent(&api), sent, "{case}: sent again by itself");
        assert_eq!(p.statuses("blog"), [format!("{KEY} failed")], "{case}");
    }

    // A post that broke before any attempt keeps the old rule: 1 within the window, then quiet.
    let p = Project::new();
    p.file(&format!("content/{KEY}.md"), "no title here\n");
    morning(&p, &at(KEY, "07:00"), &[])
        .code(1)
        .stdout_has(&format!("content/{KEY}.md: no title"));
    morning(&p, &at(&plus(KEY, 3), "07:00"), &[]).code(1);
    morning(&p, &at(&plus(KEY, 4), "07:00"), &[]).code(0);
    morning(&p, &at(&plus(KEY, 30), "07:00"), &[]).code(0);
}

#[test]
fn row_03_an_outage_turns_red_after_escalate_after_and_holds_back_what_falls_out_of_the_window() {
    let first = "2026-11-01";
    let day = |n: i64| plus(first, n);
    let api = PostsApi::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        super::http_table(&api, "blog", "dedup = false"),
    );
    for n in 0..=10 {
        p.post(&day(n), &format!("Post {n}"));
    }
    // Connection refused every morning for ten mornings.
    api.server.down();
    let tried = |key: &str| {
        let log = std::fs::read_to_string(p.path("state/blog.log")).unwrap_or_default();
        log.matches(&format!(" {key} publish")).count()
    };
    morning(&p, &at(&day(0), "07:00"), &[])
        .code(75)
        .stdout_has("failed (retry-safe)");
    for n in 1..=9 {
        let held = (n - 3).max(0);
        let before = tried(&day(0));
        let out = morning(&p, &at(&day(n), "07:00"), &[]);
        // Red from the second morning: the first failure is 24 hours old (> 20 h).
        assert_eq!(out.code, 1, "morning {n}\n{}", out.stdout);
        if held > 0 {
            // The oldest keys are past the 3-day window: held back, not sent, and said.
            assert_eq!(
                tried(&day(0)),
                before,
                "morning {n}: a held-back key was sent"
            );
            out.stdout_has(&format!("{held} held back"))
                .stdout_has("`dayrun run --backfill`")
                .stdout_has("`dayrun retry KEY…`")
                .stdout_has("`dayrun mark KEY… failed`");
        }
    }
    // The server comes back: the first run publishes the catch-up window only.
    api.server.up();
    let out = morning(&p, &at(&day(10), "07:00"), &[]);
    out.code(1)
        .stdout_has("4 published")
        .stdout_has("7 held back");
    let sent: Vec<String> = api.commits().into_keys().collect();
    assert_eq!(sent, [day(7), day(8), day(9), day(10)]);
    // `mark` and `retry` take several keys.
    p.run_at(
        &at(&day(10), "08:00"),
        &["mark", &day(0), &day(1), "failed"],
    )
    .code(0);
    for key in [day(0), day(1)] {
        assert_eq!(
            field(&line_of(&p, "blog", &key), "by").as_deref(),
            Some("hand")
        );
    }
    p.run_at(&at(&day(10), "08:10"), &["retry", &day(2), &day(3)])
        .code(0);
    morning(&p, &at(&day(10), "09:00"), &[])
        .code(1)
        .stdout_has("3 held back");
    morning(&p, &at(&day(10), "10:00"), &["--backfill"]).code(0);
    let sent: Vec<String> = api.commits().into_keys().collect();
    assert_eq!(sent, (2..=10).map(day).collect::<Vec<_>>());
    assert!(api.commits().values().all(|n| *n == 1));
}

#[test]
fn row_11_the_dry_run_and_status_exit_as_the_run_would() {
    let api = PostsApi::start();
    let p = blog(&api, "dedup = false");
    // A post due and never tried: nothing waits.
    morning(&p, &at(KEY, "06:00"), &["--dry-run"]).code(0);
    status(&p, &at(KEY, "06:00")).code(0);
    // The server is down: the run leaves a retry-safe failure for the next run.
    api.server.down();
    morning(&p, &at(KEY, "07:00"), &[]).code(75);
    let before = p.tree(&["state/.lock"]);
    morning(&p, &at(KEY, "08:00"), &["--dry-run"]).code(75);
    status(&p, &at(KEY, "08:00")).code(75);
    assert_eq!(
        p.tree(&["state/.lock"]),
        before,
        "a dry run wrote something"
    );
    // Past `escalate_after`, all three say 1.
    let later = at(&plus(KEY, 1), "04:00");
    morning(&p, &later, &["--dry-run"]).code(1);
    status(&p, &later).code(1);
    morning(&p, &later, &[]).code(1);
}
