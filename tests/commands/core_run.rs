//! The core runner on the folder target: due, scheduled, stale, dry-run, lock, retry, mark.

use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

fn three_days() -> Project {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today")
        .post("2026-11-30", "Tomorrow");
    p
}

#[test]
fn first_run_publishes_due_posts_to_the_outbox() {
    let p = three_days();
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-28 outbox published id=outbox/2026-11-28.html")
        .stdout_has("2026-11-29 outbox published id=outbox/2026-11-29.html");
    assert_eq!(p.statuses("outbox"), ["2026-11-28 done", "2026-11-29 done"]);
    assert!(
        !p.exists("outbox/2026-11-30.html"),
        "scheduled post was published"
    );
    let meta: serde_json::Value = serde_json::from_str(&p.read("outbox/2026-11-29.json")).unwrap();
    assert_eq!(meta["title"], "Today");
    assert_eq!(meta["key"], "2026-11-29");
    assert!(
        p.read("outbox/2026-11-29.html")
            .contains("<p>Body of 2026-11-29.</p>")
    );
    let log = p.read("state/outbox.log");
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(
        log.lines().all(|l| l.contains(" publish done id=outbox/")),
        "{log}"
    );
    let stamp = log.split_whitespace().next().unwrap();
    assert!(
        stamp.parse::<jiff::Timestamp>().is_ok() && stamp.ends_with("+00:00"),
        "{stamp}"
    );
}

#[test]
fn rerun_changes_nothing_byte_for_byte() {
    let p = three_days();
    p.run(&["run", TODAY]).code(0);
    let before = p.tree(&["state/.lock"]);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("outbox: 2 done, 1 scheduled");
    assert_eq!(p.tree(&["state/.lock"]), before);
}

#[test]
fn the_next_day_publishes_the_scheduled_post() {
    let p = three_days();
    p.run(&["run", TODAY]).code(0);
    p.run(&["run", "--today=2026-11-30"])
        .code(0)
        .stdout_has("2026-11-30 outbox published");
    assert_eq!(p.statuses("outbox").len(), 3);
}

#[test]
fn stale_posts_wait_for_backfill_or_a_named_key() {
    let p = Project::new();
    p.post("2026-11-01", "Old")
        .post("2026-11-02", "Older too")
        .post("2026-11-26", "Three days");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2 stale 2026-11-01..2026-11-02 (`run --backfill` publishes them)")
        .stdout_has("2026-11-26 outbox published");
    p.run(&["run", TODAY, "--key", "2026-11-02"])
        .code(0)
        .stdout_has("2026-11-02 outbox published");
    assert!(!p.exists("outbox/2026-11-01.html"));
    p.run(&["run", TODAY, "--backfill"])
        .code(0)
        .stdout_has("2026-11-01 outbox published");
    assert_eq!(p.statuses("outbox").len(), 3);
}

#[test]
fn adopt_records_a_baseline_without_publishing() {
    let p = three_days();
    p.file("content/2026-11-20.md", "---\ndraft: true\n---\n# Draft\n");
    p.run(&["adopt", "--until", "2026-11-28"])
        .code(0)
        .stdout_has("outbox: adopted 1 key(s) up to 2026-11-28")
        .stdout_has("1 draft(s) left alone");
    assert!(p.state_lines("outbox")[0].contains("reason=adopted"));
    assert!(!p.exists("outbox"));
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox published");
    assert!(
        !p.exists("outbox/2026-11-28.html"),
        "adopted key was published"
    );
}

