//! Mastodon: `POST /api/v2/media` (multipart, `description` = alt), the 202 → 206 → 200 flow,
//! `media_ids` in order (cover first) up to the instance's limit, the rest left out with one
//! warning line, and a lost upload answer that leaves at most one unattached extra.

use super::{
    ALTS, KEY, TODAY, assert_private, image_trace, line, media_field, pictures, sha16, shown,
    six_pictures,
};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

fn project(api: &FakeMastodon) -> Project {
    project_with(api, "")
}

/// A project on the fake instance, with `extra` lines in the target's table.
pub(super) fn project_with(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(&format!("link = \"https://blog.test/{{key}}\"\n{extra}")),
    );
    p.secret("secrets/masto.token", TOKEN);
    p
}

#[test]
fn three_images_are_uploaded_waited_for_and_attached_in_order() {
    let api = FakeMastodon::start(500);
    // Processed later: 202 with url null, one 206, then 200.
    api.state.lock().unwrap().processing_polls = Some(1);
    let p = project(&api);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let statuses = api.statuses();
    assert_eq!(statuses.len(), 1, "{}", shown(&out));
    let media = api.media();
    assert_eq!(media.len(), 3, "one upload per image\n{}", shown(&out));
    let status_id = statuses[0]["id"].as_str().unwrap();
    let s = api.state.lock().unwrap();
    assert_eq!(s.sent_media_ids.len(), 1, "{:?}", s.sent_media_ids);
    let ids = s.sent_media_ids[0].clone();
    let polls = s.media_polls.clone();
    drop(s);
    let order: Vec<String> = ids
        .iter()
        .map(|id| {
            let m = media.iter().find(|m| &m.id == id).unwrap();
            m.description.clone().unwrap_or_default()
        })
        .collect();
    assert_eq!(order, ALTS, "cover first, then the body's images in order");
    let attached = statuses[0]["media_attachments"].as_array().unwrap();
    assert_eq!(attached.len(), 3);
    for m in &media {
        assert_eq!(m.status_id.as_deref(), Some(status_id), "{m:?}");
        assert!(m.polls_left == 0, "attached only once processed");
        assert!(m.mime.starts_with("image/"), "{}", m.mime);
        assert!(
            polls.iter().filter(|p| **p == m.id).count() >= 2,
            "{} was polled through its 206 to its 200: {polls:?}",
            m.id
        );
        assert_private(&format!("media {}", m.id), &m.bytes);
    }
    let recorded = media_field(&line(&p, "masto", KEY));
    assert_eq!(recorded.len(), 3);
    for m in &media {
        assert!(
            recorded.contains(&(sha16(&m.bytes), m.id.clone())),
            "media= has {}={}: {recorded:?}",
            sha16(&m.bytes),
            m.id
        );
    }
    // Again: nothing.
    let before = api.server.request_count();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.server.request_count(), before);
}

#[test]
fn six_images_on_an_instance_that_takes_four_leave_two_out_with_one_warning() {
    let api = FakeMastodon::start(500);
    let p = project(&api);
    six_pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(api.statuses().len(), 1, "{}", shown(&out));
    let s = api.state.lock().unwrap();
    assert_eq!(s.sent_media_ids.len(), 1, "never more than the limit sent");
    let ids = s.sent_media_ids[0].clone();
    drop(s);
    let media = api.media();
    let alts: Vec<String> = ids
        .iter()
        .map(|id| {
            let m = media.iter().find(|m| &m.id == id).unwrap();
            m.description.clone().unwrap_or_default()
        })
        .collect();
    assert_eq!(alts, ["The cover", "Picture b", "Picture c", "Picture d"]);
    assert!(
        media.iter().all(|m| m.status_id.is_some()),
        "left-out images are not uploaded: {media:#?}"
    );
    let warnings: Vec<&str> = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .filter(|l| l.starts_with(&super::warning("masto")))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning line\n{}", shown(&out));
    assert!(
        warnings[0].contains("2 of 6 images left out")
            && warnings[0].ends_with("content/images/e.jpg, content/images/f.jpg"),
        "{}",
        warnings[0]
    );
    let trace = image_trace(&p, "masto");
    assert!(
        trace.iter().any(|l| l.contains("left-out")),
        "trace: {trace:#?}"
    );
}

