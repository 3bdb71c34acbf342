//! Mastodon and dev.to at the request floor: one listing per run, plus what their APIs force
//! (Mastodon's source text, one request per status the walk reaches).

use super::{POSTS, count, key, post, seen, write_posts};
use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

const STATUSES: &str = "/api/v1/statuses";
const TIMELINE: &str = "/api/v1/accounts/109/statuses";
const ARTICLES: &str = "/api/articles";
const MINE: &str = "/api/articles/me/all";

fn mastodon(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", super::patient(api.config(extra)));
    p.secret("secrets/masto.token", fake_mastodon::TOKEN);
    p
}

fn devto(api: &FakeDevto) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", super::patient(api.config("")));
    p.secret("secrets/devto.key", fake_devto::KEY);
    p
}

/// Requests for a status's source text.
fn sources(seen: &[String]) -> usize {
    seen.iter().filter(|r| r.contains("/source")).count()
}

#[test]
fn a_mastodon_backfill_walks_the_timeline_once_and_reads_each_older_source_once() {
    let api = FakeMastodon::start(500);
    // Three statuses from another app, older than nothing the walk must reach past.
    api.post_elsewhere(3);
    let p = mastodon(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"])
        .code(0)
        .stdout_has(&format!("masto: {POSTS} published"));
    let seen = seen(&api.server);
    assert_eq!(count(&seen, "POST", STATUSES), POSTS, "{seen:#?}");
    assert_eq!(
        count(&seen, "GET", TIMELINE),
        2,
        "a page, then the end: {seen:#?}"
    );
    assert_eq!(
        sources(&seen),
        3,
        "each status there before, once: {seen:#?}"
    );
    // Plus the instance's limits and the account: POSTS + 7 in all.
    assert_eq!(seen.len(), POSTS + 7, "{seen:#?}");
    assert_eq!(api.statuses().len(), POSTS + 3);
}

#[test]
fn a_mastodon_create_whose_answer_was_lost_is_looked_up_live_and_found_once() {
    let api = FakeMastodon::start(500);
    {
        let mut s = api.state.lock().unwrap();
        s.faults.extend(std::iter::repeat_n(Fault::Normal, 19));
        s.faults.push_back(Fault::CommitHang);
    }
    let p = mastodon(&api, "settle_secs = 1");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&api.server);
    assert_eq!(
        count(&seen, "POST", STATUSES),
        POSTS,
        "not sent again: {seen:#?}"
    );
    assert!(
        count(&seen, "GET", TIMELINE) > 1,
        "looked up live: {seen:#?}"
    );
    assert_eq!(api.statuses().len(), POSTS);
    let line = p
        .state_lines("masto")
        .into_iter()
        .find(|l| l.starts_with(&key(19)))
        .unwrap();
    assert!(line.contains(" done "), "{line}");
}

#[test]
fn a_devto_backfill_lists_the_articles_once() {
    let api = FakeDevto::start();
    let p = devto(&api);
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&api.server);
    assert_eq!(count(&seen, "POST", ARTICLES), POSTS, "{seen:#?}");
    assert_eq!(count(&seen, "GET", MINE), 1, "{seen:#?}");
    assert_eq!(seen.len(), POSTS + 1, "{seen:#?}");
}

#[test]
fn a_devto_article_already_there_is_found_by_the_one_listing() {
    let probe = FakeDevto::start();
    let q = devto(&probe);
    q.file(&format!("content/{}.md", key(7)), post(7));
    q.run(&["run", "--backfill"]).code(0);
    let body = probe.articles()[0]["body_markdown"]
        .as_str()
        .unwrap()
        .to_string();
    let api = FakeDevto::start();
    api.seed_article("https://elsewhere.example/7", &body);
    let p = devto(&api);
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    let seen = seen(&api.server);
    assert_eq!(count(&seen, "GET", MINE), 1, "{seen:#?}");
    assert_eq!(count(&seen, "POST", ARTICLES), POSTS - 1, "{seen:#?}");
    let statuses = p.statuses("devto");
    assert!(
        statuses.contains(&format!("{} done", key(7))),
        "{statuses:#?}"
    );
    assert_eq!(api.articles().len(), POSTS);
}
