//! Issue 23, requests per post: on every network target a backfill of 40 posts with three tags
//! costs one create per post plus a constant per run (one survey of the keys' places, one tag
//! listing), counted as the fakes read the requests; and every exactly-once rule holds with
//! the survey: a create whose answer was lost is looked up live after its deadline, a copy
//! already at a key's place is found by the survey, a survey that cannot be trusted proves
//! nothing. Counts, never timings (those are `scripts/bench --network`'s).

use crate::fakes::fake_server::Server;
use crate::support::days::days_ago;
use crate::support::util::Project;

mod bluesky;
mod others;
mod wordpress;

/// A fake's config with timeouts no loaded machine reaches: the counts below assume every
/// request the fakes answer is heard, and the fakes' 0.3 s (kept short so that a hang fault
/// costs little elsewhere) was once passed by an ordinary answer under a full test run, which
/// made a create look lost and added a lookup. A hang fault here ends when the fake closes
/// the connection unanswered, the same lost answer.
pub fn patient(config: String) -> String {
    let config = config.replace("\ntimeout_secs = 0.3\n", "\ntimeout_secs = 10\n");
    let config = config.replace(
        "\nconnect_timeout_secs = 0.3\n",
        "\nconnect_timeout_secs = 10\n",
    );
    assert!(config.contains("\ntimeout_secs = 10\n"), "{config}");
    config
}

/// Posts in a backfill.
pub const POSTS: usize = 40;
/// What the issue allows per record created.
pub const FLOOR: f64 = 1.15;

/// The key of post `i` of the backfill: consecutive days ending 21 days ago, all past
/// `catchup_days`.
pub fn key(i: usize) -> String {
    days_ago((20 + POSTS - i) as i64)
}

/// The text of post `i`: a title, a summary, a body, three tags.
pub fn post(i: usize) -> String {
    format!(
        "---\ntags: [rust, ops, notes]\n---\n# Post number {i}\n\nA summary of post {i}, one sentence.\n\nSome body text for post {i}.\n"
    )
}

/// The backfill's posts in `p`'s content folder.
pub fn write_posts(p: &Project) {
    for i in 0..POSTS {
        p.file(&format!("content/{}.md", key(i)), post(i));
    }
}

/// Every request the server read so far, as `METHOD target`.
pub fn seen(server: &Server) -> Vec<String> {
    server.seen.lock().unwrap().clone()
}

/// How many of `requests` are `method` on exactly `path` (the query aside).
pub fn count(requests: &[String], method: &str, path: &str) -> usize {
    requests
        .iter()
        .filter(|r| {
            let (m, target) = r.split_once(' ').unwrap();
            m == method && target.split('?').next() == Some(path)
        })
        .count()
}

/// The floor: at most 1.15 requests per record created.
#[track_caller]
pub fn within_floor(requests: &[String], created: usize) {
    assert!(
        requests.len() as f64 <= FLOOR * created as f64,
        "{} requests for {created} records: {requests:#?}",
        requests.len()
    );
}

/// The trace lines of `target` whose action is `action`.
pub fn traced(p: &Project, target: &str, action: &str) -> Vec<String> {
    let log = std::fs::read_to_string(p.path(&format!("state/{target}.log"))).unwrap_or_default();
    log.lines()
        .filter(|l| l.split_whitespace().nth(2) == Some(action))
        .map(str::to_string)
        .collect()
}
