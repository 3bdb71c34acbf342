//! The fakes' removal routes answer as the real APIs do, checked without dayrun, so that a
//! failing retract test points at dayrun and not at a fake.

use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::fakes::fake_server::Server;
use crate::fakes::fake_wordpress::{self, FakeWordPress};
use serde_json::{Value, json};
use std::io::{Read, Write};

/// One request over a plain socket: the status and the JSON body (Null when empty).
fn send(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(2)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
        server.addr,
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[test]
fn posts_api_deletes_by_id() {
    let api = PostsApi::start();
    let created = send(
        &api.server,
        "POST",
        "/posts",
        &[],
        r#"{"key":"k","title":"T"}"#,
    );
    assert_eq!(created.0, 201);
    assert_eq!(send(&api.server, "DELETE", "/posts/p-1", &[], "").0, 204);
    assert_eq!(send(&api.server, "DELETE", "/posts/p-1", &[], "").0, 404);
    assert_eq!(
        send(&api.server, "GET", "/posts?key=k", &[], "").1,
        json!([])
    );
    assert_eq!(api.removed().len(), 1);
    send(
        &api.server,
        "POST",
        "/posts",
        &[],
        r#"{"key":"k","title":"T"}"#,
    );
    api.delete_faults(&[Fault::Reject(401), Fault::CommitHang]);
    assert_eq!(send(&api.server, "DELETE", "/posts/p-2", &[], "").0, 401);
    assert_eq!(api.commits_of("k"), 1, "a rejected DELETE removed the post");
    assert_eq!(
        send(&api.server, "DELETE", "/posts/p-2", &[], "").0,
        0,
        "no answer"
    );
    assert_eq!(api.commits_of("k"), 0, "CommitHang removes, then hangs");
    assert_eq!(api.delete_requests(), 4);
}

#[test]
fn wordpress_trashes_and_reads_one_post() {
    let wp = FakeWordPress::start();
    let post = wp.seed("a-post", "publish", "2026-11-29T07:00:00");
    let auth = format!(
        "Basic {}",
        crate::support::util::base64(
            format!("{}:{}", fake_wordpress::USER, fake_wordpress::PASSWORD).as_bytes(),
            false,
            true
        )
    );
    let auth = [("Authorization", auth.as_str())];
    let path = format!("/wp-json/wp/v2/posts/{}", post["id"]);
    let (status, trashed) = send(&wp.server, "DELETE", &path, &auth, "");
    assert_eq!(
        (status, &trashed["status"], &trashed["slug"]),
        (200, &json!("trash"), &json!("a-post__trashed"))
    );
    assert_eq!(
        send(&wp.server, "DELETE", &path, &auth, "").0,
        410,
        "rest_already_trashed"
    );
    let (status, read) = send(
        &wp.server,
        "GET",
        &format!("{path}?context=edit"),
        &auth,
        "",
    );
    assert_eq!((status, &read["status"]), (200, &json!("trash")));
    let (status, missing) = send(
        &wp.server,
        "GET",
        "/wp-json/wp/v2/posts/999?context=edit",
        &auth,
        "",
    );
    assert_eq!(
        (status, &missing["code"]),
        (404, &json!("rest_post_invalid_id"))
    );
    let wrong = [("Authorization", "Basic d3Jvbmc6d3Jvbmc=")];
    assert_eq!(send(&wp.server, "DELETE", &path, &wrong, "").0, 401);
}

#[test]
fn devto_unpublishes_with_put() {
    let api = FakeDevto::start();
    let key = [("api-key", fake_devto::KEY)];
    let article =
        r#"{"article":{"title":"A title","body_markdown":"Body.","published":true,"tags":[]}}"#;
    assert_eq!(
        send(&api.server, "POST", "/api/articles", &key, article).0,
        201
    );
    let (status, put) = send(
        &api.server,
        "PUT",
        "/api/articles/1000",
        &key,
        r#"{"article":{"published":false}}"#,
    );
    assert_eq!(
        (status, &put["published"], &put["title"]),
        (200, &json!(false), &json!("A title"))
    );
    assert_eq!(api.articles().len(), 1);
    assert_eq!(
        send(
            &api.server,
            "PUT",
            "/api/articles/4242",
            &key,
            r#"{"article":{"published":false}}"#
        )
        .0,
        404
    );
    let (_, all) = send(&api.server, "GET", "/api/articles/me/all", &key, "");
    assert_eq!(all[0]["published"], false);
}

#[test]
fn mastodon_deletes_and_reads_a_status() {
    let api = FakeMastodon::start(500);
    let bearer = format!("Bearer {}", fake_mastodon::TOKEN);
    let auth = [
        ("Authorization", bearer.as_str()),
        ("Idempotency-Key", "same"),
    ];
    let (_, status) = send(
        &api.server,
        "POST",
        "/api/v1/statuses",
        &auth,
        r#"{"status":"Hello"}"#,
    );
    let path = format!("/api/v1/statuses/{}", status["id"].as_str().unwrap());
    assert_eq!(send(&api.server, "GET", &path, &auth, "").0, 200);
    let (code, deleted) = send(&api.server, "DELETE", &path, &auth, "");
    assert_eq!((code, &deleted["text"]), (200, &json!("Hello")));
    let (code, missing) = send(&api.server, "GET", &path, &auth, "");
    assert_eq!((code, &missing["error"]), (404, &json!("Record not found")));
    assert_eq!(send(&api.server, "DELETE", &path, &auth, "").0, 404);
    // The same Idempotency-Key within the hour finds the deleted status: 404.
    assert_eq!(
        send(
            &api.server,
            "POST",
            "/api/v1/statuses",
            &auth,
            r#"{"status":"Hello"}"#
        )
        .0,
        404
    );
    let fresh = [
        ("Authorization", bearer.as_str()),
        ("Idempotency-Key", "new"),
    ];
    let (code, again) = send(
        &api.server,
        "POST",
        "/api/v1/statuses",
        &fresh,
        r#"{"status":"Hello"}"#,
    );
    assert_eq!((code, &again["id"]), (200, &json!("110001")));
}
