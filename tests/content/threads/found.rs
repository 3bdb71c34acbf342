//! Issue 28 row 4 on the strict Mastodon fake: a part a lookup finds by its text is this
//! thread's only when it replies to the part before it. Another key's thread, or another site's
//! on the same account, may end in the same words.
use super::{KEY, TODAY, field, latest_of};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;
use serde_json::Value;

const THREAD: &str =
    "long = \"thread\"\nvisibility = \"unlisted\"\nsettle_secs = 0\nnumbering = false";

/// A post of two parts: its own first paragraph, then the closing words every day has.
fn day(p: &Project, key: &str, title: &str) {
    let own = format!("{title} words about the morning run and what it does. ").repeat(6);
    let closing =
        "Closing words about the evening and the state file, the same every day. ".repeat(4);
    p.file(
        &format!("content/{key}.md"),
        format!("# {title}\n\n{own}\n\n{closing}\n"),
    );
}

/// The ids on a key's line, in order.
fn parts_of(p: &Project, key: &str) -> Vec<String> {
    let line = latest_of(p, "masto", key).unwrap();
    field(&line, "parts")
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect()
}

/// What status `id` replies to.
fn parent(api: &FakeMastodon, id: &str) -> Value {
    let s = api.state.lock().unwrap();
    s.statuses.iter().find(|st| st["id"] == id).unwrap()["in_reply_to_id"].clone()
}

/// Day 2's thread is sent with its last part's answer lost (stored, then the answer held past
/// the timeout): the lookup by text finds day 2's part and `earlier`'s, which is older.
fn lose_the_last_answer(api: &FakeMastodon, p: &Project) {
    day(p, KEY, "Tuesday");
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::CommitHang]);
    p.run(&["run", TODAY]).code(0).stdout_has("2 parts");
}

/// Day 2's line names its own last part: the status that replies to day 2's first part.
fn own_last_part(api: &FakeMastodon, p: &Project, earlier: &[String]) {
    assert_eq!(api.statuses().len(), 4, "every part out once");
    let parts = parts_of(p, KEY);
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(
        !earlier.contains(&parts[1]),
        "day 2's line names day 1's last part {} (it replies to {}), not its own",
        parts[1],
        parent(api, &parts[1])
    );
    assert_eq!(parent(api, &parts[1]), parts[0].as_str());
}

/// Row 4: two keys' threads end in the same last part. Day 2's last part lands, its answer is
/// lost; day 1's last part has the same text and is older, so the lookup meets it first. It
/// replies to day 1's first part, not to day 2's: it is not day 2's part, and day 2's own is.
#[test]
fn a_found_part_that_replies_to_another_keys_thread_is_not_this_part() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file("dayrun.toml", api.config(THREAD));
    p.secret("secrets/masto.token", TOKEN);
    day(&p, "2026-11-28", "Monday");
    p.run(&["run", "--today=2026-11-28"])
        .code(0)
        .stdout_has("2 parts");
    let monday = parts_of(&p, "2026-11-28");
    lose_the_last_answer(&api, &p);
    own_last_part(&api, &p, &monday);
    assert_eq!(parts_of(&p, "2026-11-28"), monday);
}

/// Row 4 with the other thread not on any line here: a second site posting to the same account
/// (its own project and state). Only the reply check can tell the two last parts apart.
#[test]
fn a_found_part_of_another_sites_thread_on_the_same_account_is_not_this_part() {
    let api = FakeMastodon::start(500);
    let other = Project::new();
    other.file("dayrun.toml", api.config(THREAD));
    other.secret("secrets/masto.token", TOKEN);
    day(&other, "2026-11-28", "Monday");
    other
        .run(&["run", "--today=2026-11-28"])
        .code(0)
        .stdout_has("2 parts");
    let monday = parts_of(&other, "2026-11-28");
    let p = Project::new();
    p.file("dayrun.toml", api.config(THREAD));
    p.secret("secrets/masto.token", TOKEN);
    lose_the_last_answer(&api, &p);
    own_last_part(&api, &p, &monday);
}
