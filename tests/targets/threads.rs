//! `kind = "threads"` against the fake Threads API (written from Meta's documentation): the
//! two steps, the exactly-once cases around them, the documented limits, retract, the token;
//! the container kept on the key's line is in `threads/container.rs`, a thread's part the
//! listings show late in `threads/late.rs`.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_threads::{FakeThreads, TOKEN};
use crate::support::util::{Project, hours_from_now};

mod container;
mod late;

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";

fn project(api: &FakeThreads, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config(extra));
    p.secret("secrets/threads.token", TOKEN);
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [rust, ops]\n---\n# Why the date is the key\n\nOne key per day & no duplicates.\n",
    );
    p
}

fn counts(api: &FakeThreads) -> (usize, usize, usize) {
    let s = api.state.lock().unwrap();
    (s.containers_made, s.publish_requests, s.posts.len())
}

#[test]
fn a_backfill_publishes_each_post_once_in_two_steps_and_a_rerun_sends_nothing() {
    let api = FakeThreads::start();
    let p = project(&api, "link = \"https://blog.test/{key}\"");
    p.file("content/2026-11-27.md", "# Two days before\n\nEarlier.\n");
    p.file("content/2026-11-28.md", "# The day before\n\nYesterday.\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 th published id=");
    assert_eq!(counts(&api), (3, 3, 3));
    assert_eq!(
        api.texts()[2],
        "Why the date is the key\n\nOne key per day & no duplicates.\n\n#rust\nhttps://blog.test/2026-11-29"
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(counts(&api), (3, 3, 3), "a rerun sends nothing");
}

#[test]
fn a_lost_publish_answer_after_the_server_published_is_found_in_the_listing() {
    let api = FakeThreads::start();
    api.state
        .lock()
        .unwrap()
        .publish_faults
        .push_back(Fault::CommitHang);
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 th confirmed id=");
    assert_eq!(
        counts(&api),
        (1, 1, 1),
        "one container, one publish, one post"
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn a_publish_lost_before_the_server_published_reuses_its_container() {
    let api = FakeThreads::start();
    api.state
        .lock()
        .unwrap()
        .publish_faults
        .push_back(Fault::Hang);
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0).stdout_has("2026-11-29 th");
    assert_eq!(
        counts(&api),
        (1, 2, 1),
        "the same container published on the resend"
    );
}

#[test]
fn an_expired_container_gets_a_new_one_and_no_second_post() {
    let api = FakeThreads::start();
    {
        let mut s = api.state.lock().unwrap();
        s.publish_faults.push_back(Fault::Hang);
        s.expire_lost = true;
    }
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(counts(&api), (2, 2, 1), "a new container, one post");
}

#[test]
fn the_limits_are_refused_before_anything_is_sent() {
    let cases = [
        ("# {}\n\nx\n", "a".repeat(501), "501 characters"),
        ("# {}\n\nx\n", "🙂".repeat(126), "504 characters"),
        ("# {}\n\nx\n", "#one #two".to_string(), "2 topic tags"),
        (
            "# {}\n\nx\n",
            "https://a.test/1 https://a.test/2 https://a.test/3 https://a.test/4 https://a.test/5 https://a.test/6".to_string(),
            "6 links",
        ),
    ];
    for (shape, title, why) in cases {
        let api = FakeThreads::start();
        let p = project(&api, "");
        p.file("content/2026-11-29.md", shape.replace("{}", &title));
        p.run(&["run", TODAY]).code(1).stdout_has(why);
        assert_eq!(counts(&api), (0, 0, 0), "{why}");
    }
}

#[test]
fn the_daily_publishing_limit_makes_the_key_wait_without_sending() {
    let api = FakeThreads::start();
    api.state.lock().unwrap().quota_used = 250;
    let p = project(&api, "");
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("250 of its 250 posts in 24 hours");
    assert_eq!(counts(&api), (0, 0, 0));
    api.state.lock().unwrap().quota_used = 10;
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn an_image_goes_by_its_public_url_and_without_one_is_refused() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.file("content/2026-11-29.md", "# Pic\n\n![a cat](cat.png)\n");
    p.file(
        "content/cat.png",
        crate::support::image_gen::png_with_text(),
    );
    p.run(&["run", TODAY]).code(1).stdout_has("image_base_url");
    assert_eq!(counts(&api), (0, 0, 0));
    p.file(
        "dayrun.toml",
        api.config("image_base_url = \"https://blog.test/\""),
    );
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let s = api.state.lock().unwrap();
    let c: Vec<_> = s.containers.values().collect();
    assert_eq!(c[0].image_url.as_deref(), Some("https://blog.test/cat.png"));
}

#[test]
fn retract_deletes_the_post_and_reads_it_back_gone() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0);
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has(&format!("{KEY} th retracted id="));
    assert_eq!(counts(&api).2, 0);
    let s = api.state.lock().unwrap();
    assert_eq!(s.delete_requests, 1);
    let last = s.requests.last().unwrap();
    assert!(
        last.starts_with("GET /v1.0/1"),
        "read back after the delete: {last}"
    );
}

