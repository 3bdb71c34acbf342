//! A strict in-process Nostr relay, written from NIP-01, NIP-09 and NIP-23 and from what the
//! two real relays of the harness answer (their sources and `shared/harness/nostr/README.md`):
//! it checks every event's id and BIP-340 signature; a duplicate is `OK true "duplicate:"`
//! (nostr-rs-relay) or `OK false "duplicate: exists"` (nostr-relay, whose refusals also carry
//! an empty id); an event older than `oldest` is refused as not recent (nostr-relay's
//! `is_recent`), one too far ahead as in the future; an addressable event (30023) replaces an
//! older one with its `d` tag, and one older than the held version is not kept
//! (nostr-rs-relay); a deletion (kind 5) removes the author's events its `e` tags name (`a`
//! tags are ignored by both) and nostr-rs-relay keeps a deleted id as a duplicate. A `REQ`
//! is answered with every stored match, newest first, then `EOSE`. Faults: an event stored
//! with its `OK` lost (the connection dropped), and a relay that is down (it accepts and
//! closes every connection at once, as a crashed relay behind a proxy does).

use k256::schnorr::{Signature, VerifyingKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tungstenite::{Message, WebSocket};

/// Which real relay the fake answers as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// nostr-rs-relay 0.8.12.
    Rs,
    /// nostr-relay 1.14 (Python).
    Py,
}

/// What the relay holds and has seen.
#[derive(Default)]
pub struct Relay {
    /// Stored events, in the order they came.
    pub events: Vec<Value>,
    /// Ids deleted (nostr-rs-relay keeps them hidden: a resend is a duplicate).
    pub hidden: Vec<String>,
    /// Every message received, as its verb (`EVENT`, `REQ`, `CLOSE`).
    pub calls: Vec<String>,
    /// The answers to come for the next events: `true` drops the connection after storing.
    pub lose_ok: Vec<bool>,
    /// The last pending line of the watched state, when each EVENT arrived.
    pub pending_at_event: Vec<Option<String>>,
    /// A relay that stores deletions but keeps what they name (NIP-09 makes them requests).
    pub keeps_deleted: bool,
    watch: Option<std::path::PathBuf>,
}

pub struct FakeRelay {
    pub port: u16,
    pub flavour: Flavour,
    pub state: Arc<Mutex<Relay>>,
    down: Arc<AtomicBool>,
}

/// Seconds since the epoch, the relay's own clock (a recency check reads it).
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

impl FakeRelay {
    pub fn start(flavour: Flavour) -> FakeRelay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(Relay::default()));
        let down = Arc::new(AtomicBool::new(false));
        let (st, dn) = (state.clone(), down.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (st, dn) = (st.clone(), dn.clone());
                std::thread::spawn(move || serve(stream, flavour, &st, &dn));
            }
        });
        FakeRelay {
            port,
            flavour,
            state,
            down,
        }
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// Down (every connection closed at once) or up again.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// The next `n` events are stored and their answer lost.
    pub fn lose_next_ok(&self, n: usize) {
        self.state.lock().unwrap().lose_ok = vec![true; n];
    }

    /// Note the state file's last pending line each time an EVENT arrives.
    pub fn watch(&self, root: &std::path::Path, target: &str) {
        self.state.lock().unwrap().watch = Some(root.join("state").join(target));
    }

    /// The stored events of `kind`.
    pub fn held(&self, kind: u64) -> Vec<Value> {
        let st = self.state.lock().unwrap();
        st.events
            .iter()
            .filter(|e| e["kind"] == kind)
            .cloned()
            .collect()
    }

    pub fn count(&self, verb: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .calls
            .iter()
            .filter(|c| *c == verb)
            .count()
    }
}

