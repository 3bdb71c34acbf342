//! The fake Threads API keeps the documented rules (docs/targets/threads.md lists the pages):
//! each request below is one the documentation describes, and the answer is the one it
//! describes. No live service is asked: these check the fake against the pages, not Threads.

use super::fake_threads::{FakeThreads, TOKEN};
use serde_json::Value;

/// `METHOD path?query` against the fake with the token; status and JSON body.
fn call(api: &FakeThreads, method: &str, path_query: &str) -> (u16, Value) {
    let sep = if path_query.contains('?') { '&' } else { '?' };
    let url = api
        .server
        .url(&format!("/v1.0{path_query}{sep}access_token={TOKEN}"));
    call_url(method, &url)
}

fn call_url(method: &str, url: &str) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let result = match method {
        "POST" => agent.post(url).send_empty(),
        "DELETE" => agent.delete(url).call(),
        _ => agent.get(url).call(),
    };
    let response = result.unwrap();
    let status = response.status().as_u16();
    let text = response.into_body().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn code(doc: &Value) -> (i64, i64) {
    let e = &doc["error"];
    (
        e["code"].as_i64().unwrap_or(0),
        e["error_subcode"].as_i64().unwrap_or(0),
    )
}

#[test]
fn the_two_steps_a_container_published_once_and_its_status() {
    let api = FakeThreads::start();
    let (status, doc) = call(&api, "POST", "/me/threads?media_type=TEXT&text=Hello");
    assert_eq!(status, 200);
    let container = doc["id"].as_str().unwrap().to_string();
    let (_, doc) = call(&api, "GET", &format!("/{container}?fields=status"));
    assert_eq!(doc["status"], "FINISHED");
    let (status, doc) = call(
        &api,
        "POST",
        &format!("/me/threads_publish?creation_id={container}"),
    );
    assert_eq!(status, 200, "{doc}");
    assert!(doc["id"].is_string());
    let (_, doc) = call(&api, "GET", &format!("/{container}?fields=status"));
    assert_eq!(doc["status"], "PUBLISHED");
    let (status, _) = call(
        &api,
        "POST",
        &format!("/me/threads_publish?creation_id={container}"),
    );
    assert_eq!(status, 400, "a container is published once");
}

#[test]
fn an_image_container_is_published_only_once_finished_and_an_expired_one_never() {
    // The Troubleshooting page: IN_PROGRESS is a container still in the publishing process,
    // EXPIRED one not published within 24 hours; the Posts page publishes a container once
    // its media is processed.
    let api = FakeThreads::start();
    api.state.lock().unwrap().processing = true;
    let (_, doc) = call(
        &api,
        "POST",
        "/me/threads?media_type=IMAGE&image_url=https%3A%2F%2Fblog.test%2Fcat.png&text=x",
    );
    let container = doc["id"].as_str().unwrap().to_string();
    let status = |api: &FakeThreads| call(api, "GET", &format!("/{container}?fields=status")).1;
    assert_eq!(status(&api)["status"], "IN_PROGRESS");
    let publish = format!("/me/threads_publish?creation_id={container}");
    assert_eq!(call(&api, "POST", &publish).0, 400, "not while in progress");
    api.state.lock().unwrap().processing = false;
    assert_eq!(status(&api)["status"], "FINISHED");
    let mut s = api.state.lock().unwrap();
    s.containers.get_mut(&container).unwrap().status = "EXPIRED";
    drop(s);
    assert_eq!(call(&api, "POST", &publish).0, 400, "an expired container");
    assert!(api.state.lock().unwrap().posts.is_empty());
}

#[test]
fn the_documented_refusals() {
    let api = FakeThreads::start();
    // A TEXT container needs text; an IMAGE one a URL on a public server.
    assert_eq!(call(&api, "POST", "/me/threads?media_type=TEXT").0, 400);
    assert_eq!(
        call(&api, "POST", "/me/threads?media_type=IMAGE&text=x").0,
        400
    );
    // 500 characters, an emoji as its UTF-8 bytes: 125 × 🙂 is 500, 126 is 504.
    let emoji = |n: usize| "%F0%9F%99%82".repeat(n);
    let ok = call(
        &api,
        "POST",
        &format!("/me/threads?media_type=TEXT&text={}", emoji(125)),
    );
    assert_eq!(ok.0, 200);
    let over = call(
        &api,
        "POST",
        &format!("/me/threads?media_type=TEXT&text={}", emoji(126)),
    );
    assert_eq!(over.0, 400);
    // More than 5 links fail at the container step.
    let links: Vec<String> = (1..=6).map(|i| format!("https://a.test/{i}")).collect();
    let (status, doc) = call(
        &api,
        "POST",
        &format!("/me/threads?media_type=TEXT&text={}", links.join("+")),
    );
    assert_eq!(status, 400);
    assert!(doc.to_string().contains("THREADS_API__LINK_LIMIT_EXCEEDED"));
    // A wrong token: the Graph API's code 190.
    let url = api.server.url("/v1.0/me/threads?access_token=nope");
    let (status, doc) = call_url("GET", &url);
    assert_eq!((status, code(&doc).0), (400, 190));
    // An object that does not exist: code 100, subcode 33.
    assert_eq!(code(&call(&api, "GET", "/424242?fields=id").1), (100, 33));
    // A listing page is at most 100.
    assert_eq!(call(&api, "GET", "/me/threads?limit=101").0, 400);
}

