//! WordPress: each image one `POST /wp/v2/media` (raw body, `<stem>-<sha16>.<ext>`, alt_text),
//! the content's `src` rewritten to `source_url`, `featured_media` = the cover; a lost answer
//! found by `?search=<sha16>`; a replaced image is an edit that uploads only it.

use super::{ALTS, KEY, TODAY, assert_private, field, line, media_field, pictures, sha16, shown};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::image_gen as pics;
use crate::support::util::Project;
use serde_json::Value;

fn project(wp: &FakeWordPress) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", wp.config(""));
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    pictures(&p);
    p
}

/// The attachment whose alt text is `alt`.
#[track_caller]
fn by_alt(wp: &FakeWordPress, alt: &str) -> Value {
    let media = wp.media();
    media
        .iter()
        .find(|m| m["alt_text"] == alt)
        .cloned()
        .unwrap_or_else(|| panic!("no attachment with alt {alt:?}: {media:#?}"))
}

/// Everything the contract asks of one published post with the three pictures.
#[track_caller]
fn assert_published(p: &Project, wp: &FakeWordPress) {
    let media = wp.media();
    assert_eq!(
        media.len(),
        3,
        "exactly one attachment per image: {media:#?}"
    );
    let posts = wp.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    let post = &posts[0];
    let content = post["content"]["raw"].as_str().unwrap();
    let line = line(p, "wp", KEY);
    assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
    let recorded = media_field(&line);
    assert_eq!(recorded.len(), 3, "{line}");
    for (alt, stem, ext) in [
        (ALTS[0], "cover", "jpg"),
        (ALTS[1], "a", "png"),
        (ALTS[2], "b", "jpg"),
    ] {
        let item = by_alt(wp, alt);
        let id = item["id"].as_u64().unwrap();
        let bytes = wp.media_bytes(id);
        assert_private(&format!("attachment {id} ({alt})"), &bytes);
        let sha = sha16(&bytes);
        let url = item["source_url"].as_str().unwrap();
        assert!(
            url.ends_with(&format!("/{stem}-{sha}.{ext}")),
            "the file name is <stem>-<sha16 of what was sent>.<ext>: {url}"
        );
        assert!(
            recorded.contains(&(sha.clone(), format!("{id}@{url}"))),
            "media= records {sha}={id}@{url}: {line}"
        );
        if alt == ALTS[0] {
            assert_eq!(post["featured_media"], id, "featured_media is the cover");
            assert!(pics::red_on_top(&bytes), "the cover went out upright");
        } else {
            assert!(
                content.contains(&format!("src=\"{url}\"")),
                "src of {alt} rewritten to {url}: {content}"
            );
        }
    }
    assert!(
        !content.contains("images/a.png") && !content.contains("images/b.jpg"),
        "no local src left: {content}"
    );
    assert!(
        content.contains("https://example.com/r.png"),
        "the remote image stays: {content}"
    );
}

#[test]
fn a_post_with_two_images_and_a_cover_makes_three_media_and_one_post() {
    let wp = FakeWordPress::start();
    let p = project(&wp);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_published(&p, &wp);
    {
        let s = wp.state.lock().unwrap();
        assert_eq!(s.media_requests, 3, "{}", shown(&out));
        assert_eq!(s.post_requests, 1);
        // Each image was looked up by its hash before its upload.
        assert!(
            s.media_searches.len() >= 3 && s.media_searches.iter().all(|q| q.len() == 16),
            "searches: {:?}",
            s.media_searches
        );
    }
    // A second run sends nothing at all.
    let before = wp.server.request_count();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        wp.server.request_count(),
        before,
        "a second run made requests"
    );
    assert_eq!(wp.media().len(), 3);
}

#[test]
fn a_lost_answer_on_a_media_upload_leaves_one_attachment_per_image() {
    for fault in [Fault::CommitHang, Fault::CommitStatus(502)] {
        let wp = FakeWordPress::start();
        wp.state.lock().unwrap().media_faults.push_back(fault);
        let p = project(&wp);
        let out = p.run(&["run", TODAY]);
        out.code(0);
        assert_published(&p, &wp);
        let s = wp.state.lock().unwrap();
        assert_eq!(
            s.media_requests,
            3,
            "{fault:?}: the lost upload was found by its hash, not sent again\n{}",
            shown(&out)
        );
        assert_eq!(s.post_requests, 1, "{fault:?}");
        drop(s);
        let trace = super::image_trace(&p, "wp");
        assert!(
            trace.iter().any(|l| l.contains("found")),
            "{fault:?}: the trace says the lookup found it: {trace:#?}"
        );
    }
}

