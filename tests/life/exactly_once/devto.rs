//! Issue 8 against the Forem (dev.to) fake: titles Forem rewrote, articles behind a page of
//! drafts, edits between attempts, and Forem's real tag and title rules.

use super::{KEY, TODAY, shown};
use crate::fakes::fake_devto::{FakeDevto, KEY as API_KEY};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;
use std::collections::VecDeque;

fn project(api: &FakeDevto, text: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config(""));
    p.secret("secrets/devto.key", API_KEY);
    p.file(&format!("content/{KEY}.md"), text);
    p
}

/// A first run whose answer is lost, five minutes, and a second run.
fn lost_then_rerun(
    api: &FakeDevto,
    p: &Project,
) -> (crate::support::util::Output, crate::support::util::Output) {
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::CommitHang);
    let run1 = p.run(&["run", TODAY]);
    api.age();
    let run2 = p.run(&["run", TODAY]);
    (run1, run2)
}

fn published(api: &FakeDevto) -> usize {
    api.articles()
        .iter()
        .filter(|a| a["published"] == true)
        .count()
}

#[test]
fn devto_normalised_title_is_found_by_body() {
    let api = FakeDevto::start();
    let p = project(&api, "# Ship it → today\n\nWhy and how.\n");
    let (run1, run2) = lost_then_rerun(&api, &p);
    assert_eq!(api.articles()[0]["title"], "Ship it today");
    assert_eq!(published(&api), 1, "{}\n{}", shown(&run1), shown(&run2));
    run2.code(0);
    assert_eq!(p.statuses("devto"), [format!("{KEY} done")]);
}

#[test]
fn devto_article_behind_a_thousand_drafts_is_found_on_page_two() {
    let api = FakeDevto::start();
    api.seed_drafts(1000);
    let p = project(&api, "# Shipping daily\n\nWhy and how.\n");
    let (run1, run2) = lost_then_rerun(&api, &p);
    assert_eq!(published(&api), 1, "{}\n{}", shown(&run1), shown(&run2));
    run2.code(0);
    assert_eq!(p.statuses("devto"), [format!("{KEY} done")]);
}

#[test]
fn devto_typo_fix_between_attempts_gives_one_copy() {
    // Issue 8 row 6 (dev.to): the lookup must match the body that was sent.
    let api = FakeDevto::start();
    {
        let mut s = api.state.lock().unwrap();
        s.faults.push_back(Fault::CommitHang);
        s.list_faults = VecDeque::from(vec![500; 20]);
    }
    let p = project(&api, "# Shipping daily\n\nWhy adn how.\n");
    // The lookups are down, so the run cannot confirm: a failed lookup is transient and the
    // next run looks again by itself (75).
    p.run(&["run", TODAY]).code(75);
    api.state.lock().unwrap().list_faults.clear();
    api.age();
    p.file(
        &format!("content/{KEY}.md"),
        "# Shipping daily\n\nWhy and how.\n",
    );
    let out = p.run(&["retry", KEY]);
    assert_eq!(published(&api), 1, "{}", shown(&out));
    out.code(0)
        .stdout_has(&format!("{KEY} devto confirmed id=1000"));
}

#[test]
fn devto_unicode_tags_are_kept_and_overlong_ones_never_sent() {
    let long = "a".repeat(31);
    let api = FakeDevto::start();
    let p = project(
        &api,
        &format!("---\ntags: [Café, rust, {long}]\n---\n# Tags\n\nBody.\n"),
    );
    let out = p.run(&["run", TODAY]);
    assert_eq!(published(&api), 1, "{}", shown(&out));
    out.code(0);
    let tags = api.articles()[0]["tag_list"].clone();
    assert_eq!(tags[0], "café", "{tags}");
    assert!(
        tags.as_array()
            .unwrap()
            .iter()
            .all(|t| t.as_str().unwrap().chars().count() <= 30),
        "{tags}"
    );
}

#[test]
fn devto_title_over_128_characters_is_refused_before_sending() {
    let api = FakeDevto::start();
    let title = "Long title ".repeat(12);
    let p = project(&api, &format!("# {}\n\nBody.\n", title.trim()));
    let out = p.run(&["run", TODAY]);
    assert_eq!(
        api.state.lock().unwrap().post_requests,
        0,
        "{}",
        shown(&out)
    );
    out.code(1).stdout_has("failed (rejected)");
}
