//! Issue 37: `dayrun drill` against the real WordPress, Bluesky PDS and Ghost of the harness:
//! ten rounds at 20% loss, the default delay (the timeout plus 2 s), 0 duplicates, every copy
//! removed, and nothing of the drill left on the server (counted there, not by dayrun). Short
//! timeouts so ten rounds stay within a few minutes: `timeout_secs = 2`, `settle_secs = 3`
//! (past the 2 s a late request lands after the client gave up), `confirm_delay_secs = 1`.
//! Each test prints the drill's output and how long it took.

use crate::commands::drill::{count, drill};
use crate::support::harness;
use crate::support::util::{Output, Project};
use std::time::Instant;

/// The delivery settings of these drills.
const SHORT: &str = "timeout_secs = 2\nconnect_timeout_secs = 2\nsettle_secs = 3\nconfirm_delay_secs = 1\nconfirm_polls = 3\nbackoff_secs = 0.5\n";

/// Ten rounds at 20% loss, seeded; the output, printed with how long it took.
fn ten_rounds(p: &Project, target: &str) -> Output {
    let started = Instant::now();
    let out = drill(
        p,
        target,
        &["--rounds", "10", "--loss", "20%", "--seed", "37"],
    );
    println!(
        "--- drill on the real {target}: {:.1} s\n{}{}",
        started.elapsed().as_secs_f64(),
        out.stdout,
        out.stderr
    );
    out
}

#[track_caller]
fn clean(out: &Output) {
    out.code(0);
    assert_eq!(count(out, "rounds"), 10);
    assert_eq!(count(out, "duplicates"), 0);
    assert_eq!((count(out, "lost"), count(out, "leaked-pending")), (0, 0));
    assert_eq!(count(out, "removed"), 10);
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn drill_on_the_real_wordpress_leaves_nothing_not_even_in_the_trash() {
    let Some(wp) = harness::wordpress() else {
        return;
    };
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.wp]\nkind = \"wordpress\"\nurl = \"{}\"\nuser = \"{}\"\npassword_file = \"secrets/wp.password\"\n{SHORT}",
            wp.url, wp.user
        ),
    );
    p.secret("secrets/wp.password", wp.password_file());
    let out = ten_rounds(&p, "wp");
    clean(&out);
    assert_eq!(
        wp.posts(),
        Vec::<serde_json::Value>::new(),
        "trash included"
    );
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn drill_on_the_real_pds() {
    let Some(pds) = harness::bluesky() else {
        return;
    };
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.sky]\nkind = \"bluesky\"\nservice = \"{}\"\nhandle = \"{}\"\napp_password_file = \"secrets/bsky.password\"\n{SHORT}",
            pds.url, pds.handle
        ),
    );
    p.secret("secrets/bsky.password", pds.password_file());
    let out = ten_rounds(&p, "sky");
    clean(&out);
    assert_eq!(pds.records().len(), 0);
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn drill_on_the_real_ghost() {
    let Some(ghost) = harness::ghost() else {
        return;
    };
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.ghost]\nkind = \"ghost\"\nurl = \"{}\"\nadmin_key_file = \"secrets/ghost.key\"\n{SHORT}",
            ghost.url
        ),
    );
    p.secret("secrets/ghost.key", ghost.key_file());
    let out = ten_rounds(&p, "ghost");
    clean(&out);
    assert_eq!(ghost.posts(), Vec::<serde_json::Value>::new());
}
