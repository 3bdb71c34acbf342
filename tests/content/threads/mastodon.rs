//! Threads on the fake Mastodon: statuses replying to the one before (the fake refuses a reply
//! to a status it does not hold), each ≤ 500 characters as Mastodon counts, an Idempotency-Key
//! per part, a lost answer found by its source text, a kill resumed, retract last first.

use super::{KEY, TODAY, field, kill_when, latest, long_body, write_post};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;
use serde_json::Value;
use unicode_segmentation::UnicodeSegmentation;

const THREAD: &str = "long = \"thread\"\nvisibility = \"unlisted\"\nsettle_secs = 0";

fn project(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    let config = api.config(extra);
    // A request may take this long (the kill test holds one open).
    let config = match extra.contains("slow") {
        true => config.replace("\ntimeout_secs = 0.3\n", "\ntimeout_secs = 30\n"),
        false => config,
    };
    p.file("dayrun.toml", config);
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p
}

/// The thread, oldest first: one root, each later status a reply to the one before.
fn thread(api: &FakeMastodon) -> Vec<Value> {
    let mut statuses = api.statuses();
    statuses.reverse();
    assert!(statuses[0]["in_reply_to_id"].is_null());
    for pair in statuses.windows(2) {
        assert_eq!(pair[1]["in_reply_to_id"], pair[0]["id"], "{statuses:#?}");
        assert_eq!(pair[1]["visibility"], "unlisted");
    }
    statuses
}

#[test]
fn a_long_post_is_a_chain_of_replies_within_the_limit() {
    let api = FakeMastodon::start(500);
    let p = project(&api, THREAD);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("published id=110000");
    let chain = thread(&api);
    assert!(chain.len() >= 2, "{}", chain.len());
    // Each within 500 as Mastodon counts (a URL as 23): the fake refuses more, and took all.
    let texts = api.state.lock().unwrap().sent_texts.clone();
    assert_eq!(texts.len(), chain.len());
    for text in &texts {
        let urls: usize = text
            .split_whitespace()
            .filter(|w| w.starts_with("https://"))
            .map(|w| w.graphemes(true).count() - 23)
            .sum();
        assert!(text.graphemes(true).count() - urls <= 500, "{text}");
    }
    let line = &p.state_lines("masto")[0];
    assert_eq!(
        field(line, "parts").unwrap().split(',').count(),
        chain.len(),
        "{line}"
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.state.lock().unwrap().post_requests, chain.len());
}

#[test]
fn the_lost_answer_of_part_2_is_found_by_its_source_text() {
    let api = FakeMastodon::start(500);
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::CommitHang]);
    let p = project(&api, THREAD);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let chain = thread(&api);
    assert_eq!(api.state.lock().unwrap().post_requests, chain.len());
}

#[test]
fn a_kill_between_parts_resumes_and_sends_no_part_twice() {
    let api = FakeMastodon::start(500);
    let p = project(&api, &format!("{THREAD}\n# slow"));
    p.file(
        "content/2026-11-29.md",
        format!("# T\n\n{}", long_body().repeat(2)),
    );
    // Killed as soon as the second part is on the line.
    api.state.lock().unwrap().hang = std::time::Duration::from_secs(15);
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::Normal, Fault::CommitHang]);
    kill_when(&p, || api.state.lock().unwrap().post_requests == 3);
    let line = latest(&p, "masto").unwrap();
    assert_eq!(
        field(&line, "parts").unwrap().split(',').count(),
        2,
        "{line}"
    );
    api.forget_idempotency_keys(); // an hour later: only the lookup can tell
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let chain = thread(&api);
    let texts: Vec<String> = chain.iter().map(|s| s["id"].to_string()).collect();
    let mut unique = texts.clone();
    unique.dedup();
    assert_eq!(unique.len(), texts.len());
    let sent = api.state.lock().unwrap().sent_texts.clone();
    let mut seen = sent.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), chain.len(), "no part stored twice: {sent:#?}");
}

#[test]
fn retract_deletes_every_status_last_first() {
    let api = FakeMastodon::start(500);
    let p = project(&api, THREAD);
    p.run(&["run", TODAY]).code(0);
    let n = thread(&api).len();
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has("retracted");
    assert!(api.statuses().is_empty());
    assert_eq!(api.state.lock().unwrap().delete_requests, n);
}

#[test]
fn each_part_has_an_idempotency_key_of_its_own() {
    let api = FakeMastodon::start(500);
    let p = project(&api, THREAD);
    p.run(&["run", TODAY]).code(0);
    let chain = thread(&api);
    // The fake answers a repeated key with the first status: one key for two parts would
    // have made part 2 a copy of part 1, and the chain above would not hold.
    let line = latest(&p, "masto").unwrap();
    let parts: Vec<String> = field(&line, "parts")
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    assert!(chain.len() >= 3, "a long post, a thread: {chain:#?}");
    let ids: Vec<String> = chain
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(parts, ids, "each part on the line is its own status");
    let keys = api.state.lock().unwrap().idempotent.len();
    assert_eq!(keys, chain.len());
    let texts: Vec<String> = chain
        .iter()
        .map(|s| api.state.lock().unwrap().texts[s["id"].as_str().unwrap()].clone())
        .collect();
    let mut unique = texts.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), texts.len(), "{texts:#?}");
}

