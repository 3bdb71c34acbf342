//! `kind = "http"` against the fake posts API: every failure class, confirmation, dedup.

use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";
const TOKEN: &str = "tok-SECRET-123";

/// The README's recommended setup: `list_url` is an exact query by key, and the fake shows a
/// new post at once (no settling).
fn project(api: &PostsApi, extra: &str) -> Project {
    let p = Project::new();
    let list = api.server.url("/posts");
    p.file(
        "dayrun.toml",
        api.config(
            "blog",
            &format!("token_file = \"secrets/blog.token\"\nsettle_secs = 0\n{extra}"),
        )
        .replace(
            &format!("list_url = \"{list}\""),
            &format!("list_url = \"{list}?key={{key}}\""),
        ),
    );
    p.secret(
        "secrets/blog.token",
        format!(
            "{TOKEN}
"
        ),
    );
    api.token(TOKEN);
    p.post("2026-11-29", "Today");
    p
}

/// No output, state or trace may ever contain the token.
fn assert_no_secret(p: &Project, outputs: &[&crate::support::util::Output]) {
    for out in outputs {
        assert!(
            !out.stdout.contains(TOKEN) && !out.stderr.contains(TOKEN),
            "{out:?}"
        );
    }
    for (path, _) in p.tree(&[]) {
        if path.starts_with("state/") && !path.ends_with('/') {
            assert!(!p.read(&path).contains(TOKEN), "{path} holds the token");
        }
    }
}

#[test]
fn publishes_the_documented_body_with_a_stable_idempotency_key() {
    let api = PostsApi::start();
    let p = project(&api, "");
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [a, b]\n---\n# Today\n\nSummary here.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("2026-11-29 blog published id=p-1");
    let posts = api.committed();
    assert_eq!(posts.len(), 1);
    let body = &posts[0].body;
    assert_eq!(body["key"], "2026-11-29");
    assert_eq!(body["title"], "Today");
    assert_eq!(body["tags"], serde_json::json!(["a", "b"]));
    assert_eq!(body["summary"], "Summary here.");
    assert_eq!(body["markdown"], "Summary here.\n");
    assert_eq!(body["html"], "<p>Summary here.</p>\n");
    assert_eq!(body["fingerprint"].as_str().unwrap().len(), 64);
    assert_eq!(posts[0].idempotency_key.len(), 64);
    assert!(p.state_lines("blog")[0].contains(" id=p-1 "));
    assert!(p.state_lines("blog")[0].contains(" fp="));
    assert!(p.state_lines("blog")[0].contains("url=https://example.test/p-1"));
    let again = p.run(&["run", TODAY]);
    again.code(0);
    assert_eq!(api.commits_of("2026-11-29"), 1);
    assert_no_secret(&p, &[&out, &again]);
}

#[test]
fn refused_connections_are_retried_then_left_for_the_next_run() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false");
    api.server.down();
    let out = p.run(&["run", TODAY]);
    out.code(75).stdout_has("failed (retry-safe)");
    assert!(
        p.state_lines("blog")[0].contains("failed")
            && p.state_lines("blog")[0].contains("class=retry-safe")
    );
    let log = p.read("state/blog.log");
    assert_eq!(
        log.matches("publish retry-safe").count(),
        2,
        "two retries in the run:\n{log}"
    );
    api.server.up();
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 blog published id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn an_answer_lost_after_commit_is_confirmed_not_resent() {
    for fault in [
        Fault::CommitHang,
        Fault::CommitClose,
        Fault::CommitStatus(500),
        Fault::CommitStatus(502),
        Fault::CommitStatus(504),
        Fault::CommitNoReceipt,
    ] {
        let api = PostsApi::start();
        let p = project(&api, "");
        api.faults(&[fault]);
        p.run(&["run", TODAY])
            .code(0)
            .stdout_has("2026-11-29 blog confirmed id=p-1");
        assert_eq!(api.commits_of("2026-11-29"), 1, "{fault:?}");
        let log = p.read("state/blog.log");
        assert!(
            log.contains("publish unknown") && log.contains("confirm done id=p-1"),
            "{fault:?}\n{log}"
        );
        assert_eq!(p.statuses("blog"), ["2026-11-29 done"]);
    }
}

