//! H1, H2, H3, R2: files that are not what they seem. A FIFO or a device where a post or a
//! token should be, a state line of megabytes, 50 MB of comments, and symlinks where dayrun
//! writes. Nothing may hang (every command runs with a deadline) and no file of the user changes.

use super::{TODAY, mkfifo, mknod_zero, run_capped, run_within};
use crate::support::util::{Output, Project};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

/// `run --dry-run`, `run`, `status`, `check`, in that order, each within `LIMIT` and 1 GiB.
fn four_commands(p: &Project) -> [Output; 4] {
    let run = |args: &[&str]| run_capped(p, args, LIMIT, 1024).0;
    [
        run(&["run", "--dry-run", TODAY]),
        run(&["run", TODAY]),
        run(&["status", TODAY]),
        run(&["check"]),
    ]
}

/// H1: the post for 2026-11-29 is not a regular file; 2026-11-28 still publishes.
fn special_post(what: &str, make: impl Fn(&std::path::Path)) {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday");
    make(&p.path("content/2026-11-29.md"));
    let [dry, run, status, check] = four_commands(&p);
    for (name, out) in [("run --dry-run", &dry), ("run", &run), ("check", &check)] {
        let printed = format!("{}{}", out.stdout, out.stderr);
        assert!(
            printed.contains("content/2026-11-29.md") && printed.contains("not a regular file"),
            "{what}: `{name}` does not name the file as not a regular file:\n{out:?}"
        );
    }
    dry.code(1).stdout_has("2026-11-28 outbox publish");
    run.code(1)
        .stdout_has("2026-11-29 outbox failed (local)")
        .stdout_has("2026-11-28 outbox published");
    assert_eq!(
        p.statuses("outbox"),
        ["2026-11-28 done", "2026-11-29 failed"]
    );
    assert!(p.state_lines("outbox")[1].contains("class=local"), "{what}");
    // `status` exits as the run would: 1 for a broken post within its window.
    status.code(1).stdout_has("not a regular file");
    assert_ne!(check.code, 0, "{what}: check found no problem");
    // The lock was released: the next run is not told another run holds it.
    let (again, _) = run_capped(&p, &["run", TODAY], LIMIT, 1024);
    again.code(1);
}

#[test]
fn h1_a_fifo_post_is_a_local_error_and_nothing_hangs() {
    special_post("FIFO", mkfifo);
}

#[test]
#[ignore = "needs root (mknod): cargo test -- --include-ignored as root (.ci/run does)"]
fn h1_a_char_device_post_is_a_local_error_and_is_not_read() {
    let probe = Project::new();
    assert!(
        mknod_zero(&probe.path("probe")),
        "this test makes a character device: it needs root and a mount without nodev"
    );
    special_post("char device", |path| assert!(mknod_zero(path)));
}

#[test]
fn h1_a_fifo_token_file_is_a_config_error_naming_it() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.blog]\nkind = \"http\"\nurl = \"http://127.0.0.1:9/posts\"\ntoken_file = \"secrets/blog.token\"\n",
    );
    p.post("2026-11-29", "Today");
    mkfifo(&p.path("secrets/blog.token"));
    let [dry, run, status, check] = four_commands(&p);
    // `status` reads the credential as the run does (issue 29 row 3), so it exits as the run.
    let all = [
        ("run --dry-run", &dry),
        ("run", &run),
        ("check", &check),
        ("status", &status),
    ];
    for (name, out) in all {
        assert_eq!(out.code, 2, "`{name}` exit code\n{out:?}");
        let printed = format!("{}{}", out.stdout, out.stderr);
        assert!(
            printed.contains("secrets/blog.token") && printed.contains("not a regular file"),
            "`{name}`:\n{out:?}"
        );
    }
    assert!(!p.exists("state/blog.state") || p.state_lines("blog").is_empty());
}

/// H2: a state line dayrun must refuse fast, whatever it holds.
fn refused_fast(what: &str, line2: String) {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    let line1 = "2026-11-27 done 2026-11-27T07:00:00+00:00 id=a fp=abc\n";
    p.file("state/outbox.state", format!("{line1}{line2}\n"));
    let before = p.read("state/outbox.state");
    for args in [&["run", TODAY][..], &["status", TODAY]] {
        let (out, took) = run_within(&p, args, LIMIT);
        println!(
            "h2 {what}: `dayrun {}` exited {} after {took:?}",
            args.join(" "),
            out.code
        );
        out.code(2).stderr_has("state/outbox.state:2");
        assert!(
            took < LIMIT,
            "{what}: took {took:?} (contract: well under 2 s)"
        );
    }
    assert!(
        p.read("state/outbox.state") == before,
        "{what}: the state file changed"
    );
    assert!(
        !p.exists("outbox/2026-11-29.html"),
        "{what}: published anyway"
    );
}