fn serve(stream: TcpStream, flavour: Flavour, state: &Mutex<Relay>, down: &AtomicBool) {
    if down.load(Ordering::SeqCst) {
        return; // closed before the handshake
    }
    let Ok(mut ws) = tungstenite::accept(stream) else {
        return;
    };
    loop {
        let Ok(msg) = ws.read() else { return };
        if down.load(Ordering::SeqCst) {
            return;
        }
        let Message::Text(text) = msg else { continue };
        let Ok(Value::Array(msg)) = serde_json::from_str::<Value>(text.as_str()) else {
            let _ = ws.send(Message::text(
                json!(["NOTICE", "invalid: not a JSON array"]).to_string(),
            ));
            continue;
        };
        let verb = msg
            .first()
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        state.lock().unwrap().calls.push(verb.clone());
        let keep_open = match verb.as_str() {
            "EVENT" => on_event(
                &mut ws,
                flavour,
                state,
                msg.get(1).cloned().unwrap_or(Value::Null),
            ),
            "REQ" => on_req(&mut ws, state, &msg),
            _ => true,
        };
        if !keep_open {
            return;
        }
    }
}

/// An `EVENT`: checked, stored by the flavour's rules, answered with `OK` (or, for a lost
/// answer, the connection dropped). `false`: the connection ends.
fn on_event(
    ws: &mut WebSocket<TcpStream>,
    flavour: Flavour,
    state: &Mutex<Relay>,
    event: Value,
) -> bool {
    let id = event["id"].as_str().unwrap_or("").to_string();
    let refused = |why: String| match flavour {
        // nostr-relay answers a refusal with an empty id.
        Flavour::Py => json!(["OK", "", false, why]),
        Flavour::Rs => json!(["OK", id, false, why]),
    };
    let answer = match check(&event, flavour) {
        Err(why) => refused(why),
        Ok(()) => {
            let mut st = state.lock().unwrap();
            st.note_pending();
            let stored = store(&mut st, flavour, &event);
            if !st.lose_ok.is_empty() && st.lose_ok.remove(0) {
                return false;
            }
            match (stored, flavour) {
                (true, _) => json!(["OK", id, true, ""]),
                (false, Flavour::Rs) => {
                    json!(["OK", id, true, "duplicate: already have this event"])
                }
                (false, Flavour::Py) => json!(["OK", id, false, "duplicate: exists"]),
            }
        }
    };
    ws.send(Message::text(answer.to_string())).is_ok()
}

impl Relay {
    fn note_pending(&mut self) {
        let Some(base) = &self.watch else { return };
        let read =
            |ext: &str| std::fs::read_to_string(base.with_extension(ext)).unwrap_or_default();
        let last = |text: &str| {
            text.lines()
                .rev()
                .find(|l| l.contains(" pending "))
                .map(str::to_string)
        };
        let line = last(&read("journal")).or_else(|| last(&read("state")));
        self.pending_at_event.push(line);
    }
}

/// NIP-01's id and signature, and the flavour's time window.
fn check(event: &Value, flavour: Flavour) -> Result<(), String> {
    let (Some(id), Some(pubkey), Some(created), Some(kind), Some(tags), Some(content), Some(sig)) = (
        event["id"].as_str(),
        event["pubkey"].as_str(),
        event["created_at"].as_u64(),
        event["kind"].as_u64(),
        event["tags"].as_array(),
        event["content"].as_str(),
        event["sig"].as_str(),
    ) else {
        return Err("invalid: Bad JSON".into());
    };
    let serial = json!([0, pubkey, created, kind, tags, content]).to_string();
    let digest: [u8; 32] = Sha256::digest(serial.as_bytes()).into();
    if hex(&digest) != id {
        return Err("invalid: event id does not match".into());
    }
    let verified = unhex(pubkey)
        .and_then(|p| VerifyingKey::from_bytes(&p).ok())
        .zip(unhex(sig).and_then(|s| Signature::try_from(s.as_slice()).ok()))
        .is_some_and(|(key, sig)| key.verify_raw(&digest, &sig).is_ok());
    if !verified {
        return Err("invalid: signature verification failed".into());
    }
    let now = now();
    match flavour {
        Flavour::Py if now.saturating_sub(created) > 31_536_000 => {
            Err(format!("invalid: {created} is too old"))
        }
        Flavour::Py if created > now + 3600 => Err(format!("invalid: {created} is in the future")),
        Flavour::Rs if created > now + 1800 => {
            Err("invalid: event created too far in the future".into())
        }
        _ => Ok(()),
    }
}

