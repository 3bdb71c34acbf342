//! Issue 32: a renamed post is never a second copy. With slugged keys, a new key whose post has
//! the text of exactly one key whose file is gone and whose copy is out takes that key's line
//! over (`place=`): its copies stay where they are, edits and retracts reach them there, and
//! nothing is sent again. A new key that may be a rename but cannot be told (a rename with an
//! edit, across days too when the slug stays, or a new post beside a deleted one of its day) is not sent: the run fails it (rejected,
//! exit 1) naming the keys, as its dry run and `status` say, until a person says which it is
//! (`dayrun mv OLD NEW`, or `retry` to publish it as a new post). A date project is unchanged.

use crate::content::slugged::slugged;
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_ghost::{self, FakeGhost};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_wordpress::{self, FakeWordPress};
use crate::support::util::Project;

const NOW: &str = "2026-12-01T09:00:00Z";
const LATER: &str = "2026-12-01T10:00:00Z";
const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";
const TEXT: &str = "# A title\n\nThe words of the post.\n";
const OLD: &str = "2026-12-01-first-name";
const NEW: &str = "2026-12-01-better-name";

fn project(keys: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", format!("timezone = \"UTC\"\n{keys}{FOLDER}"));
    p
}

/// A slugged project with `OLD` published to the folder.
fn published() -> Project {
    let p = project("keys = [\"date\", \"slug\"]\n");
    p.file(&format!("content/{OLD}.md"), TEXT);
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    p
}

fn rename(p: &Project, from: &str, to: &str) {
    std::fs::rename(
        p.path(&format!("content/{from}.md")),
        p.path(&format!("content/{to}.md")),
    )
    .unwrap();
}

/// The state file's line for `key`, if any.
fn line(p: &Project, key: &str) -> Option<String> {
    let state = p.read("state/out.state");
    state
        .lines()
        .find(|l| l.starts_with(&format!("{key} ")))
        .map(str::to_string)
}

