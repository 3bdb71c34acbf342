//! Issue 28, "A key's copies as one set": one test per row its table names (rows 5, 7 and 8
//! are with the threads, merge and lock tests). Each was red on 0.5.0: a live copy's id
//! dropped, an earlier generation's or another key's copy taken for this attempt's, or an edit
//! lost under a pending attempt. The real binary on real files, against the strict fakes.

use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::{Output, Project};
use std::time::{Duration, Instant};

const KEY: &str = "2026-11-29";
const NOW: &str = "2026-11-29T07:00:00Z";
const LATER: &str = "2026-11-29T09:00:00Z";

/// The value of `name=` on `key`'s state line of `target` (bare values only).
fn field(p: &Project, target: &str, key: &str, name: &str) -> Option<String> {
    let lines = p.state_lines(target);
    let line = lines.iter().find(|l| l.starts_with(&format!("{key} ")))?;
    let at = line.find(&format!(" {name}="))? + name.len() + 2;
    Some(line[at..].split(' ').next().unwrap_or("").to_string())
}

fn printed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

/// An http target `blog` on `api`, its lookup an exact query by key, `extra` added.
fn blog(api: &PostsApi, extra: &str) -> Project {
    listed(api, "key={key}", extra)
}

/// An http target `blog` on `api` whose `list_url` asks `?QUERY`, `extra` added, and the post
/// of `KEY`.
fn listed(api: &PostsApi, query: &str, extra: &str) -> Project {
    let list = api.server.url("/posts");
    let table = api
        .config("blog", &format!("settle_secs = 0\n{extra}"))
        .replace(
            &format!("list_url = \"{list}\""),
            &format!("list_url = \"{list}?{query}\""),
        );
    let p = Project::new();
    p.file("dayrun.toml", table);
    p.post(KEY, "Today");
    p
}