#[test]
fn a_part_deleted_by_hand_stops_the_thread_and_the_advice_starts_a_new_one() {
    let api = FakeMastodon::start(500);
    let p = project(&api, &format!("{THREAD}\n# slow"));
    p.file(
        "content/2026-11-29.md",
        format!("# T\n\n{}", long_body().repeat(2)),
    );
    api.state.lock().unwrap().hang = std::time::Duration::from_secs(3);
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::Normal, Fault::Hang]);
    kill_when(&p, || api.state.lock().unwrap().post_requests == 3);
    let line = latest(&p, "masto").unwrap();
    let parts = field(&line, "parts").unwrap();
    let second = parts.split(',').nth(1).unwrap().to_string();
    // Someone deletes part 2 on the instance: part 3 has nothing to reply to.
    {
        let mut s = api.state.lock().unwrap();
        s.statuses.retain(|st| st["id"] != second.as_str());
    }
    api.forget_idempotency_keys();
    let out = p.run(&["run", TODAY]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    out.stdout_has("does not appear to exist")
        .stdout_has("which is no longer on the instance");
    let s = api.state.lock().unwrap();
    assert_eq!(s.replies_refused, 1, "part 3 was tried once, refused");
    // Nothing new: no second root, no part sent again.
    assert_eq!(s.statuses.len(), 1, "{:#?}", s.statuses);
    assert!(s.statuses[0]["in_reply_to_id"].is_null());
    drop(s);
    // The advice works, followed to the letter: the part left is removed, then the post goes
    // out as a new thread.
    let root = api.statuses()[0]["id"].as_str().unwrap().to_string();
    let steps = [
        format!("dayrun mark {KEY} done --id {root} --target masto"),
        format!("dayrun retract {KEY} --yes --target masto"),
        format!("dayrun retry {KEY} --force --target masto"),
    ];
    for step in &steps {
        out.stdout_has(&format!("`{step}`"));
        let args: Vec<&str> = step.split(' ').skip(1).collect();
        p.run(&args).code(0);
    }
    let chain = thread(&api);
    assert!(chain.len() > 3, "one new thread, whole: {chain:#?}");
    assert!(
        chain.iter().all(|s| s["id"] != root.as_str()),
        "the old root is gone"
    );
}

#[test]
fn an_edit_edits_each_status_in_place_within_the_limit() {
    let api = FakeMastodon::start(500);
    let p = project(&api, &format!("{THREAD}\non_edit = \"update\""));
    p.run(&["run", TODAY]).code(0);
    let before = thread(&api);
    let posts = api.state.lock().unwrap().post_requests;
    write_post(
        &p,
        "Why the date is the key",
        &long_body().replace("decides", "chooses"),
    );
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    let after = thread(&api);
    let ids = |c: &[Value]| c.iter().map(|s| s["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&after), ids(&before), "the same statuses, in place");
    let s = api.state.lock().unwrap();
    assert_eq!(s.post_requests, posts, "no status posted");
    assert_eq!(s.edit_requests, before.len());
    for status in &after {
        let text = &s.texts[status["id"].as_str().unwrap()];
        assert!(!text.contains("decides"), "{text}");
    }
}

#[test]
fn the_dry_run_counts_each_part_as_mastodon_does() {
    let api = FakeMastodon::start(500);
    let p = project(&api, THREAD);
    let out = p.run(&["run", TODAY, "--dry-run"]);
    out.code(0).stdout_has("a thread of");
    assert!(
        out.stdout.contains("graphemes, would send"),
        "{}",
        out.stdout
    );
    let s = api.state.lock().unwrap();
    assert_eq!(s.post_requests, 0);
    assert!(p.state_lines("masto").is_empty());
}

/// Mastodon's `PUT /api/v1/statuses/:id` takes off every image a status has unless the edit
/// names them in `media_ids` (the fake does as Mastodon does): an edit in place keeps part 1's
/// image, with its alt text, and the later parts stay without one.
#[test]
fn an_edit_keeps_the_image_on_part_1() {
    let api = FakeMastodon::start(500);
    let p = project(&api, &format!("{THREAD}\non_edit = \"update\""));
    p.file(
        "content/images/b.jpg",
        crate::support::image_gen::plain_jpeg(40, 30, [30, 30, 220]),
    );
    let with_image = |body: String| format!("{body}\n\n![A blue one](images/b.jpg)");
    write_post(&p, "Why the date is the key", &with_image(long_body()));
    p.run(&["run", TODAY]).code(0);
    let before = thread(&api);
    assert!(before.len() > 1, "{before:#?}");
    let images = |status: &Value| status["media_attachments"].as_array().map_or(0, Vec::len);
    assert_eq!(images(&before[0]), 1, "{:#?}", before[0]);
    write_post(
        &p,
        "Why the date is the key",
        &with_image(long_body().replace("decides", "chooses")),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("updated");
    let after = thread(&api);
    let s = api.state.lock().unwrap();
    assert_eq!(s.edit_requests, before.len(), "{}", out.stdout);
    assert!(!s.texts[after[0]["id"].as_str().unwrap()].contains("decides"));
    assert_eq!(
        images(&after[0]),
        1,
        "part 1 keeps its image: {:#?}",
        after[0]
    );
    let root = after[0]["id"].as_str();
    let kept: Vec<_> = s
        .media
        .iter()
        .filter(|m| m.status_id.as_deref() == root)
        .collect();
    assert_eq!(kept.len(), 1, "{:?}", s.media);
    assert_eq!(kept[0].description.as_deref(), Some("A blue one"));
    assert_eq!(s.media.len(), 1, "the image was not uploaded again");
    assert!(after[1..].iter().all(|st| images(st) == 0), "{after:#?}");
}
