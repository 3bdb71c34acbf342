//! Issue 20 row 4: a marker is not identity. A copy at this key's place (its record key, a slug
//! that starts with the date, an item with the key) whose content is not what an attempt sent
//! is not this post: dayrun never records it `done`, says "cannot tell" naming the copy, and a
//! human's `retry --not-ours ID` publishes beside it, remembered on the line.

use crate::fakes::fake_bluesky::{FakeBluesky, uri};
use crate::fakes::fake_bluesky_rules::derived_rkey;
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::life::exactly_once::{fingerprint_of, said, shown};
use crate::support::util::Project;
use crate::targets::bluesky::{
    KEY as SKY_KEY, TODAY as SKY_TODAY, field, line, project as sky_project,
};
use std::time::Duration;

#[test]
fn bluesky_a_record_of_another_tool_at_our_record_key_is_not_ours() {
    let api = FakeBluesky::start();
    let theirs = derived_rkey("sky", SKY_KEY, 0);
    api.seed(
        &theirs,
        "A post another project wrote under this record key",
    );
    let p = sky_project(&api, "");
    let out = p.run(&["run", SKY_TODAY]);
    // Never `done` in silence: the record there is not this post.
    out.code(1)
        .stdout_has("failed (unknown)")
        .stdout_has("is not this post")
        .stdout_has(&uri(&theirs))
        .stdout_has(&format!(
            "dayrun retry {SKY_KEY} --not-ours ID --target sky"
        ));
    assert_eq!(api.records().len(), 1, "{}", shown(&out));
    let failed = line(&p, SKY_KEY);
    assert!(
        failed.contains(" failed ") && failed.contains("class=unknown"),
        "{failed}"
    );
    // Every run says so until a human acts.
    p.run(&["run", SKY_TODAY]).code(1);
    // The human rules it foreign: the post goes out beside it, under the next record key.
    let out = p.run(&["retry", SKY_KEY, "--not-ours", &uri(&theirs)]);
    out.code(0).stdout_has("published");
    let ours = derived_rkey("sky", SKY_KEY, 1);
    assert!(api.record(&ours).is_some(), "{}", shown(&out));
    assert_eq!(
        api.record(&theirs).unwrap().text(),
        "A post another project wrote under this record key",
        "the other record is never touched"
    );
    let done = line(&p, SKY_KEY);
    assert_eq!(field(&done, "id"), Some(uri(&ours)), "{done}");
    assert_eq!(field(&done, "foreign"), Some(uri(&theirs)), "{done}");
    assert_eq!(field(&done, "generation").as_deref(), Some("1"), "{done}");
    // The question is not asked again, and nothing more is sent.
    p.run(&["run", SKY_TODAY]).code(0);
    assert_eq!(api.records().len(), 2);
}

fn wordpress(wp: &FakeWordPress, key: jiff::civil::Date, title: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", wp.config(""));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p.file(
        &format!("content/{key}.md"),
        format!("# {title}\n\nFirst paragraph & more.\n"),
    );
    p
}

fn today() -> jiff::civil::Date {
    jiff::tz::Offset::UTC
        .to_datetime(jiff::Timestamp::now())
        .date()
}

#[test]
fn wordpress_a_hand_made_post_whose_slug_starts_with_the_date_is_not_ours() {
    let (wp, key) = (FakeWordPress::start(), today());
    let hand = wp.seed_post(
        &format!("{key}-shopping-list"),
        &format!("{key}T08:00:00"),
        "Shopping list",
        "<p>Milk, eggs.</p>",
    );
    let p = wordpress(&wp, key, "Why the Date is the Key");
    let today = format!("--today={key}");
    let out = p.run(&["run", &today]);
    out.code(1).stdout_has("is not this post");
    said(&out, &hand["id"].to_string());
    assert_eq!(wp.posts().len(), 1, "nothing sent: {}", shown(&out));
    assert_eq!(p.statuses("wp"), [format!("{key} failed")]);
    let out = p.run(&[
        "retry",
        &key.to_string(),
        "--not-ours",
        &hand["id"].to_string(),
    ]);
    out.code(0).stdout_has("published");
    assert_eq!(wp.posts().len(), 2, "{}", shown(&out));
    p.run(&["run", &today]).code(0);
    assert_eq!(wp.posts().len(), 2);
}