/// Start `args` at `now` and kill it (SIGKILL) once the fake has seen `posts` POSTs: the run
/// dies with its send in flight, leaving its pending line.
fn kill_during_send(p: &Project, api: &PostsApi, now: &str, args: &[&str], posts: usize) {
    let mut child = p
        .command(args)
        .env("DAYRUN_NOW", now)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while api.state.lock().unwrap().post_times.len() < posts {
        assert!(start.elapsed() < Duration::from_secs(30), "no send");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Row 1: `retry --force --new` killed while its send hangs, the post's file deleted, and the
/// next run's lookup proves the second copy absent. The line still names the first copy, which
/// is live: it stays, the run says what a person may do, and `retract` removes it.
#[test]
fn row_1_a_line_that_names_an_earlier_generations_copy_is_never_dropped() {
    let api = PostsApi::start();
    let p = blog(&api, &api.delete_url());
    p.run_at(NOW, &["run"]).code(0);
    assert_eq!(field(&p, "blog", KEY, "id").as_deref(), Some("p-1"));
    {
        let mut s = api.state.lock().unwrap();
        s.hang = Duration::from_secs(20);
        s.post_faults.push_back(Fault::Hang);
    }
    let retry = ["retry", KEY, "--force", "--new"];
    kill_during_send(&p, &api, "2026-11-29T08:00:00Z", &retry, 2);
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    let out = p.run_at(LATER, &["run"]);
    let all = printed(&out);
    assert!(!all.contains("forgotten"), "{all}");
    assert_eq!(out.code, 1, "a person decides: {all}");
    assert!(all.contains("p-1") && all.contains("retract"), "{all}");
    assert_eq!(field(&p, "blog", KEY, "older").as_deref(), Some("p-1"));
    p.run_at(LATER, &["retract", KEY, "--yes"]).code(0);
    assert_eq!(
        api.commits_of(KEY),
        0,
        "the first copy is still on the server"
    );
}

/// Row 2, http with `list_url`: a second copy's request lost before the server. The lookup
/// lists the first copy (same key, same text): it answers for generation 0, never for 1, so
/// the second copy is sent again.
#[test]
fn row_2_an_earlier_generations_copy_never_answers_for_a_new_one() {
    let api = PostsApi::start();
    let p = blog(&api, "");
    p.run_at(NOW, &["run"]).code(0);
    api.faults(&[Fault::Hang]);
    let out = p.run_at(LATER, &["retry", KEY, "--force", "--new"]);
    out.code(0);
    assert_eq!(api.commits_of(KEY), 2, "{}", printed(&out));
    assert_eq!(field(&p, "blog", KEY, "id").as_deref(), Some("p-2"));
    assert_eq!(field(&p, "blog", KEY, "older").as_deref(), Some("p-1"));
    assert_eq!(field(&p, "blog", KEY, "copies"), None, "no duplicate");
}

/// Row 2, matched by idempotency key: the answer to a second copy lost after it committed.
/// The lookup asks for the second copy's own idempotency key, and finds it.
#[test]
fn row_2_a_lookup_by_idempotency_key_asks_for_the_generations_own() {
    let api = PostsApi::start();
    let query = "idempotency_key={idempotency_key}";
    let p = listed(&api, query, "match_by = \"idempotency_key\"");
    p.run_at(NOW, &["run"]).code(0);
    api.faults(&[Fault::CommitHang]);
    let out = p.run_at(LATER, &["retry", KEY, "--force", "--new"]);
    out.code(0);
    assert_eq!(api.commits_of(KEY), 2, "{}", printed(&out));
    assert_eq!(field(&p, "blog", KEY, "id").as_deref(), Some("p-2"));
    assert_eq!(field(&p, "blog", KEY, "older").as_deref(), Some("p-1"));
}

/// Row 2, a command target: `confirm` gets the idempotency key of the copy it confirms, the
/// one `publish` got, not generation 0's.
#[test]
fn row_2_confirm_gets_the_generations_own_idempotency_key() {
    let p = Project::new();
    p.script(
        "publish.sh",
        "#!/bin/sh\necho \"$DAYRUN_IDEMPOTENCY_KEY\" >> keys.publish\nn=$(wc -l < keys.publish)\n[ \"$n\" -eq 2 ] && exit 3\necho \"{\\\"id\\\":\\\"c-$n\\\"}\"\n",
    );
    p.script(
        "confirm.sh",
        "#!/bin/sh\necho \"$DAYRUN_IDEMPOTENCY_KEY\" >> keys.confirm\nexit 1\n",
    );
    p.file(
        "dayrun.toml",
        "[targets.cmd]\nkind = \"command\"\nrun = [\"./publish.sh\"]\nconfirm = [\"./confirm.sh\"]\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n",
    );
    p.post(KEY, "Today");
    p.run_at(NOW, &["run"]).code(0);
    // The first run's pre-submit lookup asked for generation 0, rightly.
    let before = p.read("keys.confirm").lines().count();
    let out = p.run_at(LATER, &["retry", KEY, "--force", "--new"]);
    let publish: Vec<String> = p.read("keys.publish").lines().map(String::from).collect();
    let confirm: Vec<String> = p
        .read("keys.confirm")
        .lines()
        .skip(before)
        .map(String::from)
        .collect();
    assert!(publish.len() >= 2, "{publish:?} {}", printed(&out));
    assert_ne!(publish[0], publish[1], "a second copy has a key of its own");
    assert!(!confirm.is_empty(), "no confirm ran: {}", printed(&out));
    assert!(
        confirm.iter().all(|k| *k == publish[1]),
        "confirm got {confirm:?}, the second copy was sent as {}",
        publish[1]
    );
}

/// A Mastodon target on `api`, with dedup (the default), and two days' posts that say the
/// same thing (title, first paragraph, no link).
fn twins(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(&format!("settle_secs = 0\n{extra}")),
    );
    p.secret("secrets/masto.token", fake_mastodon::TOKEN);
    for key in ["2026-11-28", KEY] {
        p.file(
            &format!("content/{key}.md"),
            "# Daily note\n\nSame as ever.\n",
        );
    }
    p
}

/// Row 3: day 2's pre-submit lookup finds day 1's status, which has the same text. An id on
/// another key's line is never this key's copy: day 2 is sent, and its retract leaves day 1.
#[test]
fn row_3_another_keys_copy_is_never_this_keys() {
    let api = FakeMastodon::start(500);
    let p = twins(&api, "");
    p.run_at("2026-11-28T07:00:00Z", &["run", "--today", "2026-11-28"])
        .code(0);
    let out = p.run_at(NOW, &["run", "--today", KEY]);
    out.code(0);
    assert!(!out.stdout.contains("already there"), "{}", printed(&out));
    assert_eq!(api.statuses().len(), 2, "{}", printed(&out));
    let day1 = field(&p, "masto", "2026-11-28", "id").unwrap();
    let day2 = field(&p, "masto", KEY, "id").unwrap();
    assert_ne!(day1, day2);
    p.run_at(LATER, &["retract", KEY, "--yes"]).code(0);
    let left: Vec<String> = api
        .statuses()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(left, [day1], "retract of day 2 took day 1's status");
}

/// Row 3, after a lost answer: day 2's send lost before the server; the lookup lists day 1's
/// status only. It is not day 2's: day 2 is sent again, once.
#[test]
fn row_3_a_lost_send_is_not_confirmed_by_another_keys_copy() {
    let api = FakeMastodon::start(500);
    let p = twins(&api, "dedup = false");
    p.run_at("2026-11-28T07:00:00Z", &["run", "--today", "2026-11-28"])
        .code(0);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(crate::fakes::fake_posts::Fault::Hang);
    let out = p.run_at(NOW, &["run", "--today", KEY]);
    out.code(0);
    assert_eq!(api.statuses().len(), 2, "{}", printed(&out));
    assert_ne!(
        field(&p, "masto", "2026-11-28", "id"),
        field(&p, "masto", KEY, "id")
    );
}

/// Row 6: the post edited while an attempt is pending (the server holds version one). The run
/// that finds the copy records what that attempt sent, so the edit goes out afterwards.
#[test]
fn row_6_a_copy_found_keeps_its_attempts_fingerprint_and_the_edit_goes_out() {
    let api = PostsApi::start();
    let p = blog(
        &api,
        &format!("update_url = \"{}\"", api.server.url("/posts/{id}")),
    );
    // A send that may run for 20 s: the run is killed well within it.
    let text = std::fs::read_to_string(p.path("dayrun.toml")).unwrap();
    p.file(
        "dayrun.toml",
        text.replace("\ntimeout_secs = 0.3", "\ntimeout_secs = 20"),
    );
    {
        let mut s = api.state.lock().unwrap();
        s.hang = Duration::from_secs(30);
        s.post_faults.push_back(Fault::CommitHang);
    }
    kill_during_send(&p, &api, NOW, &["run"], 1);
    assert_eq!(api.commits_of(KEY), 1);
    // The pending line is in the journal until the next run folds it in.
    let journal = p.read("state/blog.journal");
    let at = journal.rfind(" fp=").expect("a pending line with fp=") + 4;
    let sent_fp = journal[at..].split([' ', '\n']).next().unwrap().to_string();
    p.file(
        &format!("content/{KEY}.md"),
        "# Today, edited\n\nBody two.\n",
    );
    let out = p.run_at(LATER, &["run"]);
    out.code(0).stdout_has("confirmed id=p-1");
    assert_eq!(
        field(&p, "blog", KEY, "fp"),
        Some(sent_fp),
        "{}",
        printed(&out)
    );
    let out = p.run_at("2026-11-29T10:00:00Z", &["run"]);
    out.code(0).stdout_has("updated id=p-1");
    assert_eq!(api.state.lock().unwrap().updates_applied, 1);
    assert_eq!(api.commits_of(KEY), 1);
}

/// Row 6, through a person: published, edited, `mark KEY failed`, then `retry KEY`, whose
/// request is lost before the server (503). The lookup finds the copy the line names, which
/// still holds the first version: the line records that version's fingerprint (`holds=` kept
/// it), so the edit goes out to the copy afterwards.
#[test]
fn row_6_a_copy_found_again_after_mark_failed_keeps_what_it_holds() {
    let api = PostsApi::start();
    let p = blog(
        &api,
        &format!("update_url = \"{}\"", api.server.url("/posts/{id}")),
    );
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("published id=p-1");
    let first_fp = field(&p, "blog", KEY, "fp").expect("fp=");
    p.file(
        &format!("content/{KEY}.md"),
        "# Today, edited\n\nBody two.\n",
    );
    p.run_at(NOW, &["mark", KEY, "failed"]).code(0);
    assert!(
        field(&p, "blog", KEY, "holds").is_some_and(|h| h.starts_with(&first_fp)),
        "{:?}",
        p.state_lines("blog")
    );
    api.state
        .lock()
        .unwrap()
        .post_faults
        .push_back(Fault::Reject(503));
    let out = p.run_at(LATER, &["retry", KEY]);
    out.stdout_has("confirmed id=p-1");
    assert_eq!(
        field(&p, "blog", KEY, "fp"),
        Some(first_fp),
        "{}",
        printed(&out)
    );
    assert_eq!(field(&p, "blog", KEY, "holds"), None);
    let out = p.run_at("2026-11-29T10:00:00Z", &["run"]);
    out.code(0).stdout_has("updated id=p-1");
    assert_eq!(api.state.lock().unwrap().updates_applied, 1);
    assert_eq!(api.commits_of(KEY), 1);
}
