//! Issue 8 against the WordPress fake. Keys are the real date: the contract looks posts up by a
//! date window around the key's day, and today's post carries the time it was sent.

use super::{said, shown};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::Project;
use jiff::civil::Date;
use std::time::{Duration, Instant};

fn today() -> Date {
    jiff::tz::Offset::UTC
        .to_datetime(jiff::Timestamp::now())
        .date()
}

fn project(wp: &FakeWordPress, key: Date, title: &str, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", wp.config(extra));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p.file(
        &format!("content/{key}.md"),
        format!("# {title}\n\nFirst paragraph.\n"),
    );
    p
}

#[test]
fn wordpress_resend_while_php_still_runs_the_first_post_gives_one_post() {
    // The first POST times out but PHP goes on and inserts it 1 s later; a resend before then
    // lands first, and the late one becomes `…-2`. Settle time (60 s by default) here 1.5 s.
    let (wp, key) = (FakeWordPress::start(), today());
    let today = format!("--today={key}");
    wp.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::LateCommit(Duration::from_secs(1)));
    let p = project(&wp, key, "Why the Date is the Key", "settle_secs = 1.5");
    let started = Instant::now();
    let run1 = p.run(&["run", &today]);
    std::thread::sleep(Duration::from_secs(2).saturating_sub(started.elapsed()));
    let run2 = p.run(&["run", &today]);
    let slugs: Vec<_> = wp.posts().iter().map(|p| p["slug"].clone()).collect();
    assert_eq!(
        slugs.len(),
        1,
        "{slugs:?}\n{}\n{}",
        shown(&run1),
        shown(&run2)
    );
    run2.code(0);
    assert_eq!(p.statuses("wp"), [format!("{key} done")]);
}

#[test]
fn wordpress_title_typo_fix_between_attempts_gives_one_post() {
    // The slug comes from the title: a lookup by the edited title's slug misses the post.
    let (wp, key) = (FakeWordPress::start(), today());
    let today = format!("--today={key}");
    {
        let mut s = wp.state.lock().unwrap();
        s.faults.push_back(Fault::CommitHang);
        s.lookups_fail = true;
    }
    let p = project(&wp, key, "Why teh Date is the Key", "");
    // The lookups are down, so the run cannot confirm: a failed lookup is transient and the
    // next run looks again by itself (75).
    p.run(&["run", &today]).code(75);
    wp.state.lock().unwrap().lookups_fail = false;
    p.file(
        &format!("content/{key}.md"),
        "# Why the Date is the Key\n\nFirst paragraph.\n",
    );
    let out = p.run(&["retry", &key.to_string()]);
    assert_eq!(wp.posts().len(), 1, "{}", shown(&out));
    out.code(0)
        .stdout_has(&format!("{key} wp confirmed id=500"));
}

#[test]
fn wordpress_backfilled_key_is_dated_on_its_day() {
    let (wp, key) = (FakeWordPress::start(), today() - jiff::Span::new().days(1));
    let p = project(&wp, key, "Yesterday", "");
    let out = p.run(&["run", &format!("--today={}", today())]);
    out.code(0);
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{}", shown(&out));
    assert!(
        posts[0]["date"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{key}T12:00")),
        "date {} for key {key}",
        posts[0]["date"]
    );
    assert_eq!(posts[0]["status"], "publish");
}

#[test]
fn wordpress_two_copies_of_a_key_are_reported_and_never_resent() {
    let (wp, key) = (FakeWordPress::start(), today());
    let slug = format!("{key}-why-the-date-is-the-key");
    // Two copies of this very post (what dayrun sends: its title, its HTML).
    let (title, html) = ("Why the Date is the Key", "<p>First paragraph.</p>\n");
    wp.seed_post(&slug, &format!("{key}T08:00:00"), title, html);
    let copy = wp.seed_post(&slug, &format!("{key}T08:01:00"), title, html);
    assert_eq!(copy["slug"], format!("{slug}-2"));
    let p = project(&wp, key, "Why the Date is the Key", "");
    let out = p.run(&["run", &format!("--today={key}")]);
    assert_eq!(wp.state.lock().unwrap().post_requests, 0, "{}", shown(&out));
    out.code(1);
    for needle in ["duplicate", "500", "501"] {
        said(&out, needle);
    }
    assert_eq!(p.statuses("wp"), [format!("{key} done")]);
    assert_eq!(wp.posts().len(), 2);
}

#[test]
fn wordpress_site_ignoring_the_application_password_is_an_auth_failure() {
    // A plain-HTTP site: POST → 401 rest_cannot_create, the draft lookup → 400 rest_forbidden_status.
    let (wp, key) = (FakeWordPress::start(), today());
    wp.state.lock().unwrap().app_passwords_ignored = true;
    let p = project(&wp, key, "Why the Date is the Key", "");
    let out = p.run(&["run", &format!("--today={key}")]);
    assert!(wp.posts().is_empty());
    out.code(3).stdout_has("secrets/wp.password");
    assert!(
        !out.stderr.contains("Author role"),
        "a 401 is the credential, not the role\n{}",
        shown(&out)
    );
}