#[test]
fn wordpress_a_lost_answer_is_found_through_the_filter_the_site_runs() {
    // A user without `unfiltered_html`: WordPress stores `&amp;` and `<br />` where dayrun sent
    // `&` and `<br>`. The copy is still this post: its words are what was sent.
    let (wp, key) = (FakeWordPress::start(), today());
    wp.state.lock().unwrap().faults.push_back(Fault::CommitHang);
    let p = wordpress(&wp, key, "Fish & Chips");
    let out = p.run(&["run", &format!("--today={key}"), "--key", &key.to_string()]);
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{}", shown(&out));
    assert_eq!(posts[0]["title"]["raw"], "Fish &amp; Chips");
    assert!([0, 75].contains(&out.code), "{}", shown(&out));
    let out = p.run(&["run", &format!("--today={key}")]);
    out.code(0);
    assert!(p.state_lines("wp")[0].contains(" done "), "{}", shown(&out));
    assert_eq!(wp.posts().len(), 1);
}

#[test]
fn wordpress_a_trashed_copy_of_ours_cannot_tell_and_is_never_published_again() {
    let (wp, key) = (FakeWordPress::start(), today());
    wp.state.lock().unwrap().faults.push_back(Fault::CommitHang);
    wp.state.lock().unwrap().lookups_fail = true;
    let p = wordpress(&wp, key, "Why the Date is the Key");
    let today = format!("--today={key}");
    p.run(&["run", &today]).code(75);
    // The copy that landed is trashed by someone before dayrun could look.
    let id = wp.posts()[0]["id"].as_u64().unwrap();
    wp.trash(id);
    wp.state.lock().unwrap().lookups_fail = false;
    let out = p.run(&["run", &today]);
    out.code(1)
        .stdout_has("in the trash")
        .stdout_has(&id.to_string());
    assert_eq!(
        wp.posts().len(),
        1,
        "never published again: {}",
        shown(&out)
    );
    assert_eq!(p.statuses("wp"), [format!("{key} failed")]);
}

#[test]
fn http_an_item_with_this_key_but_another_body_is_not_ours() {
    let api = PostsApi::start();
    let p = Project::new();
    let config = api.config("blog", "").replace(
        &format!("list_url = \"{}\"", api.server.url("/posts")),
        &format!("list_url = \"{}?key={{key}}\"", api.server.url("/posts")),
    );
    p.file("dayrun.toml", config);
    p.post("2026-11-29", "Today");
    api.seed_copy(
        "2026-11-29",
        "fp-of-some-other-post",
        Duration::from_secs(60),
    );
    let out = p.run(&["run", "--today=2026-11-29"]);
    out.code(1).stdout_has("is not this post");
    assert_eq!(
        api.commits_of("2026-11-29"),
        1,
        "nothing sent: {}",
        shown(&out)
    );
    assert_eq!(p.statuses("blog"), ["2026-11-29 failed"]);
    // The same item holding what dayrun sends is this post: found, recorded, not sent.
    let api = PostsApi::start();
    let p2 = Project::new();
    let config = api.config("blog", "").replace(
        &format!("list_url = \"{}\"", api.server.url("/posts")),
        &format!("list_url = \"{}?key={{key}}\"", api.server.url("/posts")),
    );
    p2.file("dayrun.toml", config);
    p2.post("2026-11-29", "Today");
    api.seed_copy(
        "2026-11-29",
        &fingerprint_of(&p2, "2026-11-29"),
        Duration::from_secs(60),
    );
    p2.run(&["run", "--today=2026-11-29"])
        .code(0)
        .stdout_has("already there");
    assert_eq!(api.commits_of("2026-11-29"), 1);
}

#[test]
fn devto_an_article_with_our_canonical_url_but_another_body_is_not_ours() {
    let api = crate::fakes::fake_devto::FakeDevto::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("canonical_url = \"https://blog.test/{key}\""),
    );
    p.secret("secrets/devto.key", crate::fakes::fake_devto::KEY);
    p.file(
        "content/2026-11-29.md",
        "# Shipping daily\n\nWhy and how.\n",
    );
    let theirs = api.seed_article("https://blog.test/2026-11-29", "Something else entirely.");
    let out = p.run(&["run", "--today=2026-11-29"]);
    out.code(1)
        .stdout_has("is not this post")
        .stdout_has(&theirs.to_string());
    assert_eq!(api.articles().len(), 1, "nothing sent: {}", shown(&out));
    assert_eq!(p.statuses("devto"), ["2026-11-29 failed"]);
}
