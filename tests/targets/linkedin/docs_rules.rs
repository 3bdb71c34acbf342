//! The fake LinkedIn asked directly, one documented rule at a time, so that a fake that
//! drifts from the pages it follows (docs/targets/linkedin.md) fails here first: the headers
//! every call needs, the error body, the finder's `q`, the fields a partial update sets, an
//! idempotent delete, what a MultiImage post holds.

use crate::fakes::fake_linkedin::{FakeLinkedin, MEMBER, ORG, TOKEN};
use crate::fakes::fake_linkedin_images::Image;
use serde_json::{Value, json};

/// A request to the fake as dayrun would make it, less the headers `drop` names, plus `extra`:
/// its status and its body (JSON, or null).
fn call(
    li: &FakeLinkedin,
    method: &str,
    path: &str,
    body: Option<&Value>,
    extra: &[(&str, &str)],
    drop: &[&str],
) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let auth = format!("Bearer {TOKEN}");
    let mut headers = vec![
        ("Authorization", auth.as_str()),
        ("LinkedIn-Version", "202601"),
        ("X-Restli-Protocol-Version", "2.0.0"),
    ];
    headers.retain(|(name, _)| !drop.contains(name));
    headers.extend_from_slice(extra);
    let url = li.server.url(path);
    let mut request = ureq::http::Request::builder().method(method).uri(&url);
    for (name, value) in &headers {
        request = request.header(*name, *value);
    }
    let text = body.map(Value::to_string).unwrap_or_default();
    if body.is_some() {
        request = request.header("Content-Type", "application/json");
    }
    let mut reply = agent.run(request.body(text).unwrap()).unwrap();
    let status = reply.status().as_u16();
    let text = reply.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The finder for the organization's posts.
const FINDER: &str = "/rest/posts?q=author&author=urn%3Ali%3Aorganization%3A2414183";

#[test]
fn the_fake_refuses_what_the_docs_require_absent() {
    let li = FakeLinkedin::start();
    let get = |path: &str, extra: &[(&str, &str)], drop: &[&str]| {
        call(&li, "GET", path, None, extra, drop).0
    };
    assert_eq!(get(FINDER, &[], &["LinkedIn-Version"]), 400);
    assert_eq!(get(FINDER, &[], &["X-Restli-Protocol-Version"]), 400);
    assert_eq!(
        get(
            FINDER,
            &[("LinkedIn-Version", "202401")],
            &["LinkedIn-Version"]
        ),
        426
    );
    assert_eq!(get(FINDER, &[], &["Authorization"]), 401);
    assert_eq!(get(FINDER, &[], &[]), 200);
    // Request Methods: a FINDER is a GET with `q={finderName}`.
    let no_finder = FINDER.replace("q=author&", "");
    assert_eq!(get(&no_finder, &[], &[]), 400);
    assert_eq!(ORG, "urn:li:organization:2414183");
}

/// Error Handling: "Error responses have the following details: message, serviceErrorCode,
/// status", and nothing the page does not name.
#[test]
fn the_fakes_errors_have_the_documented_body() {
    let li = FakeLinkedin::start();
    for (path, drop) in [
        (FINDER, "LinkedIn-Version"),
        (FINDER, "Authorization"),
        ("/rest/posts/urn%3Ali%3Ashare%3A1", ""),
    ] {
        let (status, body) = call(&li, "GET", path, None, &[], &[drop]);
        let mut keys: Vec<&str> = body
            .as_object()
            .unwrap_or_else(|| panic!("{path} without {drop}: {body}"))
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["message", "serviceErrorCode", "status"], "{body}");
        assert_eq!(body["status"], status, "{body}");
        assert!(body["serviceErrorCode"].is_u64(), "{body}");
        assert!(body["message"].is_string(), "{body}");
    }
}

/// A post of the organization's, made by hand: its URN, and its path under `/rest`.
fn seeded(li: &FakeLinkedin) -> (String, String) {
    let urn = li.seed(ORG, "Seeded", -60_000);
    let path = format!("/rest/posts/{}", urn.replace(':', "%3A"));
    (urn, path)
}