#[test]
fn a_wrong_token_stops_the_target_with_exit_3() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.file("secrets/threads.token", "nope");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("put it in secrets/threads.token");
    assert_eq!(counts(&api), (0, 0, 0));
}

#[test]
fn a_token_near_its_60_days_is_warned_about() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.run(&["check"]).code(0);
    let out = p.run_at(&hours_from_now(55 * 24), &["check"]);
    out.stderr_has("the Threads token in secrets/threads.token expires about")
        .stderr_has("refresh_access_token?grant_type=th_refresh_token");
    // `status --check` reads the same end (`Target::credential_expiry`): five days left is a
    // WARNING, said on its line, and the metrics carry it too (docs/monitoring.md).
    let out = p.run_at(&hours_from_now(55 * 24), &["status", "--check"]);
    assert_eq!(out.code, 1, "WARNING: {out:?}");
    assert!(
        out.stdout.contains("the credential of th expires at"),
        "{out:?}"
    );
}

#[test]
fn on_edit_update_is_refused_as_threads_cannot_edit() {
    let api = FakeThreads::start();
    let p = project(&api, "on_edit = \"update\"");
    p.run(&["check"])
        .code(2)
        .stderr_has("cannot edit a published post");
}

/// Kill `dayrun run` once the fake has taken its publish request (which meets `fault`).
fn killed_at_publish(api: &FakeThreads, p: &Project, fault: Fault) {
    killed_at_publish_n(api, p, &[fault]);
}

/// Kill `dayrun run` once the fake has taken as many publish requests as `faults` has (each
/// meets its fault in turn).
fn killed_at_publish_n(api: &FakeThreads, p: &Project, faults: &[Fault]) {
    api.state.lock().unwrap().publish_faults.extend(faults);
    let child = p
        .command(&["run", TODAY])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, said) = crate::support::util::wait_or_kill(
        child,
        || api.state.lock().unwrap().publish_requests == faults.len(),
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, None, "killed at the publish\n{said}");
}

#[test]
fn a_kill_between_container_and_publish_then_a_rerun_is_one_post() {
    // The publish never landed: the rerun looks first, finds nothing, and publishes the
    // container the pending line keeps (`threads.container=`, written before the publish was
    // sent): one container, two publish requests, one post. (Before the container was kept on
    // the line, the rerun made a second container here, (2, 2, 1), and the first expired
    // unseen.)
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    let journal = p.read("state/th.journal");
    let pending = journal.lines().rev().find(|l| l.contains(" pending "));
    assert!(
        pending.is_some_and(|l| l.contains(" threads.container=c17900001:")),
        "the container on the pending line before its publish\n{journal}"
    );
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (1, 2, 1));
    assert_eq!(
        api.state.lock().unwrap().containers["c17900001"].status,
        "PUBLISHED"
    );
    // The publish landed and its answer died with the process: the rerun finds it.
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::CommitHang);
    p.run(&["run", TODAY]).code(0).stdout_has("confirmed");
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn a_long_post_goes_as_a_thread_of_replies_each_part_once() {
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"");
    let body = "A sentence that is long enough to matter here. ".repeat(25);
    p.file("content/2026-11-29.md", format!("# A long one\n\n{body}\n"));
    // The second part's publish answer is lost after Threads published it.
    let mut s = api.state.lock().unwrap();
    s.publish_faults.extend([Fault::Normal, Fault::CommitHang]);
    drop(s);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("parts, 1 found before sending");
    let (containers, _, posts) = counts(&api);
    assert!(posts >= 3, "{posts} parts");
    assert_eq!(containers, posts, "one container per part");
    let s = api.state.lock().unwrap();
    let texts: Vec<&String> = s.posts.iter().map(|p| &p.1).collect();
    let mut unique = texts.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), texts.len(), "each part once");
    for pair in s.posts.iter().rev().collect::<Vec<_>>().windows(2) {
        assert_eq!(
            pair[1].3.as_deref(),
            Some(pair[0].0.as_str()),
            "a reply to the part before"
        );
    }
    assert_eq!(
        s.reply_used as usize,
        posts - 1,
        "the replies count as replies"
    );
    drop(s);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(counts(&api).2, posts, "a rerun sends nothing");
}

