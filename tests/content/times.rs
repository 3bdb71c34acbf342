//! Issue 33: a time of day. With `times = "front-matter"`, a post is due at the instant its
//! front matter's `date` names (no offset: the configured zone), so an hourly timer sends it at
//! its hour, once; `--today` makes every key of its day due, whatever its time; the dry run and
//! `status` say when a key is due. Without the setting a front-matter time changes nothing.

use crate::support::util::Project;

const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";

fn project(times: bool, zone: &str) -> Project {
    let p = Project::new();
    let times = if times {
        "times = \"front-matter\"\n"
    } else {
        ""
    };
    p.file(
        "dayrun.toml",
        format!("timezone = \"{zone}\"\n{times}{FOLDER}"),
    );
    p
}

fn post(p: &Project, key: &str, date: &str) {
    p.file(
        &format!("content/{key}.md"),
        format!("---\ndate: {date}\n---\n# Evening post\n\nWords.\n"),
    );
}

#[test]
fn a_post_dated_six_pm_waits_for_six_pm_and_goes_out_once() {
    let p = project(true, "Europe/Berlin");
    post(&p, "2026-12-01", "2026-12-01 18:00");
    // 12:00 in Berlin.
    p.run_at("2026-12-01T11:00:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("2026-12-01 out scheduled due on 2026-12-01 at 18:00");
    p.run_at("2026-12-01T11:00:00Z", &["status"])
        .code(0)
        .stdout_has("scheduled");
    p.run_at("2026-12-01T11:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 scheduled");
    assert!(!p.exists("out/2026-12-01.html"), "not before its time");
    // 18:30 in Berlin: out, once.
    p.run_at("2026-12-01T17:30:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    p.run_at("2026-12-01T18:30:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 done");
}

#[test]
fn an_offset_in_the_front_matter_names_the_instant_whatever_the_zone() {
    let p = project(true, "UTC");
    // Jekyll's way: 18:00 at +0100 is 17:00 UTC.
    post(&p, "2026-12-01", "2026-12-01 18:00:00 +0100");
    p.run_at("2026-12-01T16:59:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("due on 2026-12-01 at 17:00");
    p.run_at("2026-12-01T17:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_time_the_zone_skips_in_spring_is_moved_forward_by_the_gap() {
    let p = project(true, "Europe/Berlin");
    // 02:30 does not happen on 2026-03-29 in Berlin: the post is due at 03:30 CEST (01:30 UTC).
    post(&p, "2026-03-29", "2026-03-29 02:30");
    p.run_at("2026-03-29T01:29:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("due on 2026-03-29 at 03:30");
    p.run_at("2026-03-29T01:30:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_time_the_zone_repeats_in_autumn_is_the_first_of_the_two() {
    let p = project(true, "Europe/Berlin");
    // 02:30 happens twice on 2026-10-25 in Berlin: first at 00:30 UTC (CEST).
    post(&p, "2026-10-25", "2026-10-25 02:30");
    p.run_at("2026-10-25T00:29:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 scheduled");
    p.run_at("2026-10-25T00:30:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_timed_post_of_a_day_to_come_says_when_it_is_due() {
    let p = project(true, "UTC");
    post(&p, "2026-12-03", "2026-12-03 18:00");
    p.run_at("2026-12-01T09:00:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("2026-12-03 out scheduled due on 2026-12-03 at 18:00");
    p.run_at("2026-12-03T18:01:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn today_pinned_makes_a_timed_key_of_its_day_due() {
    let p = project(true, "UTC");
    post(&p, "2026-12-01", "2026-12-01T18:00:00Z");
    p.run_at("2026-12-01T09:00:00Z", &["run", "--today", "2026-12-01"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_front_matter_date_on_another_day_is_an_error_naming_both() {
    let p = project(true, "Europe/Berlin");
    post(&p, "2026-12-01", "2026-12-01T23:30:00Z");
    p.run_at("2026-12-02T09:00:00Z", &["run"])
        .code(1)
        .stdout_has(
            "is on 2026-12-02 in the configured time zone, and the file's name on 2026-12-01",
        )
        .stdout_has("content/2026-12-01.md:2");
    assert!(!p.exists("out/2026-12-01.html"));
    p.run_at("2026-12-02T09:00:00Z", &["check"]).code(1);
}

#[test]
fn without_times_a_front_matter_time_changes_nothing() {
    let p = project(false, "UTC");
    post(&p, "2026-12-01", "2026-12-01 18:00");
    p.run_at("2026-12-01T09:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    // Not even a date on another day: it was never read.
    post(&p, "2026-12-02", "2027-01-01");
    p.run_at("2026-12-02T09:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_setting_times_cannot_read_is_a_config_error() {
    let p = Project::new();
    p.file("dayrun.toml", format!("times = \"file-name\"\n{FOLDER}"));
    p.run(&["check"])
        .code(2)
        .stderr_has("`times`: `file-name` is not where a post's time is read from");
}

#[test]
fn the_catch_up_window_of_a_timed_post_counts_from_its_time() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\ntimes = \"front-matter\"\ncatchup_days = 0\n{FOLDER}"),
    );
    post(&p, "2026-12-01", "2026-12-01 23:00");
    // The 23:00 run was missed: two hours later, on the next day, it is within a day of its
    // time (a day's start would have made it stale at midnight).
    p.run_at("2026-12-02T01:00:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("2026-12-01 out publish");
    p.run_at("2026-12-02T22:59:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("2026-12-01 out publish");
    // A day after its time: stale, as a post of no time is a day after its day's start.
    p.run_at("2026-12-02T23:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 stale");
}
