//! The human levers say what they did: `mark` prints what it recorded on which target and
//! warns about what it cannot know; `adopt` says when it adopts less than asked.

use crate::support::util::Project;

#[test]
fn mark_prints_what_it_recorded_per_target() {
    let p = Project::new();
    p.post("2026-11-28", "A");
    p.file(
        "dayrun.toml",
        "[targets.one]\nkind = \"folder\"\ndir = \"one\"\n[targets.two]\nkind = \"folder\"\ndir = \"two\"\n",
    );
    // An id belongs to one copy on one target (issue 20 row 8): with two targets, `--id`
    // needs `--target`, and nothing is written without it.
    p.run(&["mark", "2026-11-28", "done", "--id", "https://blog/a"])
        .code(2)
        .stderr_has("add --target NAME (one of one, two)");
    assert!(!p.exists("state/one.state") && !p.exists("state/two.state"));
    let out = p.run(&[
        "mark",
        "2026-11-28",
        "done",
        "--id",
        "https://blog/a",
        "--target",
        "one",
    ]);
    out.code(0)
        .stdout_has("2026-11-28 one marked done (was none): done reason=\"marked by hand\" id=https://blog/a fp=");
    assert_eq!(out.stderr, "", "a complete mark warns of nothing");
    let out2 = p.run(&[
        "mark",
        "2026-11-28",
        "done",
        "--id",
        "https://blog/b",
        "--target",
        "two",
    ]);
    out2.code(0)
        .stdout_has("2026-11-28 two marked done (was none): done reason=\"marked by hand\" id=https://blog/b fp=");
    let out = crate::support::util::Output {
        code: 0,
        stdout: format!("{}{}", out.stdout, out2.stdout),
        stderr: String::new(),
    };
    for target in ["one", "two"] {
        let line = &p.state_lines(target)[0];
        let printed = out
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("2026-11-28 {target} ")))
            .unwrap();
        // What is printed is the state line's status and fields, exactly.
        let fields = line.splitn(4, ' ').nth(3).unwrap();
        assert!(
            printed.ends_with(&format!(": done {fields}")),
            "{printed} / {line}"
        );
    }
    p.run(&["mark", "2026-11-28", "failed", "--target", "two"])
        .code(0)
        .stdout_has("2026-11-28 two marked failed (was done): failed class=rejected by=hand reason=\"marked failed by hand\" id=https://blog/b fp=");
    // The id of the copy stays on the line: marking a key failed forgets no copy.
    assert!(
        p.state_lines("two")[0].contains(
            " class=rejected by=hand reason=\"marked failed by hand\" id=https://blog/b "
        )
    );
    assert!(
        p.state_lines("one")[0].contains(" done "),
        "--target two changed one"
    );
}

#[test]
fn mark_warns_about_what_it_cannot_know_but_still_records() {
    let p = Project::new();
    p.post("2026-11-28", "A");
    // (arguments, warnings wanted on stderr, warnings that must not appear)
    let no_id = "dayrun: warning: no --id: later edits and retractions cannot find this post on outbox; add --id ID if you know it";
    let no_post = "dayrun: warning: there is no content/2026-11-20.md for 2026-11-20; recording the mark anyway";
    let cases: [(&[&str], &[&str], &[&str]); 4] = [
        (&["mark", "2026-11-28", "done"], &[no_id], &[no_post]),
        (
            &["mark", "2026-11-20", "done", "--id", "x"],
            &[no_post],
            &[no_id],
        ),
        (&["mark", "2026-11-20", "done"], &[no_id, no_post], &[]),
        (&["mark", "2026-11-20", "failed"], &[no_post], &[no_id]),
    ];
    for (args, want, never) in cases {
        let out = p.run(args);
        out.code(0);
        for text in want {
            out.stderr_has(text);
        }
        for text in never {
            assert!(!out.stderr.contains(text), "{args:?}: {}", out.stderr);
        }
    }
    assert_eq!(
        p.statuses("outbox"),
        ["2026-11-20 failed", "2026-11-28 done"]
    );
}

#[test]
fn adopt_says_when_until_is_after_today() {
    let p = Project::new();
    p.post("2026-11-28", "A");
    let today = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date();
    p.run(&["adopt", "--until", "2999-01-01"])
        .code(0)
        .stderr_has(&format!(
            "dayrun: --until 2999-01-01 is after today ({today}): adopting up to today\n"
        ))
        .stdout_has(&format!("outbox: adopted 1 key(s) up to {today}"));
    let out = p.run(&["adopt", "--until", "2026-11-28"]);
    out.code(0);
    assert_eq!(out.stderr, "", "an --until in the past is taken as it is");
}