#[test]
fn a_backfill_of_40_posts_beside_the_two_step_floor() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    for i in 1..=39 {
        let day = crate::support::days::days_ago(20 + i);
        p.post(&day, &format!("Post {i}"));
    }
    p.run(&["run", "--backfill", TODAY]).code(0);
    assert_eq!(counts(&api), (40, 40, 40));
    let s = api.state.lock().unwrap();
    let of = |what: &str| s.requests.iter().filter(|r| r.as_str() == what).count();
    let (lists, limits) = (
        of("GET /v1.0/me/threads"),
        of("GET /v1.0/me/threads_publishing_limit"),
    );
    // The floor is what the API forces: a container and a publish per post.
    let ratio = s.requests.len() as f64 / 40.0;
    eprintln!(
        "threads fake, 40-post backfill: {} requests ({lists} listings, {limits} limit reads) = {ratio:.3} per post (floor 2.000)",
        s.requests.len()
    );
    assert_eq!(limits, 1, "the limits are read once a run");
    assert!(ratio <= 2.1, "{ratio:.3} requests per post");
}

#[test]
fn a_lost_answer_the_listing_does_not_show_is_never_published_twice() {
    // The listing lags: it cannot prove the post is there. The container's status says
    // PUBLISHED, so the run never publishes for this key again; the key waits.
    let api = FakeThreads::start();
    {
        let mut s = api.state.lock().unwrap();
        s.publish_faults.push_back(Fault::CommitHang);
        s.hide = true;
    }
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert_eq!(counts(&api), (1, 1, 1), "one post\n{}", out.stdout);
    api.state.lock().unwrap().hide = false;
    p.run(&["run", TODAY]).code(0).stdout_has("confirmed");
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn a_rate_limit_is_retried_and_nothing_is_sent_twice() {
    // HTTP 429, and the Graph API's rate-limit codes in a 400 (4, 17, 32, 613): retry-safe.
    for fault in [(429, 4), (400, 4), (400, 17), (400, 32), (400, 613)] {
        let api = FakeThreads::start();
        api.state.lock().unwrap().create_faults.push_back(fault);
        let p = project(&api, "");
        p.run(&["run", TODAY]).code(0).stdout_has("published");
        assert_eq!(counts(&api), (1, 1, 1), "{fault:?}");
    }
}

#[test]
fn check_online_logs_in_and_reads_without_writing() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.run(&["check", "--online", TODAY])
        .code(0)
        .stdout_has("online th");
    let s = api.state.lock().unwrap();
    assert!(!s.requests.is_empty(), "it asked Threads");
    assert!(
        s.requests.iter().all(|r| r.starts_with("GET ")),
        "reads only: {:?}",
        s.requests
    );
}

#[test]
fn retract_takes_back_every_part_of_a_thread() {
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"");
    let body = "A sentence that is long enough to matter here. ".repeat(25);
    p.file("content/2026-11-29.md", format!("# A long one\n\n{body}\n"));
    p.run(&["run", TODAY]).code(0);
    let parts = counts(&api).2;
    assert!(parts >= 3);
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has("retracted");
    let s = api.state.lock().unwrap();
    assert!(s.posts.is_empty(), "every part deleted");
    assert_eq!(s.delete_used as usize, parts);
}

#[test]
fn a_kill_mid_thread_then_a_rerun_sends_each_part_once() {
    // Part 2 is published and the process dies before its answer arrives.
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"");
    let body = "A sentence that is long enough to matter here. ".repeat(25);
    p.file("content/2026-11-29.md", format!("# A long one\n\n{body}\n"));
    killed_at_publish_n(&api, &p, &[Fault::Normal, Fault::CommitHang]);
    assert_eq!(counts(&api).2, 2, "two parts out when killed");
    p.run(&["run", TODAY]).code(0);
    let s = api.state.lock().unwrap();
    let mut texts: Vec<&String> = s.posts.iter().map(|p| &p.1).collect();
    let parts = texts.len();
    assert!(parts >= 3, "{parts} parts");
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), parts, "each part once");
    for pair in s.posts.iter().rev().collect::<Vec<_>>().windows(2) {
        assert_eq!(
            pair[1].3.as_deref(),
            Some(pair[0].0.as_str()),
            "a reply to the part before"
        );
    }
}
