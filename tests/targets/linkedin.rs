//! `kind = "linkedin"` against the fake LinkedIn (`fake_linkedin.rs`, written from the docs of
//! version 202601): a post once with its little text escaped, lost answers (an organization's
//! found by listing, a member's left to a person), a kill mid-send, duplicate answers, an edit
//! by partial update, a retract read back, an image uploaded once, a wrong or expiring token.

use crate::fakes::fake_linkedin::{FakeLinkedin, MEMBER, ORG, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::{Output, Project};
use std::time::Duration;

mod docs_rules;
mod images;

const KEY: &str = "2026-11-29";
const TODAY: &str = "--today=2026-11-29";
/// A title with every character little text reserves (its markdown link and tag are
/// rendered to text first: "Ops @Acme {hashtag|#|x} *_~\").
const HOSTILE: &str = r"Ops @[Acme](urn:li:organization:1) {hashtag|#|x} <b>*_~\";

fn project(li: &FakeLinkedin, author: &str, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", li.config(author, extra));
    p.secret("secrets/linkedin.token", format!("{TOKEN}\n"));
    p.file(
        &format!("content/{KEY}.md"),
        format!("---\nsummary: \"Why @[the](urn:li:person:9) date <i>is</i> the #key_1.\"\n---\n# {HOSTILE}\n\nBody.\n"),
    );
    p
}

fn printed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

fn creates(li: &FakeLinkedin) -> usize {
    li.state.lock().unwrap().creates
}

#[test]
fn publishes_escaped_commentary_once_and_a_rerun_sends_nothing() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    let out = p.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} linkedin published id=urn:li:share:"));
    let posts = li.live();
    assert_eq!(posts.len(), 1, "{}", printed(&out));
    assert_eq!(
        posts[0]["commentary"],
        r"Ops \@Acme \{hashtag\|\#\|x\} \*\_\~\\".to_string()
            + "\n\n"
            + r"Why \@\[the\]\(urn:li:person:9\) date \<i\>is\</i\> the \#key\_1."
    );
    assert_eq!(posts[0]["author"], ORG);
    let line = p.state_lines("linkedin").join("\n");
    assert!(
        line.contains(&format!("id={}", posts[0]["id"].as_str().unwrap())),
        "{line}"
    );
    let before = li.state.lock().unwrap().log.len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        li.state.lock().unwrap().log.len(),
        before,
        "the rerun sent nothing"
    );
    assert!(!printed(&out).contains(TOKEN));
}

#[test]
fn a_lost_answer_for_an_organization_is_found_by_listing_not_resent() {
    for fault in [
        Fault::CommitHang,
        Fault::CommitStatus(502),
        Fault::CommitClose,
    ] {
        let li = FakeLinkedin::start();
        // A busy page: sixty posts made after ours fill the listing's first page (50), so
        // ours is on the second.
        for n in 0..60 {
            li.seed(ORG, &format!("Another post {n}"), 3_600_000);
        }
        li.state.lock().unwrap().faults.push_back(fault);
        let p = project(&li, ORG, "");
        let out = p.run(&["run", TODAY]);
        let ours: Vec<_> = li
            .live()
            .into_iter()
            .filter(|p| p["commentary"].as_str().unwrap().starts_with("Ops"))
            .collect();
        assert_eq!(ours.len(), 1, "{fault:?}: {}", printed(&out));
        out.code(0).stdout_has(&format!(
            "{KEY} linkedin confirmed id={}",
            ours[0]["id"].as_str().unwrap()
        ));
        assert_eq!(creates(&li), 1, "{fault:?}");
        p.run(&["run", TODAY]).code(0);
        assert_eq!(creates(&li), 1, "{fault:?}");
    }
}

