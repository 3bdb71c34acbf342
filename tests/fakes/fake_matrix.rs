//! A fake Matrix homeserver (client-server API v1.x, as Synapse 1.163 answers it; see
//! /work/shared/harness/matrix/README.md and `fake_matrix_rules.rs`): bearer tokens, each of
//! one device (401 `M_MISSING_TOKEN` / `M_UNKNOWN_TOKEN`); `PUT …/send/{type}/{txnId}` and
//! `PUT …/redact/{id}/{txnId}` deduplicated per device and room by the txnId alone (a second
//! send answers the first event, whatever its endpoint) until `forget_txns`; `/messages` with `dir` (required, as the spec says; Synapse
//! pages forwards without it), `from`, `limit`
//! (capped at 1000) and a `filter` of `types`/`senders`, paged by stream tokens, `end` on every
//! page with events (the next page after the room's start is empty, without it); `/event/{id}` with the latest `m.replace` by the same sender in
//! `unsigned.m.relations`; a redaction empties the content and adds
//! `unsigned.redacted_because`; aliases, the encryption state event (404 `M_NOT_FOUND` when
//! none), `whoami`; media ids made by `POST /_matrix/media/v1/create` and filled once by
//! `PUT /_matrix/media/v3/upload/{server}/{id}` (409 `M_CANNOT_OVERWRITE_MEDIA` after);
//! `M_FORBIDDEN` for a room the user is not in; 429 `M_LIMIT_EXCEEDED` with `retry_after_ms`.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

pub const TOKEN: &str = "syt_YWxpY2U_fakeTokenAAAAAAAAAAAA_0a1b2c";
pub const USER: &str = "@alice:localhost";
pub const ROOM: &str = "!room1:localhost";
pub const ALIAS: &str = "#blog:localhost";
pub const SECRET_ROOM: &str = "!secret:localhost";

#[derive(Default)]
pub struct Mx {
    /// Token → (user, device).
    pub tokens: BTreeMap<String, (String, String)>,
    /// Room → its events in stream order.
    pub rooms: BTreeMap<String, Vec<Value>>,
    pub encrypted: Vec<String>,
    pub aliases: BTreeMap<String, String>,
    /// Rooms the user may post in.
    pub members: Vec<(String, String)>,
    /// (device, "room txnId") → the event id the first send made. As Synapse's
    /// `event_txn_id_device_id`: per device and room, whatever the endpoint (a redaction sent
    /// with a message's id is answered with the message).
    pub txns: BTreeMap<(String, String), String>,
    /// Media id → (creator, bytes once uploaded).
    pub media: BTreeMap<String, (String, Option<Vec<u8>>)>,
    /// What the next sends (`PUT …/send/…`) meet; `upload_faults` the next media uploads.
    pub faults: VecDeque<Fault>,
    pub upload_faults: VecDeque<Fault>,
    /// `/messages` answers this status (a database that went away).
    pub messages_fail: Option<u16>,
    /// Every request, `METHOD path?query`, in order.
    pub log: Vec<String>,
    pub sends: usize,
    pub uploads: usize,
    /// The server's clock for `origin_server_ts` (ms); moved on by each event.
    pub now_ms: i64,
    next: u64,
}

pub struct FakeMatrix {
    pub server: Server,
    pub state: Arc<Mutex<Mx>>,
}

impl FakeMatrix {
    pub fn start() -> FakeMatrix {
        let mut mx = Mx {
            now_ms: jiff::Timestamp::now().as_millisecond(),
            ..Mx::default()
        };
        mx.tokens
            .insert(TOKEN.into(), (USER.into(), "DEVICE1".into()));
        for room in [ROOM, SECRET_ROOM] {
            mx.rooms.insert(room.into(), Vec::new());
            mx.members.push((USER.into(), room.into()));
        }
        mx.aliases.insert(ALIAS.into(), ROOM.into());
        mx.encrypted.push(SECRET_ROOM.into());
        let state = Arc::new(Mutex::new(mx));
        let shared = state.clone();
        let server = Server::start(move |req| shared.lock().unwrap().handle(req));
        FakeMatrix { server, state }
    }

    /// A `[targets.room]` table pointing at the fake, quick to give up; `extra` lines follow.
    pub fn config(&self, room: &str, extra: &str) -> String {
        format!(
            "[targets.room]\nkind = \"matrix\"\nhomeserver = \"{}\"\nroom = \"{room}\"\ntoken_file = \"secrets/matrix.token\"\ntimeout_secs = 0.5\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n{extra}\n",
            self.server.url("")
        )
    }