#[test]
fn the_limit_comes_from_the_instance() {
    let api = FakeMastodon::start(500);
    api.state.lock().unwrap().max_media = 2;
    let p = project(&api);
    six_pictures(&p);
    p.run(&["run", TODAY]).code(0);
    let s = api.state.lock().unwrap();
    assert_eq!(s.sent_media_ids.len(), 1);
    assert_eq!(s.sent_media_ids[0].len(), 2, "{:?}", s.sent_media_ids);
}

#[test]
fn a_lost_upload_answer_attaches_each_image_once() {
    for fault in [Fault::CommitHang, Fault::CommitStatus(502)] {
        let api = FakeMastodon::start(500);
        api.state.lock().unwrap().media_faults.push_back(fault);
        let p = project(&api);
        pictures(&p);
        let out = p.run(&["run", TODAY]);
        out.code(0);
        assert_eq!(api.statuses().len(), 1, "{fault:?}\n{}", shown(&out));
        let media = api.media();
        let attached: Vec<_> = media.iter().filter(|m| m.status_id.is_some()).collect();
        assert_eq!(attached.len(), 3, "{fault:?}: {media:#?}");
        let mut shas: Vec<String> = attached.iter().map(|m| sha16(&m.bytes)).collect();
        shas.sort();
        shas.dedup();
        assert_eq!(shas.len(), 3, "{fault:?}: three different images attached");
        assert!(
            media.len() <= 4,
            "{fault:?}: at most one unattached extra: {media:#?}"
        );
    }
}

#[test]
fn an_image_without_alt_text_goes_without_a_description_and_warns() {
    let api = FakeMastodon::start(500);
    let p = project(&api);
    p.file(
        "content/images/b.jpg",
        crate::support::image_gen::plain_jpeg(20, 20, [1, 2, 3]),
    );
    p.file(super::POST, "# No words\n\nLook:\n\n![](images/b.jpg)\n");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let media = api.media();
    assert_eq!(media.len(), 1);
    assert!(
        media[0].description.as_deref().unwrap_or("").is_empty(),
        "{:?}",
        media[0].description
    );
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains(&super::no_alt("content/2026-11-29.md:5", "images/b.jpg")),
        "{}",
        shown(&out)
    );
}

#[test]
fn dry_run_shows_what_is_left_out() {
    let api = FakeMastodon::start(500);
    let p = project(&api);
    six_pictures(&p);
    let out = p.run(&["run", "--dry-run", TODAY]);
    out.code(0);
    assert!(
        out.stdout.contains(&format!(
            "{}left out",
            super::image_line("masto", "content/images/e.jpg", "Picture e")
        )),
        "{}",
        shown(&out)
    );
    assert!(out.stdout.contains(&format!(
        "{}upload",
        super::image_line("masto", "content/images/cover.jpg", "The cover")
    )));
    assert_eq!(api.server.request_count(), 0);
}

#[test]
fn a_lost_status_answer_is_confirmed_and_the_media_stay_on_it() {
    let api = FakeMastodon::start(500);
    api.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::CommitHang);
    let p = project(&api);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let statuses = api.statuses();
    assert_eq!(statuses.len(), 1, "{}", shown(&out));
    let media = api.media();
    assert_eq!(media.len(), 3, "no image uploaded twice: {media:#?}");
    let id = statuses[0]["id"].as_str().unwrap();
    assert!(media.iter().all(|m| m.status_id.as_deref() == Some(id)));
    let line = line(&p, "masto", KEY);
    assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
    assert_eq!(media_field(&line).len(), 3, "{line}");
}

#[test]
fn an_edit_with_a_replaced_image_puts_the_status_with_the_new_media() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("link = \"https://blog.test/{key}\"\non_edit = \"update\""),
    );
    p.secret("secrets/masto.token", TOKEN);
    pictures(&p);
    p.run(&["run", TODAY]).code(0);
    p.file(
        "content/images/b.jpg",
        crate::support::image_gen::plain_jpeg(40, 30, [30, 220, 30]),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let s = api.state.lock().unwrap();
    assert_eq!(s.edit_requests, 1, "{}", shown(&out));
    assert_eq!(s.media.len(), 4, "only the new picture is uploaded");
    let new_id = s.media[3].id.clone();
    let old_ids: Vec<String> = s.media[..2].iter().map(|m| m.id.clone()).collect();
    drop(s);
    let status = &api.statuses()[0];
    let attached: Vec<&str> = status["media_attachments"]
        .as_array()
        .unwrap_or_else(|| panic!("{status:#}"))
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        attached,
        [old_ids[0].as_str(), old_ids[1].as_str(), new_id.as_str()]
    );
}
