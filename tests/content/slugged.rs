//! Issue 32, first step: `keys = ["date", "slug"]` takes Jekyll-style names
//! (`YYYY-MM-DD-slug.md`, `.markdown`), each its own key, several a day; without it such files
//! stay ignored, so no project's scratch files become due by an upgrade. A target whose place
//! for a copy cannot tell two posts of one day apart refuses the setting.

use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::support::util::Project;

const NOW: &str = "2026-12-01T09:00:00Z";
const LATER: &str = "2026-12-01T10:00:00Z";
const SLUGS: &str = "keys = [\"date\", \"slug\"]\n";

/// A blog of one day: a date post, two slugged posts (one `.markdown`), and a scratch file.
fn blog(top: &str, targets: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", format!("timezone = \"UTC\"\n{top}{targets}"));
    p.file("content/_posts/2026-12-01.md", "# One\n\nThe day's post.\n");
    p.file(
        "content/_posts/2026-12-01-second-post.md",
        "# Two\n\nA second.\n",
    );
    p.file(
        "content/_posts/2026-12-01-third.markdown",
        "# Three\n\nA third.\n",
    );
    p
}

const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";

#[test]
fn without_the_setting_slugged_names_stay_ignored() {
    let p = blog("", FOLDER);
    p.run(&["check"])
        .code(0)
        .stdout_has("ignored content/_posts/2026-12-01-second-post.md: name is not YYYY-MM-DD.md")
        .stdout_has("ignored content/_posts/2026-12-01-third.markdown");
    p.run_at(NOW, &["run"]).code(0);
    assert_eq!(p.statuses("out"), ["2026-12-01 done"]);
}

#[test]
fn each_post_of_a_day_is_its_own_key_published_once() {
    let p = blog(SLUGS, FOLDER);
    p.run(&["check"])
        .code(0)
        .stdout_has(
            "ok content/_posts/2026-12-01-second-post.md key=2026-12-01-second-post \"Two\"",
        )
        .stdout_has("ok content/_posts/2026-12-01-third.markdown key=2026-12-01-third \"Three\"");
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("2026-12-01-second-post out published id=out/2026-12-01-second-post.html")
        .stdout_has("out: 3 published");
    assert_eq!(
        p.statuses("out"),
        [
            "2026-12-01 done",
            "2026-12-01-second-post done",
            "2026-12-01-third done"
        ]
    );
    assert!(p.exists("out/2026-12-01-third.html") && p.exists("out/2026-12-01.html"));
    p.run_at(LATER, &["run"]).code(0).stdout_has("out: 3 done");
    p.run_at(LATER, &["retract", "2026-12-01-third", "--yes"])
        .code(0);
    assert!(!p.exists("out/2026-12-01-third.html"));
    assert!(
        p.exists("out/2026-12-01-second-post.html"),
        "only that key's copy"
    );
}

#[test]
fn a_name_that_is_not_a_slug_is_an_error_naming_the_file_and_the_others_go_out() {
    let p = blog(SLUGS, FOLDER);
    p.file("content/_posts/2026-12-01-Bad_Name.md", "# Bad\n\nx\n");
    p.run_at(NOW, &["run"])
        .code(1)
        .stdout_has("content/_posts/2026-12-01-Bad_Name.md: `Bad_Name` is not a slug")
        .stdout_has("rename the file to 2026-12-01-bad-name.md");
    assert_eq!(p.statuses("out").len(), 3);
}

#[test]
fn keys_take_date_and_slug_only_and_always_date() {
    for (keys, said) in [
        ("keys = [\"slug\"]\n", "`keys` must hold \"date\""),
        (
            "keys = [\"date\", \"week\"]\n",
            "`keys`: `week` is not a kind of key",
        ),
    ] {
        blog(keys, FOLDER).run(&["check"]).code(2).stderr_has(said);
    }
}

