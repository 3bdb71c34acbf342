//! WordPress at the request floor: one listing of the posts dated around all the keys, one
//! listing of the tags, one create per post.

use super::{POSTS, count, key, post, seen, traced, within_floor, write_posts};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_wordpress::{FakeWordPress, ListFault, PASSWORD};
use crate::support::util::Project;

const POSTS_PATH: &str = "/wp-json/wp/v2/posts";
const TAGS_PATH: &str = "/wp-json/wp/v2/tags";

fn project(wp: &FakeWordPress, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", super::patient(wp.config(extra)));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p
}

/// `KEY STATUS` of every key, and the slugs on the site, for messages.
fn shown(p: &Project, wp: &FakeWordPress) -> String {
    let slugs: Vec<String> = wp.posts().iter().map(|p| p["slug"].to_string()).collect();
    format!("{:#?}\n{slugs:#?}", p.statuses("wp"))
}

#[test]
fn a_backfill_of_40_posts_with_three_tags_costs_a_create_each_and_four_requests() {
    let wp = FakeWordPress::start();
    let p = project(&wp, "");
    write_posts(&p);
    p.run(&["run", "--backfill"])
        .code(0)
        .stdout_has(&format!("wp: {POSTS} published"));
    let seen = seen(&wp.server);
    assert_eq!(wp.posts().len(), POSTS);
    assert_eq!(count(&seen, "POST", POSTS_PATH), POSTS, "{seen:#?}");
    // The survey: one listing from the first key's window to the last's, every status.
    assert_eq!(count(&seen, "GET", POSTS_PATH), 1, "{seen:#?}");
    let first =
        (key(0).parse::<jiff::civil::Date>().unwrap() - jiff::Span::new().days(2)).to_string();
    let last = (key(POSTS - 1).parse::<jiff::civil::Date>().unwrap() + jiff::Span::new().days(3))
        .to_string();
    let survey = seen
        .iter()
        .find(|r| r.starts_with("GET /wp-json/wp/v2/posts?"))
        .unwrap();
    assert!(
        survey.contains(&format!("after={first}T00:00:00&before={last}T00:00:00"))
            && survey.contains("status=publish,future,draft,pending,private,trash"),
        "{survey}"
    );
    // One listing of the site's tags, and the three that were missing created.
    assert_eq!(count(&seen, "GET", TAGS_PATH), 1, "{seen:#?}");
    assert_eq!(count(&seen, "POST", TAGS_PATH), 3, "{seen:#?}");
    assert_eq!(seen.len(), POSTS + 5, "{seen:#?}");
    within_floor(&seen, POSTS);
    let surveys = traced(&p, "wp", "survey");
    assert_eq!(surveys.len(), 1, "{surveys:#?}");
    assert!(
        surveys[0].contains(&format!("survey read keys={POSTS} ")),
        "{}",
        surveys[0]
    );
    // Nothing to do: nothing asked.
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(wp.server.seen.lock().unwrap().len(), seen.len());
}

#[test]
fn tags_already_on_the_site_are_found_in_the_one_listing() {
    let wp = FakeWordPress::start();
    {
        let mut s = wp.state.lock().unwrap();
        // 150 tags: two pages; the ones the posts use among them, named otherwise in case.
        for i in 0..150 {
            let name = match i {
                7 => "Rust".to_string(),
                120 => "OPS".to_string(),
                140 => "notes".to_string(),
                i => format!("tag {i}"),
            };
            s.tags
                .push(serde_json::json!({"id": 1000 + i, "name": name}));
        }
    }
    let p = project(&wp, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&wp.server);
    assert_eq!(count(&seen, "GET", TAGS_PATH), 2, "two pages: {seen:#?}");
    assert_eq!(count(&seen, "POST", TAGS_PATH), 0, "{seen:#?}");
    for post in wp.posts() {
        assert_eq!(
            post["tags"],
            serde_json::json!([1007, 1120, 1140]),
            "{post}"
        );
    }
}