#[test]
fn the_listing_pages_by_cursor_and_the_limits_count_what_was_used() {
    let api = FakeThreads::start();
    for i in 0..3 {
        let (_, doc) = call(
            &api,
            "POST",
            &format!("/me/threads?media_type=TEXT&text=post{i}"),
        );
        let id = doc["id"].as_str().unwrap().to_string();
        call(
            &api,
            "POST",
            &format!("/me/threads_publish?creation_id={id}"),
        );
    }
    let (_, first) = call(&api, "GET", "/me/threads?fields=id,text,timestamp&limit=2");
    assert_eq!(first["data"].as_array().unwrap().len(), 2);
    assert_eq!(first["data"][0]["text"], "post2", "newest first");
    let after = first["paging"]["cursors"]["after"].as_str().unwrap();
    assert!(first["paging"]["next"].is_string());
    let (_, last) = call(&api, "GET", &format!("/me/threads?limit=2&after={after}"));
    assert_eq!(last["data"].as_array().unwrap().len(), 1);
    assert!(
        last["paging"]["next"].is_null(),
        "no next page after the last"
    );
    let (_, doc) = call(
        &api,
        "GET",
        "/me/threads_publishing_limit?fields=quota_usage,config",
    );
    assert_eq!(doc["data"][0]["quota_usage"], 3);
    assert_eq!(doc["data"][0]["config"]["quota_total"], 250);
    assert_eq!(doc["data"][0]["delete_config"]["quota_total"], 100);
    let id = first["data"][0]["id"].as_str().unwrap();
    let (status, doc) = call(&api, "DELETE", &format!("/{id}"));
    assert_eq!((status, doc["success"].as_bool()), (200, Some(true)));
    assert_eq!(
        code(&call(&api, "GET", &format!("/{id}?fields=id")).1),
        (100, 33)
    );
}

#[test]
fn a_lagging_listing_shows_a_post_only_after_its_lag_and_the_rest_at_once() {
    let api = FakeThreads::start();
    api.state.lock().unwrap().lag = std::time::Duration::from_millis(400);
    let publish = |text: &str, reply_to: Option<&str>| {
        let mut query = format!("/me/threads?media_type=TEXT&text={text}");
        if let Some(parent) = reply_to {
            query.push_str(&format!("&reply_to_id={parent}"));
        }
        let container = call(&api, "POST", &query).1["id"]
            .as_str()
            .unwrap()
            .to_string();
        let published = call(
            &api,
            "POST",
            &format!("/me/threads_publish?creation_id={container}"),
        );
        assert_eq!(published.0, 200);
        let (_, doc) = call(&api, "GET", &format!("/{container}?fields=status"));
        assert_eq!(doc["status"], "PUBLISHED", "the container says so at once");
        published.1["id"].as_str().unwrap().to_string()
    };
    let post = publish("first", None);
    // A read by its id and a reply to it work at once; the listings do not show them yet.
    let reply = publish("second", Some(&post));
    assert_eq!(call(&api, "GET", &format!("/{reply}?fields=id")).0, 200);
    let listed = |path: &str| call(&api, "GET", path).1["data"].as_array().unwrap().len();
    assert_eq!(listed("/me/threads"), 0);
    assert_eq!(listed("/me/replies"), 0);
    assert_eq!(listed(&format!("/{post}/replies")), 0);
    std::thread::sleep(std::time::Duration::from_millis(450));
    assert_eq!(listed("/me/threads"), 1);
    assert_eq!(listed("/me/replies"), 1);
    assert_eq!(listed(&format!("/{post}/replies")), 1);
}
