//! `kind = "bluesky"` (issue 12, /work/notes/contract-issue12.md) against the strict fake PDS:
//! each post becomes one `app.bsky.feed.post` record whose record key (a TID derived from
//! target, key and generation) is on the state line before the request, so a lost answer is
//! confirmed with getRecord and a resend reuses the key. Every test asserts on the records the
//! fake holds and on exact state fields, never on timing.

use crate::fakes::fake_bluesky::{APP_PASSWORD, DID, FakeBluesky, HANDLE, uri};
use crate::fakes::fake_bluesky_rules::{derived_rkey, is_tid, tid, tid_parts};
use crate::fakes::fake_posts::Fault;
use crate::support::util::{Output, Project};

mod auth;
mod retract;
mod text;

pub const TODAY: &str = "--today=2026-11-29";
pub const KEY: &str = "2026-11-29";
pub const CREATE: &str = "com.atproto.repo.createRecord";
pub const GET: &str = "com.atproto.repo.getRecord";
pub const LOGIN: &str = "com.atproto.server.createSession";

/// A project with one bluesky target `sky`, the App Password, and today's post.
pub fn project(api: &FakeBluesky, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config("sky", extra));
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [rust]\n---\n# Why the date is the key\n\nOne key per day.\n",
    );
    p
}

/// The text dayrun sends for the post of `project(.., extra)`: published once on a PDS of its
/// own (a copy of this post holds exactly that text; the PDS keeps it as sent).
pub fn text_sent(extra: &str) -> String {
    let probe = FakeBluesky::start();
    let p = project(&probe, extra);
    p.run(&["run", TODAY]).code(0);
    probe.records()[0].text().to_string()
}

/// The value of `name=` on a state line (unquoted values only).
pub fn field(line: &str, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&prefix))
        .map(|v| v.trim_matches('"').to_string())
}

/// The state line of `key` on `sky`.
#[track_caller]
pub fn line(p: &Project, key: &str) -> String {
    let lines = p.state_lines("sky");
    lines
        .iter()
        .find(|l| l.starts_with(key))
        .cloned()
        .unwrap_or_else(|| panic!("no line for {key}: {lines:#?}"))
}

/// The run's output, for assertion messages.
pub fn shown(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", out.stdout, out.stderr)
}

/// The done line of the key: receipt id, url and rkey all name the one record.
#[track_caller]
pub fn done_with(p: &Project, rkey: &str) {
    let line = line(p, KEY);
    assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
    assert_eq!(field(&line, "id"), Some(uri(rkey)), "{line}");
    assert_eq!(field(&line, "rkey").as_deref(), Some(rkey), "{line}");
    let url = format!("https://bsky.app/profile/{HANDLE}/post/{rkey}");
    assert_eq!(field(&line, "url"), Some(url), "{line}");
}

#[test]
fn publishes_one_record_whose_rkey_was_pending_before_the_request() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    api.watch(&p.root, "sky");
    let rkey = derived_rkey("sky", KEY, 0);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} sky published id={}", uri(&rkey)));
    let records = api.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].rkey, rkey);
    assert_eq!(
        records[0].uri,
        format!("at://{DID}/app.bsky.feed.post/{rkey}")
    );
    done_with(&p, &rkey);
    // The pending line was durable, with this rkey, when the request arrived.
    let seen = api.state.lock().unwrap().pending_at_create.clone();
    let pending = seen[0]
        .clone()
        .expect("no pending line when createRecord arrived");
    assert!(pending.starts_with(&format!("{KEY} pending ")), "{pending}");
    assert_eq!(field(&pending, "rkey"), Some(rkey.clone()), "{pending}");
    assert_eq!(
        field(&pending, "attempt").as_deref(),
        Some("1"),
        "{pending}"
    );
    assert_eq!(
        field(&pending, "sent").as_deref(),
        Some("maybe"),
        "{pending}"
    );
    // Before the first attempt, getRecord looked for the copies of generations 0 to 3.
    let mut asked = api.state.lock().unwrap().got.clone();
    asked.sort();
    let mut probes: Vec<String> = (0..4).map(|g| derived_rkey("sky", KEY, g)).collect();
    probes.sort();
    assert_eq!(asked, probes, "pre-submit lookups");
    // Again: nothing to do, nothing sent, not even a login.
    let calls = api.calls().len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.calls().len(), calls, "{:?}", api.calls());
    assert_eq!(api.count(CREATE), 1);
}