#[test]
fn a_create_whose_answer_was_lost_in_a_backfill_is_looked_up_live_and_found_once() {
    let wp = FakeWordPress::start();
    let p = project(&wp, "settle_secs = 1");
    write_posts(&p);
    {
        let mut s = wp.state.lock().unwrap();
        s.faults.extend(std::iter::repeat_n(Fault::Normal, 19));
        s.faults.push_back(Fault::CommitHang);
    }
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(wp.posts().len(), POSTS, "{}", shown(&p, &wp));
    let seen = seen(&wp.server);
    assert_eq!(
        count(&seen, "POST", POSTS_PATH),
        POSTS,
        "sent once: {seen:#?}"
    );
    // The survey was read before that create: the key was looked up on the site itself.
    assert!(count(&seen, "GET", POSTS_PATH) > 1, "{seen:#?}");
    let line = p
        .state_lines("wp")
        .into_iter()
        .find(|l| l.starts_with(&key(19)))
        .unwrap();
    assert!(line.contains(" done "), "{line}");
    assert_eq!(
        traced(&p, "wp", "publish")
            .iter()
            .filter(|l| l.contains(" unknown "))
            .count(),
        1
    );
}

/// What dayrun sends for post `i` of the backfill, as the site stores it.
fn stored(i: usize) -> serde_json::Value {
    let probe = FakeWordPress::start();
    let p = project(&probe, "");
    p.file(&format!("content/{}.md", key(i)), post(i));
    p.run(&["run", "--backfill"]).code(0);
    probe.posts().remove(0)
}

#[test]
fn copies_already_at_a_keys_place_are_found_by_the_survey() {
    let ours = stored(7);
    let wp = FakeWordPress::start();
    let date = format!("{}T12:00:00", key(7));
    wp.seed_post(
        ours["slug"].as_str().unwrap(),
        &date,
        ours["title"]["raw"].as_str().unwrap(),
        ours["content"]["raw"].as_str().unwrap(),
    );
    // Made by hand at key 5's place, with other words: not this post.
    let hand = format!("{}-my-own-notes", key(5));
    wp.seed_post(
        &hand,
        &format!("{}T09:00:00", key(5)),
        "My own notes",
        "<p>Mine.</p>",
    );
    let p = project(&wp, "");
    write_posts(&p);
    let out = p.run(&["run", "--backfill"]);
    out.code(1);
    let seen = seen(&wp.server);
    assert_eq!(
        count(&seen, "GET", POSTS_PATH),
        1,
        "the survey alone: {seen:#?}"
    );
    assert_eq!(count(&seen, "POST", POSTS_PATH), POSTS - 2, "{seen:#?}");
    let statuses = p.statuses("wp");
    assert!(
        statuses.contains(&format!("{} done", key(7))),
        "{statuses:#?}"
    );
    assert!(
        statuses.contains(&format!("{} failed", key(5))),
        "{statuses:#?}"
    );
    assert!(out.stdout.contains("not this post"), "{}", out.stdout);
    assert_eq!(wp.posts().len(), POSTS, "38 sent, 2 there before");
}

#[test]
fn a_survey_that_cannot_be_trusted_proves_nothing_and_each_key_is_looked_up() {
    let wp = FakeWordPress::start();
    wp.state
        .lock()
        .unwrap()
        .list_faults
        .push_back(ListFault::NoTotals);
    let p = project(&wp, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&wp.server);
    assert_eq!(count(&seen, "GET", POSTS_PATH), 1 + POSTS, "{seen:#?}");
    assert_eq!(count(&seen, "POST", POSTS_PATH), POSTS);
    assert_eq!(wp.posts().len(), POSTS);
    let survey = traced(&p, "wp", "survey").remove(0);
    assert!(survey.contains("X-WP-TotalPages"), "{survey}");
}

#[test]
fn a_survey_that_fails_leaves_every_lookup_live() {
    let wp = FakeWordPress::start();
    wp.state
        .lock()
        .unwrap()
        .list_faults
        .push_back(ListFault::Status(500));
    let p = project(&wp, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&wp.server);
    assert_eq!(count(&seen, "GET", POSTS_PATH), 1 + POSTS, "{seen:#?}");
    assert_eq!(wp.posts().len(), POSTS);
    let survey = traced(&p, "wp", "survey").remove(0);
    assert!(survey.contains(" survey lookup-error "), "{survey}");
}
