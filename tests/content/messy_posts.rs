//! Bad and messy content: each case is an error naming the file (and line), others go on.

use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

#[test]
fn one_bad_post_never_stops_the_others() {
    let p = Project::new();
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "content/2026-11-20.md",
            b"",
            "content/2026-11-20.md: the file is empty",
        ),
        (
            "content/2026-11-19.md",
            b"\n\n# ![](cover.png)\n\ntext\n",
            "content/2026-11-19.md:3: the first `# heading` has no text",
        ),
        (
            "content/2026-11-18.md",
            b"---\ntitle: [a, b]\n---\n",
            "content/2026-11-18.md:2: front matter `title` must be text",
        ),
        (
            "content/2026-11-21.md",
            b"# T\n\n\xff\xfe\n",
            "content/2026-11-21.md:3: not UTF-8 text",
        ),
        (
            "content/2026-11-22.md",
            b"---\ntitle: x\nbody\n",
            "content/2026-11-22.md:1: front matter opened with `---` is never closed",
        ),
        (
            "content/2026-11-23.md",
            b"---\ntitle: a\n- b\n---\n# T\n",
            "content/2026-11-23.md:3: front matter is not valid YAML",
        ),
        (
            "content/2026-11-24.md",
            b"just words\n",
            "content/2026-11-24.md: no title",
        ),
        (
            "content/2026-11-25.md",
            b"---\ntitle: only front matter\n---\n",
            "",
        ),
    ];
    for (path, bytes, _) in cases {
        p.file(path, bytes);
    }
    p.file("content/2026-02-30.md", "# Impossible\n");
    p.file("content/20261126.md", "# Wrong shape\n");
    p.file("content/a/2026-11-27.md", "# One\n")
        .file("content/b/2026-11-27.md", "# Two\n");
    p.post("2026-11-28", "Fine").post("2026-11-29", "Also fine");
    p.file("content/2026-11-29.md~", "# backup\n")
        .file("content/.#2026-11-29.md", "lock")
        .file("content/.2026-11-22.md.swp", "swap")
        .file("content/.git/2026-11-21.md", "# Not a post\n");
    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(1)
        .stdout_has("2026-11-28 outbox published")
        .stdout_has("2026-11-29 outbox published")
        .stdout_has("2026-11-25 outbox published")
        .stdout_has("content/2026-02-30.md: `2026-02-30` is not a real date")
        .stdout_has("content/20261126.md: not a post: the name must be YYYY-MM-DD.md\n  rename it to 2026-11-26.md")
        .stdout_has("two files for 2026-11-27: content/a/2026-11-27.md and content/b/2026-11-27.md");
    for (_, _, needle) in cases {
        out.stdout_has(needle);
    }
    let lines = p.state_lines("outbox");
    let failed: Vec<&String> = lines.iter().filter(|l| l.contains(" failed ")).collect();
    assert_eq!(failed.len(), 8, "{lines:#?}");
    assert!(failed.iter().all(|l| l.contains("class=local")));
    // Fixing a file is all it takes: the next run picks it up.
    p.file("content/2026-11-24.md", "# Now with a title\n");
    p.run(&["run", "--backfill", TODAY])
        .code(1)
        .stdout_has("2026-11-24 outbox published");
    let check = p.run(&["check"]);
    check
        .code(1)
        .stdout_has("ignored content/2026-11-29.md~: editor leftover")
        .stdout_has("ignored content/.#2026-11-29.md: editor leftover")
        .stdout_has("ignored content/.2026-11-22.md.swp: editor leftover")
        .stderr_has("content/2026-11-20.md: the file is empty");
}

#[test]
fn an_old_broken_post_stops_alerting_once_reported() {
    let p = Project::new();
    p.file("content/2026-11-01.md", "no title\n");
    p.post("2026-11-29", "Today");
    p.run(&["run", "--backfill", TODAY])
        .code(1)
        .stdout_has("content/2026-11-01.md: no title");
    // Reported and recorded; older than catchup_days: still shown, no longer an alert.
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("content/2026-11-01.md: no title");
    // A broken post within the window keeps the run red until it is fixed.
    p.file("content/2026-11-28.md", "no title either\n");
    p.run(&["run", TODAY]).code(1);
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("content/2026-11-28.md: no title");
    p.file("content/2026-11-28.md", "# Fixed\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-28 outbox published");
}

#[test]
fn a_very_long_title_is_refused_with_what_to_do() {
    let p = Project::new();
    p.file(
        "content/2026-11-29.md",
        format!("# {}\n\nBody.\n", "Long ".repeat(100)),
    );
    p.post("2026-11-28", "Short");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("content/2026-11-29.md: the title is 499 characters; at most 300 are allowed\n  shorten the title")
        .stdout_has("2026-11-28 outbox published");
}

