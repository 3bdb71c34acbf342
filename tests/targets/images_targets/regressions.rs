//! Cases an independent review of the images change found, each shown red before its fix:
//! what a platform does to uploads between two attempts, edits of alt text only, a post over
//! a platform's limit, and words in a post that look like dayrun's own placeholders.

use super::mastodon::project_with;
use super::{KEY, POST, TODAY, line, pictures, shown, six_pictures};
use crate::fakes::fake_mastodon::FakeMastodon;
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::image_gen as pics;
use crate::support::util::Project;

#[test]
fn a_post_over_the_limit_is_not_an_edit_at_every_run() {
    let api = FakeMastodon::start(500);
    let p = project_with(&api, "on_edit = \"update\"");
    six_pictures(&p);
    p.run(&["run", TODAY]).code(0);
    let sent = api.state.lock().unwrap().sent_media_ids.len();
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(
        api.state.lock().unwrap().sent_media_ids.len(),
        sent,
        "the second run sent the status again\n{}",
        shown(&out)
    );
    assert!(!line(&p, "masto", KEY).contains("updated="));
}

#[test]
fn media_still_processing_after_the_timeout_are_waited_for_on_the_resend() {
    let api = FakeMastodon::start(500);
    api.state.lock().unwrap().processing_polls = Some(1000);
    let p = project_with(&api, "");
    p.file("content/images/b.jpg", pics::plain_jpeg(20, 20, [1, 2, 3]));
    p.file(POST, "# Slow\n\nLook:\n\n![A slow one](images/b.jpg)\n");
    let first = p.run(&["run", TODAY]);
    assert_eq!(api.statuses().len(), 0, "{}", shown(&first));
    // Still processing when the resend starts; done after two more polls of its wait.
    for m in api.state.lock().unwrap().media.iter_mut() {
        m.polls_left = 2;
    }
    let out = p.run(&["retry", KEY]);
    assert_eq!(
        api.statuses().len(),
        1,
        "{}\n{}",
        shown(&first),
        shown(&out)
    );
    assert_eq!(
        api.media().len(),
        1,
        "the processed upload is the one attached"
    );
}

#[test]
fn media_the_instance_deleted_are_uploaded_again() {
    let api = FakeMastodon::start(500);
    api.state.lock().unwrap().processing_polls = Some(1000);
    let p = project_with(&api, "");
    p.file("content/images/b.jpg", pics::plain_jpeg(20, 20, [1, 2, 3]));
    p.file(POST, "# Gone\n\nLook:\n\n![A gone one](images/b.jpg)\n");
    p.run(&["run", TODAY]);
    // The instance removes unattached media after a while.
    {
        let mut s = api.state.lock().unwrap();
        s.media.clear();
        s.processing_polls = None;
    }
    let out = p.run(&["retry", KEY]);
    assert_eq!(api.statuses().len(), 1, "{}", shown(&out));
    let attached = api.statuses()[0]["media_attachments"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(attached, 1, "{}", shown(&out));
}

#[test]
fn an_edit_of_alt_text_only_reaches_mastodon() {
    let api = FakeMastodon::start(500);
    let p = project_with(&api, "on_edit = \"update\"");
    pictures(&p);
    p.run(&["run", TODAY]).code(0);
    let post = p.read(POST);
    p.file(POST, post.replace("A blue one", "A navy one"));
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let descriptions: Vec<String> = api
        .media()
        .iter()
        .filter(|m| m.status_id.is_some())
        .map(|m| m.description.clone().unwrap_or_default())
        .collect();
    assert!(
        descriptions.iter().any(|d| d == "A navy one"),
        "{descriptions:?}\n{}",
        shown(&out)
    );
    assert_eq!(api.media().len(), 3, "no upload for an alt edit");
}

#[test]
fn an_edit_that_removes_every_image_takes_them_off_the_status() {
    let api = FakeMastodon::start(500);
    let p = project_with(&api, "on_edit = \"update\"");
    pictures(&p);
    p.run(&["run", TODAY]).code(0);
    p.file(POST, "# Pictures of the day\n\nNo pictures after all.\n");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let attached = api.media().iter().filter(|m| m.status_id.is_some()).count();
    assert_eq!(attached, 0, "{}", shown(&out));
}

#[test]
fn a_post_that_names_the_placeholder_is_published_as_written() {
    let wp = FakeWordPress::start();
    let p = Project::new();
    p.file("dayrun.toml", wp.config(""));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p.file(
        POST,
        "# Internals\n\nThe WordPress target writes `dayrun-media:0123456789abcdef` and src=\"dayrun-media:0123456789abcdef\" where an image goes.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{}", shown(&out));
    assert!(
        posts[0]["content"]["raw"]
            .as_str()
            .unwrap_or_default()
            .contains("dayrun-media:0123456789abcdef"),
        "{:?}",
        posts[0]["content"]
    );
}
