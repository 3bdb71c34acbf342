//! Edits and retractions against the real harness WordPress: an edit reaches the published copy
//! in place (same id, same slug, never a second post), even when the update's answer is lost;
//! `retract` moves the post to the trash, and only `retry --force` publishes it again.
//!
//! As in `real_wordpress`, every count is taken on the server (`list.sh` reads the database,
//! `rest` reads a post with `context=edit`). Without `DAYRUN_HARNESS` every test here prints
//! ignored unless asked for (`-- --include-ignored`).

use crate::real::real_wordpress::{LOST_ANSWER, config, id, on_server, post, project, state_field};
use crate::support::days::today;
use crate::support::harness::{self, FaultProxy, WordPress};
use crate::support::util::Project;
use serde_json::Value;

/// Rewrite the key's file: a new title and a new body, the same tags.
fn edit(p: &Project, key: &str, title: &str, body: &str, tags: &[&str]) {
    p.file(
        &format!("content/{key}.md"),
        format!(
            "---\ntags: [{}]\n---\n# {title}\n\n{body}\n",
            tags.join(", ")
        ),
    );
}

/// The post as the editor sees it: `GET /wp/v2/posts/ID?context=edit`.
fn read(wp: &WordPress, id: &str) -> Value {
    let (status, doc) = wp.rest("GET", &format!("/wp/v2/posts/{id}?context=edit"), None);
    assert_eq!(status, 200, "GET post {id}: {doc}");
    doc
}

/// The tag names of a post from `list.sh`, sorted.
fn tags(post: &Value) -> Vec<String> {
    let mut names: Vec<String> = post["tags"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Publish today's post through `url` and return the key, the server's one post and its id.
fn publish_one(wp: &WordPress, p: &Project, title: &str, tags: &[&str]) -> (String, Value) {
    let today = today();
    post(p, &today, title, tags);
    p.run(&["run", &format!("--today={today}")])
        .code(0)
        .stdout_has(&format!("{today} wp published id="));
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    (today, posts[0].clone())
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn an_edit_updates_the_published_post_in_place() {
    let Some(wp) = harness::wordpress() else {
        return;
    };
    let proxy = FaultProxy::start(&wp.url, &[], 300);
    let p = project(&wp, &proxy.url, 15, "");
    let (today, first) = publish_one(&wp, &p, "Before the edit", &["Alpha", "Beta"]);
    let on_today = format!("--today={today}");
    let the_id = id(&first);
    let slug = first["slug"].as_str().unwrap().to_string();
    assert_eq!(slug, format!("{today}-before-the-edit"));
    assert_eq!(proxy.forwarded("POST", "/wp/v2/posts/"), 0, "no update yet");

    edit(
        &p,
        &today,
        "After the edit",
        "Rewritten: a new body.",
        &["Alpha", "Beta"],
    );
    let out = p.run(&["run", &on_today]);
    out.code(0)
        .stdout_has(&format!("{today} wp updated id={the_id}"))
        .stdout_has("wp: 1 updated");

    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "exactly one post\n{posts:#?}\n{out:?}");
    assert_eq!(id(&posts[0]), the_id, "the same post, edited in place");
    assert_eq!(posts[0]["slug"], slug, "the slug stays as published");
    assert_eq!(posts[0]["status"], "publish");
    assert_eq!(tags(&posts[0]), ["Alpha", "Beta"], "the tags stay attached");
    let doc = read(&wp, &the_id);
    assert_eq!(doc["title"]["raw"], "After the edit", "{doc}");
    let content = doc["content"]["raw"].as_str().unwrap_or_default();
    assert!(
        content.contains("Rewritten: a new body.") && !content.contains("Written for"),
        "the new body replaced the old: {content:?}"
    );
    assert_eq!(
        proxy.forwarded("POST", &format!("/wp/v2/posts/{the_id}")),
        1,
        "one update sent"
    );
    assert_eq!(p.statuses("wp"), [format!("{today} done")]);
    assert_eq!(state_field(&p, &today, "updated").as_deref(), Some("1"));
    assert_eq!(state_field(&p, &today, "id"), Some(the_id.clone()));

    let before = proxy.requests().len();
    let again = p.run(&["run", &on_today]);
    again.code(0);
    assert!(!again.stdout.contains("updated id="), "{again:?}");
    assert_eq!(
        proxy.forwarded("POST", "/wp/v2/posts/"),
        1,
        "the second run sent no update"
    );
    assert_eq!(
        proxy.requests().len(),
        before,
        "the second run sent nothing at all: {:#?}",
        &proxy.requests()[before..]
    );
    assert_eq!(wp.posts().len(), 1);
    assert_eq!(state_field(&p, &today, "updated").as_deref(), Some("1"));
}

/// The update commits on the server, but its answer never reaches dayrun (`hang_after`): dayrun
/// times out, reads the post back, finds the edit there and records it; nothing is resent and
/// no second post appears.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn an_update_whose_answer_is_lost_is_confirmed_by_reading_back() {
    let Some(wp) = harness::wordpress() else {
        return;
    };
    let p = project(&wp, &wp.url, 15, "");
    let (today, first) = publish_one(&wp, &p, "Before the lost edit", &["Alpha"]);
    let on_today = format!("--today={today}");
    let the_id = id(&first);
    let slug = first["slug"].as_str().unwrap().to_string();

    let route = format!("/wp/v2/posts/{the_id}");
    let rule = format!("POST {route} first=hang_after then=pass");
    let proxy = FaultProxy::start(&wp.url, &[&rule], 300);
    p.file("dayrun.toml", config(&wp, &proxy.url, 2, LOST_ANSWER));
    edit(
        &p,
        &today,
        "After the lost edit",
        "The answer to this edit was lost.",
        &["Alpha"],
    );

    let out = p.run(&["run", &on_today]);
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "no second post\n{posts:#?}\n{out:?}");
    assert_eq!(id(&posts[0]), the_id);
    assert_eq!(posts[0]["slug"], slug);
    out.code(0)
        .stdout_has(&format!("{today} wp updated id={the_id}"));
    assert_eq!(
        proxy.forwarded("POST", &route),
        1,
        "the read back confirmed it: not resent\n{:#?}",
        proxy.requests()
    );
    assert_eq!(
        proxy.forwarded("POST", "/wp/v2/posts"),
        1,
        "never a create: {:#?}",
        proxy.requests()
    );
    let requests = proxy.requests();
    let held = requests
        .iter()
        .filter(|r| r["method"] == "POST" && r["fault"] == "hang_after")
        .count();
    assert_eq!(held, 1, "the update's answer was held back: {requests:#?}");
    assert!(
        proxy.forwarded("GET", &route) >= 1,
        "read back: {:#?}",
        proxy.requests()
    );
    let doc = read(&wp, &the_id);
    assert_eq!(doc["title"]["raw"], "After the lost edit", "{doc}");
    assert_eq!(p.statuses("wp"), [format!("{today} done")]);
    assert_eq!(state_field(&p, &today, "updated").as_deref(), Some("1"));
    assert_eq!(state_field(&p, &today, "id"), Some(the_id.clone()));

    p.run(&["run", &on_today]).code(0);
    assert_eq!(wp.posts().len(), 1);
    assert_eq!(
        proxy.forwarded("POST", "/wp/v2/posts"),
        1,
        "nothing more sent"
    );
}

