//! `long = "thread"` on short notes: each part one event on every relay, replies marked by
//! NIP-10 `e` tags, each part exactly once.

use super::{KEY, TODAY, line, project, relays, shown};
use crate::fakes::fake_nostr::FakeRelay;
use serde_json::Value;

/// A post long enough for three parts of at most 1000 characters.
fn long_post(p: &crate::support::util::Project) {
    let para = |n: usize| {
        format!(
            "Paragraph {n} says {}.",
            "something worth saying ".repeat(30).trim()
        )
    };
    let body: Vec<String> = (1..=5).map(para).collect();
    p.file(
        &format!("content/{KEY}.md"),
        format!(
            "---\ntags: [rust]\n---\n# A long thought\n\n{}\n",
            body.join("\n\n")
        ),
    );
}

/// The relay's notes in thread order: part 0 (no `e` tag) first, then each reply to the last.
fn thread(relay: &FakeRelay) -> Vec<Value> {
    let notes = relay.held(1);
    let e_tags = |e: &Value| -> Vec<(String, String)> {
        e["tags"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t[0] == "e")
            .map(|t| {
                (
                    t[1].as_str().unwrap().to_string(),
                    t[3].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let mut order: Vec<Value> = notes
        .iter()
        .filter(|e| e_tags(e).is_empty())
        .cloned()
        .collect();
    assert_eq!(order.len(), 1, "one root: {notes:#?}");
    let root = order[0]["id"].as_str().unwrap().to_string();
    while order.len() < notes.len() {
        let last = order.last().unwrap()["id"].as_str().unwrap().to_string();
        let next: Vec<&Value> = notes
            .iter()
            .filter(|e| {
                let tags = e_tags(e);
                let parent = tags
                    .iter()
                    .find(|(_, m)| m == "reply")
                    .or_else(|| tags.iter().find(|(_, m)| m == "root"));
                parent.is_some_and(|(id, _)| *id == last)
                    && tags.iter().any(|(id, m)| *id == root && m == "root")
            })
            .collect();
        assert_eq!(next.len(), 1, "one reply to {last}: {notes:#?}");
        order.push(next[0].clone());
    }
    order
}

#[test]
fn a_thread_is_each_part_once_on_every_relay_marked_by_nip10() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "long = \"thread\"");
    long_post(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let parts = thread(&rs);
    assert!(parts.len() >= 3, "{}", shown(&out));
    assert_eq!(super::ids(&rs, 1), super::ids(&py, 1));
    // Part 1 replies to the root only; later parts name root and parent.
    let e_count = |e: &Value| {
        e["tags"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t[0] == "e")
            .count()
    };
    assert_eq!(e_count(&parts[1]), 1);
    assert_eq!(e_count(&parts[2]), 2);
    assert!(
        line(&p, KEY).starts_with(&format!("{KEY} done ")),
        "{}",
        line(&p, KEY)
    );
    let events = rs.count("EVENT") + py.count("EVENT");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        rs.count("EVENT") + py.count("EVENT"),
        events,
        "a rerun sends nothing"
    );
}

#[test]
fn a_lost_answer_on_a_part_is_found_and_the_thread_goes_on_once() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "long = \"thread\"");
    long_post(&p);
    // Part 1's answer from the first relay is lost after it stored the note.
    rs.state.lock().unwrap().lose_ok = vec![false, true];
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let parts = thread(&rs);
    assert!(parts.len() >= 3, "{}", shown(&out));
    assert_eq!(super::ids(&rs, 1), super::ids(&py, 1), "{}", shown(&out));
    assert!(
        line(&p, KEY).starts_with(&format!("{KEY} done ")),
        "{}",
        line(&p, KEY)
    );
}

#[test]
fn a_kill_while_part_2_goes_out_then_a_rerun_sends_each_part_once() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "long = \"thread\"");
    long_post(&p);
    // The first relay stores part 2; dayrun, waiting for its answer, is killed.
    let child = p
        .command(&["run", TODAY])
        .env("DAYRUN_NOSTR_FAULT", format!("hang_ok:1+1@:{}", rs.port))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, said) = crate::support::util::wait_or_kill(
        child,
        || rs.held(1).len() == 2,
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, None, "killed mid-thread\n{said}");
    assert_eq!(py.held(1).len(), 1, "part 2 reached only the first relay");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let parts = thread(&rs);
    assert!(parts.len() >= 3, "{}", shown(&out));
    assert_eq!(super::ids(&rs, 1), super::ids(&py, 1), "{}", shown(&out));
    assert!(
        line(&p, KEY).starts_with(&format!("{KEY} done ")),
        "{}",
        line(&p, KEY)
    );
}