/// Partial update: the fields LinkedIn lists as updatable are taken (204), any other refused.
#[test]
fn a_partial_update_sets_only_the_listed_fields() {
    let li = FakeLinkedin::start();
    let (_, path) = seeded(&li);
    let method = [("X-RestLi-Method", "PARTIAL_UPDATE")];
    let set = |field: &str, value: Value| {
        let body = json!({ "patch": { "$set": { field: value } } });
        call(&li, "POST", &path, Some(&body), &method, &[]).0
    };
    let listed = [
        ("commentary", Value::from("Edited")),
        ("contentCallToActionLabel", Value::from("LEARN_MORE")),
        ("contentLandingPage", Value::from("https://example.com/")),
        ("reshareContext", json!({ "parent": "urn:li:share:1" })),
        ("lifecycleState", Value::from("PUBLISHED")),
        ("adContext", json!({ "dscName": "Ops" })),
    ];
    for (field, value) in listed {
        assert_eq!(set(field, value), 204, "{field}");
    }
    for field in ["author", "content", "visibility", "distribution"] {
        assert_eq!(set(field, Value::from("x")), 422, "{field}");
    }
    assert_eq!(li.live()[0]["commentary"], "Edited");
}

/// Delete: "Post deletions are idempotent. Deletion requests for a previously deleted UGC Post
/// will return a 204 code - No Content."
#[test]
fn a_delete_is_idempotent() {
    let li = FakeLinkedin::start();
    let (_, path) = seeded(&li);
    assert_eq!(call(&li, "DELETE", &path, None, &[], &[]).0, 204);
    assert_eq!(call(&li, "DELETE", &path, None, &[], &[]).0, 204);
    assert!(li.live().is_empty());
}

/// `n` images with their bytes, owned by `owner`: their URNs.
fn available(li: &FakeLinkedin, owner: &str, n: usize) -> Vec<String> {
    let mut s = li.state.lock().unwrap();
    (0..n)
        .map(|i| {
            let urn = format!("urn:li:image:{owner}-{i}");
            let image = Image {
                status: "AVAILABLE".into(),
                owner: owner.into(),
                bytes: vec![1],
            };
            s.images.insert(urn.clone(), image);
            urn
        })
        .collect()
}

/// A post of the organization's naming `images` as a `multiImage`: the create's status.
fn multi_image(li: &FakeLinkedin, images: &[String]) -> u16 {
    let images: Vec<Value> = (images.iter())
        .map(|urn| json!({ "id": urn, "altText": "" }))
        .collect();
    let body = json!({
        "author": ORG, "commentary": format!("{} images", images.len()), "visibility": "PUBLIC",
        "distribution": { "feedDistribution": "MAIN_FEED" }, "lifecycleState": "PUBLISHED",
        "content": { "multiImage": { "images": images } },
    });
    call(li, "POST", "/rest/posts", Some(&body), &[], &[]).0
}

/// MultiImage API: "minimum of 2 images and maximum of 20 images", "all images being used are
/// owned by the author or organization". The statuses of the refusals are not documented.
#[test]
fn a_multi_image_post_holds_2_to_20_images_of_its_author() {
    let li = FakeLinkedin::start();
    let ours = available(&li, ORG, 21);
    assert_eq!(multi_image(&li, &ours[..1]), 422);
    assert_eq!(multi_image(&li, &ours[..21]), 422);
    assert_eq!(multi_image(&li, &ours[..2]), 201);
    assert_eq!(multi_image(&li, &ours[..20]), 201);
    let theirs = available(&li, MEMBER, 1);
    let mixed = [ours[0].clone(), theirs[0].clone()];
    assert_eq!(multi_image(&li, &mixed), 400);
}

/// Pagination: `start` (0) and `count` (10) by default, "fewer elements … than your count" at
/// the end; and the Posts API's permissions: a member's posts are read only with
/// `r_member_social`, restricted to approved apps, so the fake refuses a member's listing.
#[test]
fn the_finder_pages_by_start_and_count_and_refuses_a_member() {
    let li = FakeLinkedin::start();
    for n in 0..25 {
        li.seed(ORG, &format!("Post {n}"), i64::from(n) * 1000);
    }
    let page = |query: &str| {
        let (status, body) = call(&li, "GET", &format!("{FINDER}{query}"), None, &[], &[]);
        assert_eq!(status, 200, "{query}: {body}");
        let texts: Vec<String> = body["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["commentary"].as_str().unwrap().to_string())
            .collect();
        texts
    };
    let first = page("");
    assert_eq!(first.len(), 10);
    let second = page("&start=10&count=10");
    assert_eq!(second.len(), 10);
    assert!(
        second.iter().all(|t| !first.contains(t)),
        "{first:?} {second:?}"
    );
    assert_eq!(
        page("&start=20&count=10").len(),
        5,
        "the end: fewer than count"
    );
    let member = FINDER.replace(
        "urn%3Ali%3Aorganization%3A2414183",
        "urn%3Ali%3Aperson%3A8675309",
    );
    assert_eq!(call(&li, "GET", &member, None, &[], &[]).0, 403);
    assert_eq!(MEMBER, "urn:li:person:8675309");
}
