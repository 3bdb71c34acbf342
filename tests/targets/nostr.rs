//! `kind = "nostr"` (issue 35) against two strict fake relays, one answering as nostr-rs-relay
//! and one as nostr-relay: every post one event on every relay, its `created_at` on the
//! pending line before the first `EVENT`, a resend the same event id. Each test counts what
//! each relay holds, never what dayrun says.

use crate::fakes::fake_nostr::{FakeRelay, Flavour};
use crate::support::util::{Output, Project};

mod edits;
mod thread;

pub const TODAY: &str = "--today=2026-11-29";
pub const KEY: &str = "2026-11-29";
/// A secret key (BIP-340's test vector 0) and its public key.
pub const SECRET: &str = "0000000000000000000000000000000000000000000000000000000000000003";
pub const PUBKEY: &str = "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9";

/// The two relays, as the two real ones answer.
pub fn relays() -> (FakeRelay, FakeRelay) {
    (FakeRelay::start(Flavour::Rs), FakeRelay::start(Flavour::Py))
}

/// The `[targets.nos]` table over `relays`.
pub fn config(relays: &[&FakeRelay], extra: &str) -> String {
    let urls: Vec<String> = relays.iter().map(|r| format!("\"{}\"", r.url())).collect();
    format!(
        "[targets.nos]\nkind = \"nostr\"\nsecret_key_file = \"secrets/nostr.key\"\nrelays = [{}]\nlink = \"https://blog.example/{{key}}/\"\ntimeout_secs = 0.5\nconnect_timeout_secs = 0.5\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\n{extra}\n",
        urls.join(", ")
    )
}

/// A project with the key, one nostr target and today's post.
pub fn project(relays: &[&FakeRelay], extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", config(relays, extra));
    p.secret("secrets/nostr.key", format!("{SECRET}\n"));
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [rust, nostr]\n---\n# Why the date is the key\n\nOne key per day.\n",
    );
    p
}

/// The value of `name=` on a state line.
pub fn field(line: &str, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&prefix))
        .map(|v| v.trim_matches('"').to_string())
}

/// The state line of `key` on `nos`.
#[track_caller]
pub fn line(p: &Project, key: &str) -> String {
    let lines = p.state_lines("nos");
    lines
        .iter()
        .find(|l| l.starts_with(key))
        .cloned()
        .unwrap_or_else(|| panic!("no line for {key}: {lines:#?}"))
}

pub fn shown(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", out.stdout, out.stderr)
}

/// The ids of the events of `kind` a relay holds.
pub fn ids(relay: &FakeRelay, kind: u64) -> Vec<String> {
    relay
        .held(kind)
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_backfill_is_one_event_per_post_on_each_relay_and_a_rerun_sends_nothing() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    for day in ["2026-11-27", "2026-11-28"] {
        p.post(day, &format!("Post of {day}"));
    }
    rs.watch(&p.root, "nos");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    for relay in [&rs, &py] {
        let notes = relay.held(1);
        assert_eq!(
            notes.len(),
            3,
            "{:?} holds {notes:#?}\n{}",
            relay.flavour,
            shown(&out)
        );
        for note in &notes {
            assert_eq!(note["pubkey"], PUBKEY);
        }
    }
    assert_eq!(ids(&rs, 1), ids(&py, 1), "the same events on both");
    let line = line(&p, KEY);
    assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
    let id = field(&line, "id").unwrap();
    assert!(ids(&rs, 1).contains(&id), "{line}");
    let created = field(&line, "nostr.created").unwrap();
    let held = rs
        .held(1)
        .into_iter()
        .find(|e| e["id"] == id.as_str())
        .unwrap();
    assert_eq!(held["created_at"].to_string(), created, "{line}");
    let port = |r: &FakeRelay| format!("127.0.0.1:{}:ok", r.port);
    assert_eq!(
        field(&line, "nostr.relays"),
        Some(format!("{},{}", port(&rs), port(&py))),
        "{line}"
    );
    // Each pending line held its created_at when its event arrived.
    let pending = rs.state.lock().unwrap().pending_at_event.clone();
    assert_eq!(pending.len(), 3);
    for seen in pending {
        let seen = seen.expect("no pending line when the EVENT arrived");
        assert!(field(&seen, "nostr.created").is_some(), "{seen}");
    }
    // Again: nothing sent, nothing asked.
    let (events, reqs) = (
        rs.count("EVENT") + py.count("EVENT"),
        rs.count("REQ") + py.count("REQ"),
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(rs.count("EVENT") + py.count("EVENT"), events);
    assert_eq!(rs.count("REQ") + py.count("REQ"), reqs);
}

#[test]
fn a_lost_answer_after_the_relay_stored_the_event_is_confirmed_not_resent_twice() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    rs.lose_next_ok(1);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(rs.held(1).len(), 1, "{}", shown(&out));
    assert_eq!(py.held(1).len(), 1, "{}", shown(&out));
    assert_eq!(ids(&rs, 1), ids(&py, 1));
    let line = line(&p, KEY);
    assert_eq!(field(&line, "id"), Some(ids(&rs, 1)[0].clone()), "{line}");
}