#[test]
fn h2_a_state_line_with_100k_fields_is_refused_fast() {
    let fields: Vec<String> = (0..100_000).map(|i| format!("f{i}=1")).collect();
    refused_fast(
        "100k fields",
        format!(
            "2026-11-28 done 2026-11-28T07:00:00+00:00 id=b {}",
            fields.join(" ")
        ),
    );
}

#[test]
fn h2_a_10_mb_state_line_is_refused_fast() {
    refused_fast(
        "10 MB line",
        format!(
            "2026-11-28 failed 2026-11-28T07:00:00+00:00 class=rejected reason=\"{}\"",
            "a".repeat(10_000_000)
        ),
    );
}

#[test]
fn h3_fifty_megabytes_of_comments_are_kept_byte_for_byte() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    let mut text = String::with_capacity(51 << 20);
    let mut n = 0;
    while text.len() < 50 << 20 {
        // Mostly plain notes; every 1000th ends in blanks, which "byte for byte" keeps too.
        let end = if n % 1000 == 999 { " \t " } else { "" };
        text.push_str(&format!(
            "# note {n:08}: written by hand, kept by dayrun — café{end}\n"
        ));
        n += 1;
    }
    text.push_str("2026-11-27 done 2026-11-27T07:00:00+00:00 id=a fp=abc\n");
    text.push_str("#   a comment between records\n");
    text.push_str("2026-11-28 done 2026-11-28T07:00:00+00:00 id=b fp=def\n");
    text.push_str("# the last comment\n");
    p.file("state/outbox.state", &text);
    let (out, took) = run_within(&p, &["run", TODAY], Duration::from_secs(120));
    println!("h3 50 MB of comments: run took {took:?}");
    out.code(0).stdout_has("2026-11-29 outbox published");
    assert_eq!(
        p.statuses("outbox"),
        ["2026-11-27 done", "2026-11-28 done", "2026-11-29 done"]
    );
    let after = String::from_utf8(std::fs::read(p.path("state/outbox.state")).unwrap()).unwrap();
    fn comments(t: &str) -> Vec<&str> {
        // The format line dayrun writes first is dayrun's, not a comment of the user's.
        t.split_inclusive('\n')
            .filter(|l| l.starts_with('#') && !l.starts_with("# dayrun state format "))
            .collect()
    }
    let (was, now) = (comments(&text), comments(&after));
    if let Some(i) = (0..was.len().max(now.len())).find(|&i| was.get(i) != now.get(i)) {
        panic!(
            "comments not kept byte for byte: comment {} of {} was {:?}, is {:?}",
            i + 1,
            was.len(),
            was.get(i),
            now.get(i)
        );
    }
}

const PRECIOUS: &str = "# my notes, not dayrun's\n# do not touch\n";

/// R2: `state/<name>` is a symlink to a file of the user's.
fn symlinked(name: &str) {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    p.file("home/notes.txt", PRECIOUS);
    std::fs::create_dir_all(p.path("state")).unwrap();
    std::os::unix::fs::symlink(p.path("home/notes.txt"), p.path(&format!("state/{name}"))).unwrap();
    let (out, _) = run_within(&p, &["run", TODAY], LIMIT);
    assert_eq!(
        p.read("home/notes.txt"),
        PRECIOUS,
        "state/{name} was followed: the user's file changed\n{out:?}"
    );
    out.code(2)
        .stderr_has(&format!("state/{name}"))
        .stderr_has("symbolic link");
    assert!(
        !p.exists("outbox/2026-11-29.html") && !p.exists("outbox/2026-11-29.json"),
        "published before refusing state/{name}"
    );
    assert!(
        std::fs::symlink_metadata(p.path(&format!("state/{name}")))
            .unwrap()
            .file_type()
            .is_symlink(),
        "state/{name} was replaced"
    );
}

#[test]
fn r2_a_symlinked_lock_is_refused_and_its_target_untouched() {
    symlinked(".lock");
}

#[test]
fn r2_a_symlinked_trace_is_refused_and_its_target_untouched() {
    symlinked("outbox.log");
}

#[test]
fn r2_a_symlinked_journal_is_refused_and_its_target_untouched() {
    symlinked("outbox.journal");
}

#[test]
fn r2_a_symlinked_state_file_is_refused_and_its_target_untouched() {
    symlinked("outbox.state");
}

#[test]
fn r2_the_state_folder_itself_may_be_a_symlink() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    std::fs::create_dir_all(p.path("elsewhere/state")).unwrap();
    std::os::unix::fs::symlink(p.path("elsewhere/state"), p.path("state")).unwrap();
    let (out, _) = run_within(&p, &["run", TODAY], LIMIT);
    out.code(0).stdout_has("2026-11-29 outbox published");
    assert!(p.exists("elsewhere/state/outbox.state"));
}
