//! Retract's edges: no `--yes` without a terminal, `--dry-run`, a lost answer, a refused
//! credential, keys that are not done or have no id, `--target`, the state format line, and
//! the links file.

use super::{KEY, TODAY, http_project, said};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::Project;

/// A folder project with KEY published.
fn published_folder() -> Project {
    let p = Project::new();
    p.post(KEY, "Today");
    p.run(&["run", TODAY]).code(0);
    p
}

#[test]
fn without_yes_and_without_a_terminal_it_refuses_and_changes_nothing() {
    let p = published_folder();
    let before = p.tree(&["state/.lock"]);
    let out = p.run(&["retract", KEY]);
    out.code(2);
    said(&out, "--yes");
    assert_eq!(p.tree(&["state/.lock"]), before, "something changed");
    assert!(p.exists("outbox/2026-11-29.html"));
}

#[test]
fn dry_run_names_what_it_would_remove_and_sends_nothing() {
    let api = PostsApi::start();
    let p = http_project(&api);
    p.run(&["run", TODAY]).code(0);
    let (before, requests) = (p.tree(&["state/.lock"]), api.server.request_count());
    p.run(&["retract", KEY, "--yes", "--dry-run"])
        .code(0)
        .stdout_has(&format!("{KEY} blog retract id=p-1 (would remove"));
    assert_eq!(
        api.server.request_count(),
        requests,
        "a dry run used the network"
    );
    assert_eq!(
        p.tree(&["state/.lock"]),
        before,
        "a dry run changed something"
    );
    assert_eq!(api.commits_of(KEY), 1);
    // The folder kind too: the files stay.
    let p = published_folder();
    let before = p.tree(&["state/.lock"]);
    p.run(&["retract", KEY, "--yes", "--dry-run"])
        .code(0)
        .stdout_has(&format!(
            "{KEY} outbox retract id=outbox/2026-11-29.html (would remove"
        ));
    assert_eq!(p.tree(&["state/.lock"]), before);
}

#[test]
fn a_lost_answer_on_the_remove_is_verified_by_lookup_not_resent() {
    for fault in [
        Fault::CommitHang,
        Fault::CommitClose,
        Fault::CommitStatus(502),
    ] {
        let api = PostsApi::start();
        let p = http_project(&api);
        p.run(&["run", TODAY]).code(0);
        api.delete_faults(&[fault]);
        p.run(&["retract", KEY, "--yes"])
            .code(0)
            .stdout_has(&format!("{KEY} blog retracted id=p-1"));
        assert_eq!(
            p.statuses("blog"),
            [format!("{KEY} retracted")],
            "{fault:?}"
        );
        assert!(
            !p.state_lines("blog")[0].contains("verified=no"),
            "{fault:?}"
        );
        assert_eq!(api.delete_requests(), 1, "{fault:?}: the DELETE was resent");
        assert_eq!(api.removed().len(), 1, "{fault:?}");
    }
}

#[test]
fn an_outcome_the_lookup_cannot_tell_stays_pending_and_the_next_run_finishes_it() {
    let api = PostsApi::start();
    let p = http_project(&api);
    p.run(&["run", TODAY]).code(0);
    api.delete_faults(&[Fault::CommitHang]);
    api.list_faults(&[503; 20]);
    let out = p.run(&["retract", KEY, "--yes"]);
    assert_ne!(out.code, 0, "{out:?}");
    let line = &p.state_lines("blog")[0];
    assert!(
        line.starts_with(&format!("{KEY} pending ")) && line.contains("op=retract"),
        "{line}"
    );
    assert!(line.contains(" id=p-1"), "{line}");
    api.state.lock().unwrap().list_faults.clear();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(p.statuses("blog"), [format!("{KEY} retracted")]);
    assert_eq!(api.delete_requests(), 1, "gone already: no second DELETE");
    assert_eq!(
        api.commits_of(KEY),
        0,
        "the pending retract was published again"
    );
}

#[test]
fn a_refused_credential_on_the_remove_puts_the_line_back_to_done() {
    let api = PostsApi::start();
    let p = http_project(&api);
    p.run(&["run", TODAY]).code(0);
    let line = p.state_lines("blog")[0].clone();
    api.delete_faults(&[Fault::Reject(401)]);
    p.run(&["retract", KEY, "--yes"])
        .code(3)
        .stdout_has(&format!("{KEY} blog failed (auth)"));
    assert_eq!(p.statuses("blog"), [format!("{KEY} done")]);
    assert!(p.state_lines("blog")[0].contains(" id=p-1"));
    // The same fields, in whatever order.
    let fields = |l: &str| {
        let mut f: Vec<String> = l.split_whitespace().map(str::to_string).collect();
        f.sort();
        f
    };
    assert_eq!(
        fields(&p.state_lines("blog")[0]),
        fields(&line),
        "the done line changed"
    );
    assert_eq!(api.commits_of(KEY), 1);
}