#[test]
fn a_target_that_finds_copies_by_the_date_refuses_slugged_keys() {
    let wp = "[targets.wp]\nkind = \"wordpress\"\nurl = \"https://blog.example\"\nuser = \"me\"\napplication_password_file = \"wp.secret\"\n";
    blog(SLUGS, wp)
        .run(&["check"])
        .code(2)
        .stderr_has("[targets.wp]: a wordpress target does not take slugged keys yet");
}

/// Bluesky names a copy's record by a hash of the whole key: two posts of one day are two
/// records, each found again by its own key.
#[test]
fn bluesky_gives_each_post_of_a_day_a_record_of_its_own() {
    let api = FakeBluesky::start();
    let p = blog(SLUGS, &api.config("sky", ""));
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("sky: 3 published");
    let mut rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    rkeys.sort();
    rkeys.dedup();
    assert_eq!(rkeys.len(), 3, "{rkeys:?}");
    // The state lost: each key's lookup finds its own record, none another's.
    std::fs::remove_file(p.path("state/sky.state")).unwrap();
    p.run_at(LATER, &["run"]).code(0);
    assert_eq!(api.records().len(), 3, "no second copy");
    assert_eq!(p.statuses("sky").len(), 3);
}

/// Page bundles (`YYYY-MM-DD[-slug]/index.md`, images beside): the folder names the post and is
/// not a tag (nor is `posts/`, structure in the blog layout); an `index.md` in any other folder is a page, not a post; without the setting a
/// bundle is ignored as before.
#[test]
fn a_page_bundle_is_the_post_its_folder_names_with_its_images_beside_it() {
    let p = blog(SLUGS, FOLDER);
    p.file(
        "content/posts/2026-12-01-a-bundle/index.md",
        "# Bundle\n\n![a picture](pic.png)\n",
    );
    p.file(
        "content/posts/2026-12-01-a-bundle/pic.png",
        crate::support::image_hostile::png_black(2, 2),
    );
    p.file("content/about/index.md", "# About\n\nA page.\n");
    p.file(
        "content/posts/2026-12-02-Bad_Bundle/index.md",
        "# Bad\n\nx\n",
    );
    p.run(&["check"])
        .code(1)
        .stdout_has("ok content/posts/2026-12-01-a-bundle/index.md key=2026-12-01-a-bundle \"Bundle\" tags=\n")
        .stdout_has("ignored content/about/index.md: an index.md whose folder is not YYYY-MM-DD[-slug]")
        .stderr_has("content/posts/2026-12-02-Bad_Bundle/index.md: `Bad_Bundle` is not a slug")
        .stderr_has("rename the folder to 2026-12-02-bad-bundle");
    p.run_at(NOW, &["run"]).code(1);
    assert!(
        p.statuses("out")
            .contains(&"2026-12-01-a-bundle done".to_string())
    );
    let json = p.read("out/2026-12-01-a-bundle.json");
    assert!(
        json.contains(".png"),
        "the image beside it went with it: {json}"
    );
    // A bundle and a file of the same name are one key twice: an error, nothing sent for it.
    let twice = blog(SLUGS, FOLDER);
    twice.file("content/2026-12-01-third/index.md", "# Three again\n\nx\n");
    twice
        .run_at(NOW, &["run"])
        .code(1)
        .stdout_has("two files for 2026-12-01-third: content/2026-12-01-third/index.md and content/_posts/2026-12-01-third.markdown; nothing is published for this key");
    assert!(
        twice
            .statuses("out")
            .contains(&"2026-12-01-third failed".to_string())
    );
    assert!(!twice.exists("out/2026-12-01-third.html"));
    // Without the setting: as before, not a post.
    let plain = blog("", FOLDER);
    plain.file("content/2026-12-05/index.md", "# Later\n\nx\n");
    plain
        .run(&["check"])
        .code(0)
        .stdout_has("ignored content/2026-12-05/index.md");
}