#[test]
fn a_lost_answer_for_a_member_cannot_be_told_and_goes_to_a_person() {
    let li = FakeLinkedin::start();
    li.state.lock().unwrap().faults.push_back(Fault::CommitHang);
    let p = project(&li, MEMBER, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(out.code, 1, "{}", printed(&out));
    assert!(
        printed(&out).contains("recent-activity"),
        "{}",
        printed(&out)
    );
    assert_eq!(
        li.state.lock().unwrap().listings,
        0,
        "a member's posts are never listed"
    );
    p.run(&["run", TODAY]);
    assert_eq!(creates(&li), 1, "never sent blind again");
    assert_eq!(li.live().len(), 1);
}

#[test]
fn a_run_killed_mid_send_is_confirmed_by_the_next() {
    let li = FakeLinkedin::start();
    li.state.lock().unwrap().faults.push_back(Fault::CommitHang);
    let p = project(&li, ORG, "");
    let child = p
        .command(&["run", TODAY])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let state = li.state.clone();
    let (code, _) = crate::support::util::wait_or_kill(
        child,
        || state.lock().unwrap().creates > 0,
        Duration::from_secs(20),
    );
    assert_eq!(code, None, "killed mid-send");
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has(&format!("{KEY} linkedin confirmed"));
    assert_eq!((creates(&li), li.live().len()), (1, 1));
}

#[test]
fn a_duplicate_answer_is_found_only_when_the_named_post_is_ours() {
    // Ours: the state file was lost after the post landed.
    let li = FakeLinkedin::start();
    let p = project(&li, MEMBER, "");
    p.run(&["run", TODAY]).code(0);
    let urn = li.live()[0]["id"].as_str().unwrap().to_string();
    std::fs::remove_file(p.path("state/linkedin.state")).unwrap();
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert!(
        p.state_lines("linkedin")
            .join("\n")
            .contains(&format!("id={urn}")),
        "{}",
        printed(&out)
    );
    assert_eq!(li.live().len(), 1);

    // Not there any more: the duplicate names a deleted post, so nobody can tell.
    let li = FakeLinkedin::start();
    let p = project(&li, MEMBER, "");
    p.run(&["run", TODAY]).code(0);
    let urn = li.live()[0]["id"].as_str().unwrap().to_string();
    li.delete_by_hand(&urn);
    std::fs::remove_file(p.path("state/linkedin.state")).unwrap();
    let out = p.run(&["run", TODAY]);
    assert_eq!(out.code, 1, "{}", printed(&out));
    assert!(
        printed(&out).contains("cannot tell whether this post is on LinkedIn"),
        "{}",
        printed(&out)
    );
    assert!(li.live().is_empty());
}

#[test]
fn an_edit_changes_the_commentary_by_partial_update() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "on_edit = \"update\"");
    p.run(&["run", TODAY]).code(0);
    let urn = li.live()[0]["id"].as_str().unwrap().to_string();
    p.file(
        &format!("content/{KEY}.md"),
        "---\nsummary: \"Edited: 100% _sure_.\"\n---\n# Ops\n\nBody.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("updated");
    let posts = li.live();
    assert_eq!(posts.len(), 1, "{}", printed(&out));
    assert_eq!(posts[0]["id"], urn.as_str());
    assert_eq!(posts[0]["commentary"], "Ops\n\nEdited: 100% \\_sure\\_.");
    let log = li.state.lock().unwrap().log.clone();
    assert!(
        log.iter()
            .any(|l| l.starts_with("POST /rest/posts/urn%3Ali%3Ashare")),
        "{log:?}"
    );
}

#[test]
fn retract_deletes_the_post_and_reads_it_back() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    p.run(&["run", TODAY]).code(0);
    let urn = li.live()[0]["id"].as_str().unwrap().to_string();
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has(&format!("{KEY} linkedin retracted id={urn}"));
    assert!(li.live().is_empty());
    let log = li.state.lock().unwrap().log.clone();
    let deleted = log
        .iter()
        .position(|l| l.starts_with("DELETE /rest/posts/"))
        .unwrap();
    assert!(
        log[deleted..]
            .iter()
            .any(|l| l.starts_with("GET /rest/posts/urn")),
        "read back: {log:?}"
    );
}

/// A post deleted by hand before the retract: the delete still answers 204 (deletions are
/// idempotent), the post reads back 404, and the key is retracted.
#[test]
fn retract_of_a_post_already_deleted_is_retracted() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    p.run(&["run", TODAY]).code(0);
    let urn = li.live()[0]["id"].as_str().unwrap().to_string();
    li.delete_by_hand(&urn);
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has(&format!("{KEY} linkedin retracted id={urn}"));
}

#[test]
fn a_wrong_token_exits_3_naming_the_file() {
    let li = FakeLinkedin::start();
    li.state.lock().unwrap().token = "another".into();
    let p = project(&li, ORG, "");
    let out = p.run(&["run", TODAY]);
    out.code(3);
    assert!(
        printed(&out).contains("secrets/linkedin.token"),
        "{}",
        printed(&out)
    );
    assert!(!printed(&out).contains(TOKEN));
}

#[test]
fn an_expiring_token_is_warned_and_an_expired_one_sends_nothing() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    let soon = (jiff::Timestamp::now() + jiff::SignedDuration::from_hours(72)).to_string();
    p.file("secrets/linkedin.token.expires", format!("{soon}\n"));
    let out = p.run(&["check"]);
    assert!(
        out.stderr.contains("expires at") && out.stderr.contains("renew it"),
        "{}",
        printed(&out)
    );
    let status = p.run(&["status", "--check"]);
    assert_eq!(status.code, 1, "WARNING: {}", printed(&status));
    assert!(status.stdout.contains("expires"), "{}", printed(&status));

    p.file("secrets/linkedin.token.expires", "2020-01-01\n");
    let out = p.run(&["run", TODAY]);
    out.code(3);
    assert!(
        printed(&out).contains("secrets/linkedin.token"),
        "{}",
        printed(&out)
    );
    assert_eq!(creates(&li), 0);
}

