//! `kind = "wordpress"` against the fake WordPress.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

fn project(wp: &FakeWordPress, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", wp.config(extra));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [Rust, Ops & Tools]\n---\n# Why the Date is the Key\n\nFirst *paragraph*.\n",
    );
    p
}

#[test]
fn publishes_html_with_a_key_slug_and_tag_ids_once() {
    let wp = FakeWordPress::start();
    let p = project(&wp, "categories = [\"Notes\"]");
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("2026-11-29 wp published id=500");
    let posts = wp.posts();
    assert_eq!(posts.len(), 1);
    let post = &posts[0];
    assert_eq!(post["slug"], "2026-11-29-why-the-date-is-the-key");
    assert_eq!(post["status"], "publish");
    assert_eq!(post["content"]["raw"], "<p>First <em>paragraph</em>.</p>\n");
    assert_eq!(post["excerpt"]["raw"], "First paragraph.");
    assert_eq!(post["tags"], serde_json::json!([100, 101]));
    assert_eq!(post["categories"], serde_json::json!([7]));
    assert!(p.state_lines("wp")[0].contains("url=https://blog.test/?p=500"));
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.posts().len(), 1);
    assert!(!out.stdout.contains(PASSWORD) && !out.stderr.contains(PASSWORD));
    assert!(!p.read("state/wp.log").contains("Basic "));
}

#[test]
fn an_existing_tag_is_reused_through_term_exists() {
    let wp = FakeWordPress::start();
    {
        let mut s = wp.state.lock().unwrap();
        s.tags.push(serde_json::json!({"id": 42, "name": "Rust"}));
        s.stale_tag_search = true;
    }
    let p = project(&wp, "");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.posts()[0]["tags"], serde_json::json!([42, 101]));
}

#[test]
fn plain_permalinks_fall_back_to_rest_route() {
    let wp = FakeWordPress::start();
    wp.state.lock().unwrap().plain_permalinks = true;
    let p = project(&wp, "");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("published id=500");
    assert_eq!(wp.posts().len(), 1);
}

#[test]
fn a_lost_answer_is_confirmed_by_slug_not_resent() {
    for fault in [Fault::CommitHang, Fault::CommitStatus(500)] {
        let wp = FakeWordPress::start();
        wp.state.lock().unwrap().faults.push_back(fault);
        let p = project(&wp, "");
        p.run(&["run", TODAY])
            .code(0)
            .stdout_has("2026-11-29 wp confirmed id=500");
        assert_eq!(wp.posts().len(), 1, "{fault:?}");
        assert_eq!(wp.state.lock().unwrap().post_requests, 1, "{fault:?}");
    }
}

#[test]
fn refused_credentials_stop_the_target_and_name_the_file() {
    let wp = FakeWordPress::start();
    wp.state.lock().unwrap().password = "another password".into();
    let p = project(&wp, "dedup = false");
    p.post("2026-11-28", "Yesterday");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("HTTP 401")
        .stdout_has("incorrect_password")
        .stdout_has("renew the Application Password")
        .stdout_has("put it in secrets/wp.password")
        .stdout_has("2026-11-29 wp skip target stopped for this run");
    assert!(wp.posts().is_empty());

    let wp = FakeWordPress::start();
    wp.state.lock().unwrap().read_only_user = true;
    let p = project(&wp, "dedup = false");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("rest_cannot_create")
        .stdout_has("Author role");
}

#[test]
fn a_validation_rejection_is_recorded() {
    let wp = FakeWordPress::start();
    wp.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(400));
    let p = project(&wp, "");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("failed (rejected): create post: HTTP 400")
        .stdout_has("rest_invalid_param");
    assert!(p.state_lines("wp")[0].contains("class=rejected"));
    assert!(wp.posts().is_empty());
}

#[test]
fn a_missing_category_is_a_rejection_before_anything_is_posted() {
    let wp = FakeWordPress::start();
    let p = project(&wp, "categories = [\"Nope\"]");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("category `Nope` does not exist on the site");
    assert_eq!(wp.state.lock().unwrap().post_requests, 0);
}