#[test]
fn the_rkey_is_a_tid_of_the_key_day_and_differs_per_target() {
    let (a, b) = (derived_rkey("sky", KEY, 0), derived_rkey("other", KEY, 0));
    assert!(is_tid(&a) && a != b);
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.file(
        "dayrun.toml",
        format!("{}{}", api.config("sky", ""), api.config("other", "")),
    );
    p.run(&["run", TODAY]).code(0);
    let rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    assert_eq!(rkeys.len(), 2, "one record per target");
    assert!(rkeys.contains(&a) && rkeys.contains(&b), "{rkeys:?}");
    let (micros, _) = tid_parts(&a).unwrap();
    let day = crate::fakes::fake_bluesky_rules::midnight_micros(KEY);
    assert!(
        (day..day + 3_600_000_000).contains(&micros),
        "{a}: {micros}"
    );
}

#[test]
fn an_answer_lost_after_the_commit_is_confirmed_by_get_record() {
    let faults = [
        Fault::CommitHang,
        Fault::CommitClose,
        Fault::CommitStatus(500),
        Fault::CommitStatus(502),
    ];
    for fault in faults {
        let api = FakeBluesky::start();
        api.create_faults(&[fault]);
        let p = project(&api, "");
        let rkey = derived_rkey("sky", KEY, 0);
        let out = p.run(&["run", TODAY]);
        assert_eq!(api.records().len(), 1, "{fault:?}\n{}", shown(&out));
        assert_eq!(api.count(CREATE), 1, "{fault:?}: no second create");
        out.code(0)
            .stdout_has(&format!("{KEY} sky confirmed id={}", uri(&rkey)));
        done_with(&p, &rkey);
        // Confirmation asks for the attempt's rkey only (the 4 lookups before it were dedup).
        let asked = api.state.lock().unwrap().got.clone();
        assert!(
            asked.len() > 4,
            "{fault:?}: no confirmation lookup: {asked:?}"
        );
        assert!(
            asked[4..].iter().all(|r| *r == rkey),
            "{fault:?}: {asked:?}"
        );
    }
}

#[test]
fn a_500_without_a_commit_is_resent_with_the_same_rkey() {
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::Reject(500)]);
    let p = project(&api, "");
    let rkey = derived_rkey("sky", KEY, 0);
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 2, "{}", shown(&out));
    out.code(0);
    let creates = api.state.lock().unwrap().creates.clone();
    assert_eq!(creates[0]["rkey"], rkey.as_str());
    assert_eq!(
        creates[1]["rkey"],
        rkey.as_str(),
        "the resend reuses the rkey"
    );
    assert_eq!(api.records().len(), 1);
    done_with(&p, &rkey);
}

#[test]
fn when_get_record_cannot_tell_nothing_is_resent_and_a_late_copy_blocks_the_resend() {
    // The answer is lost and every lookup after it fails (a proxy's 502): the next run looks
    // again by itself (75); once that has lasted past `escalate_after`, a human decides.
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::CommitHang]);
    api.confirm_faults(&[502; 20]);
    let p = project(&api, "");
    let rkey = derived_rkey("sky", KEY, 0);
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 1, "{}", shown(&out));
    out.code(75)
        .stdout_has("failed (unknown)")
        .stdout_has("the next run looks again");
    let failed = line(&p, KEY);
    assert_eq!(
        field(&failed, "lookup").as_deref(),
        Some("error"),
        "{failed}"
    );
    let out = p.run_at(&crate::support::util::hours_from_now(21), &["run", TODAY]);
    assert_eq!(api.count(CREATE), 1, "{}", shown(&out));
    out.code(1)
        .stdout_has("failed (unknown)")
        .stdout_has("the lookup has failed since")
        .stdout_has(&format!("dayrun retry {KEY} --absent --target sky"));
    let failed = line(&p, KEY);
    assert!(failed.contains(" failed ") && failed.contains("class=unknown"));
    assert_eq!(field(&failed, "lookup"), None, "{failed}");
    assert_eq!(field(&failed, "rkey"), Some(rkey.clone()), "{failed}");
    // A human wrongly says "absent": the resend has the same rkey, the PDS refuses it (500),
    // and getRecord finds the first record. Still one record, unchanged.
    let first = api.record(&rkey).unwrap();
    api.state.lock().unwrap().confirm_faults.clear();
    let out = p.run(&["retry", KEY, "--absent"]);
    assert_eq!(api.count(CREATE), 2, "{}", shown(&out));
    out.code(0)
        .stdout_has(&format!("{KEY} sky confirmed id={}", uri(&rkey)));
    assert_eq!(api.records().len(), 1);
    assert_eq!(api.record(&rkey).unwrap().cid, first.cid);
    done_with(&p, &rkey);
}

