//! The edit scenarios, each run on every kind of target that can play it.

use super::{FIRST, KEY, LATER, SECOND, Site, THIRD, TODAY};
use crate::fakes::fake_posts::Fault;

/// Publish; edit; a dry run says `update` and sends nothing; the run sends one update to the
/// same copy; the next run sends nothing; an edit past `edit_days` sends nothing.
fn edit_in_place(site: Site) {
    let id = site.publish();
    let published = site.field("published");
    assert!(published.is_some(), "{}", site.line());
    let before = site.traffic();
    let updates = site.updates();
    site.edit(SECOND);

    site.run(&["run", TODAY, "--dry-run"])
        .code(0)
        .stdout_has(&format!(
            "{KEY} {} update (edited since it was published) id={id}",
            site.name
        ));
    assert_eq!(site.traffic(), before, "a dry run sent something");

    site.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} {} updated id={id} ", site.name))
        .stdout_has("\"Second title\"")
        .stdout_has("1 updated");
    assert_eq!(site.copies(), 1, "an edit made a second copy");
    assert_eq!(site.updates(), updates.map(|n| n + 1));
    site.holds(&id, 1, "Second words");
    assert!(!site.shown(&id).contains("First words"));
    assert_eq!(site.field("published"), published, "the edit window moved");

    let after = site.traffic();
    assert_ne!(after, before, "the update was not sent");
    let out = site.run(&["run", TODAY]);
    out.code(0);
    assert!(!out.stdout.contains("updated id="), "{}", out.stdout);
    assert_eq!(site.traffic(), after, "an unchanged post was sent again");

    site.edit(THIRD);
    let out = site.run(&["run", LATER]);
    out.code(0);
    assert!(!out.stdout.contains("update"), "{}", out.stdout);
    assert_eq!(site.traffic(), after, "an edit past edit_days was sent");
    site.holds(&id, 1, "Second words");
}

#[test]
fn folder_edit_rewrites_the_files_in_place() {
    edit_in_place(Site::folder());
}

#[test]
fn command_edit_runs_the_update_script_with_the_id() {
    edit_in_place(Site::command());
}

#[test]
fn http_edit_puts_to_update_url() {
    edit_in_place(Site::http());
}

#[test]
fn wordpress_edit_posts_to_the_same_post_keeping_slug_and_date() {
    let site = Site::wordpress();
    let super::Fake::Wp(wp) = &site.fake else {
        unreachable!()
    };
    let (slug, date) = {
        site.publish();
        let post = wp.posts()[0].clone();
        (post["slug"].clone(), post["date"].clone())
    };
    site.edit(SECOND);
    site.run(&["run", TODAY])
        .code(0)
        .stdout_has("updated id=500");
    let post = wp.posts()[0].clone();
    assert_eq!(post["title"]["raw"], "Second title");
    assert_eq!((&post["slug"], &post["date"]), (&slug, &date));
    assert_eq!(post["status"], "publish");
}

#[test]
fn wordpress_edit() {
    edit_in_place(Site::wordpress());
}

#[test]
fn devto_edit_puts_the_article() {
    edit_in_place(Site::devto());
}

#[test]
fn mastodon_edit_when_on_edit_is_update() {
    edit_in_place(Site::mastodon("on_edit = \"update\""));
}

#[test]
fn mastodon_ignores_edits_by_default() {
    let site = Site::mastodon("");
    let id = site.publish();
    let before = site.traffic();
    site.edit(SECOND);
    for args in [&["run", TODAY, "--dry-run"][..], &["run", TODAY]] {
        let out = site.run(args);
        out.code(0);
        assert!(!out.stdout.contains("update"), "{}", out.stdout);
    }
    assert_eq!(site.traffic(), before, "an ignored edit was sent");
    assert!(site.shown(&id).contains("First title"));
    assert_eq!(site.updates(), Some(0));
}

/// The update commits and its answer is lost: read back, it holds the edit: done, updated=1,
/// one update applied, no create.
fn lost_answer(site: Site) {
    let id = site.publish();
    site.edit(SECOND);
    site.lose_next_update(Fault::CommitHang);
    let out = site.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} {} updated id={id} ", site.name));
    assert_eq!(site.updates(), Some(1), "{}", out.stdout);
    assert_eq!(site.copies(), 1, "a lost update became a create");
    site.holds(&id, 1, "Second words");
    let after = site.traffic();
    site.run(&["run", TODAY]).code(0);
    assert_eq!(site.traffic(), after);
}

#[test]
fn command_lost_update_is_read_back_with_confirm() {
    lost_answer(Site::command());
}

