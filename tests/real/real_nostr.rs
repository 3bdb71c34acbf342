//! `kind = "nostr"` against the two real relays of the harness (nostr-rs-relay 0.8.12 and
//! nostr-relay 1.14 on loopback), with dayrun's own fault point (`DAYRUN_NOSTR_FAULT`) where an
//! answer must get lost after the relay stored the event: the fault proxy speaks HTTP only.
//! Every test signs with a fresh key and counts the events each relay holds with the
//! harness's `query.py`, never what dayrun says. Ignored without `DAYRUN_HARNESS`.

use crate::support::days::{days_ago, today};
use crate::support::harness::{self, Relays, fresh_key, public_of};
use crate::support::util::{Output, Project, wait_or_kill};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;

/// A project that publishes to `relays` with a fresh key, and its public key.
fn project(relays: &[&str], extra: &str) -> (Project, String) {
    let urls: Vec<String> = relays.iter().map(|r| format!("\"{r}\"")).collect();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.nos]\nkind = \"nostr\"\nsecret_key_file = \"secrets/nostr.key\"\nrelays = [{}]\nlink = \"https://blog.example.com/{{key}}/\"\ntimeout_secs = 5\nconnect_timeout_secs = 2\n{extra}\n",
            urls.join(", ")
        ),
    );
    let secret = fresh_key(&format!("{:?}", p.root));
    p.secret("secrets/nostr.key", format!("{secret}\n"));
    p.file(
        &format!("content/{}.md", today()),
        "---\ntags: [rust]\n---\n# Exactly once on Nostr\n\nOne key per day.\n",
    );
    (p, public_of(&secret))
}

/// What `relay` holds of `kind` by `author`.
fn held(relays: &Relays, relay: &str, author: &str, kind: u64) -> Vec<Value> {
    relays.query(relay, &json!({ "authors": [author], "kinds": [kind] }))
}

fn line(p: &Project, key: &str) -> String {
    p.state_lines("nos")
        .into_iter()
        .find(|l| l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no line for {key}"))
}

fn field(line: &str, name: &str) -> Option<String> {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(&format!("{name}=")))
        .map(|v| v.trim_matches('"').to_string())
}

fn shown(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", out.stdout, out.stderr)
}