#[test]
fn confirmation_matches_by_title_when_the_server_does_not_echo_the_key() {
    let api = PostsApi::start();
    let p = project(&api, "");
    api.state.lock().unwrap().hide_key = true;
    api.faults(&[Fault::CommitHang]);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 blog confirmed id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn without_a_list_an_unknown_outcome_goes_to_a_human() {
    let api = PostsApi::start();
    let p = Project::new();
    let config = api.config("blog", "").replace(
        &format!("list_url = \"{}\"\n", api.server.url("/posts")),
        "",
    );
    let advice = "look for a post with key 2026-11-29 (Idempotency-Key ";
    p.file("dayrun.toml", config);
    p.post("2026-11-29", "Today");
    api.faults(&[Fault::CommitHang]);
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("failed (unknown)")
        .stdout_has("the lookup cannot tell (blog cannot look posts up")
        .stdout_has(advice)
        .stdout_has("if it is there: `dayrun mark 2026-11-29 done --id ID --target blog`; if it is not: `dayrun retry 2026-11-29 --absent --target blog`");
    assert!(p.state_lines("blog")[0].contains("class=unknown"));
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("2026-11-29 blog waiting outcome unknown");
    assert_eq!(api.commits_of("2026-11-29"), 1, "resent blind");
    p.run(&["mark", "2026-11-29", "done", "--id", "p-1"])
        .code(0);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn an_unreadable_list_never_leads_to_a_resend() {
    let api = PostsApi::start();
    let p = project(&api, "");
    // Every look of the first run fails (dedup's, then three after the lost answer): the
    // key waits for the next run to look again (75), and nothing is sent again.
    api.faults(&[Fault::CommitHang])
        .list_faults(&[200, 500, 500, 500]);
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("the lookup failed (list: HTTP 500");
    assert_eq!(api.commits_of("2026-11-29"), 1);
    // The human asks for a retry: it looks first, finds the post, and does not send.
    p.run(&["retry", "2026-11-29"])
        .code(0)
        .stdout_has("2026-11-29 blog confirmed id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn rejected_without_commit_and_confirmed_absent_is_sent_again() {
    let api = PostsApi::start();
    let p = project(&api, "");
    api.faults(&[Fault::Reject(503)]);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 blog published id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
    assert!(p.read("state/blog.log").contains("confirm absent"));
}

#[test]
fn credentials_refused_stop_the_target_and_name_the_file() {
    for status in [401, 403] {
        let api = PostsApi::start();
        let p = project(&api, "dedup = false");
        p.post("2026-11-28", "Yesterday");
        api.faults(&[Fault::Reject(status)]);
        let out = p.run(&["run", TODAY]);
        out.code(3)
            .stdout_has(&format!("failed (auth): POST: HTTP {status}"))
            .stdout_has("renew them in secrets/blog.token")
            .stdout_has("2026-11-29 blog skip target stopped for this run: credentials rejected");
        assert_eq!(
            api.server.request_count(),
            1,
            "HTTP {status}: kept sending after auth failure"
        );
        assert!(p.state_lines("blog")[0].contains("class=auth"));
        // Unchanged credential: not re-attempted by itself (and every run says so: 3).
        p.run(&["run", TODAY, "--key", "2026-11-28"])
            .code(3)
            .stdout_has("waiting failed (auth");
        // Renewed credential: re-attempted by itself.
        p.file("secrets/blog.token", "tok-SECRET-123\n# renewed\n");
        let renewed = p.run(&["run", TODAY]);
        assert_no_secret(&p, &[&out, &renewed]);
    }
}

#[test]
fn a_renewed_token_is_noticed() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false");
    api.token("new-token");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("secrets/blog.token");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("waiting failed (auth");
    p.file("secrets/blog.token", "new-token\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("(credential changed since it failed)")
        .stdout_has("published");
}

#[test]
fn validation_rejections_are_recorded_and_other_keys_go_on() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false");
    p.post("2026-11-28", "Yesterday");
    api.faults(&[Fault::Reject(422)]);
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("2026-11-28 blog failed (rejected): POST: HTTP 422: {\"error\":\"rejected with 422\",\"field\":\"title\"}")
        .stdout_has("2026-11-29 blog published");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("2026-11-28 blog waiting failed (rejected");
    assert_eq!(api.committed().len(), 1);
    p.file("content/2026-11-28.md", "# Yesterday, fixed\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-28 blog published");
}

#[test]
fn rate_limits_wait_within_the_cap_and_stop_beyond_it() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false\nretry_after_cap_secs = 5");
    api.faults(&[Fault::RateLimit(0)]);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-27", "Before");
    api.faults(&[Fault::RateLimit(3600)]);
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("failed (retry-safe)")
        .stdout_has("skip target stopped for this run: rate limited for 3600 s");
    assert_eq!(api.committed().len(), 1);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.committed().len(), 3);
}

#[test]
fn a_429_without_retry_after_waits_the_backoff() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false");
    api.faults(&[Fault::Reject(429)]);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let log = p.read("state/blog.log");
    assert!(
        log.contains("publish retry-safe class=retry-safe reason=\"POST: HTTP 429"),
        "{log}"
    );
    assert!(
        log.contains("next_in_ms=10"),
        "the backoff (0.01 s) was not used:\n{log}"
    );
}

#[test]
fn a_post_already_on_the_server_is_not_sent_again() {
    let api = PostsApi::start();
    let p = project(&api, "");
    api.faults(&[Fault::CommitHang]);
    // Another tool (or a lost state file) already published it:
    let other = Project::new();
    other.file("dayrun.toml", api.config("blog", "token_file = \"t\""));
    other.file("t", TOKEN);
    other.post("2026-11-29", "Today");
    other.run(&["run", TODAY]).code(0);
    assert_eq!(api.commits_of("2026-11-29"), 1);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 blog already there id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
    assert!(p.state_lines("blog")[0].contains("dedup=1"));
    let status = p.run(&["status", "--json", TODAY]);
    let doc: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(doc["targets"][0]["counts"]["dedup"], 1);
}