#[test]
fn http_lost_update_is_read_back_from_the_list() {
    lost_answer(Site::http());
}

#[test]
fn wordpress_lost_update_is_read_back() {
    lost_answer(Site::wordpress());
}

#[test]
fn devto_lost_update_is_read_back() {
    lost_answer(Site::devto());
}

#[test]
fn mastodon_lost_update_is_read_back() {
    lost_answer(Site::mastodon("on_edit = \"update\""));
}

/// The request is lost before the target applied it: the read back shows the old version, so
/// the update is sent again (never a create), and the copy ends up holding the edit.
fn lost_before_applied(site: Site, fault: Fault) {
    let id = site.publish();
    site.edit(SECOND);
    site.lose_next_update(fault);
    let out = site.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} {} updated id={id} ", site.name));
    assert_eq!(site.updates(), Some(2), "{}", out.stdout);
    assert_eq!(site.copies(), 1, "a lost update became a create");
    site.holds(&id, 1, "Second words");
}

#[test]
fn http_update_lost_before_applied_is_sent_again() {
    lost_before_applied(Site::http(), Fault::Hang);
}

#[test]
fn command_update_that_died_before_sending_is_sent_again() {
    lost_before_applied(Site::command(), Fault::Hang);
}

#[test]
fn devto_update_lost_before_applied_is_sent_again() {
    lost_before_applied(Site::devto(), Fault::Hang);
}

#[test]
fn wordpress_update_lost_before_applied_is_sent_again() {
    lost_before_applied(Site::wordpress(), Fault::Hang);
}

#[test]
fn mastodon_update_lost_before_applied_is_sent_again() {
    lost_before_applied(Site::mastodon("on_edit = \"update\""), Fault::Hang);
}

/// The same with items matched on the fingerprint only (`match_by = "fingerprint"`).
#[test]
fn http_update_lost_before_applied_is_sent_again_matching_fingerprints() {
    lost_before_applied(Site::http_with("match_by = \"fingerprint\"\n"), Fault::Hang);
}

/// A lost answer and a list that cannot be read: the line stays `pending op=update` (exit 75,
/// `unconfirmed`); the next run reads the copy back and finishes it, without sending again.
#[test]
fn http_update_that_cannot_be_read_back_stays_pending_until_the_next_run() {
    let site = Site::http();
    let super::Fake::Http(api) = &site.fake else {
        unreachable!()
    };
    let id = site.publish();
    site.edit(SECOND);
    api.put_faults(&[Fault::CommitHang]).list_faults(&[500]);
    site.run(&["run", TODAY])
        .code(75)
        .stdout_has(&format!("{KEY} posts unconfirmed"));
    let line = site.line();
    assert!(line.starts_with(&format!("{KEY} pending ")), "{line}");
    assert_eq!(site.field("op").as_deref(), Some("update"), "{line}");
    assert_eq!(site.id(), id);
    // The dry run exits as the run would if nothing answered otherwise: 75.
    site.run(&["run", TODAY, "--dry-run"])
        .code(75)
        .stdout_has("update (an interrupted update");
    site.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("updated id={id} "));
    assert_eq!(site.updates(), Some(1));
    assert_eq!(site.copies(), 1);
    site.holds(&id, 1, "Second words");
}

/// A 503 before anything changed (5xx: the outcome is unknown): read back, the copy shows the
/// old version, so the update is sent again in the same run.
#[test]
fn http_update_met_by_503_is_read_back_and_sent_again() {
    lost_before_applied(Site::http(), Fault::Reject(503));
}

#[test]
fn http_update_met_by_503_is_sent_again_matching_fingerprints() {
    let site = Site::http_with("match_by = \"fingerprint\"\n");
    lost_before_applied(site, Fault::Reject(503));
}

/// A refused update: the line goes back to done with `edit_failed=`, nothing is sent until the
/// post changes again; then the new edit goes through.
fn rejected(site: Site) {
    let id = site.publish();
    site.edit(SECOND);
    site.reject_next_update();
    let out = site.run(&["run", TODAY]);
    assert!(!out.stdout.contains("updated id="), "{}", out.stdout);
    let line = site.line();
    assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
    assert!(site.field("edit_failed").is_some(), "{line}");
    assert_eq!(site.field("updated"), None, "{line}");
    assert_eq!(site.id(), id);
    assert!(site.shown(&id).contains("First words"));
    assert_eq!(site.updates(), Some(1));

    // The refusal stands (issue 29): every run says so and exits 1, sending nothing.
    let before = site.traffic();
    site.run(&["run", TODAY])
        .code(1)
        .stdout_has(&format!("{KEY} {} edit failed", site.name));
    assert_eq!(site.traffic(), before, "a refused edit was sent again");

    site.edit(THIRD);
    site.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("updated id={id} "));
    site.holds(&id, 1, "Third words");
    assert_eq!(site.field("edit_failed"), None, "{}", site.line());
    assert_eq!(site.copies(), 1);
}