fn ids(events: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_backfill_lands_once_on_both_relays_and_a_rerun_sends_nothing() {
    let relays = harness::nostr();
    let (p, pk) = project(&[&relays.rs, &relays.py], "");
    for n in [3, 2] {
        p.post(&days_ago(n), &format!("Post of {} days ago", n));
    }
    let out = p.run(&["run", "--backfill"]);
    out.code(0);
    let (rs, py) = (
        held(&relays, &relays.rs, &pk, 1),
        held(&relays, &relays.py, &pk, 1),
    );
    assert_eq!(rs.len(), 3, "nostr-rs-relay holds {rs:#?}\n{}", shown(&out));
    assert_eq!(py.len(), 3, "nostr-relay holds {py:#?}\n{}", shown(&out));
    assert_eq!(ids(&rs), ids(&py), "the same events on both");
    let before = p.read("state/nos.state");
    let out = p.run(&["run", "--backfill"]);
    out.code(0);
    assert_eq!(
        held(&relays, &relays.rs, &pk, 1).len(),
        3,
        "{}",
        shown(&out)
    );
    assert_eq!(
        held(&relays, &relays.py, &pk, 1).len(),
        3,
        "{}",
        shown(&out)
    );
    assert_eq!(p.read("state/nos.state"), before, "nothing changed");
}

/// A lost answer after `relay` stored the event: confirmed by id, the same event on both.
fn lost_answer_on(which: fn(&Relays) -> &str) {
    let relays = harness::nostr();
    let (mut p, pk) = project(&[&relays.rs, &relays.py], "");
    let port = which(&relays).rsplit(':').next().unwrap().to_string();
    p.env("DAYRUN_NOSTR_FAULT", &format!("lose_ok:1@:{port}"));
    let out = p.run(&["run"]);
    out.code(0);

    let (rs, py) = (
        held(&relays, &relays.rs, &pk, 1),
        held(&relays, &relays.py, &pk, 1),
    );
    assert_eq!(rs.len(), 1, "{rs:#?}\n{}", shown(&out));
    assert_eq!(ids(&rs), ids(&py));
    assert_eq!(field(&line(&p, &today()), "id"), Some(ids(&rs)[0].clone()));
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_lost_answer_from_nostr_rs_relay_is_one_event() {
    lost_answer_on(|r| &r.rs);
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_lost_answer_from_nostr_relay_is_one_event() {
    lost_answer_on(|r| &r.py);
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_kill_mid_send_then_a_rerun_is_one_event() {
    let relays = harness::nostr();
    let (p, pk) = project(&[&relays.rs, &relays.py], "");
    let child = p
        .command(&["run"])
        .env("DAYRUN_NOSTR_FAULT", "hang_ok:1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Killed once the first relay holds the event (dayrun waits for an answer that never comes).
    let key = p.path("state/nos.journal");
    let pending = || std::fs::read_to_string(&key).is_ok_and(|j| j.contains(" pending "));
    let (code, said) = wait_or_kill(
        child,
        || {
            std::thread::sleep(Duration::from_millis(300));
            pending()
        },
        Duration::from_secs(30),
    );
    assert_eq!(code, None, "killed mid-send\n{said}");
    let out = p.run(&["run"]);
    out.code(0);
    let (rs, py) = (
        held(&relays, &relays.rs, &pk, 1),
        held(&relays, &relays.py, &pk, 1),
    );
    assert_eq!(rs.len(), 1, "{rs:#?}\n{}", shown(&out));
    assert_eq!(ids(&rs), ids(&py), "{}", shown(&out));
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_long_note_is_edited_in_place_then_retracted_on_both() {
    let relays = harness::nostr();
    let (p, pk) = project(&[&relays.rs, &relays.py], "note = \"long\"");
    p.run(&["run"]).code(0);
    for relay in [&relays.rs, &relays.py] {
        let held = held(&relays, relay, &pk, 30023);
        assert_eq!(held.len(), 1, "{relay}: {held:#?}");
    }
    p.file(
        &format!("content/{}.md", today()),
        "---\ntags: [rust]\n---\n# Exactly once on Nostr\n\nOne key per day, edited.\n",
    );
    let out = p.run(&["run"]);
    out.code(0);
    for relay in [&relays.rs, &relays.py] {
        let held = held(&relays, relay, &pk, 30023);
        assert_eq!(
            held.len(),
            1,
            "{relay}: one version\n{held:#?}\n{}",
            shown(&out)
        );
        assert!(
            held[0]["content"].as_str().unwrap().contains("edited"),
            "{relay}: {held:#?}"
        );
    }
    let out = p.run(&["retract", &today(), "--yes"]);
    out.code(0);
    for relay in [&relays.rs, &relays.py] {
        assert!(
            held(&relays, relay, &pk, 30023).is_empty(),
            "{relay}\n{}",
            shown(&out)
        );
        assert_eq!(
            held(&relays, relay, &pk, 5).len(),
            1,
            "{relay}: the deletion"
        );
    }
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_retract_of_a_short_note_is_proven_on_both() {
    let relays = harness::nostr();
    let (p, pk) = project(&[&relays.rs, &relays.py], "");
    p.run(&["run"]).code(0);
    let out = p.run(&["retract", &today(), "--yes"]);
    out.code(0);
    for relay in [&relays.rs, &relays.py] {
        assert!(
            held(&relays, relay, &pk, 1).is_empty(),
            "{relay}\n{}",
            shown(&out)
        );
    }
    assert!(line(&p, &today()).contains(" retracted "));
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_relay_down_keeps_the_post_out_until_it_is_put_aside() {
    let relays = harness::nostr();
    // A port nothing listens on: a relay that is down.
    let gone = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("ws://127.0.0.1:{}", l.local_addr().unwrap().port())
    };
    let (p, pk) = project(&[&relays.rs, &gone], "");
    let out = p.run(&["run"]);
    assert_ne!(out.code, 0, "{}", shown(&out));
    let key = today();
    assert!(!line(&p, &key).contains(" done "), "{}", line(&p, &key));
    // The relay is gone for good: the person takes it out of `relays`.
    let config = p.read("dayrun.toml").replace(&format!(", \"{gone}\""), "");
    p.file("dayrun.toml", config);
    let out = p.run(&["run"]);
    out.code(0);
    assert!(
        line(&p, &key).contains(" done "),
        "{}\n{}",
        line(&p, &key),
        shown(&out)
    );
    assert_eq!(
        held(&relays, &relays.rs, &pk, 1).len(),
        1,
        "one event\n{}",
        shown(&out)
    );
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_thread_is_each_part_once_on_both_with_nip10_replies() {
    let relays = harness::nostr();
    let (mut p, pk) = project(&[&relays.rs, &relays.py], "long = \"thread\"");
    let para = |n: usize| {
        format!(
            "Paragraph {n} says {}.",
            "something worth saying ".repeat(30).trim()
        )
    };
    let body: Vec<String> = (1..=5).map(para).collect();
    p.file(
        &format!("content/{}.md", today()),
        format!("# A long thought\n\n{}\n", body.join("\n\n")),
    );
    // Part 0's answer from nostr-relay is lost after it stored it.
    let port = relays.py.rsplit(':').next().unwrap().to_string();
    p.env("DAYRUN_NOSTR_FAULT", &format!("lose_ok:1@:{port}"));
    let out = p.run(&["run"]);
    out.code(0);
    let (rs, py) = (
        held(&relays, &relays.rs, &pk, 1),
        held(&relays, &relays.py, &pk, 1),
    );
    assert!(rs.len() >= 3, "{rs:#?}\n{}", shown(&out));
    assert_eq!(ids(&rs), ids(&py), "{}", shown(&out));
    let roots = rs
        .iter()
        .filter(|e| !e["tags"].as_array().unwrap().iter().any(|t| t[0] == "e"))
        .count();
    assert_eq!(roots, 1, "one root, the rest replies: {rs:#?}");
    let out = p.run(&["run"]);
    out.code(0);
    assert_eq!(
        held(&relays, &relays.rs, &pk, 1).len(),
        rs.len(),
        "{}",
        shown(&out)
    );
}

/// The bare-send floor: one connection per relay, `n` signed notes sent one after another,
/// each waiting for its `OK` (what any client must do at least). Its wall time.
fn bare_send(relays: &[&str], n: usize) -> f64 {
    use sha2::Digest;
    let secret = fresh_key("floor");
    let bytes: Vec<u8> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&secret[i..i + 2], 16).unwrap())
        .collect();
    let key = k256::schnorr::SigningKey::from_bytes(&bytes).unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let pk = hex(&key.verifying_key().to_bytes());
    let started = std::time::Instant::now();
    let mut conns: Vec<_> = relays
        .iter()
        .map(|r| tungstenite::connect(*r).unwrap().0)
        .collect();
    let now = jiff::Timestamp::now().as_second();
    for i in 0..n {
        let content = format!("Post number {i}\n\nhttps://blog.example.com/{i}/");
        let serial = json!([0, pk, now, 1, [], content]).to_string();
        let id: [u8; 32] = sha2::Sha256::digest(serial.as_bytes()).into();
        let sig = key.sign_prehash_with_aux_rand(&id, &id).unwrap();
        let event = json!({"id": hex(&id), "pubkey": pk, "created_at": now, "kind": 1, "tags": [], "content": content, "sig": hex(&sig.to_bytes())});
        for ws in &mut conns {
            ws.send(tungstenite::Message::text(
                json!(["EVENT", event]).to_string(),
            ))
            .unwrap();
            while !ws.read().unwrap().to_text().unwrap().starts_with("[\"OK\"") {}
        }
    }
    started.elapsed().as_secs_f64()
}

#[test]
#[ignore = "a measurement on the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_40_post_backfill_beside_a_bare_send_floor() {
    let relays = harness::nostr();
    let both = [relays.rs.as_str(), relays.py.as_str()];
    let (mut ours, mut floor) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        floor.push(bare_send(&both, 40));
        let (p, pk) = project(&both, "");
        std::fs::remove_file(p.path(&format!("content/{}.md", today()))).unwrap();
        for i in 0..40 {
            p.post(&days_ago(20 + i), &format!("Post number {i}"));
        }
        // `DAYRUN_BENCH_BIN`: the binary measured (a release build), else the tests' own.
        let mut cmd = p.command(&["run", "--backfill"]);
        if let Some(exe) = std::env::var_os("DAYRUN_BENCH_BIN").filter(|v| !v.is_empty()) {
            cmd = std::process::Command::new(exe);
            cmd.arg("-C")
                .arg(&p.root)
                .args(["run", "--backfill"])
                .env("TZ", "UTC");
        }
        let started = std::time::Instant::now();
        let out = cmd.output().unwrap();
        ours.push(started.elapsed().as_secs_f64());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        for relay in both {
            assert_eq!(
                held(&relays, relay, &pk, 1).len(),
                40,
                "{relay}: each post once"
            );
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (ours, floor) = (median(&mut ours), median(&mut floor));
    eprintln!(
        "nostr 40-post backfill on both real relays: dayrun {ours:.3} s, bare-send floor {floor:.3} s, {:.2}x",
        ours / floor
    );
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_relay_down_while_the_other_is_up_gets_the_same_event_when_it_is_back() {
    let relays = harness::nostr();
    let own = relays.own_relay();
    let (p, pk) = project(&[&relays.rs, &own.url], "");
    let out = p.run(&["run"]);
    assert_ne!(
        out.code,
        0,
        "not out while a relay lacks it\n{}",
        shown(&out)
    );
    assert_eq!(
        held(&relays, &relays.rs, &pk, 1).len(),
        1,
        "{}",
        shown(&out)
    );
    assert!(
        shown(&out).contains(&own.url),
        "the relay is named\n{}",
        shown(&out)
    );
    own.start();
    let out = p.run(&["run"]);
    out.code(0);
    let (rs, back) = (
        held(&relays, &relays.rs, &pk, 1),
        held(&relays, &own.url, &pk, 1),
    );
    assert_eq!(rs.len(), 1, "{}", shown(&out));
    assert_eq!(
        ids(&back),
        ids(&rs),
        "the same event, not a second one\n{}",
        shown(&out)
    );
    assert!(
        line(&p, &today()).contains(" done "),
        "{}",
        line(&p, &today())
    );
    own.stop();
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_nostr_a_key_that_is_not_the_npubs_exits_3_naming_the_file_and_sends_nothing() {
    let relays = harness::nostr();
    let other = public_of(&fresh_key("someone else"));
    let (p, pk) = project(&[&relays.rs, &relays.py], &format!("npub = \"{other}\""));
    let out = p.run(&["run"]);
    out.code(3);
    assert!(shown(&out).contains("secrets/nostr.key"), "{}", shown(&out));
    for relay in [&relays.rs, &relays.py] {
        assert!(held(&relays, relay, &pk, 1).is_empty(), "{relay}");
    }
}