#[test]
fn dry_run_prints_decisions_and_changes_nothing() {
    let p = three_days();
    p.file("content/2026-11-27.md", "no title here\n");
    let before = p.tree(&[]);
    p.run(&["run", "--dry-run", TODAY])
        .code(1)
        .stdout_has(
            "2026-11-29 outbox publish (due) \"Today\" tags= summary=\"Body of 2026-11-29.\"",
        )
        .stdout_has("2026-11-30 outbox scheduled")
        .stdout_has("content/2026-11-27.md: no title");
    assert_eq!(p.tree(&[]), before, "dry-run changed the tree");
    assert!(!p.exists("state"));
    // After a real run, dry-run says what is done, still without writing.
    p.file("content/2026-11-27.md", "# Fixed\n");
    p.run(&["run", TODAY]).code(0);
    let before = p.tree(&[]);
    p.run(&["run", "--dry-run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox skip done");
    assert_eq!(p.tree(&[]), before);
}

#[test]
fn a_second_run_is_kept_out_by_the_lock() {
    let p = three_days();
    std::fs::create_dir_all(p.path("state")).unwrap();
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(p.path("state/.lock"))
        .unwrap();
    lock.lock().unwrap();
    std::fs::write(
        p.path("state/.lock"),
        "pid 4242 since 2026-11-29T09:00:00+00:00\n",
    )
    .unwrap();
    for args in [
        &["run", TODAY][..],
        &["mark", "2026-11-29", "done"],
        &["adopt"],
        &["retry", "2026-11-29"],
    ] {
        p.run(args).code(75).stderr_has(
            "another dayrun run holds state/.lock (pid 4242 since 2026-11-29T09:00:00+00:00)",
        );
    }
    assert!(!p.exists("outbox"));
    assert!(!p.exists("state/outbox.state"));
    drop(lock);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox published");
}

/// The lookup (`confirm`, asked before a first attempt): its first call says it started, then
/// waits until the test writes to `go.fifo`, and answers what it saw before: not there.
const LOOKS_SLOWLY: &str = r#"#!/bin/sh
cat > /dev/null
if mkdir first.d 2>/dev/null; then
  : > started
  read go < go.fifo
  exit 1
fi
if grep -qx "$DAYRUN_KEY" published.txt 2>/dev/null; then echo "site-$DAYRUN_KEY"; exit 0; fi
exit 1
"#;

const PUBLISHES: &str = r#"#!/bin/sh
cat > /dev/null
echo "$DAYRUN_KEY" >> published.txt
echo "{\"id\":\"site-$DAYRUN_KEY\"}"
"#;

/// A run whose lookup waits on `go.fifo`; dropped, it lets the lookup go and waits for the run.
struct Held<'a> {
    p: &'a Project,
    run: Option<std::process::Child>,
}

impl Held<'_> {
    fn finish(&mut self) -> crate::support::util::Output {
        use std::os::unix::fs::OpenOptionsExt;
        // Non-blocking: the lookup's read end is open (or opening); if not, there is no one
        // to let go.
        if let Ok(mut go) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(self.p.path("go.fifo"))
        {
            let _ = std::io::Write::write_all(&mut go, b"go\n");
        }
        let run = self.run.take().expect("one finish");
        run.wait_with_output().unwrap().into()
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.run.is_some() {
            self.finish();
        }
    }
}

#[test]
fn a_removed_lock_file_does_not_let_a_second_run_in() {
    // Issue 28: a cleaner (`git clean -X`) removed state/.lock under a run; the next run made
    // a new lock file, took it, and the key went out twice.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\nconfirm = [\"./scripts/confirm.sh\"]\ntimeout_secs = 30\n",
    );
    p.script("scripts/publish.sh", PUBLISHES)
        .script("scripts/confirm.sh", LOOKS_SLOWLY);
    p.post("2026-11-29", "Today");
    crate::hostile::round_one::mkfifo(&p.path("go.fifo"));
    let first = p
        .command(&["run", TODAY])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut held = Held {
        p: &p,
        run: Some(first),
    };
    // The handshake: the lookup makes `started` while its run holds the lock.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !p.exists("started") {
        let run = held.run.as_mut().unwrap();
        if let Some(status) = run.try_wait().unwrap() {
            panic!("the first run ended before its lookup started: {status}");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the lookup never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::fs::remove_file(p.path("state/.lock")).unwrap();
    let second = p.run(&["run", TODAY]);
    let first = held.finish();
    let published = std::fs::read_to_string(p.path("published.txt")).unwrap_or_default();
    assert_eq!(
        published, "2026-11-29\n",
        "the key was not sent exactly once\n--- second run\n{second:#?}\n--- first run\n{first:#?}"
    );
    second
        .code(75)
        .stderr_has("another dayrun run holds state/.lock (pid unknown)");
    assert_eq!(second.stdout, "", "a refused run printed decisions");
    first
        .code(0)
        .stdout_has("2026-11-29 site published id=site-2026-11-29");
    assert_eq!(p.statuses("site"), ["2026-11-29 done"]);
}

