//! Issue 29 row 5: an edit made after `edit_days` is not sent, and the run says so once per
//! edit (why, and how to send it); the exit code stays 0, since a post that is out is out.

use super::{KEY, LATER, SECOND, Site, THIRD};
use std::time::{Duration, SystemTime};

/// Save the post with `text`, as a person would a while after the publish: its file's time is
/// moved a few seconds on (a run finds such edits by the time, and a line's is to the second).
fn edit_later(site: &Site, text: &str) {
    site.edit(text);
    let file = std::fs::File::options()
        .write(true)
        .open(site.p.path(&format!("content/{KEY}.md")))
        .unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(3))
        .unwrap();
}

#[test]
fn issue_29_a_late_edit_is_said_once_per_edit_with_how_to_send_it() {
    let site = Site::folder();
    let id = site.publish();
    let before = site.traffic();
    edit_later(&site, SECOND);
    let note = format!("{KEY} out edited after the edit window");
    let how = format!("`dayrun retry {KEY} --force --target out`");

    // The dry run says what the run will say, and records nothing.
    site.run(&["run", LATER, "--dry-run"])
        .code(0)
        .stdout_has(&note)
        .stdout_has(&how)
        .stdout_has("edit_days");
    site.run(&["run", LATER])
        .code(0)
        .stdout_has(&note)
        .stdout_has(&how);
    // Said once: the next morning is quiet.
    let out = site.run(&["run", LATER]);
    out.code(0);
    assert!(!out.stdout.contains("edit window"), "{}", out.stdout);
    assert_eq!(site.traffic(), before, "a late edit was sent");

    // A further edit is a new fact, said again.
    edit_later(&site, THIRD);
    site.run(&["run", LATER]).code(0).stdout_has(&note);
    site.run(&["run", LATER]).code(0);
    assert_eq!(site.traffic(), before, "a late edit was sent");

    // What the note says to do sends it.
    site.run(&["retry", KEY, "--force"])
        .code(0)
        .stdout_has("updated");
    site.holds(&id, 1, "Third words");
}
