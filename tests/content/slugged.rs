//! Issue 32, first step: `keys = ["date", "slug"]` takes Jekyll-style names
//! (`YYYY-MM-DD-slug.md`, `.markdown`), each its own key, several a day; without it such files
//! stay ignored, so no project's scratch files become due by an upgrade. Every target tells one
//! day's posts apart: by the whole key, by a slug that ends the key with `_`, or by what was sent.

use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_ghost::{self, FakeGhost};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_wordpress::{self, FakeWordPress};
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
fn keys_take_their_kinds_only_and_always_date() {
    for (keys, said) in [
        ("keys = [\"slug\"]\n", "`keys` must hold \"date\""),
        (
            "keys = [\"date\", \"fortnight\"]\n",
            "`keys`: `fortnight` is not a kind of key",
        ),
    ] {
        blog(keys, FOLDER).run(&["check"]).code(2).stderr_has(said);
    }
}

/// One day's posts on a platform, today (servers date a post by their own clock, and a lookup
/// reads the days around the key's), in `p`, whose `dayrun.toml` has `keys = ["date", "slug"]`
/// and the target `name`: two slugged posts are published. Then the state is lost, and the
/// day's date post and a post whose name begins one of theirs (`second` beside `second-post`)
/// are added: each key's lookup before its first send finds its own copy, or, for the new
/// ones, nothing among the others' copies, and sends. None is taken for another's. `count`:
/// the copies on the server. Also run on the real WordPress and Ghost (`tests/real/`).
pub(crate) fn one_days_posts_stay_apart(p: &Project, name: &str, count: &dyn Fn() -> usize) {
    let today = jiff::Timestamp::now().in_tz("UTC").unwrap().date();
    let post = |slug: &str, title: &str| {
        let text = format!("# {title}\n\nThe text of {title}.\n");
        p.file(&format!("content/_posts/{today}{slug}.md"), text);
    };
    post("-second-post", "Two");
    post("-third", "Three");
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{name}: 2 published"));
    let state = p.path(&format!("state/{name}.state"));
    std::fs::remove_file(&state).unwrap();
    post("", "One");
    post("-second", "Second");
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{today} {name} published"))
        .stdout_has(&format!("{today}-second {name} published"))
        .stdout_has(&format!("{name}: 2 published, 2 already there"));
    assert_eq!(count(), 4, "no second copy");
    std::fs::remove_file(&state).unwrap();
    p.run(&["run"])
        .code(0)
        .stdout_has(&format!("{name}: 4 already there"));
    assert_eq!((count(), p.statuses(name).len()), (4, 4));
}

/// A slugged project publishing to the target `config` names, with its secret.
pub(crate) fn slugged(config: &str, (file, secret): (&str, &str)) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\n{SLUGS}{config}"),
    );
    p.secret(file, secret);
    p
}

/// The slugs of `posts` with today's date as `DAY`, sorted.
pub(crate) fn slugs_of(posts: &[serde_json::Value]) -> Vec<String> {
    let today = jiff::Timestamp::now()
        .in_tz("UTC")
        .unwrap()
        .date()
        .to_string();
    let mut slugs: Vec<String> = (posts.iter())
        .map(|p| p["slug"].as_str().unwrap().replace(&today, "DAY"))
        .collect();
    slugs.sort();
    slugs
}

/// The slugs the day's four posts are sent with (`place.rs`).
pub(crate) const SENT: [&str; 4] = [
    "DAY-one",
    "DAY-second-post_two",
    "DAY-second_second",
    "DAY-third_three",
];

/// WordPress and Ghost find a copy by its slug: a slugged key's is `KEY_words` (`_` is in no
/// key), so the date key's place (`KEY-…`) and a longer key's never hold it (`place.rs`).
#[test]
fn wordpress_and_ghost_tell_one_days_posts_apart_by_their_slugs() {
    let wp = FakeWordPress::start();
    let password = format!("{}\n", fake_wordpress::PASSWORD);
    let p = slugged(&wp.config(""), ("secrets/wp.password", &password));
    one_days_posts_stay_apart(&p, "wp", &|| wp.posts().len());
    assert_eq!(slugs_of(&wp.posts()), SENT);
    let ghost = FakeGhost::start();
    let key = format!("{}:{}\n", fake_ghost::KEY_ID, fake_ghost::SECRET);
    let p = slugged(&ghost.config(""), ("secrets/ghost.key", &key));
    one_days_posts_stay_apart(&p, "ghost", &|| ghost.posts().len());
    assert_eq!(slugs_of(&ghost.posts()), SENT);
}

/// Mastodon and dev.to find a copy by what was sent (its text, its body or canonical URL):
/// one day's posts are told apart as any two posts are.
#[test]
fn mastodon_and_devto_tell_one_days_posts_apart_by_what_was_sent() {
    let masto = FakeMastodon::start(500);
    let p = slugged(
        &masto.config(""),
        ("secrets/masto.token", fake_mastodon::TOKEN),
    );
    one_days_posts_stay_apart(&p, "masto", &|| masto.statuses().len());
    let devto = FakeDevto::start();
    let p = slugged(&devto.config(""), ("secrets/devto.key", fake_devto::KEY));
    one_days_posts_stay_apart(&p, "devto", &|| devto.articles().len());
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

/// A slugged post sent after its day (a late run) carries its key's day as its date, as a date
/// post does: `2026-12-01T12:00:00`, not the key's text (which WordPress refuses as no date).
#[test]
fn a_slugged_post_sent_after_its_day_is_dated_by_its_day() {
    let wp = FakeWordPress::start();
    let password = format!("{}\n", fake_wordpress::PASSWORD);
    let p = slugged(&wp.config(""), ("secrets/wp.password", &password));
    let yesterday = jiff::Timestamp::now()
        .in_tz("UTC")
        .unwrap()
        .date()
        .yesterday()
        .unwrap();
    p.file(
        &format!("content/{yesterday}-late.md"),
        "# Late\n\nA day late.\n",
    );
    p.run(&["run"]).code(0).stdout_has("wp: 1 published");
    let posts = wp.posts();
    let date = posts[0]["date"].as_str().unwrap();
    assert!(date.starts_with(&format!("{yesterday}T12:00")), "{date}");
}
