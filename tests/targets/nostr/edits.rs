//! Long notes edited in place, and retracts proven on each relay.

use super::{KEY, TODAY, field, ids, line, project, relays, shown};

#[test]
fn a_long_note_is_edited_in_place_on_every_relay() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "note = \"long\"");
    p.run(&["run", TODAY]).code(0);
    let first = line(&p, KEY);
    let id = field(&first, "id").unwrap();
    assert_eq!(id, format!("30023:{}:{KEY}", super::PUBKEY), "{first}");
    for relay in [&rs, &py] {
        let held = relay.held(30023);
        assert_eq!(held.len(), 1);
        assert!(
            held[0]["content"]
                .as_str()
                .unwrap()
                .contains("One key per day.")
        );
    }
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [rust, nostr]\n---\n# Why the date is the key\n\nOne key per day, fixed.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    for relay in [&rs, &py] {
        let held = relay.held(30023);
        assert_eq!(
            held.len(),
            1,
            "{:?}: one version\n{}",
            relay.flavour,
            shown(&out)
        );
        assert!(
            held[0]["content"].as_str().unwrap().contains("fixed"),
            "{held:#?}"
        );
    }
    assert_eq!(field(&line(&p, KEY), "id"), Some(id));
}

#[test]
fn a_retract_is_a_deletion_proven_on_each_relay() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    p.run(&["run", TODAY]).code(0);
    let id = ids(&rs, 1)[0].clone();
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0);
    for relay in [&rs, &py] {
        assert!(
            relay.held(1).is_empty(),
            "{:?}\n{}",
            relay.flavour,
            shown(&out)
        );
        let deletions = relay.held(5);
        assert_eq!(deletions.len(), 1);
        assert!(
            deletions[0]["tags"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t[0] == "e" && t[1] == id.as_str())
        );
    }
    assert!(line(&p, KEY).starts_with(&format!("{KEY} retracted ")));
}

#[test]
fn a_long_note_retracted_is_gone_from_both_relays() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "note = \"long\"");
    p.run(&["run", TODAY]).code(0);
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0);
    for relay in [&rs, &py] {
        assert!(
            relay.held(30023).is_empty(),
            "{:?}\n{}",
            relay.flavour,
            shown(&out)
        );
    }
}

#[test]
fn a_relay_that_keeps_a_retracted_note_is_reported_by_name() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "");
    p.run(&["run", TODAY]).code(0);
    py.state.lock().unwrap().keeps_deleted = true;
    let out = p.run(&["retract", KEY, "--yes"]);
    assert_ne!(out.code, 0, "{}", shown(&out));
    assert!(rs.held(1).is_empty());
    assert_eq!(py.held(1).len(), 1, "it kept it");
    assert!(
        shown(&out).contains(&py.url()),
        "the relay is named\n{}",
        shown(&out)
    );
    assert!(
        !line(&p, KEY).starts_with(&format!("{KEY} retracted ")),
        "{}",
        line(&p, KEY)
    );
}

#[test]
fn an_edit_while_a_relay_is_down_reaches_it_when_it_is_back() {
    let (rs, py) = relays();
    let p = project(&[&rs, &py], "note = \"long\"");
    p.run(&["run", TODAY]).code(0);
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [rust, nostr]\n---\n# Why the date is the key\n\nOne key per day, fixed.\n",
    );
    py.set_down(true);
    let out = p.run(&["run", TODAY]);
    assert_ne!(out.code, 0, "{}", shown(&out));
    let fixed = |relay: &crate::fakes::fake_nostr::FakeRelay| {
        let held = relay.held(30023);
        held.len() == 1 && held[0]["content"].as_str().unwrap().contains("fixed")
    };
    assert!(fixed(&rs), "{}", shown(&out));
    assert!(!fixed(&py));
    py.set_down(false);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert!(fixed(&rs) && fixed(&py), "{}", shown(&out));
}