#[test]
fn a_lost_state_file_finds_the_record_before_sending() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    std::fs::remove_dir_all(p.path("state")).unwrap();
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 1, "{}", shown(&out));
    out.code(0).stdout_has(&format!("{KEY} sky already there"));
    let rkey = derived_rkey("sky", KEY, 0);
    done_with(&p, &rkey);
    assert_eq!(field(&line(&p, KEY), "dedup").as_deref(), Some("1"));
}

#[test]
fn a_lost_state_file_finds_a_copy_of_a_later_generation() {
    // A copy made after a retract (generation 2) is found too: nothing is sent.
    let api = FakeBluesky::start();
    let rkey = derived_rkey("sky", KEY, 2);
    api.seed(&rkey, &text_sent(""));
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 0, "{}", shown(&out));
    out.code(0).stdout_has("already there");
    assert_eq!(field(&line(&p, KEY), "id"), Some(uri(&rkey)));
}

#[test]
fn two_copies_found_before_sending_are_a_duplicate_and_nothing_is_sent() {
    let api = FakeBluesky::start();
    let (first, second) = (derived_rkey("sky", KEY, 0), derived_rkey("sky", KEY, 1));
    let text = text_sent("");
    api.seed(&first, &text);
    api.seed(&second, &text);
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 0, "{}", shown(&out));
    out.code(1);
    assert!(out.stderr.contains("DUPLICATE"), "{}", shown(&out));
    let done = line(&p, KEY);
    assert_eq!(field(&done, "id"), Some(uri(&first)), "{done}");
    assert_eq!(field(&done, "copies"), Some(uri(&second)), "{done}");
    assert_eq!(api.records().len(), 2, "dayrun deletes nothing by itself");
}

#[test]
fn the_rkey_on_the_line_is_used_not_derived_again() {
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::RateLimit(3600)]);
    let p = project(&api, "");
    let derived = derived_rkey("sky", KEY, 0);
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("failed (retry-safe)");
    assert!(api.records().is_empty());
    let failed = line(&p, KEY);
    assert!(failed.contains("class=retry-safe"), "{failed}");
    assert_eq!(field(&failed, "rkey"), Some(derived.clone()), "{failed}");
    // The line's rkey wins over a new derivation (a hand-edited line shows it).
    let chosen = tid(
        crate::fakes::fake_bluesky_rules::midnight_micros(KEY) + 42,
        7,
    );
    let state = p.read("state/sky.state").replace(&derived, &chosen);
    p.file("state/sky.state", state);
    p.run(&["run", TODAY]).code(0);
    let rkeys: Vec<String> = api.records().into_iter().map(|r| r.rkey).collect();
    assert_eq!(rkeys, std::slice::from_ref(&chosen));
    done_with(&p, &chosen);
}

#[test]
fn a_429_is_retry_safe_and_its_wait_is_read_from_either_header() {
    for reset_only in [false, true] {
        let api = FakeBluesky::start();
        api.state.lock().unwrap().reset_only = reset_only;
        api.create_faults(&[Fault::RateLimit(1)]);
        let p = project(&api, "");
        let out = p.run(&["run", TODAY]);
        assert_eq!(api.count(CREATE), 2, "{}", shown(&out));
        out.code(0).stdout_has("published");
        assert_eq!(api.records().len(), 1);
        done_with(&p, &derived_rkey("sky", KEY, 0));
        // A wait past retry_after_cap_secs: left for the next run, nothing sent again now.
        let api = FakeBluesky::start();
        api.state.lock().unwrap().reset_only = reset_only;
        api.create_faults(&[Fault::RateLimit(3600)]);
        let p = project(&api, "");
        let out = p.run(&["run", TODAY]);
        assert_eq!(
            api.count(CREATE),
            1,
            "reset_only={reset_only}: {}",
            shown(&out)
        );
        out.code(75).stdout_has("failed (retry-safe)");
    }
}

#[test]
fn a_dry_run_sends_nothing_at_all() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    p.run(&["run", "--dry-run", TODAY]).code(0);
    assert_eq!(api.calls(), Vec::<String>::new(), "not even a login");
    assert!(p.state_lines("sky").is_empty());
}

#[test]
fn an_unknown_key_in_the_table_is_a_config_error_listing_the_keys() {
    let api = FakeBluesky::start();
    let p = project(&api, "app_pasword = \"x\"");
    let out = p.run(&["run", TODAY]);
    out.code(2);
    let said = format!("{}{}", out.stdout, out.stderr);
    for needle in [
        "[targets.sky]: unknown field `app_pasword`",
        "app_password_file",
    ] {
        assert!(said.contains(needle), "lacks {needle:?}\n{}", shown(&out));
    }
    assert!(api.calls().is_empty());
}