#[test]
fn command_rejected_update_waits_for_the_next_edit() {
    rejected(Site::command());
}

#[test]
fn http_rejected_update_waits_for_the_next_edit() {
    rejected(Site::http());
}

#[test]
fn wordpress_rejected_update_waits_for_the_next_edit() {
    rejected(Site::wordpress());
}

#[test]
fn devto_rejected_update_waits_for_the_next_edit() {
    rejected(Site::devto());
}

#[test]
fn mastodon_rejected_update_waits_for_the_next_edit() {
    rejected(Site::mastodon("on_edit = \"update\""));
}

/// `retry KEY --force` sends an update (same id); `--force --new` publishes a second copy.
fn forced(site: Site, second_copy: bool) {
    let id = site.publish();
    site.run(&["retry", KEY, "--force"])
        .code(0)
        .stdout_has(&format!("{KEY} {} updated id={id} ", site.name));
    assert_eq!(site.copies(), 1, "retry --force made a second copy");
    assert_eq!(site.updates().unwrap_or(1), 1);
    site.holds(&id, 1, "First words");
    if !second_copy {
        return;
    }
    site.allow_second_copy();
    site.run(&["retry", KEY, "--force", "--new"])
        .code(0)
        .stdout_has(&format!("{KEY} {} published", site.name));
    assert_eq!(site.copies(), 2, "--force --new made no second copy");
    assert_eq!(site.updates().unwrap_or(1), 1, "--new sent an update");
    assert_ne!(site.id(), id, "{}", site.line());
}

#[test]
fn folder_retry_force_rewrites_in_place() {
    forced(Site::folder(), false);
}

#[test]
fn command_retry_force_updates_and_new_publishes_a_second_copy() {
    forced(Site::command(), true);
}

#[test]
fn http_retry_force_updates_and_new_publishes_a_second_copy() {
    forced(Site::http(), true);
}

#[test]
fn wordpress_retry_force_updates_and_new_publishes_a_second_copy() {
    forced(Site::wordpress(), true);
}

#[test]
fn devto_retry_force_updates_and_new_publishes_a_second_copy() {
    forced(Site::devto(), true);
}

#[test]
fn mastodon_retry_force_updates_and_new_publishes_a_second_copy() {
    forced(Site::mastodon("on_edit = \"update\""), true);
}

/// `--force --new` within the hour on Mastodon: the contract asks for a second status, while
/// Mastodon answers a repeated Idempotency-Key with the first one.
#[test]
fn mastodon_force_new_within_the_hour_publishes_a_second_status() {
    let site = Site::mastodon("on_edit = \"update\"");
    let id = site.publish();
    let out = site.run(&["retry", KEY, "--force", "--new"]);
    out.code(0);
    let what = format!("{}\n{}", out.stdout, site.line());
    assert_eq!(site.copies(), 2, "no second status: {what}");
    assert_ne!(site.id(), id, "{}", site.line());
}

/// A file saved again with the same text is not an edit.
#[test]
fn the_same_text_saved_again_sends_nothing() {
    let site = Site::http();
    site.publish();
    let before = site.traffic();
    site.edit(FIRST);
    site.run(&["run", TODAY]).code(0);
    assert_eq!(site.traffic(), before);
}

/// `retry KEY --force` (without `--new`) past `edit_days`: the contract says a forced retry of a
/// done key on an updating target updates it; `--new` alone asks for a second copy.
#[test]
fn http_retry_force_past_edit_days_does_not_make_a_second_copy() {
    let site = Site::http();
    let id = site.publish();
    let path = site.p.path("state/posts.state");
    let text = std::fs::read_to_string(&path).unwrap();
    let published = format!("published={}", site.field("published").unwrap());
    let old = text.replace(&published, "published=2026-10-01T00:00:00+00:00");
    assert_ne!(old, text);
    std::fs::write(&path, old).unwrap();
    let out = site.run(&["retry", KEY, "--force"]);
    let what = format!("{}\n{}", out.stdout, site.line());
    assert_eq!(site.copies(), 1, "retry --force made a second copy: {what}");
    assert_eq!(site.id(), id, "{what}");
}