#[test]
fn pending_found_at_start_is_confirmed_not_resent() {
    let p = three_days();
    p.run(&["run", TODAY]).code(0);
    // A crash after the files were written but before `done` was recorded:
    let done = p.read("state/outbox.state");
    let pending = done.replace("2026-11-29 done", "2026-11-29 pending");
    p.file("state/outbox.state", &pending);
    let html_before = p.read("outbox/2026-11-29.json");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 outbox confirmed");
    assert_eq!(
        p.read("outbox/2026-11-29.json"),
        html_before,
        "confirmed post was rewritten"
    );
    assert!(
        p.read("state/outbox.log")
            .contains("2026-11-29 confirm done")
    );
    // A crash before the files were written: confirmed absent, then sent.
    std::fs::remove_file(p.path("outbox/2026-11-28.json")).unwrap();
    let pending = p
        .read("state/outbox.state")
        .replace("2026-11-28 done", "2026-11-28 pending");
    p.file("state/outbox.state", &pending);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-28 outbox published");
    assert!(p.exists("outbox/2026-11-28.json"));
    assert!(
        p.read("state/outbox.log")
            .contains("2026-11-28 confirm absent")
    );
}

#[test]
fn retry_and_mark_are_the_human_levers() {
    let p = three_days();
    p.run(&["run", TODAY]).code(0);
    p.run(&["retry", "2026-11-29"])
        .code(0)
        .stdout_has("2026-11-29 outbox skip done");
    std::fs::remove_file(p.path("outbox/2026-11-29.html")).unwrap();
    // A target that updates in place takes `--force` as "send it again, in place"…
    p.run(&["retry", "2026-11-29", "--force"])
        .code(0)
        .stdout_has("2026-11-29 outbox updated");
    assert!(p.exists("outbox/2026-11-29.html"));
    // … and `--new` as "publish a second copy".
    p.run(&["retry", "2026-11-29", "--force", "--new"])
        .code(0)
        .stdout_has("2026-11-29 outbox published");

    p.run(&["mark", "2026-11-28", "failed"])
        .code(0)
        .stdout_has("2026-11-28 outbox marked failed (was done)");
    assert!(p.state_lines("outbox")[0].starts_with("2026-11-28 failed "));
    assert!(
        p.state_lines("outbox")[0]
            .contains("class=rejected by=hand reason=\"marked failed by hand\"")
    );
    // A key a human put aside is quiet: no alert, no line, counted in the summary.
    let quiet = p.run(&["run", TODAY]);
    quiet
        .code(0)
        .stdout_has("outbox: 1 failed, 1 done, 1 scheduled");
    assert!(!quiet.stdout.contains("2026-11-28"), "{}", quiet.stdout);
    p.run(&["status"])
        .code(0)
        .stdout_has("2026-11-28 outbox: failed");
    p.run(&["retry", "2026-11-28"])
        .code(0)
        .stdout_has("2026-11-28 outbox published");
    p.run(&["mark", "2026-11-30", "done", "--id", "by-hand"])
        .code(0);
    assert!(p.state_lines("outbox")[2].contains("id=by-hand"));
    p.run(&["run", "--today=2026-11-30"])
        .code(0)
        .stdout_has("outbox: 3 done");
    assert!(!p.exists("outbox/2026-11-30.html"));
    p.run(&["mark", "2026-11-30", "maybe"])
        .code(2)
        .stderr_has("`maybe` is not done, failed or retracted");
    assert!(
        p.read("state/outbox.log")
            .contains("2026-11-30 mark done was=none id=by-hand")
    );
}

#[test]
fn usage_errors_exit_2() {
    let p = three_days();
    p.run(&["run", "--today", "2026-02-30"])
        .code(2)
        .stderr_has("`2026-02-30` is not a real date");
    p.run(&["run", "--target", "nope"])
        .code(2)
        .stderr_has("no target named `nope`");
    p.run(&["frobnicate"]).code(2);
    p.run(&["retry"])
        .code(2)
        .stderr_has("name the key(s) to retry");
    p.run(&["--help"]).code(0).stdout_has("Usage: dayrun");
}