#[test]
fn crlf_bom_and_subfolder_tags() {
    let p = Project::new();
    p.file(
        "content/rust/2026/2026-11-29.md",
        "\u{feff}# Title\r\n\r\nFirst line\r\nof para.\r\n",
    );
    p.run(&["run", TODAY]).code(0);
    let meta: serde_json::Value = serde_json::from_str(&p.read("outbox/2026-11-29.json")).unwrap();
    assert_eq!(meta["title"], "Title");
    assert_eq!(meta["tags"], serde_json::json!(["rust"]));
    assert_eq!(meta["summary"], "First line of para.");
}

#[test]
fn huge_files_and_symlink_loops_are_refused_not_followed() {
    let p = Project::new();
    let big = format!("# Big\n\n{}\n", "x".repeat(5 * 1024 * 1024 + 1));
    p.file("content/2026-11-28.md", big);
    p.post("2026-11-29", "Fine");
    #[cfg(unix)]
    std::os::unix::fs::symlink(p.path("content"), p.path("content/loop")).unwrap();
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("content/2026-11-28.md: file is more than the 5 MB a post may have")
        .stdout_has("2026-11-29 outbox published");
    p.run(&["check"])
        .code(1)
        .stdout_has("ignored content/loop: symbolic link (not followed)");
}

#[test]
fn an_edit_updates_the_copy_in_place_and_never_republishes_it() {
    // Issue 11: a folder takes edits in place (on_edit = "update" by default), same id.
    let p = Project::new();
    p.post("2026-11-29", "Once");
    p.run(&["run", TODAY]).code(0);
    p.file("content/2026-11-29.md", "# Once, edited\n\nNew body.\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox updated id=outbox/2026-11-29.html")
        .stdout_has("outbox: 1 updated");
    assert!(p.read("outbox/2026-11-29.json").contains("Once, edited"));
    assert!(p.state_lines("outbox")[0].contains(" updated=1"));
    // Unchanged since: nothing is sent again.
    p.run(&["run", TODAY]).code(0).stdout_has("outbox: 1 done");
    // With on_edit = "ignore", or outside edit_days, an edit stays local.
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\non_edit = \"ignore\"\n",
    );
    p.file(
        "content/2026-11-29.md",
        "# Once, edited twice\n\nNewer body.\n",
    );
    p.run(&["run", TODAY]).code(0).stdout_has("outbox: 1 done");
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\nedit_days = 7\n",
    );
    p.run(&["run", "--today=2099-01-01"])
        .code(0)
        .stdout_has("outbox: 1 done");
    assert!(!p.read("outbox/2026-11-29.json").contains("twice"));
}

/// Run dayrun as user `nobody` (root can read anything, so unreadable files need another
/// user); `None` when this machine cannot switch users.
fn run_as_nobody(p: &Project, args: &[&str]) -> Option<crate::support::util::Output> {
    let mut cmd = std::process::Command::new("setpriv");
    cmd.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        env!("CARGO_BIN_EXE_dayrun"),
        "-C",
    ])
    .arg(&p.root)
    .args(args)
    .env("TZ", "UTC");
    let out = cmd.output().ok()?;
    if out.status.code() == Some(127) || String::from_utf8_lossy(&out.stderr).contains("setpriv:") {
        return None;
    }
    Some(crate::support::util::Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

#[test]
#[ignore = "needs root: cargo test -- --include-ignored as root (.ci/run does)"]
fn unreadable_files_and_folders_are_reported_and_the_rest_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    p.post("2026-11-29", "Readable");
    p.file_mode("content/2026-11-28.md", "# Secret\n", 0o000);
    p.post("2026-11-27", "Hidden away");
    std::fs::create_dir_all(p.path("content/locked")).unwrap();
    p.post("locked/2026-11-26", "Behind a locked folder");
    std::fs::set_permissions(
        p.path("content/locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    for dir in [p.root.clone(), p.path("content")] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let out = run_as_nobody(&p, &["run", TODAY])
        .expect("this test runs dayrun as another user (`nobody`): it needs root");
    out.code(1)
        .stdout_has("content/2026-11-28.md: cannot read: Permission denied")
        .stdout_has("content/locked: cannot read: Permission denied")
        .stdout_has("posts below it are not seen")
        .stdout_has("2026-11-29 outbox published")
        .stdout_has("2026-11-27 outbox published");
    std::fs::set_permissions(
        p.path("content/locked"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

#[test]
#[ignore = "needs root: cargo test -- --include-ignored as root (.ci/run does)"]
fn a_state_folder_the_user_cannot_write_stops_the_run_before_anything() {
    use std::os::unix::fs::PermissionsExt;
    let p = Project::new();
    p.post("2026-11-29", "Today");
    std::fs::create_dir_all(p.path("state")).unwrap();
    std::fs::set_permissions(&p.root, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = run_as_nobody(&p, &["run", TODAY])
        .expect("this test runs dayrun as another user (`nobody`): it needs root");
    out.code(2)
        .stderr_has("state")
        .stderr_has("Permission denied")
        .stderr_has("nothing was done");
    assert!(
        !p.exists("outbox"),
        "published without a writable state folder"
    );
}
