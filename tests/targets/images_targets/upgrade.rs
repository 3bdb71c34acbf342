//! Upgrading from 0.3 (contract, "Edits"): a done line whose `payload=` is 0.3's mark (title,
//! body, summary, tags; no images) for a post that has images is NOT an edit: dayrun records
//! the new mark without sending. `retry KEY --force` then sends the images in place. A line
//! with any other mark is an edit (the control that shows the test can tell the two apart).

use super::{KEY, TODAY, field, line, pictures, shown};
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::Project;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// 0.3's payload mark: the first 16 hex digits of sha256("FP\nSUMMARY\nTAGS\nTITLE"), taken
/// from what a folder target writes of the same post (fingerprint, summary, tags, title).
fn old_mark(p: &Project) -> (String, String) {
    let folder = Project::new();
    folder.file(super::POST, p.read(super::POST));
    for name in ["cover.jpg", "a.png", "b.jpg"] {
        let rel = format!("content/images/{name}");
        folder.file(&rel, std::fs::read(p.path(&rel)).unwrap());
    }
    let out = folder.run(&["run", TODAY]);
    out.code(0);
    let json: Value = serde_json::from_str(&folder.read(&format!("outbox/{KEY}.json"))).unwrap();
    let tags: Vec<&str> = json["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let fp = json["fingerprint"].as_str().unwrap().to_string();
    let text = format!(
        "{fp}\n{}\n{}\n{}",
        json["summary"].as_str().unwrap(),
        tags.join("\n"),
        json["title"].as_str().unwrap()
    );
    let digest = Sha256::digest(text.as_bytes());
    let mark: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    (fp, mark)
}

/// A WordPress site holding the post as 0.3 published it, and a state line with `payload`.
fn published_by_03(payload: impl Fn(&str) -> String) -> (FakeWordPress, Project, String) {
    let wp = FakeWordPress::start();
    let p = Project::new();
    p.file("dayrun.toml", wp.config(""));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    pictures(&p);
    let (fp, mark) = old_mark(&p);
    let post = wp.seed(
        "2026-11-29-pictures-of-the-day",
        "publish",
        "2026-11-29T07:00:00",
    );
    let id = post["id"].as_u64().unwrap();
    let at = "2026-11-29T07:00:02+00:00";
    let payload = payload(&mark);
    p.file(
        "state/wp.state",
        format!(
            "# dayrun state format 2\n{KEY} done {at} id={id} url=https://blog.test/?p={id} fp={fp} payload={payload} published={at}\n"
        ),
    );
    (wp, p, payload)
}

#[test]
fn a_03_done_line_is_not_an_edit_and_retry_force_sends_the_images() {
    let (wp, p, old) = published_by_03(|mark| mark.to_string());
    let out = p.run(&["run", TODAY]);
    out.code(0);
    {
        let s = wp.state.lock().unwrap();
        assert_eq!(s.update_requests, 0, "not an edit\n{}", shown(&out));
        assert_eq!(s.media_requests, 0, "nothing uploaded\n{}", shown(&out));
        assert_eq!(s.post_requests, 0);
    }
    let now = line(&p, "wp", KEY);
    assert!(now.starts_with(&format!("{KEY} done ")), "{now}");
    let recorded = field(&now, "payload").expect("a payload mark");
    assert_ne!(recorded, old, "the new mark is recorded: {now}");
    // Nothing more on the next run either.
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.state.lock().unwrap().update_requests, 0);
    // The human lever sends the images in place.
    let out = p.run(&["retry", KEY, "--force"]);
    out.code(0);
    let s = wp.state.lock().unwrap();
    assert_eq!(s.update_requests, 1, "{}", shown(&out));
    assert_eq!(s.post_requests, 0, "in place, never a second post");
    assert_eq!(s.media.len(), 3);
    drop(s);
    let post = &wp.posts()[0];
    let cover = wp
        .media()
        .into_iter()
        .find(|m| m["alt_text"] == "The cover")
        .unwrap();
    assert_eq!(post["featured_media"], cover["id"]);
    assert!(super::media_field(&line(&p, "wp", KEY)).len() == 3);
}

#[test]
fn control_a_line_with_another_mark_is_an_edit() {
    // The same line with a mark that is neither 0.3's nor 0.4's: the post changed since.
    let (wp, p, _) = published_by_03(|_| "0123456789abcdef".to_string());
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let s = wp.state.lock().unwrap();
    assert_eq!(s.update_requests, 1, "an edit is sent\n{}", shown(&out));
    assert_eq!(s.media.len(), 3, "with its images");
}

#[test]
fn a_post_without_images_keeps_its_03_mark() {
    // Nothing changes for a post without images: the same mark as 0.3, so no edit and the line
    // keeps its payload.
    let wp = FakeWordPress::start();
    let p = Project::new();
    p.file("dayrun.toml", wp.config(""));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    p.file(
        super::POST,
        "# Plain words\n\nNo pictures, a remote ![x](https://example.com/x.png).\n",
    );
    p.run(&["run", TODAY]).code(0);
    let first = line(&p, "wp", KEY);
    let folder = Project::new();
    folder.file(super::POST, p.read(super::POST));
    folder.run(&["run", TODAY]).code(0);
    let json: Value = serde_json::from_str(&folder.read(&format!("outbox/{KEY}.json"))).unwrap();
    let text = format!(
        "{}\n{}\n{}\n{}",
        json["fingerprint"].as_str().unwrap(),
        json["summary"].as_str().unwrap(),
        "",
        json["title"].as_str().unwrap()
    );
    let digest = Sha256::digest(text.as_bytes());
    let mark: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(field(&first, "payload"), Some(mark), "{first}");
}