#[test]
fn credential_files_are_checked_before_any_side_effect() {
    let api = PostsApi::start();
    let p = project(&api, "");
    std::fs::remove_file(p.path("secrets/blog.token")).unwrap();
    p.run(&["run", TODAY])
        .code(2)
        .stdout_has("cannot read the token file secrets/blog.token");
    p.file("secrets/blog.token", "\n");
    p.run(&["run", TODAY])
        .code(2)
        .stdout_has("the token file secrets/blog.token is empty");
    assert_eq!(api.server.request_count(), 0);
    p.file_mode("secrets/blog.token", TOKEN, 0o644);
    let out = p.run(&["run", TODAY]);
    out.code(0).stderr_has(
        "secrets/blog.token can be read by other users; run `chmod 600 secrets/blog.token`",
    );
    assert_no_secret(&p, &[&out]);
}

#[test]
fn dry_run_makes_no_network_call() {
    let api = PostsApi::start();
    let p = project(&api, "");
    let out = p.run(&["run", "--dry-run", TODAY]);
    out.code(0)
        .stdout_has("2026-11-29 blog publish (due) \"Today\"");
    assert_eq!(api.server.request_count(), 0);
    assert!(!p.exists("state/blog.state"));
    assert_no_secret(&p, &[&out]);
}

#[test]
fn a_pending_key_at_start_is_confirmed_on_the_server() {
    let api = PostsApi::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    let line = p.read("state/blog.state").replace(" done ", " pending ");
    p.file("state/blog.state", line);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 blog confirmed id=p-1");
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn header_file_and_json_pointers_fit_another_api_shape() {
    let api = PostsApi::start();
    {
        let mut state = api.state.lock().unwrap();
        state.cookie = Some("session=s3ss10n".into());
        state.nested = true;
    }
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(
            "blog",
            "header_file = \"secrets/blog.headers\"\nid_pointer = \"/data/id\"\nurl_pointer = \"/data/link\"\nitems_pointer = \"/items\"",
        )
        .replace("list_url", "# list_url"),
    );
    p.secret("secrets/blog.headers", "Cookie: session=s3ss10n\n");
    p.post("2026-11-29", "Today");
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("2026-11-29 blog published id=p-1");
    assert!(p.state_lines("blog")[0].contains("url=https://example.test/p-1"));
    assert!(!out.stdout.contains("s3ss10n") && !out.stderr.contains("s3ss10n"));
    // With the list, pointers apply to each item: a lost answer is confirmed.
    let config = p
        .read("dayrun.toml")
        .replace("# list_url", "list_url")
        .replace("id_pointer = \"/data/id\"", "id_pointer = \"/id\"");
    p.file("dayrun.toml", config);
    p.post("2026-11-28", "Yesterday");
    api.faults(&[Fault::CommitHang]);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-28 blog confirmed id=p-2");
    assert_eq!(api.commits_of("2026-11-28"), 1);
    assert!(!p.read("state/blog.log").contains("s3ss10n"));
}

#[test]
fn writes_to_one_target_are_paced() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false\nmin_interval_secs = 0.2");
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-27", "Before");
    p.run(&["run", TODAY]).code(0);
    let times = api.state.lock().unwrap().post_times.clone();
    assert_eq!(times.len(), 3);
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= std::time::Duration::from_millis(190),
            "writes only {gap:?} apart"
        );
    }
}

#[test]
fn an_auth_failure_stops_only_its_own_target() {
    let api = PostsApi::start();
    let p = project(&api, "dedup = false");
    let config = format!(
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n{}",
        p.read("dayrun.toml")
    );
    p.file("dayrun.toml", config);
    p.post("2026-11-28", "Yesterday");
    api.faults(&[Fault::Reject(401)]);
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("2026-11-28 outbox published")
        .stdout_has("2026-11-29 outbox published")
        .stdout_has("2026-11-29 blog skip target stopped for this run");
    assert_eq!(p.statuses("outbox"), ["2026-11-28 done", "2026-11-29 done"]);
    assert!(api.committed().is_empty());
    // The blog key waits for a renewed credential (or `dayrun retry`): every run says so
    // with the credentials' own exit code.
    p.run(&["run", TODAY, "--target", "blog"])
        .code(3)
        .stdout_has("waiting failed (auth");
}

#[test]
fn check_online_proves_credentials_and_lookups_without_writing() {
    // Issue 10: `dayrun check --online` logs in and reads, never writes.
    let api = PostsApi::start();
    api.token(TOKEN);
    let p = project(&api, "");
    let today = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
        .to_string();
    p.post(&today, "Today");
    p.run(&["check", "--online"]).code(0).stdout_has(&format!(
        "online blog: lookup works; today's post {today} is not there"
    ));
    p.secret("secrets/blog.token", "a-revoked-token");
    p.run(&["check", "--online"])
        .code(3)
        .stdout_has("online blog: FAILED: list: HTTP 401")
        .stdout_has("renew them in secrets/blog.token");
    assert!(api.committed().is_empty(), "check wrote");
    assert!(!p.exists("state/blog.state"));
}