fn d_of(event: &Value) -> Option<String> {
    event["tags"]
        .as_array()?
        .iter()
        .find(|t| t[0] == "d")
        .map(|t| t[1].as_str().unwrap_or("").to_string())
}

/// Store `event` by the flavour's rules; `false`: not stored (a duplicate, a deleted id on
/// nostr-rs-relay, an older version of an addressable event there).
fn store(st: &mut Relay, flavour: Flavour, event: &Value) -> bool {
    let id = &event["id"];
    if st.events.iter().any(|e| e["id"] == *id) {
        return false;
    }
    if flavour == Flavour::Rs && st.hidden.iter().any(|h| *id == h.as_str()) {
        return false;
    }
    let (kind, pubkey, created) = (
        &event["kind"],
        &event["pubkey"],
        event["created_at"].as_u64().unwrap_or(0),
    );
    if let (Some(30000..=39999), Some(d)) = (kind.as_u64(), d_of(event)) {
        let same = |e: &Value| {
            e["kind"] == *kind && e["pubkey"] == *pubkey && d_of(e).as_deref() == Some(d.as_str())
        };
        let newer = st
            .events
            .iter()
            .any(|e| same(e) && e["created_at"].as_u64().unwrap_or(0) >= created);
        if newer && flavour == Flavour::Rs {
            return false;
        }
        st.events
            .retain(|e| !(same(e) && e["created_at"].as_u64().unwrap_or(0) < created));
    }
    if kind == 5 && !st.keeps_deleted {
        let named: Vec<String> = event["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t[0] == "e")
            .filter_map(|t| t[1].as_str().map(str::to_string))
            .collect();
        st.events.retain(|e| {
            !(e["pubkey"] == *pubkey
                && e["kind"] != 5
                && named.iter().any(|n| e["id"] == n.as_str()))
        });
        st.hidden.extend(named);
    }
    st.events.push(event.clone());
    true
}

/// A `REQ`: every stored event that matches one of its filters, newest first, then `EOSE`.
fn on_req(ws: &mut WebSocket<TcpStream>, state: &Mutex<Relay>, msg: &[Value]) -> bool {
    let Some(sub) = msg.get(1).and_then(Value::as_str) else {
        return ws
            .send(Message::text(
                json!(["NOTICE", "invalid: REQ without a subscription id"]).to_string(),
            ))
            .is_ok();
    };
    let filters = &msg[2..];
    let mut found: Vec<Value> = {
        let st = state.lock().unwrap();
        st.events
            .iter()
            .filter(|e| filters.iter().any(|f| matches(f, e)))
            .cloned()
            .collect()
    };
    found.sort_by_key(|e| std::cmp::Reverse(e["created_at"].as_u64()));
    for event in found {
        if ws
            .send(Message::text(json!(["EVENT", sub, event]).to_string()))
            .is_err()
        {
            return false;
        }
    }
    ws.send(Message::text(json!(["EOSE", sub]).to_string()))
        .is_ok()
}

/// NIP-01's filter: every field given must match.
fn matches(filter: &Value, event: &Value) -> bool {
    let within = |field: &str, value: &Value| {
        filter[field]
            .as_array()
            .is_none_or(|list| list.contains(value))
    };
    let created = event["created_at"].as_u64().unwrap_or(0);
    let tag_ok = filter
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with('#'))
        .all(|(k, want)| {
            let name = &k[1..];
            event["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|t| t[0] == name && want.as_array().is_some_and(|w| w.contains(&t[1])))
        });
    within("ids", &event["id"])
        && within("authors", &event["pubkey"])
        && within("kinds", &event["kind"])
        && filter["since"].as_u64().is_none_or(|s| created >= s)
        && filter["until"].as_u64().is_none_or(|u| created <= u)
        && tag_ok
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    text.len().is_multiple_of(2).then(|| {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
            .collect()
    })?
}
