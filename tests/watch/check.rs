//! `status --check`: one monitoring-plugin line with performance data, and its exit: 0 OK,
//! 1 WARNING, 2 CRITICAL, 3 UNKNOWN. Plain `status` keeps exiting as a run would.

use crate::support::util::Project;

const NOW: &str = "2026-11-29T07:00:00Z";

/// A folder target and a script target; `site`'s lines as given.
fn project(site: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    )
    .script("publish.sh", "#!/bin/sh\ncat >/dev/null\necho id\n")
    .file("state/site.state", site)
    .post("2026-11-28", "Two")
    .post("2026-11-29", "Three");
    p.run_at(NOW, &["run", "--target", "outbox"]).code(0);
    p
}

/// The check's line (the whole stdout, one line) and its exit.
fn check(p: &Project) -> (String, i32) {
    let out = p.run_at(NOW, &["status", "--check"]);
    assert_eq!(out.stdout.lines().count(), 1, "one line: {out:?}");
    (out.stdout.trim_end().to_string(), out.code)
}

#[test]
fn a_good_morning_is_ok() {
    let p = project(
        "2026-11-28 done 2026-11-28T07:00:00+00:00 id=a\n2026-11-29 done 2026-11-29T07:00:00+00:00 id=b\n",
    );
    let (line, code) = check(&p);
    assert_eq!(
        line,
        "DAYRUN OK - 4 key(s) on 2 target(s), nothing needs a person | pending_since=0s;;;0 hits=0;;;0 failing=0;;;0 held_back=0;;;0 waiting=0;;;0"
    );
    assert_eq!(code, 0);
}

#[test]
fn a_failure_the_next_run_retries_is_a_warning() {
    let p = project(
        "2026-11-28 done 2026-11-28T07:00:00+00:00 id=a\n\
         2026-11-29 failed 2026-11-29T06:00:00+00:00 class=retry-safe reason=\"HTTP 503\"\n",
    );
    let (line, code) = check(&p);
    assert!(
        line.starts_with("DAYRUN WARNING - 1 failure(s) the next run retries, 0 key(s) waiting"),
        "{line}"
    );
    assert!(
        line.ends_with(
            "| pending_since=0s;;;0 hits=0;;;0 failing=1;;;0 held_back=0;;;0 waiting=1;;;0"
        ),
        "{line}"
    );
    assert_eq!(code, 1);
    // Plain status exits as a run would: 75.
    p.run_at(NOW, &["status"]).code(75);
}

#[test]
fn a_bad_morning_is_critical_and_names_the_keys() {
    let p = project(
        "2026-11-27 done 2026-11-27T07:00:00+00:00 id=a dedup=1\n\
         2026-11-28 pending 2026-11-28T06:00:00+00:00\n\
         2026-11-29 failed 2026-11-29T06:00:00+00:00 class=rejected reason=\"HTTP 422\"\n",
    );
    let (line, code) = check(&p);
    assert_eq!(
        line,
        "DAYRUN CRITICAL - 2 key(s) need a person: site: 2026-11-28 pending, 2026-11-29 failed (rejected) | pending_since=90000s;;;0 hits=1;;;0 failing=1;;;0 held_back=0;;;0 waiting=0;;;0"
    );
    assert_eq!(code, 2);
    p.run_at(NOW, &["status"]).code(1);
}

#[test]
fn a_state_or_config_error_is_unknown() {
    let p = project("2026-11-29 done 2026-11-29T07:00:00+00:00 id=b\n");
    p.file("state/site.state", "2026-11-29 finished yesterday\n");
    let (line, code) = check(&p);
    assert!(
        line.starts_with("DAYRUN UNKNOWN - state/site.state:1: "),
        "{line}"
    );
    assert_eq!(code, 3);
    p.file("dayrun.toml", "catchup_days = -1\n");
    let (line, code) = check(&p);
    assert!(line.starts_with("DAYRUN UNKNOWN - "), "{line}");
    assert!(line.contains("catchup_days"), "{line}");
    assert_eq!(code, 3);
    // The flags go alone.
    let out = p.run_at(NOW, &["status", "--check", "--json"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stdout.starts_with("DAYRUN UNKNOWN - "), "{out:?}");
}

#[test]
fn target_narrows_the_check() {
    let p =
        project("2026-11-29 failed 2026-11-29T06:00:00+00:00 class=rejected reason=\"HTTP 422\"\n");
    let out = p.run_at(NOW, &["status", "--check", "--target", "outbox"]);
    out.code(0)
        .stdout_has("DAYRUN OK - 2 key(s) on 1 target(s)");
}