/// `retract --yes` trashes the post and proves it; runs leave the key alone; `retry --force`
/// publishes a new copy beside the trashed one.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn a_retracted_post_goes_to_the_trash_and_only_retry_force_republishes() {
    let Some(wp) = harness::wordpress() else {
        return;
    };
    let proxy = FaultProxy::start(&wp.url, &[], 300);
    let p = project(&wp, &proxy.url, 15, "");
    let (today, first) = publish_one(&wp, &p, "Taken back", &["Alpha"]);
    let on_today = format!("--today={today}");
    let the_id = id(&first);

    let out = p.run(&["retract", &today, "--yes"]);
    out.code(0)
        .stdout_has(&format!("{today} wp retracted id={the_id}"));
    assert_eq!(
        proxy.forwarded("DELETE", &format!("/wp/v2/posts/{the_id}")),
        1
    );
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(posts[0]["status"], "trash", "{posts:#?}");
    assert_eq!(read(&wp, &the_id)["status"], "trash");
    assert_eq!(p.statuses("wp"), [format!("{today} retracted")]);
    assert_eq!(state_field(&p, &today, "id"), Some(the_id.clone()));

    let creates = proxy.forwarded("POST", "/wp/v2/posts");
    let run = p.run(&["run", &on_today]);
    run.code(0);
    assert!(!run.stdout.contains("published"), "{run:?}");
    assert_eq!(wp.posts().len(), 1, "nothing new: {run:?}");
    assert_eq!(proxy.forwarded("POST", "/wp/v2/posts"), creates);
    assert_eq!(p.statuses("wp"), [format!("{today} retracted")]);

    let retry = p.run(&["retry", &today, "--force"]);
    retry
        .code(0)
        .stdout_has("the retracted copy is gone; publishing a new one")
        .stdout_has(&format!("{today} wp published id="));
    let posts = wp.posts();
    assert_eq!(posts.len(), 2, "{posts:#?}\n{retry:?}");
    let mine = on_server(&posts, &today);
    assert_eq!(mine.len(), 2, "{posts:#?}");
    let trashed: Vec<_> = mine.iter().filter(|p| p["status"] == "trash").collect();
    let live: Vec<_> = mine.iter().filter(|p| p["status"] == "publish").collect();
    assert_eq!((trashed.len(), live.len()), (1, 1), "{posts:#?}");
    assert_eq!(id(trashed[0]), the_id);
    assert_ne!(id(live[0]), the_id);
    assert_eq!(p.statuses("wp"), [format!("{today} done")]);
    assert_eq!(state_field(&p, &today, "id"), Some(id(live[0])));

    p.run(&["run", &on_today]).code(0);
    assert_eq!(wp.posts().len(), 2, "the next run sends nothing");
}
