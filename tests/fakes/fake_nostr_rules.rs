//! The fake relays keep the real ones' rules: the same events sent to the fake of each flavour
//! and to the real relay it stands for (the harness's nostr-rs-relay and nostr-relay) get the
//! same `OK` (accepted or not, the reason's prefix, whether the id is echoed), and a deletion
//! leaves the same events served. Ignored without `DAYRUN_HARNESS`, as the real suites are.

use super::fake_nostr::{FakeRelay, Flavour, hex};
use crate::support::harness::{self, fresh_key};
use serde_json::{Value, json};
use sha2::Digest;

/// Signs notes with one key, as any client does.
struct Signer {
    key: k256::schnorr::SigningKey,
    public: String,
}

impl Signer {
    fn new() -> Signer {
        let secret = fresh_key("rules");
        let bytes: Vec<u8> = (0..64)
            .step_by(2)
            .map(|i| u8::from_str_radix(&secret[i..i + 2], 16).unwrap())
            .collect();
        let key = k256::schnorr::SigningKey::from_bytes(&bytes).unwrap();
        let public = hex(&key.verifying_key().to_bytes());
        Signer { key, public }
    }

    fn event(&self, created_at: i64, kind: u64, tags: Value, content: &str) -> Value {
        let serial = json!([0, self.public, created_at, kind, tags, content]).to_string();
        let id: [u8; 32] = sha2::Sha256::digest(serial.as_bytes()).into();
        let sig = self.key.sign_prehash_with_aux_rand(&id, &id).unwrap();
        json!({"id": hex(&id), "pubkey": self.public, "created_at": created_at, "kind": kind,
               "tags": tags, "content": content, "sig": hex(&sig.to_bytes())})
    }
}

/// Send `event` to `url`; the `OK` as (id echoed, accepted, the reason's prefix).
fn ok(url: &str, event: &Value) -> (bool, bool, String) {
    let (mut ws, _) = tungstenite::connect(url).unwrap();
    ws.send(tungstenite::Message::text(
        json!(["EVENT", event]).to_string(),
    ))
    .unwrap();
    loop {
        let msg: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
        if msg[0] == "OK" {
            let reason = msg[3].as_str().unwrap_or("");
            let prefix = reason.split(':').next().unwrap_or("").to_string();
            return (
                msg[1] == event["id"],
                msg[2] == true,
                if reason.contains(':') {
                    prefix
                } else {
                    String::new()
                },
            );
        }
    }
}

/// The ids `url` serves by `author`.
fn served(url: &str, author: &str) -> Vec<String> {
    let (mut ws, _) = tungstenite::connect(url).unwrap();
    ws.send(tungstenite::Message::text(
        json!(["REQ", "q", {"authors": [author]}]).to_string(),
    ))
    .unwrap();
    let mut ids = Vec::new();
    loop {
        let msg: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
        match msg[0].as_str() {
            Some("EVENT") => ids.push(msg[2]["id"].as_str().unwrap().to_string()),
            Some("EOSE") => break,
            _ => {}
        }
    }
    ids.sort();
    ids
}

/// What `url` answers to each case, and what it serves after a deletion.
fn answers(url: &str) -> Vec<String> {
    let signer = Signer::new();
    let now = jiff::Timestamp::now().as_second();
    let note = signer.event(now, 1, json!([]), "a note");
    let mut bad = signer.event(now, 1, json!([]), "tampered");
    bad["content"] = json!("changed after signing");
    let old = signer.event(now - 2 * 366 * 86_400, 1, json!([]), "two years old");
    let ahead = signer.event(now + 7200, 1, json!([]), "two hours ahead");
    let article = |at: i64, text: &str| signer.event(at, 30023, json!([["d", "k"]]), text);
    let mut said: Vec<String> = [
        ("new", &note),
        ("again", &note),
        ("bad signature", &bad),
        ("two years old", &old),
        ("two hours ahead", &ahead),
        ("article", &article(now, "v1")),
        ("its newer version", &article(now + 1, "v2")),
        ("its older version", &article(now - 1, "v0")),
    ]
    .into_iter()
    .map(|(case, event)| format!("{case}: {:?}", ok(url, event)))
    .collect();
    let deletion = signer.event(now, 5, json!([["e", note["id"]]]), "");
    said.push(format!("deletion: {:?}", ok(url, &deletion)));
    said.push(format!("deleted note sent again: {:?}", ok(url, &note)));
    let kinds = served(url, &signer.public).len();
    said.push(format!("served after: {kinds} events"));
    said
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn the_fake_relays_answer_as_the_real_ones() {
    let relays = harness::nostr();
    for (flavour, real) in [(Flavour::Rs, &relays.rs), (Flavour::Py, &relays.py)] {
        let fake = FakeRelay::start(flavour);
        let (fake, real) = (answers(&fake.url()), answers(real));
        assert_eq!(fake, real, "{flavour:?}: the fake, then the real relay");
    }
}
