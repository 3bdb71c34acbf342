//! Issue 28 row 5 on the strict Mastodon fake: a resumed thread sends the parts it was split
//! into, or none. The split's hash is on the key's line (`split=`), so a thread whose kept parts
//! are gone (`state/*.sent/` is not in a CI checkout) sends a fresh split only when it hashes the
//! same; a line of dayrun 0.5.0 (no `split=`) only when the parts out are the fresh split's first.
use super::edges::{rate_limit_part_3, slow_project};
use super::{KEY, TODAY, field, latest, long_body};
use crate::fakes::fake_mastodon::FakeMastodon;
use crate::support::util::Project;
use serde_json::Value;

const POST: &str = "content/2026-11-29.md";

/// The post of `slow_project` edited down to a text of 3 parts (it was 5).
fn edit(p: &Project) {
    let more = "One more paragraph, the last one, about what the state file keeps. ".repeat(3);
    p.file(POST, format!("# T\n\n{}\n\n{more}", long_body()));
}

/// The statuses oldest first, checked to be one thread: one root, each later status a reply to
/// the one before; with their texts.
fn one_thread(api: &FakeMastodon) -> Vec<String> {
    let s = api.state.lock().unwrap();
    let mut statuses: Vec<&Value> = s.statuses.iter().collect();
    statuses.reverse();
    let shown: Vec<String> = statuses
        .iter()
        .map(|st| {
            format!(
                "{} ->{} {:?}",
                st["id"],
                st["in_reply_to_id"],
                s.texts[st["id"].as_str().unwrap()]
            )
        })
        .collect();
    assert!(statuses[0]["in_reply_to_id"].is_null(), "{shown:#?}");
    for pair in statuses.windows(2) {
        assert_eq!(pair[1]["in_reply_to_id"], pair[0]["id"], "{shown:#?}");
    }
    statuses
        .iter()
        .map(|st| s.texts[st["id"].as_str().unwrap()].clone())
        .collect()
}

/// The number of parts the thread was split into, from its kept file.
fn kept_parts(p: &Project) -> usize {
    let kept: Value =
        serde_json::from_str(&p.read(&format!("state/masto.sent/{KEY}.thread.json"))).unwrap();
    kept["pieces"].as_array().unwrap().len()
}

/// Each text ends in `n/N`, counting to `of`.
fn numbered(texts: &[String], of: usize) {
    assert_eq!(texts.len(), of, "{texts:#?}");
    for (i, text) in texts.iter().enumerate() {
        assert!(text.ends_with(&format!("{}/{of}", i + 1)), "{texts:#?}");
    }
}

/// The state file's lines without `split=` (what dayrun 0.5.0 wrote).
fn as_written_by_0_5_0(p: &Project) {
    let text = p.read("state/masto.state");
    let old: Vec<String> = text
        .lines()
        .map(|l| {
            l.split(' ')
                .filter(|w| !w.starts_with("split="))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    p.file("state/masto.state", old.join("\n") + "\n");
}

/// Row 5: a thread cut off after 2 of its parts (a 429 past the cap at part 3), its kept parts
/// gone (the docs' `.gitignore` keeps `state/*.sent/` out of a CI checkout), then the post
/// edited so that it splits into fewer parts. Sending the fresh split's rest would make one
/// thread of two texts ("1/5, 2/5, 3/3"): nothing is sent, the key fails for a person, saying
/// why and what to do. Once the post is as it was, it splits as it did and the rest goes out.
#[test]
fn a_thread_resumed_without_its_kept_parts_sends_nothing_when_the_post_splits_otherwise() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "");
    rate_limit_part_3(&api);
    p.run(&["run", TODAY]).code(75);
    let n = kept_parts(&p);
    assert!(n >= 4, "{n} parts");
    let line = latest(&p, "masto").unwrap();
    assert_eq!(field(&line, "parts").unwrap().split(',').count(), 2);
    let original = p.read(POST);
    std::fs::remove_dir_all(p.path("state/masto.sent")).unwrap();
    edit(&p);
    let before = api.state.lock().unwrap().post_requests;
    let out = p.run(&["run", TODAY]);
    let sent = api.state.lock().unwrap().post_requests - before;
    let texts = one_thread(&api);
    assert_eq!(sent, 0, "parts of another split sent: {texts:#?}");
    out.code(1)
        .stdout_has("failed (rejected)")
        .stdout_has(&format!("dayrun retract {KEY} --yes"));
    let line = latest(&p, "masto").unwrap();
    assert!(line.contains(" failed "), "{line}");
    for words in [
        "2 of its parts are out",
        "the post now splits into",
        "restore the post's text",
        &format!("dayrun retry {KEY} --force"),
        &format!("dayrun mark {KEY} done"),
    ] {
        assert!(line.contains(words), "{words:?} not in {line}");
    }
    // The same run again: still nothing, still failed.
    p.run(&["run", TODAY]).code(1);
    assert_eq!(api.state.lock().unwrap().post_requests, before);
    // The text as it was: the same split, the rest of the thread.
    p.file(POST, original);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    numbered(&one_thread(&api), n);
    let line = latest(&p, "masto").unwrap();
    assert!(line.contains(" done "), "{line}");
}

/// Row 5 for a line written by dayrun 0.5.0, which names no split: with the kept parts gone,
/// the parts out are read back and must be the fresh split's first parts. After the edit they
/// are not (`1/5` is not `1/3`): nothing is sent. With the post as it was, they are, and the
/// rest goes out.
#[test]
fn a_line_without_a_split_resumes_only_when_the_parts_out_are_the_fresh_splits_first() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "");
    rate_limit_part_3(&api);
    p.run(&["run", TODAY]).code(75);
    let n = kept_parts(&p);
    let original = p.read(POST);
    std::fs::remove_dir_all(p.path("state/masto.sent")).unwrap();
    as_written_by_0_5_0(&p);
    edit(&p);
    let before = api.state.lock().unwrap().post_requests;
    let out = p.run(&["run", TODAY]);
    let sent = api.state.lock().unwrap().post_requests - before;
    assert_eq!(
        sent,
        0,
        "parts of another split sent: {:#?}",
        one_thread(&api)
    );
    out.code(1).stdout_has("failed (rejected)");
    let line = latest(&p, "masto").unwrap();
    assert!(line.contains("part 1 out is not"), "{line}");
    p.file(POST, original);
    as_written_by_0_5_0(&p);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    numbered(&one_thread(&api), n);
}