#[test]
fn config_errors_name_the_file_and_key() {
    let p = three_days();
    p.file("dayrun.toml", "content = \"content\"\ncolour = \"blue\"\n");
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("dayrun.toml:2: unknown field `colour`");
    p.file("dayrun.toml", "timezone = \"Mars/Olympus\"\n");
    p.run(&["check"])
        .code(2)
        .stderr_has("unknown time zone `Mars/Olympus`");
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"folder\"\ndir = \"site\"\nspeed = 3\n",
    );
    p.run(&["run", TODAY])
        .code(2)
        .stdout_has("[targets.site]: unknown field `speed`");
    p.file("dayrun.toml", "[targets.site]\nkind = \"ftp\"\n");
    p.run(&["check"]).code(2).stderr_has("unknown kind `ftp`");
    p.file(
        "dayrun.toml",
        "timezone = \"Asia/Shanghai\"\n[targets.site]\nkind = \"folder\"\ndir = \"site\"\n",
    );
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 site published id=site/2026-11-29.html");
    assert!(
        p.state_lines("site")[0].contains("+08:00"),
        "{:?}",
        p.state_lines("site")
    );
    // --config names another file (relative to the project folder); a missing one is an error.
    p.file(
        "other.toml",
        "[targets.elsewhere]\nkind = \"folder\"\ndir = \"elsewhere\"\n",
    );
    p.run(&["--config", "other.toml", "run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 elsewhere published");
    p.run(&["--config", "missing.toml", "run", TODAY])
        .code(2)
        .stderr_has("missing.toml: cannot read the config");
    std::fs::remove_dir_all(p.path("content")).unwrap();
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("content: cannot read the content folder");
}

#[test]
fn status_reports_every_key_and_json_is_stable() {
    let p = three_days();
    p.file("content/2026-11-27.md", "---\ndraft: true\n---\n# D\n");
    p.run(&["run", "--key", "2026-11-28", TODAY]).code(0);
    p.run(&["status", TODAY])
        .code(0)
        .stdout_has("2026-11-28 outbox: done")
        .stdout_has("2026-11-29 outbox: due")
        .stdout_has("2026-11-30 outbox: scheduled")
        .stdout_has("2026-11-27 outbox: draft")
        .stdout_has("outbox: 1 due, 1 done, 1 scheduled, 1 draft");
    let out = p.run(&["status", "--json", TODAY]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema"], 1);
    let target = &doc["targets"][0];
    assert_eq!(target["name"], "outbox");
    assert_eq!(target["counts"]["done"], 1);
    assert_eq!(target["keys"][1]["key"], "2026-11-28");
    assert_eq!(target["keys"][1]["id"], "outbox/2026-11-28.html");
    assert_eq!(target["keys"][1]["stuck"], false);
}

#[test]
fn a_stuck_pending_key_is_flagged_by_status() {
    let p = three_days();
    p.file(
        "state/outbox.state",
        "2026-11-29 pending 2026-11-29T01:00:00+00:00 fp=x attempt=1\n",
    );
    // `status` exits as the run would: the line has been pending for days, far past
    // `escalate_after`, so a human is told (1).
    p.run(&["status", TODAY])
        .code(1)
        .stdout_has("2026-11-29 outbox: pending")
        .stdout_has("STUCK");
}

#[test]
fn a_long_run_without_a_terminal_prints_plain_lines_only() {
    let p = Project::new();
    for day in 10..=29 {
        p.post(&format!("2026-11-{day}"), &format!("Post {day}"));
    }
    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(0);
    assert_eq!(
        out.stderr, "",
        "a progress bar or noise on a non-terminal stderr"
    );
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.contains(" published "))
            .count(),
        20
    );
    assert!(
        out.stdout
            .lines()
            .all(|l| !l.contains('\r') && !l.contains("=>")),
        "{}",
        out.stdout
    );
}