    /// The room's `m.room.message` events, oldest first (redacted ones too).
    pub fn messages(&self, room: &str) -> Vec<Value> {
        let s = self.state.lock().unwrap();
        s.rooms[room]
            .iter()
            .filter(|e| e["type"] == "m.room.message")
            .cloned()
            .collect()
    }

    /// The room's messages that are not edits and not redacted: what a reader sees as posts.
    pub fn posts(&self, room: &str) -> Vec<Value> {
        self.messages(room)
            .into_iter()
            .filter(|e| e["content"]["m.relates_to"]["rel_type"] != "m.replace")
            .filter(|e| e["unsigned"]["redacted_because"].is_null())
            .collect()
    }

    /// A new login of the same user: another token, another device.
    pub fn login(&self, token: &str, device: &str) {
        let mut s = self.state.lock().unwrap();
        s.tokens.insert(token.into(), (USER.into(), device.into()));
    }

    /// The server forgets every transaction id (its window passed, or it restarted).
    pub fn forget_txns(&self) {
        self.state.lock().unwrap().txns.clear();
    }

    pub fn count(&self, method_path: &str) -> usize {
        let s = self.state.lock().unwrap();
        s.log.iter().filter(|l| l.starts_with(method_path)).count()
    }
}

fn error(status: u16, code: &str, message: &str) -> Reply {
    Reply::json(status, json!({"errcode": code, "error": message}))
}

/// A path's parts after `prefix`, percent-decoded.
fn parts(path: &str, prefix: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix(prefix)?;
    Some(rest.split('/').map(decode).collect())
}

