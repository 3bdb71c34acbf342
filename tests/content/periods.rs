//! Issue 33: weekly and monthly keys. `keys = ["date", "week", "month"]` takes `YYYY-Www.md` (an
//! ISO week) and `YYYY-MM.md`: each is due from its first day in the configured zone, stale
//! `catchup_days` after its last, and sent once. Without them such files are ignored.

use crate::fakes::fake_ghost::{self, FakeGhost};
use crate::fakes::fake_wordpress::{self, FakeWordPress};
use crate::support::util::Project;

fn project(keys: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\n{keys}[targets.out]\nkind = \"folder\"\ndir = \"out\"\n"),
    );
    p
}

fn periods() -> Project {
    project("keys = [\"date\", \"week\", \"month\"]\ncatchup_days = 2\n")
}

#[test]
fn a_week_key_is_due_on_its_monday_and_sent_once() {
    let p = periods();
    p.file("content/2026-W49.md", "# Week 49\n\nThe week's notes.\n");
    p.run(&["check"]).code(0).stdout_has("2026-W49");
    // Sunday before: scheduled.
    p.run_at("2026-11-29T12:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 scheduled");
    p.run_at("2026-11-30T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    assert!(p.exists("out/2026-W49.html"));
    assert!(p.read("state/out.state").contains("\n2026-W49 done "));
    p.run_at("2026-12-02T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 done");
}

#[test]
fn a_week_key_is_stale_catchup_days_after_its_sunday() {
    let p = periods();
    p.file("content/2026-W49.md", "# Week 49\n\nThe week's notes.\n");
    // Sunday 2026-12-06 is its last day; two days later it is still within the window.
    p.run_at("2026-12-08T07:00:00Z", &["run", "--dry-run"])
        .code(0)
        .stdout_has("2026-W49 out publish");
    p.run_at("2026-12-09T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 stale");
    assert!(!p.exists("out/2026-W49.html"));
}

#[test]
fn a_month_key_is_due_on_its_first_and_sits_in_order_among_the_days() {
    let p = periods();
    p.file("content/2026-12.md", "# December\n\nThe month's notes.\n");
    p.file("content/2026-12-01.md", "# First\n\nA day's post.\n");
    p.run_at("2026-11-30T23:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 2 scheduled");
    p.run_at("2026-12-01T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 2 published");
    let state = p.read("state/out.state");
    let day = state.find("\n2026-12-01 ").expect("the day's line");
    let month = state.find("\n2026-12 ").expect("the month's line");
    assert!(day < month, "the day first, then the month:\n{state}");
    // Stale only catchup_days after December ends.
    p.file("content/2026-11.md", "# November\n\nLate notes.\n");
    p.run_at("2026-12-02T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_week_or_month_that_does_not_exist_is_an_error_naming_the_file() {
    let p = periods();
    p.file("content/2026-W54.md", "# No such week\n");
    p.file("content/2026-13.md", "# No such month\n");
    p.run_at("2026-12-01T07:00:00Z", &["run"])
        .code(1)
        .stdout_has("content/2026-W54.md")
        .stdout_has("`2026-W54` is not a real YYYY-Www")
        .stdout_has("`2026-13` is not a real YYYY-MM");
}

#[test]
fn without_week_or_month_keys_such_files_are_ignored_as_before() {
    let p = project("");
    p.file("content/2026-W49.md", "# Week 49\n\nThe week's notes.\n");
    p.file("content/2026-12.md", "# December\n\nThe month's notes.\n");
    let out = p.run_at("2026-12-01T07:00:00Z", &["run"]);
    out.code(0);
    assert!(!out.stdout.contains("published"), "{}", out.stdout);
    assert!(!p.exists("out/2026-W49.html") && !p.exists("out/2026-12.html"));
    // A month project does not take weeks.
    let months = project("keys = [\"date\", \"month\"]\n");
    months.file("content/2026-W49.md", "# Week 49\n\nThe week's notes.\n");
    months.file("content/2026-12.md", "# December\n\nThe month's notes.\n");
    months
        .run_at("2026-12-01T07:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    assert!(months.exists("out/2026-12.html") && !months.exists("out/2026-W49.html"));
}

#[test]
fn a_weeks_post_with_a_time_is_due_at_that_time_within_its_week() {
    let p = project("keys = [\"date\", \"week\"]\ntimes = \"front-matter\"\n");
    p.file(
        "content/2026-W49.md",
        "---\ndate: 2026-12-02 18:00\n---\n# Week 49\n\nThe week's notes.\n",
    );
    p.run_at("2026-12-02T17:59:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 scheduled");
    p.run_at("2026-12-02T18:00:00Z", &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

/// Today's post, this week's and this month's on a site that names copies by slug, now
/// (servers date a post by their own clock), in `p`, whose `dayrun.toml` has `keys = ["date",
/// "week", "month"]` and the one target `name`: a period's copy is `KEY_words` in lower case
/// (`2026-w49_…`), so a month's is never at its first day's place (`2026-12-01-…`) nor a day's
/// at a month's. With the state lost, each key's lookup finds its own copy and no other.
/// `count`: the copies on the server. Also run on the real WordPress and Ghost (`tests/real/`).
pub(crate) fn periods_stay_apart(p: &Project, name: &str, count: &dyn Fn() -> usize) {
    let today = jiff::Timestamp::now().in_tz("UTC").unwrap().date();
    let iso = today.iso_week_date();
    let week = format!("{:04}-W{:02}", iso.year(), iso.week());
    let month = format!("{:04}-{:02}", today.year(), today.month());
    for (key, title) in [(today.to_string(), "Day"), (week, "Week"), (month, "Month")] {
        let text = format!("# {title} {today}\n\nThe {title}'s text.\n");
        p.file(&format!("content/{key}.md"), text);
    }
    let before = count();
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{name}: 3 published"));
    assert_eq!(count(), before + 3);
    std::fs::remove_file(p.path(&format!("state/{name}.state"))).unwrap();
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{name}: 3 already there"));
    assert_eq!(count(), before + 3, "no second copy");
}

/// A project of week, month and day keys publishing to the target `config` names.
fn sited(config: &str, (file, secret): (&str, &str)) -> Project {
    let p = Project::new();
    let keys = "keys = [\"date\", \"week\", \"month\"]\n";
    p.file("dayrun.toml", format!("timezone = \"UTC\"\n{keys}{config}"));
    p.secret(file, secret);
    p
}

#[test]
fn wordpress_and_ghost_keep_a_weeks_a_months_and_a_days_copies_apart() {
    let wp = FakeWordPress::start();
    let password = format!("{}\n", fake_wordpress::PASSWORD);
    let p = sited(&wp.config(""), ("secrets/wp.password", &password));
    periods_stay_apart(&p, "wp", &|| wp.posts().len());
    let slugs: Vec<String> = (wp.posts().iter())
        .map(|p| p["slug"].as_str().unwrap().to_string())
        .collect();
    assert!(
        slugs
            .iter()
            .any(|s| s.contains("-w") && s.contains("_week")),
        "{slugs:?}"
    );
    let ghost = FakeGhost::start();
    let key = format!("{}:{}\n", fake_ghost::KEY_ID, fake_ghost::SECRET);
    let p = sited(&ghost.config(""), ("secrets/ghost.key", &key));
    periods_stay_apart(&p, "ghost", &|| ghost.posts().len());
}
