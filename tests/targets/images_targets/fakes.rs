//! The image rules of the fakes, checked with raw HTTP (no dayrun): each answers as the
//! platform's source says (see the module docs of the fakes and the findings file).

use crate::fakes::fake_bluesky::{APP_PASSWORD, DID, FakeBluesky, HANDLE};
use crate::fakes::fake_bluesky_rules::tid;
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD, USER};
use crate::fakes::media::{raw_cid, sniff};
use crate::support::image_gen as pics;
use serde_json::{Value, json};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut r = r.unwrap();
    let status = r.status().as_u16();
    let text = r.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn wordpress_media_names_search_and_featured_media() {
    let wp = FakeWordPress::start();
    let a = agent();
    let auth = format!(
        "Basic {}",
        crate::support::util::base64(format!("{USER}:{PASSWORD}").as_bytes(), false, true)
    );
    let upload = |name: &str, bytes: &[u8], alt: &str| {
        answer(
            a.post(
                wp.server
                    .url(&format!("/wp-json/wp/v2/media?alt_text={alt}")),
            )
            .header("Authorization", &auth)
            .header("Content-Type", "image/jpeg")
            .header(
                "Content-Disposition",
                format!("attachment; filename=\"{name}\""),
            )
            .send(bytes),
        )
    };
    let jpeg = pics::plain_jpeg(10, 10, [1, 2, 3]);
    let (status, first) = upload("cat-0123456789abcdef.jpg", &jpeg, "A%20cat");
    assert_eq!(status, 201, "{first}");
    assert_eq!(first["alt_text"], "A cat");
    assert_eq!(first["title"]["raw"], "cat-0123456789abcdef");
    let url = first["source_url"].as_str().unwrap();
    assert!(url.ends_with("/cat-0123456789abcdef.jpg"), "{url}");
    // The same name again: wp_unique_filename adds -1, and the title follows the file.
    let (_, second) = upload("cat-0123456789abcdef.jpg", &jpeg, "");
    assert!(
        second["source_url"]
            .as_str()
            .unwrap()
            .ends_with("/cat-0123456789abcdef-1.jpg")
    );
    assert_eq!(second["title"]["raw"], "cat-0123456789abcdef-1");
    // A PNG named .jpg is renamed .png; a text file is refused.
    let (_, png) = upload("dog.jpg", &pics::png_with_text(), "");
    assert!(
        png["source_url"].as_str().unwrap().ends_with("/dog.png"),
        "{png}"
    );
    let (status, body) = upload("note.png", &pics::not_an_image(), "");
    assert_eq!(
        (status, body["code"].as_str()),
        (500, Some("rest_upload_sideload_error"))
    );
    let (status, body) = answer(
        a.post(wp.server.url("/wp-json/wp/v2/media"))
            .header("Authorization", &auth)
            .header("Content-Type", "image/jpeg")
            .send(&jpeg[..]),
    );
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("rest_upload_no_content_disposition"))
    );
    // Search: title or file name, substring, case aside.
    let search = |q: &str| {
        let (status, items) = answer(
            a.get(wp.server.url(&format!(
                "/wp-json/wp/v2/media?search={q}&per_page=100&context=edit"
            )))
            .header("Authorization", &auth)
            .call(),
        );
        assert_eq!(status, 200);
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    let (id1, id2) = (
        first["id"].as_u64().unwrap(),
        second["id"].as_u64().unwrap(),
    );
    assert_eq!(search("0123456789ABCDEF"), [id2, id1], "newest first");
    assert_eq!(search("nothing-like-it"), Vec::<u64>::new());
    // featured_media: an attachment is kept, anything else silently becomes 0.
    let post = |featured: Value| {
        answer(
            a.post(wp.server.url("/wp-json/wp/v2/posts"))
                .header("Authorization", &auth)
                .header("Content-Type", "application/json")
                .send(json!({"title": "t", "status": "publish", "tags": [], "featured_media": featured}).to_string()),
        )
    };
    let (status, made) = post(json!(id1));
    assert_eq!((status, made["featured_media"].as_u64()), (201, Some(id1)));
    let (status, made) = post(json!(99999));
    assert_eq!((status, made["featured_media"].as_u64()), (201, Some(0)));
    assert_eq!(post(json!("x")).0, 400);
}

