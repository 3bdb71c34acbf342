//! The fake PDS answers each case of the harness README's table ("Behaviour a client sees") as
//! the real PDS did: same status, same XRPC error name and message. Raw HTTP, no dayrun.

use super::{APP_PASSWORD, DID, FakeBluesky, HANDLE};
use crate::fakes::fake_bluesky_rules::{derived_rkey, tid};
use serde_json::{Value, json};

struct Client {
    agent: ureq::Agent,
    base: String,
}

impl Client {
    fn new(api: &FakeBluesky) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build();
        Client {
            agent: config.into(),
            base: api.server.url("/xrpc/"),
        }
    }

    fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
        let mut r = r.unwrap();
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn post(&self, nsid: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let mut req = self
            .agent
            .post(format!("{}{nsid}", self.base))
            .header("Content-Type", "application/json");
        if let Some(token) = token {
            req = req.header("Authorization", format!("Bearer {token}"));
        }
        Client::answer(req.send(body.to_string().as_bytes()))
    }

    fn get_record(&self, rkey: &str) -> (u16, Value) {
        let url = format!(
            "{}com.atproto.repo.getRecord?repo={DID}&collection=app.bsky.feed.post&rkey={rkey}",
            self.base
        );
        Client::answer(self.agent.get(url).call())
    }

    fn create(&self, token: &str, rkey: &str, text: &str) -> (u16, Value) {
        let record = json!({"$type": "app.bsky.feed.post", "text": text, "createdAt": "2026-11-29T07:00:00.000Z"});
        let body = json!({"repo": DID, "collection": "app.bsky.feed.post", "rkey": rkey, "record": record});
        self.post("com.atproto.repo.createRecord", Some(token), body)
    }
}

fn error(name: &str, message: &str) -> Value {
    json!({"error": name, "message": message})
}

#[test]
fn the_fake_pds_answers_as_the_harness_readme_says() {
    let api = FakeBluesky::start();
    let c = Client::new(&api);
    let login = |password: &str| {
        c.post(
            "com.atproto.server.createSession",
            None,
            json!({"identifier": HANDLE, "password": password}),
        )
    };
    let wrong = login("nope");
    let want = error("AuthenticationRequired", "Invalid identifier or password");
    assert_eq!(wrong, (401, want));
    let (status, session) = login(APP_PASSWORD);
    assert_eq!((status, session["did"].as_str()), (200, Some(DID)));
    let token = session["accessJwt"].as_str().unwrap();
    let rkey = derived_rkey("sky", "2026-11-29", 0);
    let (status, made) = c.create(token, &rkey, "first");
    assert_eq!(status, 200);
    assert_eq!(made["uri"], format!("at://{DID}/app.bsky.feed.post/{rkey}"));
    let again = c.create(token, &rkey, "second");
    assert_eq!(
        again,
        (500, error("InternalServerError", "Internal Server Error"))
    );
    assert_eq!(c.get_record(&rkey).1["value"]["text"], "first");
    let bad = c.create(token, "hello-world", "x");
    let msg =
        "Invalid record key for app.bsky.feed.post: Invalid TID string (got \"hello-world\") at $";
    assert_eq!(bad, (400, error("InvalidRequest", msg)));
    let (status, body) = c.create(token, &tid(1, 1), &"a".repeat(301));
    let msg = "Invalid app.bsky.feed.post record: grapheme too big (maximum 300, got 301) at $.record.text";
    assert_eq!((status, body), (400, error("InvalidRequest", msg)));
    assert_eq!(c.create(token, &tid(2, 1), &"🦋".repeat(300)).0, 200);
    let (status, body) = c.create(token, &tid(3, 1), &"👨‍👩‍👧‍👦".repeat(121));
    let msg = "Invalid app.bsky.feed.post record: string too big (maximum 3000, got 3025) at $.record.text";
    assert_eq!((status, body), (400, error("InvalidRequest", msg)));
    let garbage = c.create("garbage", &tid(4, 1), "x");
    assert_eq!(
        garbage,
        (400, error("InvalidToken", "Token could not be verified"))
    );
    let none = c.post("com.atproto.repo.createRecord", None, json!({}));
    assert_eq!(none, (401, error("AuthMissing", "Authentication Required")));
    let refresh = session["refreshJwt"].as_str().unwrap();
    for _ in 0..2 {
        let (status, _) = c.post(
            "com.atproto.server.refreshSession",
            Some(refresh),
            json!({}),
        );
        assert_eq!(status, 200, "a used refresh token stays valid");
    }
    let delete = json!({"repo": DID, "collection": "app.bsky.feed.post", "rkey": rkey});
    let (status, body) = c.post("com.atproto.repo.deleteRecord", Some(token), delete.clone());
    assert!(status == 200 && body["commit"]["rev"].is_string(), "{body}");
    let again = c.post("com.atproto.repo.deleteRecord", Some(token), delete);
    assert_eq!(again, (200, json!({})));
    let msg = format!("Could not locate record: at://{DID}/app.bsky.feed.post/{rkey}");
    assert_eq!(c.get_record(&rkey), (400, error("RecordNotFound", &msg)));
    api.state.lock().unwrap().expire_before = Some("com.atproto.repo.createRecord".into());
    let expired = c.create(token, &tid(5, 1), "x");
    assert_eq!(expired, (400, error("ExpiredToken", "Token has expired")));
}
