//! Issue 22's smaller things that cost people time, each as a person meets it.

use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

fn two_targets() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n[targets.copy]\nkind = \"folder\"\ndir = \"copy\"\n",
    );
    p
}

#[test]
fn a_dated_post_under_another_markdown_name_fails_the_run_instead_of_vanishing() {
    let p = Project::new();
    p.file("content/2026-11-25.MD", "# Shouting\n\nWords.\n")
        .file("content/2026-11-26.markdown", "# Long name\n\nWords.\n")
        .file("content/photo.jpg", "not really a photo")
        .post("2026-11-29", "Today");
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("content/2026-11-25.MD: a dated post that is never published")
        .stdout_has("rename it to 2026-11-25.md")
        .stdout_has("content/2026-11-26.markdown: a dated post that is never published")
        .stdout_has("2026-11-29 outbox published");
    let check = p.run(&["check"]);
    assert!(
        !check.stdout.contains("photo.jpg"),
        "an image beside the posts is not listed as ignored: {}",
        check.stdout
    );
}

#[test]
fn config_errors_name_the_key_and_guess_a_typo() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    p.file("dayrun.toml", "catchup_days = \"3\"\n");
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("dayrun.toml:1: `catchup_days`: invalid type: string \"3\"");
    p.file("dayrun.toml", "[[targets]]\nkind = \"folder\"\n");
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("dayrun.toml:1:")
        .stderr_has("each target is a table named after it: `[targets.NAME]`");
    p.file("dayrun.toml", "catchup_day = 3\n");
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("unknown field `catchup_day`")
        .stderr_has("(did you mean `catchup_days`?)");
}

#[test]
fn the_wrong_folder_says_there_is_no_dayrun_toml_there() {
    let p = Project::new();
    std::fs::remove_dir_all(p.path("content")).unwrap();
    p.run(&["run", TODAY])
        .code(2)
        .stderr_has("no dayrun.toml and no content/ folder in")
        .stderr_has("is this the project folder?");
}

#[test]
fn the_header_says_what_was_asked() {
    let p = two_targets();
    p.post("2026-11-20", "Old").post("2026-11-29", "Today");
    p.run(&[
        "run",
        TODAY,
        "--backfill",
        "--key",
        "2026-11-20",
        "--target",
        "copy",
    ])
    .code(0)
    .stdout_has("run --backfill --key 2026-11-20 --target copy, today 2026-11-29");
}

#[test]
fn a_posts_error_is_told_once_whatever_the_number_of_targets() {
    let p = two_targets();
    p.file("content/2026-11-29.md", "no title here\n");
    let out = p.run(&["run", TODAY]);
    out.code(1);
    let full = out.stdout.matches("content/2026-11-29.md").count();
    assert_eq!(full, 1, "the error in full once:\n{}", out.stdout);
    out.stdout_has("2026-11-29 outbox failed (local): the post's error above");
}

#[test]
fn a_future_draft_is_a_draft_not_scheduled() {
    let p = Project::new();
    p.file(
        "content/2026-12-05.md",
        "---\ndraft: true\n---\n# Not yet\n\nWords.\n",
    );
    p.post("2026-11-29", "Today");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("1 draft 2026-12-05");
}

#[test]
fn keys_published_in_a_batch_do_not_each_claim_the_batchs_time() {
    let p = Project::new();
    for day in 20..=24 {
        p.post(&format!("2026-11-{day}"), "Old");
    }
    let out = p.run(&["run", TODAY, "--backfill"]);
    out.code(0).stdout_has("batch_keys=5 batch_ms=");
    assert!(
        !out.stdout.contains("duration_ms"),
        "a batch's keys claim one time each: {}",
        out.stdout
    );
}

#[test]
fn check_names_every_bad_image_a_missing_alt_and_a_program_off_path() {
    let p = Project::new();
    p.file("content/images/ok.gif", crate::support::image_gen::gif());
    p.file(
        "content/2026-11-29.md",
        "# Today\n\n![](images/ok.gif)\n\n![a cat](images/missing.jpg)\n\n![a dog](../../etc/passwd)\n",
    );
    let out = p.run(&["check"]);
    out.code(1)
        .stderr_has("content/2026-11-29.md:5:")
        .stderr_has("content/2026-11-29.md:7:")
        .stderr_has("warning: content/2026-11-29.md:3: image `images/ok.gif` has no alt text");
    // A command target's program must be found where the timer will look for it.
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"no-such-publisher\"]\n",
    );
    p.run(&["check"])
        .code(2)
        .stderr_has("`run`: no-such-publisher is not on PATH");
}

#[test]
fn a_run_and_status_count_in_the_same_words() {
    let p = two_targets();
    p.post("2026-11-27", "Gone").post("2026-11-28", "Kept");
    p.run(&["run", TODAY, "--backfill"]).code(0);
    std::fs::remove_file(p.path("content/2026-11-27.md")).unwrap();
    let run = p.run(&["run", TODAY]);
    run.code(0)
        .stdout_has("outbox: 1 done, 1 deleted 2026-11-27 (published, and the post's file is gone");
    p.run(&["status", TODAY])
        .code(0)
        .stdout_has("outbox: 1 done, 1 deleted\n");
}

#[test]
fn two_files_for_tomorrow_are_said_today_not_only_by_check() {
    let p = Project::new();
    p.post("2026-11-29", "Today")
        .post("2026-11-30", "Tomorrow")
        .file("content/rust/2026-11-30.md", "# Tomorrow too\n\nWords.\n");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has(
            "two files for 2026-11-30: content/2026-11-30.md and content/rust/2026-11-30.md",
        )
        .stdout_has("keep one file per date")
        .stdout_has("2026-11-29 outbox published");
    p.run(&["status", TODAY])
        .code(1)
        .stderr_has("two files for 2026-11-30");
}

#[test]
fn a_backfill_tells_the_targets_in_the_headers_order() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.zout]\nkind = \"folder\"\ndir = \"z\"\n\n[targets.asite]\nkind = \"command\"\nrun = [\"true\"]\n\n[targets.mid]\nkind = \"folder\"\ndir = \"m\"\n",
    );
    p.post("2026-11-27", "One").post("2026-11-28", "Two");
    let out = p.run(&["run", TODAY, "--backfill"]);
    out.code(0)
        .stdout_has("targets: asite (command), mid (folder), zout (folder)");
    let order: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| {
            l.strip_prefix("2026-11-2")
                .and_then(|l| l.split(' ').nth(1))
        })
        .collect();
    let mut told: Vec<&str> = order.clone();
    told.dedup();
    assert_eq!(told, ["asite", "mid", "zout"], "{}", out.stdout);
}