#[test]
fn the_fault_point_loses_nostr_relays_answer_whose_duplicate_is_ok_false() {
    let (rs, py) = relays();
    let mut p = project(&[&py, &rs], "");
    p.env("DAYRUN_NOSTR_FAULT", &format!("lose_ok:1@:{}", py.port));
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(py.held(1).len(), 1, "{}", shown(&out));
    assert_eq!(rs.held(1).len(), 1, "{}", shown(&out));
    assert!(line(&p, KEY).starts_with(&format!("{KEY} done ")));
}

#[test]
fn a_relay_down_while_the_other_is_up_gets_the_same_event_when_it_is_back() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    py.set_down(true);
    let out = p.run(&["run", TODAY]);
    assert_ne!(
        out.code,
        0,
        "not out while a relay lacks it\n{}",
        shown(&out)
    );
    assert_eq!(rs.held(1).len(), 1, "{}", shown(&out));
    assert!(py.held(1).is_empty());
    let pending = line(&p, KEY);
    assert!(!pending.starts_with(&format!("{KEY} done ")), "{pending}");
    assert!(
        out.stdout.contains(&py.url()) || out.stderr.contains(&py.url()),
        "the relay is named\n{}",
        shown(&out)
    );
    // Again while it is down: nothing new on the one that holds it.
    let again = p.run(&["run", TODAY]);
    assert!(
        again.stdout.contains("the next run looks again"),
        "{}",
        shown(&again)
    );
    assert_eq!(rs.held(1).len(), 1);
    py.set_down(false);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(rs.held(1).len(), 1, "{}", shown(&out));
    assert_eq!(ids(&py, 1), ids(&rs, 1), "the same event, not a second one");
    let done = line(&p, KEY);
    assert!(done.starts_with(&format!("{KEY} done ")), "{done}");
}

#[test]
fn a_key_that_is_not_the_npubs_exits_3_naming_the_file_and_sends_nothing() {
    let (rs, py) = relays();
    // npub of another key (secret 1's public key).
    let other = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    let p = project(&[&rs, &py], &format!("npub = \"{other}\""));
    let out = p.run(&["run", TODAY]);
    out.code(3);
    assert!(
        out.stdout.contains("secrets/nostr.key") || out.stderr.contains("secrets/nostr.key"),
        "{}",
        shown(&out)
    );
    assert_eq!(rs.count("EVENT") + py.count("EVENT"), 0);
    assert!(!out.stdout.contains(SECRET) && !out.stderr.contains(SECRET));
}

#[test]
fn a_key_file_that_is_not_a_secret_key_is_a_config_error_that_shows_nothing_of_it() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    let npub = "npub1lycg5qvjtrp3qjf5f7zl382j9x6nrjz9sdhenvyxq8c380hqxmusk6tz7u";
    p.secret("secrets/nostr.key", format!("{npub}\n"));
    let out = p.run(&["run", TODAY]);
    out.code(2);
    let all = shown(&out);
    assert!(
        all.contains("secrets/nostr.key") && all.contains("public key"),
        "{all}"
    );
    assert!(!all.contains(npub), "{all}");
    assert_eq!(rs.count("EVENT"), 0);
}

