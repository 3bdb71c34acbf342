//! `kind = "mastodon"` against the fake Mastodon.

use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

fn project(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config(extra));
    p.secret("secrets/masto.token", TOKEN);
    p.file("content/2026-11-29.md", "---\ntags: [rust, ops]\n---\n# Why the date is the key\n\nOne key per day & no duplicates.\n");
    p
}

#[test]
fn posts_title_summary_hashtags_and_link_once() {
    let api = FakeMastodon::start(500);
    let p = project(
        &api,
        "visibility = \"unlisted\"\nlink = \"https://blog.test/{key}/{slug}\"",
    );
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 masto published id=110000");
    let sent = api.state.lock().unwrap().sent_texts.clone();
    assert_eq!(
        sent,
        [
            "Why the date is the key\n\nOne key per day & no duplicates.\n\n#rust #ops\nhttps://blog.test/2026-11-29/why-the-date-is-the-key"
        ]
    );
    assert_eq!(api.statuses()[0]["visibility"], "unlisted");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.statuses().len(), 1);
}

#[test]
fn the_text_is_fitted_to_the_instance_limit() {
    let api = FakeMastodon::start(80);
    let p = project(
        &api,
        "link = \"https://blog.test/a/very/long/link/that/counts/as/twenty-three/{key}\"",
    );
    let long = "word ".repeat(60);
    p.file("content/2026-11-29.md", format!("# A title\n\n{long}\n"));
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let text = api.state.lock().unwrap().sent_texts[0].clone();
    assert!(
        text.starts_with("A title\n\nword") && text.contains('…'),
        "{text}"
    );
    assert!(text.ends_with("/twenty-three/2026-11-29"), "{text}");
}

#[test]
fn a_lost_answer_is_confirmed_from_the_timeline() {
    for fault in [Fault::CommitHang, Fault::Reject(503)] {
        let api = FakeMastodon::start(500);
        api.state.lock().unwrap().faults.push_back(fault);
        let p = project(&api, "link = \"https://blog.test/{key}\"");
        p.run(&["run", TODAY])
            .code(0)
            .stdout_has("2026-11-29 masto confirmed id=110000");
        assert_eq!(api.state.lock().unwrap().post_requests, 1, "{fault:?}");
        assert_eq!(api.statuses().len(), 1);
    }
}

#[test]
fn a_forced_retry_makes_a_second_status_only_when_asked_and_keeps_the_first() {
    let api = FakeMastodon::start(500);
    let p = project(&api, "dedup = false");
    p.run(&["run", TODAY]).code(0);
    // Mastodon copies are not updated in place (`on_edit` is "ignore"): `--force` has nothing
    // to send, and says what would make a second status.
    p.run(&["retry", "2026-11-29", "--force"])
        .code(0)
        .stdout_has("`dayrun retry 2026-11-29 --force --new` publishes a second copy");
    assert_eq!(api.state.lock().unwrap().post_requests, 1);
    // `--force --new`: the next copy, under an Idempotency-Key of its own; the first status
    // stays on the line (issue 20 row 6: every live copy's id stays until it is retracted).
    p.run(&["retry", "2026-11-29", "--force", "--new"])
        .code(0)
        .stdout_has("published id=110001");
    assert_eq!(api.statuses().len(), 2);
    let line = &p.state_lines("masto")[0];
    assert!(
        line.contains(" id=110001 ")
            && line.contains(" older=110000 ")
            && line.contains(" generation=1"),
        "{line}"
    );
}

#[test]
fn a_bad_token_stops_the_target() {
    let api = FakeMastodon::start(500);
    let p = project(&api, "dedup = false");
    p.file("secrets/masto.token", "nope");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("HTTP 401")
        .stdout_has("put it in secrets/masto.token");
    assert!(api.statuses().is_empty());
}

#[test]
fn a_validation_rejection_and_rate_limits() {
    let api = FakeMastodon::start(500);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(422));
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("failed (rejected): post status: HTTP 422");
    let api = FakeMastodon::start(500);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::RateLimit(1));
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let api = FakeMastodon::start(500);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::RateLimit(3600));
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("failed (retry-safe)");
    assert!(api.statuses().is_empty());
}
