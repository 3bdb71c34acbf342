//! The command line: the version, usage errors that say where to look, dates that do not
//! exist, and named keys that match nothing.

use crate::support::util::{Project, bare};

#[test]
fn version_is_printed_and_exits_0() {
    let p = Project::new();
    let want = format!("dayrun {}\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(want, "dayrun 0.5.0\n");
    for args in [
        &["--version"][..],
        &["-V"],
        &["-C", ".", "--version"],
        &["--config", "none.toml", "-V"],
    ] {
        let out = bare(&p.root, args);
        out.code(0);
        assert_eq!(out.stdout, want, "{args:?}");
        assert_eq!(out.stderr, "", "{args:?}");
    }
    p.run(&["--help"]).code(0).stdout_has("-V, --version");
}

#[test]
fn usage_errors_say_dayrun_and_where_to_read_the_usage() {
    let p = Project::new();
    // (arguments after `-C ROOT`, what stderr must hold, what it must not)
    let cases: [(&[&str], &[&str], &str); 8] = [
        (
            &["status", "-C", "/srv/blog"],
            &[
                "dayrun: unrecognized argument: -C\n",
                "\n  global flags go before the command: `dayrun -C /srv/blog status`\n",
                "\n  see `dayrun status --help` for usage",
            ],
            "",
        ),
        (
            &["check", "--config", "other.toml"],
            &["global flags go before the command: `dayrun --config other.toml check`"],
            "",
        ),
        (
            &["run", "--today=2026-11-29", "-C"],
            &["global flags go before the command: `dayrun -C DIR run`"],
            "",
        ),
        (
            &["run", "--bogus"],
            &[
                "dayrun: unrecognized argument: --bogus\n",
                "see `dayrun run --help` for usage",
            ],
            "global flags",
        ),
        (
            &["frobnicate"],
            &[
                "dayrun: unrecognized argument: frobnicate\n",
                "see `dayrun --help` for usage",
            ],
            "global flags",
        ),
        (
            &["mark"],
            &["dayrun: mark: name the key(s), then `done`, `failed` or `retracted`"],
            "global flags",
        ),
        (
            &["mv", "2026-12-01-a", "2026-12-01-a"],
            &["dayrun: mv: 2026-12-01-a is already 2026-12-01-a"],
            "global flags",
        ),
        (
            &["mv", "2026-12-01-A", "2026-12-01-b"],
            &["OLD"],
            "global flags",
        ),
    ];
    for (args, want, never) in cases {
        let out = p.run(args);
        out.code(2);
        for text in want {
            out.stderr_has(text);
        }
        assert!(
            never.is_empty() || !out.stderr.contains(never),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn dates_that_do_not_exist_are_called_so() {
    let p = Project::new();
    p.post("2026-11-28", "A");
    let cases: [(&[&str], &str); 8] = [
        (
            &["run", "--today", "2026-13-01"],
            "dayrun: --today: `2026-13-01` is not a real date",
        ),
        (
            &["status", "--today=2026-02-29"],
            "--today: `2026-02-29` is not a real date",
        ),
        (
            &["adopt", "--until", "2026-11-31"],
            "--until: `2026-11-31` is not a real date",
        ),
        (
            &["run", "--key", "2026-00-10"],
            "--key: `2026-00-10` is not a real date",
        ),
        (
            &["retry", "2026-02-30"],
            "key: `2026-02-30` is not a real date",
        ),
        (
            &["mark", "2026-04-31", "done"],
            "key: `2026-04-31` is not a real date",
        ),
        (
            &["run", "--today", "2026-1-01"],
            "--today: `2026-1-01` is not a date written YYYY-MM-DD",
        ),
        (
            &["run", "--today", "tomorrow"],
            "--today: `tomorrow` is not a date written YYYY-MM-DD",
        ),
    ];
    for (args, want) in cases {
        p.run(args).code(2).stderr_has(want);
    }
    assert!(!p.exists("state"), "a usage error wrote state");
}

#[test]
fn a_named_key_with_no_post_and_no_record_is_a_usage_error() {
    let p = Project::new();
    p.post("2026-11-28", "A");
    for args in [
        &["run", "--key", "2026-11-23", "--today=2026-11-29"][..],
        &["run", "--key", "2026-11-28", "--key", "2026-11-23"],
        &["run", "--dry-run", "--key", "2026-11-23"],
        &["retry", "2026-11-23"],
    ] {
        p.run(args)
            .code(2)
            .stderr_has(
                "dayrun: no post for 2026-11-23: content/2026-11-23.md does not exist, and no target has a record of 2026-11-23",
            )
            .stderr_has("\n  check the date, or write the post first");
        assert!(!p.exists("outbox"), "{args:?} published");
        assert!(!p.exists("state/outbox.state"), "{args:?} recorded");
    }
    // A record is enough: a published post whose file was deleted can still be named.
    p.run(&["run", "--today=2026-11-29"]).code(0);
    std::fs::remove_file(p.path("content/2026-11-28.md")).unwrap();
    let out = p.run(&["retry", "2026-11-28"]);
    out.code(0);
    assert!(!out.stderr.contains("no post"), "{}", out.stderr);
    // Only the selected targets' records count.
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n[targets.site]\nkind = \"folder\"\ndir = \"site\"\n",
    );
    p.run(&[
        "run",
        "--key",
        "2026-11-28",
        "--today=2026-11-29",
        "--target",
        "site",
    ])
    .code(2)
    .stderr_has("no post for 2026-11-28: content/2026-11-28.md does not exist");
}

/// `dayrun check | head`, `dayrun run | head` and `dayrun status | head`: a reader that goes
/// away ends no command in a panic nor an error, and a run still records what it did (its
/// output is not its record).
#[test]
fn a_reader_that_goes_away_ends_nothing_in_a_panic() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "timezone = \"UTC\"\ncatchup_days = 9999\n[targets.out]\nkind = \"folder\"\ndir = \"out\"\n",
    );
    // Enough lines to fill any pipe's buffer, so that a write meets the closed end.
    let day = jiff::civil::date(2020, 1, 1);
    for n in 0..1500 {
        let key = day.checked_add(jiff::Span::new().days(n)).unwrap();
        p.post(
            &key.to_string(),
            &format!("Post number {n} with a title long enough to fill"),
        );
    }
    for args in [
        &["check"][..],
        &["run", "--backfill", "--today=2024-02-08"][..],
        // `status` computes every row still: its exit code is what a run would give.
        &["status"][..],
    ] {
        let mut child = p
            .command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
    assert_eq!(p.state_lines("out").len(), 1500, "every key recorded");
}