#[test]
fn mastodon_media_processing_and_attachment_rules() {
    let api = FakeMastodon::start(500);
    let a = agent();
    let bearer = format!("Bearer {TOKEN}");
    let upload = |bytes: &[u8], description: Option<&str>| {
        let boundary = "XyZ";
        let mut body = Vec::new();
        if let Some(d) = description {
            body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"description\"\r\n\r\n{d}\r\n").bytes());
        }
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\nContent-Type: application/octet-stream\r\n\r\n").bytes());
        body.extend_from_slice(bytes);
        body.extend(format!("\r\n--{boundary}--\r\n").bytes());
        answer(
            a.post(api.server.url("/api/v2/media"))
                .header("Authorization", &bearer)
                .header(
                    "Content-Type",
                    format!("multipart/form-data; boundary={boundary}"),
                )
                .send(&body[..]),
        )
    };
    let jpeg = pics::plain_jpeg(10, 10, [1, 2, 3]);
    let (status, still) = upload(&jpeg, Some("alt"));
    assert_eq!(status, 200, "a still image is processed at once: {still}");
    assert!(still["url"].is_string() && still["description"] == "alt");
    let (status, gif) = upload(&pics::gif(), None);
    assert_eq!((status, gif["type"].as_str()), (202, Some("gifv")), "{gif}");
    assert!(gif["url"].is_null() && gif["description"].is_null());
    let too_long = "x".repeat(1501);
    let (status, body) = upload(&jpeg, Some(&too_long));
    assert_eq!(status, 422);
    assert_eq!(
        body["error"],
        "Validation failed: Description is too long (maximum is 1500 characters)"
    );
    assert_eq!(upload(&pics::not_an_image(), None).0, 422);
    let poll = |id: &str| {
        answer(
            a.get(api.server.url(&format!("/api/v1/media/{id}")))
                .header("Authorization", &bearer)
                .call(),
        )
    };
    let status_with = |ids: Value| {
        answer(
            a.post(api.server.url("/api/v1/statuses"))
                .header("Authorization", &bearer)
                .header("Content-Type", "application/json")
                .send(json!({"status": "hi", "media_ids": ids}).to_string()),
        )
    };
    let (still_id, gif_id) = (still["id"].as_str().unwrap(), gif["id"].as_str().unwrap());
    let (status, body) = status_with(json!([gif_id]));
    assert_eq!(
        (status, body["error"].as_str()),
        (
            422,
            Some("Cannot attach files that have not finished processing. Try again in a moment!")
        )
    );
    assert_eq!(poll(gif_id).0, 206);
    let (status, done) = poll(gif_id);
    assert!(status == 200 && done["url"].is_string(), "{done}");
    let (status, made) = status_with(json!([gif_id, still_id]));
    assert_eq!(status, 200, "{made}");
    let order: Vec<&str> = made["media_attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [gif_id, still_id], "in the order sent");
    let (status, body) = status_with(json!([still_id]));
    assert_eq!(status, 422);
    assert_eq!(
        body["error"],
        format!("Media {still_id} not found or already attached to another post")
    );
    let (status, body) = status_with(json!(["1", "2", "3", "4", "5"]));
    assert_eq!(
        (status, body["error"].as_str()),
        (422, Some("Cannot attach more than 4 files"))
    );
    let (_, instance) = answer(a.get(api.server.url("/api/v2/instance")).call());
    assert_eq!(
        instance["configuration"]["statuses"]["max_media_attachments"],
        4
    );
}

#[test]
fn bluesky_blobs_are_content_addressed_and_checked_on_the_record() {
    let api = FakeBluesky::start();
    let a = agent();
    let xrpc = |nsid: &str| api.server.url(&format!("/xrpc/{nsid}"));
    let (_, session) = answer(
        a.post(xrpc("com.atproto.server.createSession"))
            .header("Content-Type", "application/json")
            .send(json!({"identifier": HANDLE, "password": APP_PASSWORD}).to_string()),
    );
    let token = format!("Bearer {}", session["accessJwt"].as_str().unwrap());
    let upload = |bytes: &[u8], mime: &str| {
        answer(
            a.post(xrpc("com.atproto.repo.uploadBlob"))
                .header("Authorization", &token)
                .header("Content-Type", mime)
                .send(bytes),
        )
    };
    let png = pics::png_with_text();
    let (status, first) = upload(&png, "image/jpeg");
    assert_eq!(status, 200);
    let blob = first["blob"].clone();
    assert_eq!(blob["ref"]["$link"], raw_cid(&png));
    assert_eq!(
        blob["mimeType"], "image/png",
        "the type comes from the bytes"
    );
    assert_eq!(blob["size"], png.len());
    assert_eq!(upload(&png, "image/png").1, first, "same bytes, same blob");
    let create = |rkey: u64, images: Value| {
        let record = json!({"$type": "app.bsky.feed.post", "text": "pics", "createdAt": "2026-11-29T07:00:00.000Z",
                            "embed": {"$type": "app.bsky.embed.images", "images": images}});
        answer(
            a.post(xrpc("com.atproto.repo.createRecord"))
                .header("Authorization", &token)
                .header("Content-Type", "application/json")
                .send(json!({"repo": DID, "collection": "app.bsky.feed.post", "rkey": tid(rkey, 1), "record": record}).to_string()),
        )
    };
    let one = |b: &Value| json!({"alt": "a", "image": b, "aspectRatio": {"width": 3, "height": 2}});
    let (status, body) = create(
        1,
        json!([one(&blob), one(&blob), one(&blob), one(&blob), one(&blob)]),
    );
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("InvalidRequest")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("maximum 4, got 5")
    );
    let (status, body) = create(2, json!([{"image": blob}]));
    assert_eq!(status, 400, "alt is required: {body}");
    let mut wrong = blob.clone();
    wrong["mimeType"] = json!("image/jpeg");
    assert_eq!(
        create(3, json!([one(&wrong)])).1["error"],
        "InvalidMimeType"
    );
    let mut unknown = blob.clone();
    unknown["ref"]["$link"] = json!(raw_cid(b"never uploaded"));
    assert_eq!(create(4, json!([one(&unknown)])).1["error"], "BlobNotFound");
    let photo = pics::noisy_photo();
    let (_, big) = upload(&photo, "image/jpeg");
    let (status, body) = create(5, json!([one(&big["blob"])]));
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("BlobTooLarge")),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .ends_with("but the maximum size is 976.56KB.")
    );
    let (status, body) = create(6, json!([one(&blob)]));
    assert_eq!(status, 200, "{body}");
    let mut got = a
        .get(xrpc(&format!(
            "com.atproto.sync.getBlob?did={DID}&cid={}",
            raw_cid(&png)
        )))
        .call()
        .unwrap();
    assert_eq!(got.status().as_u16(), 200);
    assert_eq!(got.body_mut().read_to_vec().unwrap(), png);
    assert_eq!(
        sniff(&api.blob(&raw_cid(&png)).unwrap().bytes).unwrap().0,
        "image/png"
    );
}
