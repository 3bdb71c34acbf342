//! Bluesky at the request floor: one `listRecords` walk down the keys' hours in place of four
//! `getRecord` probes per post; a walk that cannot be trusted proves nothing, one cut short
//! proves what it read.

use super::{POSTS, key, post, within_floor, write_posts};
use crate::fakes::fake_bluesky::repo::ListFault;
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_bluesky_rules::{derived_rkey, midnight_micros, tid};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;
use crate::targets::bluesky::{CREATE, GET, LOGIN};

const LIST: &str = "com.atproto.repo.listRecords";

fn project(api: &FakeBluesky, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", super::patient(api.config("sky", extra)));
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p
}

/// Calls to the PDS as `METHOD target`, for the floor.
fn calls(api: &FakeBluesky) -> Vec<String> {
    api.calls()
}

#[test]
fn a_backfill_of_40_posts_costs_a_create_each_a_login_and_one_walk() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"])
        .code(0)
        .stdout_has(&format!("sky: {POSTS} published"));
    let calls = calls(&api);
    assert_eq!(api.records().len(), POSTS);
    assert_eq!(api.count(CREATE), POSTS, "{calls:#?}");
    assert_eq!(api.count(LOGIN), 1, "{calls:#?}");
    assert_eq!(api.count(GET), 0, "no probe: {calls:#?}");
    // The walk starts just above the last key's hour: the first TID after it.
    let listed = api.state.lock().unwrap().listed.clone();
    let top = tid(midnight_micros(&key(POSTS - 1)) + 3_600_000_000, 0);
    assert_eq!(
        listed,
        [top],
        "one page, below nothing: the collection's end"
    );
    assert_eq!(calls.len(), POSTS + 2, "{calls:#?}");
    within_floor(&calls, POSTS);
    // Nothing to do: nothing asked.
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(api.calls().len(), calls.len());
}

