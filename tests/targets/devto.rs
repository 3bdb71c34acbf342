//! `kind = "devto"` against the fake Forem API.

use crate::fakes::fake_devto::{FakeDevto, KEY};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

fn project(api: &FakeDevto, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config(extra));
    p.secret("secrets/devto.key", KEY);
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [Rust-Lang, web dev, c++, ops, extra]\n---\n# Shipping daily\n\nWhy and how.\n",
    );
    p
}

#[test]
fn publishes_markdown_with_cleaned_tags_once() {
    let api = FakeDevto::start();
    let p = project(
        &api,
        "published = false\ncanonical_url = \"https://blog.test/{key}/{slug}\"",
    );
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 devto published id=1000");
    let articles = api.articles();
    assert_eq!(articles.len(), 1);
    let a = &articles[0];
    assert_eq!(a["body_markdown"], "Why and how.\n");
    assert_eq!(
        a["tag_list"],
        serde_json::json!(["rustlang", "webdev", "c", "ops"])
    );
    assert_eq!(a["published"], false);
    assert_eq!(a["description"], "Why and how.");
    assert_eq!(
        a["canonical_url"],
        "https://blog.test/2026-11-29/shipping-daily"
    );
    let log = p.read("state/devto.log");
    assert!(
        log.contains("`Rust-Lang` → `rustlang`")
            && log.contains("dropped `extra` (at most 4 tags)"),
        "{log}"
    );
    assert!(
        api.state
            .lock()
            .unwrap()
            .accept_headers
            .iter()
            .all(|h| h == "application/vnd.forem.api-v1+json")
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.articles().len(), 1);
}

#[test]
fn a_lost_answer_is_confirmed_by_title() {
    let api = FakeDevto::start();
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::CommitHang);
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 devto confirmed id=1000");
    assert_eq!(api.state.lock().unwrap().post_requests, 1);
}

#[test]
fn the_five_minute_rule_is_an_unknown_outcome_then_confirmed() {
    let api = FakeDevto::start();
    let p = project(&api, "dedup = false");
    // A first attempt landed but its answer was lost, and the state says pending:
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::CommitHang);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.articles().len(), 1);
    // Now a human forces a second copy within five minutes: Forem refuses the same title,
    // which is an unknown outcome. The lookup finds the first copy only, and an earlier
    // generation's copy never answers for the second (issue 28, row 2): the second copy is
    // provably not there, and the next run looks again, then sends it.
    p.run(&["retry", "2026-11-29", "--force", "--new"])
        .code(75)
        .stdout_has("not on the target; the next run looks again before sending");
    assert!(
        p.state_lines("devto")[0].contains(" older=1000 "),
        "{:?}",
        p.state_lines("devto")
    );
    assert!(
        p.read("state/devto.log")
            .contains("same title was posted in the last five minutes")
    );
    assert_eq!(api.articles().len(), 1);
}

#[test]
fn a_recurring_title_is_not_taken_for_last_weeks_article() {
    let api = FakeDevto::start();
    let p = project(&api, "");
    p.file("content/2026-11-22.md", "# Weekly notes\n\nLast week.\n");
    p.run(&["run", "--today=2026-11-22"]).code(0);
    p.file("content/2026-11-29.md", "# Weekly notes\n\nThis week.\n");
    api.age(); // a week has passed
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 devto published id=1001");
    assert_eq!(api.articles().len(), 2);
}

#[test]
fn a_bad_key_stops_the_target_and_rate_limits_wait() {
    let api = FakeDevto::start();
    let p = project(&api, "dedup = false");
    p.file("secrets/devto.key", "wrong");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("HTTP 401")
        .stdout_has("put it in secrets/devto.key");
    p.file("secrets/devto.key", KEY);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::RateLimit(0));
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert!(p.read("state/devto.log").contains("publish retry-safe"));
}

#[test]
fn a_validation_rejection_is_recorded() {
    let api = FakeDevto::start();
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(422));
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("failed (rejected): create article: HTTP 422")
        .stdout_has("Canonical url has already been taken");
    assert!(api.articles().is_empty());
}