#[test]
fn an_old_version_is_warned_by_check_and_a_member_has_no_lookup() {
    let li = FakeLinkedin::start();
    let p = project(&li, MEMBER, "version = \"202401\"");
    let out = p.run(&["check", "--online"]);
    assert!(
        out.stderr.contains("LinkedIn-Version 202401 is"),
        "{}",
        printed(&out)
    );
    assert!(
        out.stdout.contains("online linkedin: cannot look posts up"),
        "{}",
        printed(&out)
    );
}

/// Rate Limiting: the limits are daily and "reset at midnight UTC"; a request past one gets a
/// 429 and no header saying when to come back. At 10:00 UTC the post is left for a run after
/// midnight (retry-safe, exit 75) with no second create spent before it; two seconds before
/// midnight the run waits for the reset and sends it then.
#[test]
fn a_429_waits_for_midnight_utc_or_leaves_the_post_for_a_run_after_it() {
    let li = FakeLinkedin::start();
    li.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::RateLimit(0));
    let p = project(&li, ORG, "");
    let out = p.run_at("2026-11-29T10:00:00Z", &["run", TODAY]);
    out.code(75).stdout_has("failed (retry-safe)");
    assert!(
        printed(&out).contains("midnight UTC (in 14h)"),
        "{}",
        printed(&out)
    );
    assert_eq!((creates(&li), li.live().len()), (1, 0));
    p.run_at("2026-11-30T00:00:05Z", &["run", TODAY])
        .code(0)
        .stdout_has("published");
    assert_eq!((creates(&li), li.live().len()), (2, 1));

    let li = FakeLinkedin::start();
    li.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::RateLimit(0));
    let p = project(&li, ORG, "");
    p.run_at("2026-11-29T23:59:58Z", &["run", TODAY])
        .code(0)
        .stdout_has("published");
    assert_eq!((creates(&li), li.live().len()), (2, 1));
}

/// A 40-post backfill as a page: one create each, and one listing of the page's posts (the
/// run's survey) answering every key's check before its first send; the floor is one create
/// per post.
#[test]
fn a_backfill_of_40_posts_sends_each_once_and_says_its_requests_per_post() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    for i in 1..=39 {
        let day = crate::support::days::days_ago(20 + i);
        p.post(&day, &format!("Post {i}"));
    }
    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(0);
    let s = li.state.lock().unwrap();
    assert_eq!((s.creates, s.posts.len()), (40, 40), "{}", printed(&out));
    let ratio = s.log.len() as f64 / 40.0;
    eprintln!(
        "linkedin fake, 40-post backfill: {} creates + {} listings = {ratio:.3} requests per post (bare-create floor 1.000)",
        s.creates, s.listings
    );
    assert!(
        s.listings <= 40,
        "at most one listing per key: {}",
        s.listings
    );
    drop(s);
    let before = li.state.lock().unwrap().log.len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        li.state.lock().unwrap().log.len(),
        before,
        "the rerun sent nothing"
    );
}

#[test]
fn the_metrics_carry_the_tokens_expiry() {
    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    p.file("secrets/linkedin.token.expires", "2027-01-31T10:00:00Z\n");
    p.run(&["run", TODAY, "--metrics", "dayrun.prom"]).code(0);
    let prom = p.read("dayrun.prom");
    let line = prom
        .lines()
        .find(|l| l.starts_with("dayrun_credential_expiry_timestamp_seconds{"))
        .unwrap_or_else(|| panic!("{prom}"));
    assert!(line.contains("target=\"linkedin\""), "{line}");
    assert!(line.ends_with(" 1801389600"), "{line}");
}

/// `dayrun drill` (issue 37): a member target has no lookup, so the drill refuses it before
/// anything is sent; a page's target is drilled on the fake with 0 duplicates, every copy
/// removed.
#[test]
fn the_drill_refuses_a_member_and_drills_a_page() {
    let li = FakeLinkedin::start();
    let p = project(&li, MEMBER, "");
    let out = crate::commands::drill::drill(&p, "linkedin", &[]);
    out.code(2)
        .stderr_has("without a lookup cannot tell whether a post whose answer was lost is there");
    assert!(li.state.lock().unwrap().log.is_empty(), "nothing was sent");

    let li = FakeLinkedin::start();
    let p = project(&li, ORG, "");
    let out = crate::commands::drill::drill(
        &p,
        "linkedin",
        &["--rounds", "3", "--loss", "50%", "--seed", "7"],
    );
    eprintln!(
        "{}",
        out.stdout
            .lines()
            .rfind(|l| l.starts_with("rounds="))
            .unwrap_or_default()
    );
    out.code(0);
    let count = |name| crate::commands::drill::count(&out, name);
    assert_eq!(
        (count("duplicates"), count("lost"), count("leaked-pending")),
        (0, 0, 0)
    );
    assert!(
        li.live().is_empty(),
        "every drill copy removed: {:?}",
        li.live()
    );
}