#[test]
fn status_flags_posts_edited_or_deleted_after_publishing() {
    // Issue 10 row 12.
    let p = Project::new();
    p.post("2026-11-27", "Stays")
        .post("2026-11-28", "Edited")
        .post("2026-11-29", "Deleted");
    p.run(&["run", TODAY]).code(0);
    p.file("content/2026-11-28.md", "# Edited\n\nA typo fixed.\n");
    std::fs::remove_file(p.path("content/2026-11-29.md")).unwrap();
    let out = p.run(&["status", TODAY]);
    out.code(0)
        .stdout_has("2026-11-28 outbox: done")
        .stdout_has("EDITED: the post changed since it was published")
        .stdout_has("DELETED: the post's file is gone");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(!lines.iter().any(|l| l.starts_with("2026-11-27") && (l.contains("EDITED") || l.contains("DELETED"))));
    let json = p.run(&["status", "--json", TODAY]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let keys = doc["targets"][0]["keys"].as_array().unwrap();
    let flags: Vec<(bool, bool)> = keys
        .iter()
        .map(|k| {
            (
                k["edited"].as_bool().unwrap(),
                k["deleted"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(flags, [(false, false), (true, false), (false, true)]);
    assert_eq!(doc["targets"][0]["counts"]["edited"], 1);
    assert_eq!(doc["targets"][0]["counts"]["deleted"], 1);
}

#[test]
fn the_trace_is_rotated_by_size_and_three_old_ones_are_kept() {
    let p = Project::new();
    let big = "x".repeat(1024 * 1024 + 1);
    for (name, text) in [
        ("state/outbox.log", big.as_str()),
        ("state/outbox.log.1", "one\n"),
        ("state/outbox.log.2", "two\n"),
        ("state/outbox.log.3", "three\n"),
    ] {
        p.file(name, text);
    }
    p.post("2026-11-29", "Today");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        p.read("state/outbox.log.1"),
        big,
        "the full trace moved to .1"
    );
    assert_eq!(p.read("state/outbox.log.2"), "one\n");
    assert_eq!(p.read("state/outbox.log.3"), "two\n");
    assert!(!p.exists("state/outbox.log.4"));
    let fresh = p.read("state/outbox.log");
    assert!(
        fresh.contains(" 2026-11-29 publish done ") && fresh.len() < 1000,
        "{fresh}"
    );
    // A small trace is not rotated.
    p.post("2026-11-30", "Tomorrow");
    p.run(&["run", "--today=2026-11-30"]).code(0);
    assert_eq!(p.read("state/outbox.log.1"), big);
}

#[test]
fn the_links_file_maps_each_key_to_its_copies_and_is_stable() {
    // Issue 11, links back: a data file a static site reads.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "links_file = \"data/syndication.json\"\n\n[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n[targets.copy]\nkind = \"folder\"\ndir = \"copy\"\n",
    );
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.run(&["run", TODAY]).code(0);
    let links: serde_json::Value = serde_json::from_str(&p.read("data/syndication.json")).unwrap();
    assert_eq!(
        links,
        serde_json::json!({
            "2026-11-28": {"copy": {"id": "copy/2026-11-28.html"}, "outbox": {"id": "outbox/2026-11-28.html"}},
            "2026-11-29": {"copy": {"id": "copy/2026-11-29.html"}, "outbox": {"id": "outbox/2026-11-29.html"}},
        })
    );
    // Nothing changed: the file is left as it was, byte for byte and untouched.
    let before = std::fs::metadata(p.path("data/syndication.json"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    p.run(&["run", TODAY]).code(0);
    let after = std::fs::metadata(p.path("data/syndication.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "rewritten though nothing changed");
    // A mark changes it.
    p.run(&[
        "mark",
        "2026-11-27",
        "done",
        "--id",
        "by-hand",
        "--target",
        "copy",
    ])
    .code(0);
    assert!(p.read("data/syndication.json").contains("\"by-hand\""));
}

#[test]
fn status_says_once_that_a_copy_without_id_cannot_be_updated() {
    let p = Project::new();
    p.post("2026-11-29", "Adopted");
    p.run(&["adopt"]).code(0);
    p.file("content/2026-11-29.md", "# Adopted, edited\n\nNew.\n");
    p.run(&["run", TODAY]).code(0).stdout_has("outbox: 1 done");
    assert!(
        !p.exists("outbox/2026-11-29.html"),
        "an adopted post was written"
    );
    let status = p.run(&["status", TODAY]);
    status
        .stdout_has("2026-11-29 outbox: done")
        .stdout_has("(no id: edits and retracts cannot reach this copy");
    assert_eq!(status.stdout.matches("no id:").count(), 1);
}

#[test]
fn a_finished_run_leaves_no_holder_in_the_lock_and_no_empty_folders() {
    // Issue 22: `pid N since T` stayed in state/.lock after the run; an empty
    // state/<target>.sent/ was left behind.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    );
    p.file_mode(
        "publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho ok-1\n",
        0o755,
    );
    p.post("2026-11-29", "Today");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        p.read("state/.lock"),
        "",
        "the lock names no holder after the run"
    );
    assert!(
        !p.exists("state/site.sent"),
        "an empty folder was left behind"
    );
}
