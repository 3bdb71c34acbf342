//! A thread's part whose publish answer was lost, and which the listings show only a while
//! after it landed (the fake's `lag`): looked for until the attempt's deadline (its timeout
//! and the settle time), as a post is, found on a later look, and never published twice.

use super::{TODAY, counts, project};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_threads::FakeThreads;
use std::time::Duration;

#[test]
fn a_part_the_listing_shows_late_is_found_on_a_later_look_and_published_once() {
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"");
    // The attempt can land until 2 s (settle) after its 0.3 s timeout; the listings show each
    // post 1 s after it is out, so the first looks after the lost answer find nothing.
    let config = api.config("long = \"thread\"");
    p.file(
        "dayrun.toml",
        config.replace("settle_secs = 0", "settle_secs = 2"),
    );
    let body = "A sentence that is long enough to matter here. ".repeat(25);
    p.file("content/2026-11-29.md", format!("# A long one\n\n{body}\n"));
    {
        let mut s = api.state.lock().unwrap();
        s.lag = Duration::from_secs(1);
        // The second part is published, and its answer is lost.
        s.publish_faults.extend([Fault::Normal, Fault::CommitHang]);
    }
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("parts, 1 found before sending");
    let (containers, publishes, posts) = counts(&api);
    assert!(posts >= 3, "{posts} parts");
    assert_eq!(
        (containers, publishes),
        (posts, posts),
        "one container and one publish per part"
    );
    let s = api.state.lock().unwrap();
    let reads = |what: &str| s.requests.iter().filter(|r| r.starts_with(what)).count();
    // The survey's read, a look that did not show the part yet, and the later one that did.
    assert!(reads("GET /v1.0/me/replies") >= 3, "{:?}", s.requests);
    // Nor was the part sent again: a second send would first read its kept container back
    // (whose PUBLISHED stops the publish itself; the deadline must not leave it to that).
    assert_eq!(reads("GET /v1.0/c"), 0, "a second send: {:?}", s.requests);
    let mut texts: Vec<&String> = s.posts.iter().map(|p| &p.1).collect();
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), posts, "each part once");
    for pair in s.posts.iter().rev().collect::<Vec<_>>().windows(2) {
        assert_eq!(
            pair[1].3.as_deref(),
            Some(pair[0].0.as_str()),
            "a reply to the part before"
        );
    }
    drop(s);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(counts(&api), (posts, posts, posts), "a rerun sends nothing");
}
