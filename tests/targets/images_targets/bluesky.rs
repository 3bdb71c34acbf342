//! Bluesky: `uploadBlob` per image, an `app.bsky.embed.images` embed (alt on each, at most 4,
//! `aspectRatio`), no link card, the link kept as a facet; an image over 1,000,000 bytes
//! re-encoded to fit; a lost uploadBlob answer; blob refs recorded and reused.

use super::{ALTS, KEY, TODAY, assert_private, line, media_field, pictures, shown, six_pictures};
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_posts::Fault;
use crate::fakes::media::{dimensions, raw_cid};
use crate::support::image_gen as pics;
use crate::support::util::Project;
use serde_json::Value;

const UPLOAD: &str = "com.atproto.repo.uploadBlob";
const CREATE: &str = "com.atproto.repo.createRecord";

fn project(api: &FakeBluesky) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("sky", "link = \"https://blog.test/{key}\""),
    );
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p
}

/// The one record's images embed.
#[track_caller]
fn embed_images(api: &FakeBluesky) -> Vec<Value> {
    let records = api.records();
    assert_eq!(records.len(), 1, "{records:#?}");
    let embed = &records[0].value["embed"];
    assert_eq!(embed["$type"], "app.bsky.embed.images", "{embed:#}");
    embed["images"].as_array().unwrap().clone()
}

/// Each embedded image: its blob was uploaded, holds clean bytes, and its aspect ratio is the
/// blob's; `media=` records `sha16=CID@MIME@SIZE@W@H` for it.
#[track_caller]
fn assert_blobs(p: &Project, api: &FakeBluesky, images: &[Value]) {
    let recorded = media_field(&line(p, "sky", KEY));
    for image in images {
        let cid = image["image"]["ref"]["$link"].as_str().unwrap();
        let blob = api
            .blob(cid)
            .unwrap_or_else(|| panic!("{cid} never uploaded"));
        assert_eq!(raw_cid(&blob.bytes), cid);
        assert_private(&format!("blob {cid}"), &blob.bytes);
        let (w, h) = dimensions(&blob.bytes).unwrap();
        assert_eq!(
            (
                image["aspectRatio"]["width"].as_u64(),
                image["aspectRatio"]["height"].as_u64()
            ),
            (Some(u64::from(w)), Some(u64::from(h))),
            "{image:#}"
        );
        let want = format!("{cid}@{}@{}@{w}@{h}", blob.mime, blob.bytes.len());
        assert!(
            recorded.iter().any(|(_, v)| *v == want),
            "media= records {want}: {recorded:?}"
        );
    }
}

#[test]
fn three_images_become_an_images_embed_with_alts_and_no_link_card() {
    let api = FakeBluesky::start();
    let p = project(&api);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let images = embed_images(&api);
    let alts: Vec<&str> = images.iter().map(|i| i["alt"].as_str().unwrap()).collect();
    assert_eq!(alts, ALTS, "cover first\n{}", shown(&out));
    assert_blobs(&p, &api, &images);
    assert_eq!(api.count(UPLOAD), 3, "{:?}", api.calls());
    let record = &api.records()[0].value;
    let facets = record["facets"].as_array().cloned().unwrap_or_default();
    assert!(
        facets
            .iter()
            .any(|f| f["features"][0]["uri"] == "https://blog.test/2026-11-29"),
        "the link stays as a facet: {record:#}"
    );
    // The cover went out upright.
    let cover = images[0]["image"]["ref"]["$link"].as_str().unwrap();
    assert!(pics::red_on_top(&api.blob(cover).unwrap().bytes));
    // Again: nothing, not even a login.
    let calls = api.calls().len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.calls().len(), calls, "{:?}", api.calls());
}

#[test]
fn six_images_embed_four_and_warn_about_two() {
    let api = FakeBluesky::start();
    let p = project(&api);
    six_pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let images = embed_images(&api);
    let alts: Vec<&str> = images.iter().map(|i| i["alt"].as_str().unwrap()).collect();
    assert_eq!(alts, ["The cover", "Picture b", "Picture c", "Picture d"]);
    let want = format!(
        "{}2 of 6 images left out (Bluesky takes 4): content/images/e.jpg, content/images/f.jpg",
        super::warning("sky")
    );
    let all = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(
        all.matches(&want).count(),
        1,
        "lacks {want:?}\n{}",
        shown(&out)
    );
    assert!(api.count(UPLOAD) <= 4, "left-out images are not uploaded");
}