/// The folder's files, sorted.
fn out_files(p: &Project) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(p.path("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn a_renamed_post_takes_its_line_over_and_is_not_sent_again() {
    let p = published();
    let before = out_files(&p);
    rename(&p, OLD, NEW);
    p.run_at(LATER, &["run", "--dry-run"])
        .code(0)
        .stdout_has(&format!(
            "{NEW} out renamed from {OLD}: would carry its line over"
        ));
    p.run_at(LATER, &["status"]).code(0).stdout_has(NEW);
    assert!(
        line(&p, OLD).is_some(),
        "a dry run and status change nothing"
    );
    p.run_at(LATER, &["run"]).code(0).stdout_has(&format!(
        "{NEW} out renamed from {OLD}: its line carried over"
    ));
    assert_eq!(out_files(&p), before, "no second copy");
    assert!(line(&p, OLD).is_none(), "the old line is gone");
    let carried = line(&p, NEW).expect("the new key's line");
    assert!(carried.starts_with(&format!("{NEW} done ")), "{carried}");
    assert!(carried.contains(&format!("place={OLD}")), "{carried}");
    assert!(carried.contains(&format!("id=out/{OLD}.html")), "{carried}");
    p.run_at(LATER, &["run"]).code(0);
    p.run_at(LATER, &["status"]).code(0);
    assert_eq!(out_files(&p), before);
}

#[test]
fn an_edit_of_a_renamed_post_updates_the_copy_where_it_is() {
    let p = published();
    rename(&p, OLD, NEW);
    p.run_at(LATER, &["run"]).code(0);
    p.file(&format!("content/{NEW}.md"), "# A title\n\nBetter words.\n");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has(&format!("{NEW} out updated id=out/{OLD}.html"));
    assert!(p.read(&format!("out/{OLD}.html")).contains("Better words."));
    assert!(!p.exists(&format!("out/{NEW}.html")));
    // And a retract takes the copy back from where it is.
    p.run_at(LATER, &["retract", NEW, "--yes"]).code(0);
    assert!(!p.exists(&format!("out/{OLD}.html")));
}

#[test]
fn a_rename_across_dates_is_recognised_the_same_way() {
    let p = published();
    rename(&p, OLD, "2026-11-30-first-name");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has(&format!("2026-11-30-first-name out renamed from {OLD}"));
    assert!(!p.exists("out/2026-11-30-first-name.html"));
}

#[test]
fn a_rename_with_an_edit_waits_for_a_persons_mv() {
    let p = published();
    rename(&p, OLD, NEW);
    p.file(
        &format!("content/{NEW}.md"),
        "# A better title\n\nThe words of the post.\n",
    );
    let said = format!(
        "not sent: {OLD}'s file is gone and its copy is out here (a key of its day or slug, or gone since the last run): renamed (and edited) from it?"
    );
    p.run_at(LATER, &["run", "--dry-run"])
        .code(1)
        .stdout_has(&format!("{NEW} out would fail (local) ({said}"));
    p.run_at(LATER, &["status"]).code(1);
    p.run_at(LATER, &["run"])
        .code(1)
        .stdout_has(&format!("{NEW} out failed (rejected): {said}"))
        .stdout_has(&format!("`dayrun mv {OLD} {NEW}` carries that line over"))
        .stdout_has(&format!("`dayrun retry {NEW} --target out` publishes it"));
    assert!(!p.exists(&format!("out/{NEW}.html")), "no second copy");
    // It stays so, run after run, until a person acts.
    p.run_at(LATER, &["run"]).code(1);
    // The person's word: it is that post, renamed. Its edit goes to the copy where it is.
    p.run_at(LATER, &["mv", OLD, NEW])
        .code(0)
        .stdout_has(&format!("{NEW} out took {OLD}'s line over"));
    assert!(line(&p, OLD).is_none());
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has(&format!("{NEW} out updated id=out/{OLD}.html"));
    assert!(
        p.read(&format!("out/{OLD}.html"))
            .contains("A better title")
    );
    assert!(!p.exists(&format!("out/{NEW}.html")));
}

#[test]
fn a_rename_with_an_edit_and_a_new_date_is_told_by_its_slug() {
    let p = published();
    let moved = "2026-11-30-first-name";
    rename(&p, OLD, moved);
    p.file(
        &format!("content/{moved}.md"),
        "# A better title\n\nThe words of the post.\n",
    );
    p.run_at(LATER, &["run"])
        .code(1)
        .stdout_has(&format!(
            "{moved} out failed (rejected): not sent: {OLD}'s file is gone"
        ))
        .stdout_has(&format!("`dayrun mv {OLD} {moved}` carries that line over"));
    assert!(!p.exists(&format!("out/{moved}.html")), "no second copy");
    // It stays so, run after run, until a person acts.
    p.run_at(LATER, &["run"]).code(1);
    p.run_at(LATER, &["mv", OLD, moved]).code(0);
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has(&format!("{moved} out updated id=out/{OLD}.html"));
}

#[test]
fn a_post_asked_about_stays_asked_about_when_it_is_edited_again() {
    let p = published();
    rename(&p, OLD, NEW);
    p.file(
        &format!("content/{NEW}.md"),
        "# A better title\n\nThe words.\n",
    );
    p.run_at(LATER, &["run"]).code(1);
    // Saving it again (a typo fixed) is not an answer: it is still not sent.
    p.file(
        &format!("content/{NEW}.md"),
        "# A better title\n\nThe words!\n",
    );
    p.run_at(LATER, &["run", "--dry-run"]).code(1);
    p.run_at(LATER, &["run"]).code(1).stdout_has(&format!(
        "{NEW} out failed (rejected): not sent: {OLD}'s file is gone"
    ));
    assert!(!p.exists(&format!("out/{NEW}.html")), "no second copy");
    // The person's word that it is a new post.
    p.run_at(LATER, &["retry", NEW]).code(0);
    assert!(p.exists(&format!("out/{NEW}.html")));
}

#[test]
fn mv_moves_nothing_onto_a_key_that_has_a_copy_or_from_one_that_has_no_line() {
    let p = published();
    p.file("content/2026-12-02-other.md", "# Other\n\nOther words.\n");
    p.run_at("2026-12-02T09:00:00Z", &["run"]).code(0);
    p.run_at(LATER, &["mv", OLD, "2026-12-02-other"])
        .code(2)
        .stderr_has("mv: 2026-12-02-other already has a copy on out: nothing moved");
    p.run_at(LATER, &["mv", "2026-11-01-nothing", NEW])
        .code(2)
        .stderr_has("mv: 2026-11-01-nothing has no line on any target named");
    assert!(line(&p, OLD).is_some());
}

#[test]
fn a_rename_that_changes_text_date_and_slug_is_asked_about_in_the_run_that_sees_it() {
    let p = published();
    let other = "2026-11-30-other";
    std::fs::remove_file(p.path(&format!("content/{OLD}.md"))).unwrap();
    p.file(
        &format!("content/{other}.md"),
        "# Another\n\nOther words.\n",
    );
    p.run_at(LATER, &["run", "--dry-run"]).code(1);
    p.run_at(LATER, &["run"])
        .code(1)
        .stdout_has(&format!(
            "{other} out failed (rejected): not sent: {OLD}'s file is gone and its copy is out here (a key of its day or slug, or gone since the last run)"
        ));
    assert!(!p.exists(&format!("out/{other}.html")), "no second copy");
    assert!(
        !line(&p, OLD).unwrap().contains("gone="),
        "asked about: not settled"
    );
    // The person's word: a new post. The next run notes the old file gone, once.
    p.run_at(LATER, &["retry", other]).code(0);
    p.run_at(LATER, &["run"]).code(0);
    assert!(
        line(&p, OLD).unwrap().contains("gone=2026-12-01"),
        "{:?}",
        line(&p, OLD)
    );
    p.file("content/2026-11-29-third.md", "# Third\n\nThird words.\n");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_new_post_after_a_run_saw_a_published_one_gone_is_sent() {
    let p = published();
    std::fs::remove_file(p.path(&format!("content/{OLD}.md"))).unwrap();
    p.run_at(LATER, &["run", "--dry-run"]).code(0);
    assert!(
        !line(&p, OLD).unwrap().contains("gone="),
        "a dry run notes nothing"
    );
    p.run_at(LATER, &["run"]).code(0);
    let noted = line(&p, OLD).unwrap();
    assert!(noted.contains("gone=2026-12-01"), "{noted}");
    p.file("content/2026-11-30-other.md", "# Another\n\nOther words.\n");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    // A new post of the gone one's day is still asked about.
    p.file(
        "content/2026-12-01-same-day.md",
        "# Same day\n\nNew words.\n",
    );
    p.run_at(LATER, &["run"]).code(1);
}

#[test]
fn a_date_project_publishes_a_renamed_post_as_it_did() {
    let p = project("");
    p.file("content/2026-12-01.md", TEXT);
    p.run_at(NOW, &["run"]).code(0);
    rename(&p, "2026-12-01", "2026-11-30");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    assert!(p.exists("out/2026-11-30.html") && p.exists("out/2026-12-01.html"));
}

#[test]
fn a_retry_of_a_renamed_post_is_the_persons_word_and_publishes_it() {
    let p = published();
    rename(&p, OLD, NEW);
    p.run_at(LATER, &["retry", NEW])
        .code(0)
        .stdout_has(&format!("{NEW} out published"));
}

/// A post published to the target `name` in `p` (whose `dayrun.toml` has `keys = ["date",
/// "slug"]` and `on_edit = "update"`), dated today (servers date a post by their own clock),
/// whose answer is then lost (its line pending again, as a run cut off after its send leaves
/// it), and whose file is renamed: the run carries the line over, looks the copy up where it
/// is (the old key's place) and finds it, and sends nothing; an edit then goes to that copy.
/// `count`: the copies on the server. Also run on the real WordPress, Ghost and PDS.
pub(crate) fn a_renamed_post_stays_one_copy(p: &Project, name: &str, count: &dyn Fn() -> usize) {
    let today = jiff::Timestamp::now().in_tz("UTC").unwrap().date();
    let (old, new) = (
        format!("{today}-first-name"),
        format!("{today}-better-name"),
    );
    p.file(
        &format!("content/_posts/{old}.md"),
        "# Renamed\n\nThe words before.\n",
    );
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{name}: 1 published"));
    let state = p.path(&format!("state/{name}.state"));
    let text = std::fs::read_to_string(&state).unwrap();
    let pending = text.replace(&format!("{old} done "), &format!("{old} pending "));
    assert_ne!(text, pending, "{text}");
    std::fs::write(&state, pending).unwrap();
    std::fs::rename(
        p.path(&format!("content/_posts/{old}.md")),
        p.path(&format!("content/_posts/{new}.md")),
    )
    .unwrap();
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!(
            "{new} {name} renamed from {old}: its line carried over"
        ))
        .stdout_has(&format!("{name}: 1 confirmed"));
    assert_eq!(count(), 1, "found where it is, not sent again");
    assert_eq!(p.statuses(name), [format!("{new} done")]);
    p.file(
        &format!("content/_posts/{new}.md"),
        "# Renamed\n\nThe words after.\n",
    );
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{new} {name} updated"));
    assert_eq!(count(), 1, "the edit went to the copy where it is");
}

#[test]
fn a_renamed_post_is_found_where_it_is_on_wordpress_and_ghost() {
    let wp = FakeWordPress::start();
    let password = format!("{}\n", fake_wordpress::PASSWORD);
    let p = slugged(&wp.config(""), ("secrets/wp.password", &password));
    a_renamed_post_stays_one_copy(&p, "wp", &|| wp.posts().len());
    assert!(
        wp.posts()[0]["content"]["raw"]
            .to_string()
            .contains("The words after.")
    );
    let ghost = FakeGhost::start();
    let key = format!("{}:{}\n", fake_ghost::KEY_ID, fake_ghost::SECRET);
    let p = slugged(&ghost.config(""), ("secrets/ghost.key", &key));
    a_renamed_post_stays_one_copy(&p, "ghost", &|| ghost.posts().len());
}

#[test]
fn a_renamed_post_is_found_where_it_is_on_mastodon_devto_and_bluesky() {
    let masto = FakeMastodon::start(500);
    let config = masto.config("on_edit = \"update\"");
    let p = slugged(&config, ("secrets/masto.token", fake_mastodon::TOKEN));
    a_renamed_post_stays_one_copy(&p, "masto", &|| masto.statuses().len());
    let devto = FakeDevto::start();
    let p = slugged(&devto.config(""), ("secrets/devto.key", fake_devto::KEY));
    a_renamed_post_stays_one_copy(&p, "devto", &|| devto.articles().len());
    let api = FakeBluesky::start();
    let config = api.config("sky", "on_edit = \"update\"");
    let p = slugged(
        &config,
        ("secrets/bsky.password", &format!("{APP_PASSWORD}\n")),
    );
    a_renamed_post_stays_one_copy(&p, "sky", &|| api.records().len());
}