#[test]
fn replacing_an_image_file_is_an_edit_that_uploads_only_that_image() {
    let wp = FakeWordPress::start();
    let p = project(&wp);
    p.run(&["run", TODAY]).code(0);
    let old_b = by_alt(&wp, ALTS[2]);
    let first = line(&p, "wp", KEY);
    // Same markdown, another picture under the same name.
    p.file(
        "content/images/b.jpg",
        pics::plain_jpeg(40, 30, [30, 220, 30]),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let s = wp.state.lock().unwrap();
    assert_eq!(s.update_requests, 1, "one update\n{}", shown(&out));
    assert_eq!(s.post_requests, 1, "never a second post");
    assert_eq!(s.media_requests, 4, "only the new picture is uploaded");
    drop(s);
    let media = wp.media();
    assert_eq!(media.len(), 4);
    let new_b = media.last().unwrap();
    assert_eq!(new_b["alt_text"], ALTS[2]);
    assert_ne!(new_b["id"], old_b["id"]);
    let content = wp.posts()[0]["content"]["raw"]
        .as_str()
        .unwrap()
        .to_string();
    let new_url = new_b["source_url"].as_str().unwrap();
    assert!(content.contains(&format!("src=\"{new_url}\"")), "{content}");
    assert!(
        !content.contains(old_b["source_url"].as_str().unwrap()),
        "{content}"
    );
    let now = line(&p, "wp", KEY);
    assert_ne!(field(&now, "payload"), field(&first, "payload"), "{now}");
    let recorded = media_field(&now);
    let sha = sha16(&wp.media_bytes(new_b["id"].as_u64().unwrap()));
    assert!(
        recorded.iter().any(|(s, _)| *s == sha),
        "media= has the new picture {sha}: {now}"
    );
    assert_eq!(wp.posts()[0]["featured_media"], by_alt(&wp, ALTS[0])["id"]);
    // The trace lists the old picture as no longer attached.
    let trace = super::image_trace(&p, "wp");
    let old_id = old_b["id"].to_string();
    assert!(
        trace
            .iter()
            .any(|l| l.contains(" unattached ") && l.contains(&old_id)),
        "{trace:#?}"
    );
    // And again: nothing.
    let before = wp.server.request_count();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.server.request_count(), before);
}

#[test]
fn dry_run_lists_each_image_and_changes_nothing() {
    let wp = FakeWordPress::start();
    let p = project(&wp);
    let tree = p.tree(&[]);
    let out = p.run(&["run", "--dry-run", TODAY]);
    out.code(0);
    for (path, alt) in [
        ("content/images/cover.jpg", ALTS[0]),
        ("content/images/a.png", ALTS[1]),
        ("content/images/b.jpg", ALTS[2]),
    ] {
        let want = format!("{}upload", super::image_line("wp", path, alt));
        assert!(
            out.stdout.contains(&want),
            "lacks {want:?}\n{}",
            shown(&out)
        );
    }
    assert_eq!(
        out.stdout.matches("content/images/a.png alt=").count(),
        1,
        "an image named twice is listed once\n{}",
        shown(&out)
    );
    assert_eq!(
        wp.server.request_count(),
        0,
        "a dry run makes no network call"
    );
    assert_eq!(p.tree(&[]), tree, "a dry run writes nothing");
}

#[test]
fn the_same_image_twice_in_one_site_gets_a_unique_name_from_wordpress() {
    // Two posts with the same picture: dayrun finds the first upload by its hash and reuses
    // it (or, if it uploads again, WordPress names the copy `-1`); either way each post's src
    // points at an attachment that holds those bytes.
    let wp = FakeWordPress::start();
    let p = project(&wp);
    p.file(
        "content/2026-11-28.md",
        "# Yesterday\n\nThe same blue one: ![A blue one](images/b.jpg)\n",
    );
    p.run(&["run", TODAY, "--backfill"]).code(0);
    let posts = wp.posts();
    assert_eq!(posts.len(), 2);
    for post in &posts {
        let content = post["content"]["raw"].as_str().unwrap();
        let blue = by_alt(&wp, ALTS[2]);
        let urls: Vec<String> = wp
            .media()
            .iter()
            .filter(|m| m["alt_text"] == ALTS[2])
            .map(|m| m["source_url"].as_str().unwrap().to_string())
            .collect();
        assert!(
            urls.iter().any(|u| content.contains(u.as_str())),
            "{content} names one of {urls:?} ({blue})"
        );
    }
}