#[test]
fn a_three_megabyte_photo_is_reencoded_under_the_blob_limit() {
    let api = FakeBluesky::start();
    let p = project(&api);
    let photo = pics::noisy_photo();
    assert!(photo.len() > 1_000_000);
    p.file("content/images/photo.jpg", &photo);
    p.file(
        super::POST,
        "# A big photo\n\nSee:\n\n![Noise at dusk](images/photo.jpg)\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let images = embed_images(&api);
    assert_eq!(images.len(), 1, "{}", shown(&out));
    let blob = api
        .blob(images[0]["image"]["ref"]["$link"].as_str().unwrap())
        .unwrap();
    assert!(blob.bytes.len() <= 1_000_000, "{} bytes", blob.bytes.len());
    assert_eq!(blob.mime, "image/jpeg");
    let (w, h) = dimensions(&blob.bytes).unwrap();
    assert!(w <= 1600 && h <= 1200, "never upscaled: {w}x{h}");
    let ratio = f64::from(w) / f64::from(h);
    assert!((ratio - 4.0 / 3.0).abs() < 0.01, "aspect kept: {w}x{h}");
    assert_eq!(images[0]["alt"], "Noise at dusk");
}

#[test]
fn a_lost_upload_answer_is_the_same_blob_and_one_record() {
    for fault in [Fault::CommitHang, Fault::CommitStatus(502)] {
        let api = FakeBluesky::start();
        api.state.lock().unwrap().upload_faults.push_back(fault);
        let p = project(&api);
        pictures(&p);
        let out = p.run(&["run", TODAY]);
        out.code(0);
        let images = embed_images(&api);
        assert_eq!(images.len(), 3, "{fault:?}\n{}", shown(&out));
        assert_blobs(&p, &api, &images);
        assert_eq!(api.count(CREATE), 1, "{fault:?}");
        assert_eq!(api.state.lock().unwrap().blobs.len(), 3, "{fault:?}");
    }
}

#[test]
fn a_resend_uploads_the_same_blobs_again() {
    // The record's answer is lost after it was written; the confirmation finds it, and no
    // blob is uploaded twice.
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::CommitHang]);
    let p = project(&api);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(api.records().len(), 1, "{}", shown(&out));
    assert_eq!(api.count(UPLOAD), 3, "{:?}", api.calls());
    // A createRecord turned away (429) after the uploads: the retry uploads the same bytes
    // again (the PDS may have dropped an unused blob by then) and gets the same blobs.
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::RateLimit(0)]);
    let p = project(&api);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    assert_eq!(api.records().len(), 1, "{}", shown(&out));
    assert_eq!(api.count(UPLOAD), 6, "uploaded again: {:?}", api.calls());
    let blobs: std::collections::BTreeSet<String> = embed_images(&api)
        .iter()
        .map(|i| i["image"]["ref"]["$link"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(blobs.len(), 3, "the same three blobs");
}

#[test]
fn an_image_without_alt_text_has_an_empty_alt() {
    let api = FakeBluesky::start();
    let p = project(&api);
    p.file("content/images/b.jpg", pics::plain_jpeg(20, 20, [1, 2, 3]));
    p.file(super::POST, "# No words\n\nLook:\n\n![](images/b.jpg)\n");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let images = embed_images(&api);
    assert_eq!(
        images[0]["alt"],
        "",
        "alt is required by the lexicon, empty is fine\n{}",
        shown(&out)
    );
}

#[test]
fn an_edit_with_a_replaced_image_puts_the_record_with_the_new_blob() {
    let api = FakeBluesky::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(
            "sky",
            "link = \"https://blog.test/{key}\"\non_edit = \"update\"",
        ),
    );
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    pictures(&p);
    p.run(&["run", TODAY]).code(0);
    let before = embed_images(&api);
    p.file(
        "content/images/b.jpg",
        pics::plain_jpeg(40, 30, [30, 220, 30]),
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let after = embed_images(&api);
    assert_eq!(
        api.count("com.atproto.repo.putRecord"),
        1,
        "{}",
        shown(&out)
    );
    assert_eq!(
        api.count(UPLOAD),
        6,
        "each attempt uploads its pictures (the same bytes are the same blob): {:?}",
        api.calls()
    );
    assert_eq!(after[..2], before[..2], "cover and a unchanged");
    assert_ne!(after[2]["image"], before[2]["image"]);
    assert_blobs(&p, &api, &after);
}
