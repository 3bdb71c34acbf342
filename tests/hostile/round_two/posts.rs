//! Rows 1 and 11: a post's front matter that would take unbounded memory (a YAML alias bomb)
//! or time (hundreds of thousands of tags). Each is a `local` error naming the file, within a
//! capped address space; the other posts go on.

use crate::hostile::round_one::{TODAY, run_capped, table};
use crate::support::util::Project;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// 367 bytes whose nine levels of aliases expand to 9^9 (387 million) strings.
pub const ALIAS_BOMB: &str = "---\n\
a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n\
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n\
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n\
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n\
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n\
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n\
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n\
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n\
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n\
---\n# A bomb\n\nBoom!!\n";

#[test]
fn row1_a_yaml_alias_bomb_is_a_local_error_in_bounded_memory() {
    assert_eq!(ALIAS_BOMB.len(), 367);
    for (bomb, what) in [
        ("2026-10-01", "an old stale post"),
        ("2026-11-28", "yesterday's post"),
    ] {
        let p = Project::new();
        p.file(&format!("content/{bomb}.md"), ALIAS_BOMB);
        p.post("2026-11-29", "Today");
        let file = format!("content/{bomb}.md");
        // 512 MiB of address space: the bomb needs tens of gigabytes to expand.
        let run = |args: &[&str]| run_capped(&p, args, LIMIT, 512).0;
        let out = run(&["run", TODAY]);
        assert!(
            [0, 1].contains(&out.code),
            "{what}: `run` died (exit {})\n{out:?}",
            out.code
        );
        out.stdout_has(&file)
            .stdout_has("alias")
            .stdout_has("2026-11-29 outbox published");
        assert!(p.exists("outbox/2026-11-29.html"), "{what}: today's post");
        let status = run(&["status", TODAY]);
        assert!(
            [0, 1].contains(&status.code),
            "{what}: `status` died (exit {})\n{status:?}",
            status.code
        );
        status.stdout_has("2026-11-29 outbox: done");
        let check = run(&["check"]);
        assert_eq!(check.code, 1, "{what}: `check`\n{check:?}");
        assert!(
            check.stderr.contains(&file) && check.stderr.contains("alias"),
            "{what}: `check` does not name the file\n{check:?}"
        );
    }
}

/// A post with `n` distinct tags in a flow list.
fn tagged(n: usize) -> String {
    let tags: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    format!("---\ntags: [{}]\n---\n# Tagged\n\nBody.\n", tags.join(", "))
}

/// A post with `n` distinct tags in one comma-separated string.
fn comma_tagged(n: usize) -> String {
    let tags: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    format!(
        "---\ntags: \"{}\"\n---\n# Tagged\n\nBody.\n",
        tags.join(",")
    )
}

#[test]
fn row11_two_hundred_thousand_tags_are_a_local_error() {
    let rows = [
        ("a list".to_string(), tagged(200_000)),
        (
            "a comma-separated string".to_string(),
            comma_tagged(200_000),
        ),
        ("101 tags".to_string(), comma_tagged(101)),
    ];
    table(rows, |post| {
        let p = Project::new();
        p.file("content/2026-11-28.md", post);
        p.post("2026-11-29", "Today");
        let (out, took) = run_capped(&p, &["run", TODAY], LIMIT, 1024);
        println!("row 11: run took {took:?}");
        out.code(1)
            .stdout_has("2026-11-28 outbox failed (local)")
            .stdout_has("content/2026-11-28.md:2:")
            .stdout_has("tags")
            .stdout_has("2026-11-29 outbox published");
        assert!(!p.exists("outbox/2026-11-28.html"));
    });
}

#[test]
fn row11_a_hundred_tags_are_still_a_post() {
    let p = Project::new();
    p.file("content/2026-11-29.md", tagged(100));
    let (out, _) = run_capped(&p, &["run", TODAY], LIMIT, 1024);
    out.code(0).stdout_has("2026-11-29 outbox published");
    let json = p.read("outbox/2026-11-29.json");
    assert!(json.contains("\"t99\""), "{json}");
}
