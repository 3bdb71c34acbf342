//! The state file by hand: comments and CRLF accepted, damage refused with its line.

use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

#[test]
fn hand_edited_state_with_comments_and_crlf_is_accepted_and_kept() {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.file(
        "state/outbox.state",
        "# published by hand before dayrun\r\n2026-11-28 done 2026-11-28T08:00:00+00:00 id=manual   \r\n\r\n# end\r\n",
    );
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox published");
    assert!(!p.exists("outbox/2026-11-28.html"));
    let text = p.read("state/outbox.state");
    let text = text
        .strip_prefix("# dayrun state format 3\n")
        .unwrap_or_else(|| panic!("no format line first: {text}"));
    // The hand-written line gains the hash of what its post says now (edits are measured
    // from there; nothing was sent).
    assert!(text.starts_with("# published by hand before dayrun\n2026-11-28 done 2026-11-28T08:00:00+00:00 id=manual payload="), "{text}");
    assert!(text.contains("\n\n# end\n"), "{text}");
    assert!(text.contains("# end\n"), "{text}");
}

#[test]
fn malformed_state_is_refused_with_its_line_and_nothing_changes() {
    let cases = [
        (
            "2026-11-28 done 2026-11-28T08:00:00Z\n2026-11-28 failed 2026-11-28T09:00:00Z\n",
            2,
            "2026-11-28 appears twice",
        ),
        (
            "# ok\n2026-11-28 finished 2026-11-28T08:00:00Z\n",
            2,
            "unknown status `finished`",
        ),
        ("garbage line\n", 1, "`garbage` is not a key"),
        // Out of key order (a hand edit): a duplicate is still found, whether its first line
        // came before the disorder or after it.
        (
            "2026-11-26 done 2026-11-28T08:00:00Z\n2026-11-28 done 2026-11-28T08:00:00Z\n2026-11-27 done 2026-11-28T08:00:00Z\n2026-11-28 failed 2026-11-28T09:00:00Z\n",
            4,
            "2026-11-28 appears twice",
        ),
        (
            "2026-11-28 done 2026-11-28T08:00:00Z\n2026-11-25 done 2026-11-28T08:00:00Z\n2026-11-27 done 2026-11-28T08:00:00Z\n2026-11-25 failed 2026-11-28T09:00:00Z\n",
            4,
            "2026-11-25 appears twice",
        ),
        (
            "2026-11-28 done 2026-11-28T08:00:00Z id=\"unterminated\n",
            1,
            "field `id`: unterminated",
        ),
    ];
    for (text, line, needle) in cases {
        let p = Project::new();
        p.post("2026-11-29", "Today");
        p.file("state/outbox.state", text);
        let before = p.tree(&["state/.lock"]);
        for args in [
            &["run", TODAY][..],
            &["mark", "2026-11-29", "done"],
            &["adopt"],
        ] {
            p.run(args)
                .code(2)
                .stderr_has(&format!("state/outbox.state:{line}: {needle}"));
        }
        p.run(&["status"])
            .code(2)
            .stderr_has(&format!("state/outbox.state:{line}:"));
        assert_eq!(p.tree(&["state/.lock"]), before, "{text}");
        assert!(!p.exists("outbox"));
    }
}

#[test]
fn a_state_file_out_of_key_order_is_read_whole_and_written_back_sorted() {
    let p = Project::new();
    for key in [
        "2026-11-25",
        "2026-11-26",
        "2026-11-27",
        "2026-11-28",
        "2026-11-29",
    ] {
        p.post(key, key);
    }
    p.file(
        "state/outbox.state",
        "2026-11-25 done 2026-11-28T08:00:00Z id=a\n2026-11-28 done 2026-11-28T08:00:00Z id=d\n# before 26\n2026-11-26 done 2026-11-28T08:00:00Z id=b\n2026-11-27 done 2026-11-28T08:00:00Z id=c\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("2026-11-29 outbox published");
    // Only the key without a line is published.
    assert_eq!(
        out.stdout.matches(" outbox published").count(),
        1,
        "{}",
        out.stdout
    );
    let text = p.read("state/outbox.state");
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| &l[..10])
        .collect();
    assert_eq!(
        keys,
        [
            "2026-11-25",
            "2026-11-26",
            "2026-11-27",
            "2026-11-28",
            "2026-11-29"
        ],
        "{text}"
    );
    assert!(text.contains("# before 26\n2026-11-26 done"), "{text}");
}

#[test]
fn a_torn_journal_tail_is_dropped_and_damage_before_it_refused() {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.run(&["run", TODAY]).code(0);
    let state = p.read("state/outbox.state");
    // A crash while appending: a whole pending record, then half a done record and NULs.
    std::fs::remove_file(p.path("state/outbox.state")).unwrap();
    let first = state.lines().next().unwrap();
    let pending = "2026-11-29 pending 2026-11-29T09:00:00+00:00 fp=x attempt=1\n";
    let mut journal = format!("{first}\n{pending}2026-11-29 done 2026-11-2").into_bytes();
    journal.extend([0u8; 64]);
    p.file("state/outbox.journal", &journal);
    p.run(&["run", TODAY])
        .code(0)
        .stderr_has("state/outbox.journal: dropped a torn last record")
        .stdout_has("2026-11-29 outbox confirmed");
    assert!(!p.exists("state/outbox.journal"));
    assert_eq!(p.statuses("outbox"), ["2026-11-28 done", "2026-11-29 done"]);

    p.file(
        "state/outbox.journal",
        format!("{pending}garbage\n{pending}"),
    );
    let before = p.tree(&["state/.lock"]);
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("state/outbox.journal:2: `garbage` is not a key");
    assert_eq!(p.tree(&["state/.lock"]), before);
}

#[test]
fn status_reports_a_malformed_line_and_shows_the_rest() {
    // Issue 22: `status` only reads; one bad line must not hide every other key.
    let p = Project::new();
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.file(
        "state/outbox.state",
        "2026-11-27 done 2026-11-27T07:00:00Z id=outbox/2026-11-27.html\n2026-11-28 donne 2026-11-28T07:00:00Z\n2026-11-29 done 2026-11-29T07:00:00Z id=outbox/2026-11-29.html\n",
    );
    let out = p.run(&["status", TODAY]);
    out.code(2)
        .stderr_has("state/outbox.state:2: unknown status `donne`")
        .stdout_has("2026-11-27 outbox: done")
        .stdout_has("2026-11-29 outbox: done");
    // A run that would write refuses the file, naming the line, and changes nothing.
    let before = p.read("state/outbox.state");
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("state/outbox.state:2:");
    assert_eq!(p.read("state/outbox.state"), before);
}