#[test]
fn a_short_note_refuses_on_edit_update() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "on_edit = \"update\"");
    let out = p.run(&["run", TODAY]);
    out.code(2);
    assert!(shown(&out).contains("cannot be edited"), "{}", shown(&out));
    assert_eq!(rs.count("EVENT"), 0);
}

#[test]
fn a_backfill_of_40_posts_is_one_event_each_and_one_listing_per_relay() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    for i in 1..=39 {
        let day = crate::support::days::days_ago(20 + i);
        p.post(&day, &format!("Post {i}"));
    }
    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(0);
    for relay in [&rs, &py] {
        assert_eq!(relay.held(1).len(), 40, "{}", shown(&out));
        let (events, reqs) = (relay.count("EVENT"), relay.count("REQ"));
        assert_eq!(events, 40, "{:?}", relay.flavour);
        // The floor is one EVENT per post; the listing is the only request beside them.
        let ratio = (events + reqs) as f64 / 40.0;
        eprintln!(
            "nostr {:?} fake, 40-post backfill: {events} EVENT + {reqs} REQ = {ratio:.3} messages per post (floor 1.000)",
            relay.flavour
        );
        assert!(
            ratio <= 1.15,
            "{:?}: {events} EVENT + {reqs} REQ = {ratio:.3} per post",
            relay.flavour
        );
    }
}

#[test]
fn a_relay_that_refuses_the_event_for_good_goes_to_a_person_naming_it() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    // Sent as of two years ago: nostr-relay refuses it as not recent, nostr-rs-relay takes it.
    let out = p.run_at("2024-11-29T07:00:00Z", &["run", TODAY]);
    assert_eq!(out.code, 1, "{}", shown(&out));
    assert_eq!(rs.held(1).len(), 1);
    assert!(py.held(1).is_empty());
    let all = shown(&out);
    assert!(all.contains("too old") && all.contains(&py.url()), "{all}");
    assert!(!line(&p, KEY).starts_with(&format!("{KEY} done ")));
}

#[test]
fn relays_must_be_ws_urls_each_named_once() {
    let (rs, py) = relays();
    for (relays, says) in [
        (
            format!("[\"{}\", \"{}\"]", rs.url(), rs.url()),
            "named twice",
        ),
        (
            "[\"https://relay.example\"]".to_string(),
            "not a ws:// or wss:// URL",
        ),
        ("[]".to_string(), "relays is empty"),
    ] {
        let p = project(&[&rs, &py], "");
        let config = p.read("dayrun.toml");
        let start = config.find("relays = ").unwrap();
        let end = start + config[start..].find('\n').unwrap();
        p.file(
            "dayrun.toml",
            format!("{}relays = {relays}{}", &config[..start], &config[end..]),
        );
        let out = p.run(&["run", TODAY]);
        out.code(2);
        assert!(shown(&out).contains(says), "{}", shown(&out));
    }
    assert_eq!(rs.count("EVENT") + py.count("EVENT"), 0);
}

#[test]
fn a_kill_mid_send_then_a_rerun_is_one_event_on_each_relay() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    // The first relay stores the event; dayrun, waiting for its answer, is killed.
    let child = p
        .command(&["run", TODAY])
        .env("DAYRUN_NOSTR_FAULT", "hang_ok:1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, said) = crate::support::util::wait_or_kill(
        child,
        || rs.held(1).len() == 1,
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, None, "killed mid-send\n{said}");
    // The pending line, durable in the journal before the event went out.
    let journal = p.read("state/nos.journal");
    let pending = journal
        .lines()
        .rev()
        .find(|l| l.contains(" pending "))
        .unwrap_or_default();
    assert!(field(pending, "nostr.created").is_some(), "{journal}");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(rs.held(1).len(), 1, "{}", shown(&out));
    assert_eq!(ids(&py, 1), ids(&rs, 1), "the same event\n{}", shown(&out));
    assert!(line(&p, KEY).starts_with(&format!("{KEY} done ")));
}