fn decode(s: &str) -> String {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Mx {
    fn handle(&mut self, req: &Request) -> Reply {
        self.log.push(format!("{} {}", req.method, req.target));
        let path = req.path().to_string();
        let Some(auth) = req.header("authorization") else {
            return error(401, "M_MISSING_TOKEN", "Missing access token");
        };
        let Some((user, device)) = auth
            .strip_prefix("Bearer ")
            .and_then(|t| self.tokens.get(t))
            .cloned()
        else {
            return Reply::json(
                401,
                json!({"errcode": "M_UNKNOWN_TOKEN", "error": "Unknown access token", "soft_logout": false}),
            );
        };
        let who = (user.as_str(), device.as_str());
        if let Some(p) = parts(&path, "/_matrix/media/") {
            return self.media(req, &p, who.0);
        }
        if let Some(p) = parts(&path, "/_matrix/client/v1/rooms/") {
            return match (req.method.as_str(), p.as_slice()) {
                ("GET", [room, rel, id, kind])
                    if rel == "relations" && self.rooms.contains_key(room) =>
                {
                    let chunk: Vec<Value> = (self.rooms[room].iter().rev())
                        .filter(|e| e["content"]["m.relates_to"]["event_id"] == id.as_str())
                        .filter(|e| e["content"]["m.relates_to"]["rel_type"] == kind.as_str())
                        .cloned()
                        .collect();
                    Reply::json(200, json!({"chunk": chunk}))
                }
                _ => error(404, "M_UNRECOGNIZED", "Unrecognized request"),
            };
        }
        let Some(p) = parts(&path, "/_matrix/client/v3/") else {
            return error(404, "M_UNRECOGNIZED", "Unrecognized request");
        };
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        match (req.method.as_str(), p.as_slice()) {
            ("GET", ["account", "whoami"]) => {
                Reply::json(200, json!({"user_id": user, "device_id": device}))
            }
            ("GET", ["directory", "room", alias]) => match self.aliases.get(*alias) {
                Some(room) => Reply::json(200, json!({"room_id": room, "servers": ["localhost"]})),
                None => error(404, "M_NOT_FOUND", &format!("Room alias {alias} not found")),
            },
            (_, ["rooms", room, rest @ ..]) => {
                if !self.rooms.contains_key(*room) || !self.member(who.0, room) {
                    return error(
                        403,
                        "M_FORBIDDEN",
                        &format!("User {user} not in room {room}"),
                    );
                }
                self.room(req, room, rest, who)
            }
            _ => error(404, "M_UNRECOGNIZED", "Unrecognized request"),
        }
    }

    fn member(&self, user: &str, room: &str) -> bool {
        self.members.iter().any(|(u, r)| u == user && r == room)
    }

    fn room(
        &mut self,
        req: &Request,
        room: &str,
        rest: &[&str],
        (user, device): (&str, &str),
    ) -> Reply {
        match (req.method.as_str(), rest) {
            ("GET", ["state", "m.room.encryption", ""] | ["state", "m.room.encryption"]) => {
                match self.encrypted.iter().any(|r| r == room) {
                    true => Reply::json(200, json!({"algorithm": "m.megolm.v1.aes-sha2"})),
                    false => error(404, "M_NOT_FOUND", "Event not found."),
                }
            }
            ("PUT", ["send", kind, txn]) => {
                let content = req.json();
                if !content.is_object() {
                    return error(400, "M_NOT_JSON", "Content not JSON.");
                }
                let fault = self.faults.pop_front().unwrap_or(Fault::Normal);
                if let Some(reply) = refused(fault) {
                    return reply;
                }
                let key = (device.to_string(), format!("{room} {txn}"));
                let id = match self.txns.get(&key) {
                    Some(id) => id.clone(),
                    None => {
                        self.sends += 1;
                        let id = self.append(room, kind, user, content);
                        self.txns.insert(key, id.clone());
                        id
                    }
                };
                committed(fault, json!({"event_id": id}))
            }
            ("PUT", ["redact", target, txn]) => {
                let key = (device.to_string(), format!("{room} {txn}"));
                if let Some(id) = self.txns.get(&key) {
                    return Reply::json(200, json!({"event_id": id}));
                }
                let Some(at) = self.rooms[room]
                    .iter()
                    .position(|e| e["event_id"] == *target)
                else {
                    return error(404, "M_NOT_FOUND", "Event not found.");
                };
                let reason = req.json()["reason"].clone();
                let id = self.append(
                    room,
                    "m.room.redaction",
                    user,
                    json!({"redacts": target, "reason": reason}),
                );
                let because = self.rooms[room].last().cloned().unwrap();
                let event = &mut self.rooms.get_mut(room).unwrap()[at];
                event["content"] = json!({});
                event["unsigned"]["redacted_because"] = because;
                self.txns.insert(key, id.clone());
                Reply::json(200, json!({"event_id": id}))
            }
            ("GET", ["event", id]) => match self.event(room, id, user) {
                Some(event) => Reply::json(200, event),
                None => error(404, "M_NOT_FOUND", "Could not find event"),
            },
            ("GET", ["messages"]) => self.messages(req, room, user),
            _ => error(404, "M_UNRECOGNIZED", "Unrecognized request"),
        }
    }

    /// Append an event to the room's timeline; its id.
    fn append(&mut self, room: &str, kind: &str, sender: &str, content: Value) -> String {
        self.next += 1;
        self.now_ms += 7;
        let id = format!("$ev{}_{:x}", self.next, self.next * 7919);
        let event = json!({
            "event_id": id, "type": kind, "sender": sender, "room_id": room,
            "origin_server_ts": self.now_ms, "content": content, "unsigned": {},
        });
        self.rooms.get_mut(room).unwrap().push(event);
        id
    }

    /// Event `id` as `/event` shows it: with the latest replacement by its sender.
    fn event(&self, room: &str, id: &str, _user: &str) -> Option<Value> {
        let events = &self.rooms[room];
        let mut event = events.iter().find(|e| e["event_id"] == id)?.clone();
        let redacted = !event["unsigned"]["redacted_because"].is_null();
        let latest = events.iter().rev().find(|e| {
            e["content"]["m.relates_to"]["rel_type"] == "m.replace"
                && e["content"]["m.relates_to"]["event_id"] == id
                && e["sender"] == event["sender"]
                && e["unsigned"]["redacted_because"].is_null()
        });
        if let (Some(latest), false) = (latest, redacted) {
            event["unsigned"]["m.relations"] = json!({"m.replace": latest});
        }
        Some(event)
    }

    /// `/messages`: `dir` required; `from` a stream token (`s<N>`: before event N going
    /// back); `limit` default 10, at most 1000; `filter` of `types` and `senders`.
    fn messages(&mut self, req: &Request, room: &str, _user: &str) -> Reply {
        if let Some(status) = self.messages_fail {
            return error(status, "M_UNKNOWN", "Internal server error");
        }
        if req.query("dir").as_deref() != Some("b") {
            return error(400, "M_INVALID_PARAM", "Unknown dir");
        }
        let limit: usize = match req.query("limit").map(|l| l.parse::<usize>()) {
            None => 10,
            Some(Ok(n)) => n.min(1000),
            Some(Err(_)) => return error(400, "M_INVALID_PARAM", "limit must be an integer"),
        };
        let filter: Value = match req.query("filter") {
            None => json!({}),
            Some(text) => match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(_) => return error(400, "M_NOT_JSON", "Invalid JSON filter"),
            },
        };
        let events = &self.rooms[room];
        let start = match req.query("from") {
            None => events.len(),
            Some(token) => match token
                .strip_prefix('s')
                .and_then(|n| n.parse::<usize>().ok())
            {
                Some(n) if n <= events.len() => n,
                _ => return error(400, "M_INVALID_PARAM", "Invalid from token"),
            },
        };
        let wanted = |e: &Value, key: &str, field: &str| {
            filter[key]
                .as_array()
                .is_none_or(|list| list.iter().any(|v| *v == e[field]))
        };
        let mut chunk = Vec::new();
        let mut at = start;
        while at > 0 && chunk.len() < limit {
            at -= 1;
            let e = &events[at];
            if wanted(e, "types", "type") && wanted(e, "senders", "sender") {
                chunk.push(e.clone());
            }
        }
        // As Synapse: `end` with every page that holds events, even the last (the next page
        // is then empty, without `end`).
        let mut page = json!({"chunk": chunk, "start": format!("s{start}")});
        if !page["chunk"].as_array().unwrap().is_empty() {
            page["end"] = json!(format!("s{at}"));
        }
        Reply::json(200, page)
    }

    fn media(&mut self, req: &Request, p: &[String], user: &str) -> Reply {
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        match (req.method.as_str(), p.as_slice()) {
            ("POST", ["v1", "create"]) => {
                self.next += 1;
                let id = format!("Md{}x{}", self.next, self.next * 31);
                self.media.insert(id.clone(), (user.into(), None));
                Reply::json(
                    200,
                    json!({"content_uri": format!("mxc://localhost/{id}"), "unused_expires_at": self.now_ms + 86_400_000}),
                )
            }
            ("PUT", ["v3", "upload", server, id]) => {
                if *server != "localhost" {
                    return error(404, "M_NOT_FOUND", "Non-local server name specified");
                }
                let fault = self.upload_faults.pop_front().unwrap_or(Fault::Normal);
                if let Some(reply) = refused(fault) {
                    return reply;
                }
                let Some((creator, bytes)) = self.media.get_mut(*id) else {
                    return error(404, "M_NOT_FOUND", "Unknown media ID");
                };
                if creator != user {
                    return error(
                        403,
                        "M_FORBIDDEN",
                        "Only the creator of the media ID can upload to it",
                    );
                }
                if bytes.is_some() {
                    return error(
                        409,
                        "M_CANNOT_OVERWRITE_MEDIA",
                        "Media ID already has content",
                    );
                }
                *bytes = Some(req.body.clone());
                self.uploads += 1;
                committed(fault, json!({}))
            }
            _ => error(404, "M_UNRECOGNIZED", "Unrecognized request"),
        }
    }
}

/// The answer of a request refused before anything is stored.
fn refused(fault: Fault) -> Option<Reply> {
    match fault {
        Fault::Reject(429) | Fault::RateLimit(_) => Some(Reply::json(
            429,
            json!({"errcode": "M_LIMIT_EXCEEDED", "error": "Too Many Requests", "retry_after_ms": 20}),
        )),
        Fault::Reject(status) => Some(error(status, "M_UNKNOWN", "refused")),
        Fault::Hang => Some(Reply::Hang(std::time::Duration::from_secs(2))),
        _ => None,
    }
}

/// The answer of a request whose effect is stored: as asked, or lost on the way.
fn committed(fault: Fault, body: Value) -> Reply {
    match fault {
        Fault::CommitHang => Reply::Hang(std::time::Duration::from_secs(2)),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => error(status, "M_UNKNOWN", "Internal server error"),
        Fault::CommitNoReceipt => Reply::json(200, json!({})),
        _ => Reply::json(200, body),
    }
}