#[test]
fn a_key_that_is_not_done_is_skipped() {
    let p = Project::new();
    p.post(KEY, "Today");
    let out = p.run(&["retract", KEY, "--yes"]);
    out.stdout_has(&format!("{KEY} outbox skip not published ("));
    assert!([0, 1].contains(&out.code), "{out:?}");
    assert!(!p.exists("outbox"));
    p.run(&["mark", KEY, "failed"]).code(0);
    let line = p.state_lines("outbox");
    let out = p.run(&["retract", KEY, "--yes"]);
    out.stdout_has(&format!("{KEY} outbox skip not published (failed)"));
    assert!([0, 1].contains(&out.code), "{out:?}");
    assert_eq!(p.state_lines("outbox"), line);
}

#[test]
fn a_done_key_without_an_id_fails_naming_the_id() {
    let api = PostsApi::start();
    let p = http_project(&api);
    p.run(&["mark", KEY, "done"]).code(0);
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(1)
        .stdout_has(&format!("{KEY} blog failed"))
        .stdout_has("no id recorded");
    assert_eq!(p.statuses("blog"), [format!("{KEY} done")]);
    assert_eq!(api.delete_requests(), 0);
}

#[test]
fn target_selects_where_to_retract() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n[targets.copy]\nkind = \"folder\"\ndir = \"copy\"\n",
    );
    p.post(KEY, "Today");
    p.run(&["run", TODAY]).code(0);
    p.run(&["retract", KEY, "--yes", "--target", "copy"])
        .code(0)
        .stdout_has(&format!("{KEY} copy retracted id=copy/2026-11-29.html"));
    assert_eq!(p.statuses("copy"), [format!("{KEY} retracted")]);
    assert_eq!(p.statuses("outbox"), [format!("{KEY} done")]);
    assert!(p.exists("outbox/2026-11-29.html") && !p.exists("copy/2026-11-29.html"));
}

#[test]
fn a_state_file_from_a_newer_dayrun_is_refused() {
    let p = Project::new();
    p.post(KEY, "Today");
    p.file(
        "state/outbox.state",
        "# dayrun state format 4\n2026-11-29 done 2026-11-29T08:00:00+00:00 id=outbox/2026-11-29.html\n",
    );
    let before = p.tree(&["state/.lock"]);
    let commands: [&[&str]; 6] = [
        &["run", TODAY],
        &["status", TODAY],
        &["mark", KEY, "done", "--id", "x"],
        &["retract", KEY, "--yes"],
        &["retry", KEY, "--force"],
        &["adopt"],
    ];
    for args in commands {
        let out = p.run(args);
        out.code(2);
        said(&out, "written by a newer dayrun (format 4");
        assert_eq!(
            p.tree(&["state/.lock"]),
            before,
            "{args:?} changed something"
        );
    }
    // Format 2 (dayrun 0.4) is read as it is.
    p.file(
        "state/outbox.state",
        "# dayrun state format 2\n2026-11-29 done 2026-11-29T08:00:00+00:00 id=outbox/2026-11-29.html\n",
    );
    p.run(&["status", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} outbox: done"));
}

#[test]
fn the_format_line_comes_first_and_hand_comments_stay() {
    let p = published_folder();
    let state = p.read("state/outbox.state");
    // The hand comment above the records (the format line dayrun wrote is left out).
    let records: String = state.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert!(state.starts_with("# dayrun state format 3\n"), "{state}");
    p.file(
        "state/outbox.state",
        format!("# published by hand\n{records}"),
    );
    p.run(&["retract", KEY, "--yes"]).code(0);
    let text = p.read("state/outbox.state");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# dayrun state format 3", "{text}");
    assert!(lines.contains(&"# published by hand"), "{text}");
    assert_eq!(text.matches("# dayrun state format").count(), 1, "{text}");
    // A second rewrite does not add another.
    p.run(&["retry", KEY, "--force"]).code(0);
    let text = p.read("state/outbox.state");
    assert!(text.starts_with("# dayrun state format 3\n"), "{text}");
    assert_eq!(text.matches("# dayrun state format").count(), 1, "{text}");
}

#[test]
fn the_links_file_leaves_retracted_keys_out() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "links_file = \"data/syndication.json\"\n\n[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n",
    );
    p.post("2026-11-28", "Yesterday").post(KEY, "Today");
    p.run(&["run", TODAY]).code(0);
    assert!(p.read("data/syndication.json").contains(KEY));
    p.run(&["retract", KEY, "--yes"]).code(0);
    let links: serde_json::Value = serde_json::from_str(&p.read("data/syndication.json")).unwrap();
    assert_eq!(
        links,
        serde_json::json!({"2026-11-28": {"outbox": {"id": "outbox/2026-11-28.html"}}})
    );
}
