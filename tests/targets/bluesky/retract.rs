//! Taking a record back and editing it (issue 12, "Retract" and "Edits"): deleteRecord by the
//! rkey of the `at://` id (or a bare TID id), proven with getRecord → RecordNotFound; a copy
//! made after a retract is a new generation under a new rkey; `on_edit = "update"` is a
//! putRecord under the same rkey that keeps the original createdAt.

use super::{CREATE, GET, KEY, TODAY, field, line, project, shown, text_sent};
use crate::fakes::fake_bluesky::FakeBluesky;
use crate::fakes::fake_bluesky_rules::derived_rkey;
use crate::fakes::fake_posts::Fault;

const DELETE: &str = "com.atproto.repo.deleteRecord";

#[test]
fn retract_deletes_the_record_and_proves_it_gone() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    let rkey = derived_rkey("sky", KEY, 0);
    let before = api.calls().len();
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0);
    assert!(api.records().is_empty(), "{}", shown(&out));
    let deleted = api.state.lock().unwrap().deleted.clone();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].rkey, rkey);
    let calls = api.calls()[before..].to_vec();
    let del = calls.iter().position(|c| c == DELETE);
    let get = calls.iter().rposition(|c| c == GET);
    assert!(
        matches!((del, get), (Some(d), Some(g)) if d < g),
        "deleteRecord, then getRecord: {calls:?}"
    );
    assert!(line(&p, KEY).starts_with(&format!("{KEY} retracted ")));
    // A new copy after a retract is a new generation with a new rkey.
    let out = p.run(&["retry", KEY, "--force"]);
    out.code(0);
    let next = derived_rkey("sky", KEY, 1);
    let rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    assert_eq!(rkeys, std::slice::from_ref(&next), "{}", shown(&out));
    let done = line(&p, KEY);
    assert_eq!(field(&done, "generation").as_deref(), Some("1"), "{done}");
    assert_eq!(field(&done, "rkey"), Some(next), "{done}");
}

#[test]
fn an_edit_updates_the_record_in_place_when_asked() {
    let api = FakeBluesky::start();
    let p = project(&api, "on_edit = \"update\"");
    p.run(&["run", TODAY]).code(0);
    let rkey = derived_rkey("sky", KEY, 0);
    let first = api.record(&rkey).unwrap();
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [rust]\n---\n# Why the date is the key\n\nOne key per day, fixed.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(
        api.count("com.atproto.repo.putRecord"),
        1,
        "{}",
        shown(&out)
    );
    assert_eq!(api.count(CREATE), 1);
    let records = api.records();
    assert_eq!(records.len(), 1);
    assert!(
        records[0].text().contains("One key per day, fixed."),
        "{}",
        records[0].text()
    );
    assert_eq!(records[0].value["createdAt"], first.value["createdAt"]);
    assert_eq!(field(&line(&p, KEY), "updated").as_deref(), Some("1"));
}

#[test]
fn a_lost_delete_answer_is_verified_with_get_record() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    api.state
        .lock()
        .unwrap()
        .delete_faults
        .push_back(Fault::CommitHang);
    let out = p.run(&["retract", KEY, "--yes"]);
    assert!(api.records().is_empty(), "{}", shown(&out));
    out.code(0);
    let retracted = line(&p, KEY);
    assert!(
        retracted.starts_with(&format!("{KEY} retracted ")),
        "{retracted}"
    );
    assert_eq!(
        field(&retracted, "verified"),
        None,
        "getRecord proved it gone"
    );
}

#[test]
fn a_bare_tid_id_marked_by_hand_is_retracted_too() {
    let api = FakeBluesky::start();
    let rkey = derived_rkey("sky", KEY, 0);
    api.seed(&rkey, "Made in the app");
    let p = project(&api, "");
    p.run(&["mark", KEY, "done", "--id", &rkey]).code(0);
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0);
    assert!(api.records().is_empty(), "{}", shown(&out));
    assert_eq!(api.count(DELETE), 1);
    assert!(line(&p, KEY).starts_with(&format!("{KEY} retracted ")));
}

#[test]
fn a_copy_found_before_sending_keeps_its_rkey_so_a_new_copy_gets_a_new_one() {
    // The state file was lost after a retract and a new copy (generation 1): dedup finds that
    // copy. Retracted again and published again, the next copy must not reuse its rkey.
    let api = FakeBluesky::start();
    let found = derived_rkey("sky", KEY, 1);
    api.seed(&found, &text_sent(""));
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0).stdout_has("already there");
    p.run(&["retract", KEY, "--yes"]).code(0);
    let out = p.run(&["retry", KEY, "--force"]);
    out.code(0);
    let rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    assert_eq!(rkeys.len(), 1, "{}", shown(&out));
    assert_ne!(
        rkeys[0], found,
        "the new copy reused the retracted copy's rkey"
    );
    let later: Vec<String> = (2..4).map(|g| derived_rkey("sky", KEY, g)).collect();
    assert!(
        later.contains(&rkeys[0]),
        "not a later generation: {rkeys:?}"
    );
}

#[test]
fn a_second_copy_asked_for_gets_the_next_generation_rkey() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    let out = p.run(&["retry", KEY, "--force", "--new"]);
    out.code(0);
    let mut rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    rkeys.sort();
    let mut want = vec![derived_rkey("sky", KEY, 0), derived_rkey("sky", KEY, 1)];
    want.sort();
    assert_eq!(rkeys, want, "{}", shown(&out));
    let done = line(&p, KEY);
    assert_eq!(field(&done, "generation").as_deref(), Some("1"), "{done}");
    assert_eq!(field(&done, "rkey"), Some(derived_rkey("sky", KEY, 1)));
}