#[test]
fn upload_names_are_cleaned_stems_with_the_hash() {
    let wp = FakeWordPress::start();
    let p = project(&wp);
    let long = "Long".repeat(15);
    p.file(
        "content/images/My Cat.JPEG",
        pics::plain_jpeg(12, 12, [9, 9, 9]),
    );
    p.file("content/images/日本.png", pics::png_with_text());
    p.file(
        &format!("content/images/{long}.jpg"),
        pics::plain_jpeg(14, 12, [90, 9, 9]),
    );
    p.file(
        super::POST,
        format!("# Names\n\n![one](images/My%20Cat.JPEG)\n\n![two](images/日本.png)\n\n![three](images/{long}.jpg)\n"),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let media = wp.media();
    assert_eq!(media.len(), 3, "{}", shown(&out));
    for item in &media {
        let url = item["source_url"].as_str().unwrap();
        let name = url.rsplit('/').next().unwrap();
        let bytes = wp.media_bytes(item["id"].as_u64().unwrap());
        let sha = sha16(&bytes);
        let (stem, ext) = name.rsplit_once('.').unwrap();
        let stem = stem
            .strip_suffix(&format!("-{sha}"))
            .unwrap_or_else(|| panic!("{name} does not end in -<sha16 {sha}>"));
        assert!(
            !stem.is_empty()
                && stem.len() <= 40
                && stem
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "stem {stem:?} of {name}"
        );
        assert!(["jpg", "png"].contains(&ext), "{name}");
        if item["alt_text"] == "two" {
            assert_eq!(stem, "image", "a stem with nothing left is `image`");
        }
    }
}

#[test]
fn a_big_image_is_found_by_its_scaled_name_after_a_lost_answer() {
    // Over 2560 px WordPress keeps `<name>-scaled.<ext>` and `source_url` names it; the hash is
    // still in the name, so the lookup finds it.
    let wp = FakeWordPress::start();
    wp.state
        .lock()
        .unwrap()
        .media_faults
        .push_back(Fault::CommitHang);
    let p = project(&wp);
    p.file(
        "content/images/b.jpg",
        pics::plain_jpeg(2600, 20, [30, 30, 220]),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let media = wp.media();
    assert_eq!(media.len(), 3, "{}", shown(&out));
    let b = by_alt(&wp, ALTS[2]);
    let url = b["source_url"].as_str().unwrap();
    assert!(url.ends_with("-scaled.jpg"), "{url}");
    let content = wp.posts()[0]["content"]["raw"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(content.contains(&format!("src=\"{url}\"")), "{content}");
}

#[test]
fn a_failed_line_keeps_the_uploads_and_a_retry_reuses_them() {
    let wp = FakeWordPress::start();
    wp.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(400));
    let p = project(&wp);
    let out = p.run(&["run", TODAY]);
    out.code(1);
    let failed = line(&p, "wp", KEY);
    assert!(
        failed.starts_with(&format!("{KEY} failed ")),
        "{failed}\n{}",
        shown(&out)
    );
    assert_eq!(
        media_field(&failed).len(),
        3,
        "the failed line keeps media=: {failed}"
    );
    assert!(wp.posts().is_empty());
    let out = p.run(&["retry", KEY]);
    out.code(0);
    assert_published(&p, &wp);
    assert_eq!(
        wp.state.lock().unwrap().media_requests,
        3,
        "the retry reused every recorded upload\n{}",
        shown(&out)
    );
}

#[test]
fn uploads_reused_by_an_edit_are_traced_as_reused() {
    // Contract, "Trace lines": action `image`, result `reused` for a recorded upload.
    let wp = FakeWordPress::start();
    let p = project(&wp);
    p.run(&["run", TODAY]).code(0);
    p.file(
        "content/images/b.jpg",
        pics::plain_jpeg(40, 30, [30, 220, 30]),
    );
    p.run(&["run", TODAY]).code(0);
    let trace = super::image_trace(&p, "wp");
    for alt in [ALTS[0], ALTS[1]] {
        let sha = sha16(&wp.media_bytes(by_alt(&wp, alt)["id"].as_u64().unwrap()));
        assert!(
            trace
                .iter()
                .any(|l| l.contains(" reused ") && l.contains(&sha)),
            "a `reused` trace line for {alt} ({sha}): {trace:#?}"
        );
    }
}

#[test]
fn a_recorded_cover_that_is_gone_from_the_site_is_reported_not_featured() {
    // The line records the cover as media 999, which someone deleted in wp-admin. dayrun reuses
    // the recorded upload (it must not upload twice); WordPress then drops featured_media
    // without an error, and dayrun says so.
    let folder = Project::new();
    pictures(&folder);
    folder.run(&["run", TODAY]).code(0);
    let json: Value = serde_json::from_str(&folder.read(&format!("outbox/{KEY}.json"))).unwrap();
    let cover_sha = json["images"][0]["sha256"].as_str().unwrap()[..16].to_string();
    let wp = FakeWordPress::start();
    let p = project(&wp);
    p.file(
        "state/wp.state",
        format!(
            "# dayrun state format 2\n{KEY} failed 2026-11-29T07:00:02+00:00 class=rejected reason=\"HTTP 400\" media={cover_sha}=999@https://blog.test/wp-content/uploads/2026/11/cover-{cover_sha}.jpg\n"
        ),
    );
    let out = p.run(&["retry", KEY]);
    out.code(0);
    assert_eq!(
        wp.media().len(),
        2,
        "the recorded cover is not uploaded again"
    );
    let post = &wp.posts()[0];
    assert_eq!(post["featured_media"], 0, "WordPress dropped it");
    let all = format!("{}{}{}", out.stdout, out.stderr, p.read("state/wp.log"));
    assert!(
        all.contains("did not set the featured image"),
        "dayrun says so\n{}",
        shown(&out)
    );
}
