//! `status` as text (issue 34): one row per key with a cell per target, the copy shown by its
//! URL; the rows that need a person first, then those the next run goes on with, then the rest;
//! `--target` narrows the cells.

use crate::support::util::Project;

const NOW: &str = "2026-11-29T07:00:00Z";

/// Three targets: a folder, a script that refuses 2026-11-28 and answers with URLs, and a
/// server that is down (each failure retry-safe: the next run tries again).
fn project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n\
         [targets.mirror]\nkind = \"http\"\nurl = \"http://127.0.0.1:9/\"\nretries = 0\n",
    )
    .script(
        "publish.sh",
        "#!/bin/sh\ncat >/dev/null\n[ \"$DAYRUN_KEY\" = 2026-11-28 ] && { echo 'no' >&2; exit 65; }\n\
         echo \"{\\\"id\\\": \\\"s-$DAYRUN_KEY\\\", \\\"url\\\": \\\"https://site.example/$DAYRUN_KEY\\\"}\"\n",
    )
    .post("2026-11-27", "One")
    .post("2026-11-28", "Two")
    .post("2026-11-29", "Three")
    .post("2026-11-30", "Four");
    p.run_at(NOW, &["run"]).code(1);
    p
}

#[test]
fn a_row_per_key_with_a_cell_per_target_and_the_problems_first() {
    let p = project();
    let out = p.run_at(NOW, &["status"]);
    out.code(1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let heads: Vec<&str> = lines.iter().map(|l| &l[..10]).collect();
    // 28 needs a person (site refused it); 27 and 29 wait for the next run (mirror is down);
    // 30 is scheduled; then one count line per target, in the order status lists the targets
    // (the config's tables by name, a linked target after the one it links to).
    let want = ["2026-11-28", "2026-11-27", "2026-11-29", "2026-11-30"];
    assert_eq!(heads[..4], want, "{}", out.stdout);
    assert!(lines[4].starts_with("mirror: 3 failed") && lines[5].starts_with("outbox: 3 done"));
    assert!(lines[6].starts_with("site: 1 failed"), "{}", out.stdout);
    let row = lines[0];
    assert!(
        row.starts_with("2026-11-28 mirror: failed ") && row.contains("class=retry-safe"),
        "{row}"
    );
    assert!(row.contains(" | outbox: done "), "{row}");
    assert!(
        row.contains(" | site: failed ") && row.contains("class=rejected"),
        "{row}"
    );
    // A copy is shown by its URL where it has one, its id only where it has not.
    let row = lines[1];
    assert!(
        row.contains(" | site: done ") && row.contains("url=https://site.example/2026-11-27"),
        "{row}"
    );
    assert!(
        !row.contains("id=s-2026-11-27") && row.contains("id=outbox/2026-11-27.html"),
        "{row}"
    );
    assert_eq!(
        lines[3],
        "2026-11-30 mirror: scheduled | outbox: scheduled | site: scheduled"
    );
}

#[test]
fn target_narrows_the_cells_and_the_order_follows_them() {
    let p = project();
    let out = p.run_at(NOW, &["status", "--target", "outbox"]);
    out.code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", out.stdout);
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("site:") && !l.contains("mirror:")),
        "{}",
        out.stdout
    );
    // Nothing of outbox needs anyone: key order.
    assert!(
        lines[0].starts_with("2026-11-27 outbox: done"),
        "{}",
        out.stdout
    );
    let out = p.run_at(NOW, &["status", "--target", "mirror", "--target", "outbox"]);
    out.code(75);
    let first = out.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("2026-11-27 mirror: failed "),
        "{}",
        out.stdout
    );
    assert!(
        first.ends_with(" | outbox: done 0s ago id=outbox/2026-11-27.html"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_key_only_one_target_has_gets_only_its_cell() {
    let p = project();
    // A line for a key without a post, on site alone (a post deleted after it went out).
    let mut lines = p.read("state/site.state");
    lines.push_str(
        "2026-11-20 done 2026-11-20T07:00:00+00:00 id=s-old url=https://site.example/old\n",
    );
    p.file("state/site.state", lines);
    let out = p.run_at(NOW, &["status"]);
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("2026-11-20"))
        .unwrap();
    assert!(
        row.starts_with("2026-11-20 site: done ") && row.contains("DELETED"),
        "{row}"
    );
    assert!(
        !row.contains("outbox:") && !row.contains("mirror:"),
        "{row}"
    );
}