#[test]
fn older_records_below_the_keys_end_the_walk_without_asking_for_more() {
    let api = FakeBluesky::start();
    // A post of last year and one of today, by the app: below and above the keys' hours.
    let year_ago = crate::support::days::days_ago(365);
    api.seed(&derived_rkey("app", &year_ago, 0), "old");
    api.seed(
        &derived_rkey("app", &crate::support::days::days_ago(0), 0),
        "today",
    );
    let p = project(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(api.count(LIST), 1, "{:#?}", api.calls());
    assert_eq!(api.count(GET), 0);
    assert_eq!(api.records().len(), POSTS + 2);
}

/// The text dayrun sends for post `i`, as the PDS keeps it.
fn text_of(i: usize) -> String {
    let probe = FakeBluesky::start();
    let p = project(&probe, "");
    p.file(&format!("content/{}.md", key(i)), post(i));
    p.run(&["run", "--backfill"]).code(0);
    probe.records()[0].text().to_string()
}

#[test]
fn records_already_under_a_keys_record_key_are_found_by_the_walk() {
    let api = FakeBluesky::start();
    // Key 7's copy, made by a run whose state was lost; key 5's record key used by another tool.
    api.seed(&derived_rkey("sky", &key(7), 0), &text_of(7));
    api.seed(&derived_rkey("sky", &key(5), 0), "another tool's post");
    let p = project(&api, "");
    write_posts(&p);
    let out = p.run(&["run", "--backfill"]);
    out.code(1).stdout_has("not this post");
    assert_eq!(api.count(GET), 0, "the walk alone: {:#?}", api.calls());
    assert_eq!(api.count(CREATE), POSTS - 2);
    let statuses = p.statuses("sky");
    assert!(
        statuses.contains(&format!("{} done", key(7))),
        "{statuses:#?}"
    );
    assert!(
        statuses.contains(&format!("{} failed", key(5))),
        "{statuses:#?}"
    );
    assert_eq!(api.records().len(), POSTS);
}

#[test]
fn a_create_whose_answer_was_lost_in_a_backfill_is_looked_up_live_and_found_once() {
    let api = FakeBluesky::start();
    let mut faults = vec![Fault::Normal; 19];
    faults.push(Fault::CommitHang);
    api.create_faults(&faults);
    let p = project(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(api.records().len(), POSTS);
    assert_eq!(
        api.count(CREATE),
        POSTS,
        "no second create: {:#?}",
        api.calls()
    );
    // Its record key alone, on the PDS itself: the walk was read before that create.
    let got = api.state.lock().unwrap().got.clone();
    assert_eq!(got, [derived_rkey("sky", &key(19), 0)]);
    let line = p
        .state_lines("sky")
        .into_iter()
        .find(|l| l.starts_with(&key(19)))
        .unwrap();
    assert!(line.contains(" done "), "{line}");
}

#[test]
fn a_walk_that_cannot_be_trusted_proves_nothing_and_each_key_is_probed() {
    for fault in [
        ListFault::Unordered,
        ListFault::IgnoreCursor,
        ListFault::Status(500),
    ] {
        let api = FakeBluesky::start();
        // Records by another app around the keys, and one of today's above them all.
        for i in [3, 9, 30] {
            api.seed(&derived_rkey("app", &key(i), 0), "by the app");
        }
        api.seed(
            &derived_rkey("app", &crate::support::days::days_ago(0), 0),
            "today",
        );
        api.state.lock().unwrap().list_faults.push_back(fault);
        let p = project(&api, "");
        write_posts(&p);
        p.run(&["run", "--backfill"]).code(0);
        assert_eq!(api.count(GET), 4 * POSTS, "{fault:?}: {:#?}", api.calls());
        assert_eq!(api.count(CREATE), POSTS, "{fault:?}");
        assert_eq!(api.records().len(), POSTS + 4, "{fault:?}");
    }
}

#[test]
fn a_walk_cut_short_by_its_cap_proves_only_what_it_read() {
    let api = FakeBluesky::start();
    // 30 records by another app in each key's hour: 1200, more than the walk's 10 pages.
    for i in 0..POSTS {
        for g in 0..30 {
            api.seed(&derived_rkey("app", &key(i), g), "by the app");
        }
    }
    let p = project(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(0);
    assert_eq!(api.count(LIST), 10, "{:#?}", api.calls().len());
    let got = api.state.lock().unwrap().got.clone();
    // The newest keys were read; the oldest were not, and are probed (four keys each).
    assert!(!got.is_empty() && got.len() < 4 * POSTS, "{}", got.len());
    assert_eq!(got.len() % 4, 0);
    assert!(
        !got.contains(&derived_rkey("sky", &key(POSTS - 1), 0)),
        "the newest key was read"
    );
    assert!(
        got.contains(&derived_rkey("sky", &key(0), 0)),
        "the oldest was not"
    );
    assert_eq!(api.count(CREATE), POSTS);
}

#[test]
fn a_lookup_left_by_an_earlier_run_is_answered_by_the_walk_once_past_its_deadline() {
    let api = FakeBluesky::start();
    let mut faults = vec![Fault::Normal; 18];
    faults.extend([Fault::CommitHang, Fault::CommitHang]);
    api.create_faults(&faults);
    // Every lookup after the first create fails: keys 18 and 19 are left to the next run.
    api.confirm_faults(&[503; 40]);
    let p = project(&api, "");
    write_posts(&p);
    p.run(&["run", "--backfill"]).code(75);
    assert_eq!(api.records().len(), POSTS);
    {
        let mut s = api.state.lock().unwrap();
        s.got.clear();
        s.confirm_faults.clear();
    }
    // An hour later: both attempts can no longer land, and the walk says where they did.
    let later = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(1);
    p.run_at(&later.to_string(), &["run", "--backfill"]).code(0);
    assert!(api.state.lock().unwrap().got.is_empty(), "no probe");
    assert_eq!(api.count(CREATE), POSTS);
    for i in [18, 19] {
        let line = p
            .state_lines("sky")
            .into_iter()
            .find(|l| l.starts_with(&key(i)))
            .unwrap();
        assert!(line.contains(" done "), "{line}");
    }
}

#[test]
fn a_lookup_left_by_an_earlier_run_before_its_deadline_is_made_live() {
    let api = FakeBluesky::start();
    let mut faults = vec![Fault::Normal; 18];
    faults.extend([Fault::CommitHang, Fault::CommitHang]);
    api.create_faults(&faults);
    api.confirm_faults(&[503; 40]);
    let p = project(&api, "");
    write_posts(&p);
    let start = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(1);
    p.run_at(&start.to_string(), &["run", "--backfill"])
        .code(75);
    {
        let mut s = api.state.lock().unwrap();
        s.got.clear();
        s.confirm_faults.clear();
    }
    // The keys the first run left unconfirmed (18 and 19, unless a slow machine cut it short).
    let statuses = p.statuses("sky");
    let left: Vec<usize> = (0..POSTS)
        .filter(|&i| {
            let line = statuses.iter().find(|s| s.starts_with(&key(i)));
            line.is_some_and(|s| !s.ends_with(" done"))
        })
        .collect();
    assert!(left.contains(&18), "{statuses:#?}");
    // The next run's clock is where the first one's was: the attempts might still land.
    p.run_at(&start.to_string(), &["run", "--backfill"]).code(0);
    let mut got = api.state.lock().unwrap().got.clone();
    got.dedup();
    let want: Vec<String> = left
        .iter()
        .map(|&i| derived_rkey("sky", &key(i), 0))
        .collect();
    assert_eq!(got, want, "each looked up on the PDS: {statuses:#?}");
    assert_eq!(api.count(CREATE), POSTS);
}
