//! Editing and retracting a Matrix message. An edit is an `m.replace` event (the new content
//! in `m.new_content`, a fallback `* …` text for old clients), read back as the latest
//! replacement the server aggregates on the event. A retract is a redaction, read back as the
//! event with `redacted_because` and its content emptied.

use super::Matrix;
use super::content::{Part, mark_of};
use crate::error::{Class, Error};
use crate::net::{encode, status_class};
use crate::post::Post;
use crate::{Lookup, Outgoing, Retract, Update};
use life::{Key, Receipt};
use serde_json::{Value, json};

impl Matrix {
    /// The event `id` as the server has it now; `None`: it knows none (404).
    pub(super) fn event(&mut self, id: &str) -> Result<Option<Value>, Error> {
        let room = self.room_id()?;
        let path = format!("/rooms/{}/event/{}", encode(&room), encode(id));
        let reply = self.http.get(&self.url(&path), &self.headers())?;
        if reply.status == 404 {
            return Ok(None);
        }
        let reply = reply.success(|r| self.failure("read a message", r))?;
        Ok(Some(
            serde_json::from_str(&reply.body).unwrap_or(Value::Null),
        ))
    }

    /// The `m.replace` event that makes message `id` hold `new` (the key field kept in it).
    fn replacement(id: &str, new: &Value) -> Value {
        let star = |field: &str| new[field].as_str().map(|text| format!("* {text}"));
        let mut body = json!({
            "msgtype": new["msgtype"],
            "body": star("body").unwrap_or_default(),
            "m.mentions": {},
            "m.new_content": new,
            "m.relates_to": { "rel_type": "m.replace", "event_id": id },
        });
        if let Some(html) = star("formatted_body") {
            body["format"] = new["format"].clone();
            body["formatted_body"] = json!(html);
        }
        body
    }
}

impl Matrix {
    /// Send the `m.replace` that makes message `id` (of copy `generation` of `key`) hold
    /// `new`. Its transaction id is the edit's own: the text it sends and the replacement it
    /// follows (the latest on the message now), so a resend of one edit is one event, and an
    /// edit back to an earlier text is a new one (Synapse answers a known id with its event,
    /// whatever is sent with it).
    pub(super) fn replace(
        &mut self,
        key: Key,
        generation: u32,
        id: &str,
        new: &Value,
    ) -> Result<Receipt, Error> {
        let Some(event) = self.event(id)? else {
            return Err(Error::failure(
                Class::Rejected,
                format!("message {id} is not in the room any more; the edit was not sent"),
            ));
        };
        let after = event["unsigned"]["m.relations"]["m.replace"]["event_id"]
            .as_str()
            .unwrap_or("none");
        let body = Self::replacement(id, new);
        let txn = crate::net::idempotency_key(
            &self.name,
            &format!(
                "{key}#{generation} edit {id} after {after} {}",
                mark_of(new)
            ),
        );
        self.send_event(&txn, &body)
    }

    /// What message `id` shows now: the `m.new_content` of the latest replacement the server
    /// aggregates on it (`unsigned.m.relations`), or its own content. `None`: not in the room.
    pub(super) fn latest(&mut self, id: &str) -> Result<Option<Value>, Error> {
        let Some(event) = self.event(id)? else {
            return Ok(None);
        };
        let latest = &event["unsigned"]["m.relations"]["m.replace"];
        Ok(Some(match latest["content"]["m.new_content"].is_object() {
            true => latest["content"]["m.new_content"].clone(),
            false => event["content"].clone(),
        }))
    }
}

impl Update for Matrix {
    /// An `m.replace` of message `id` (`replace`).
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let part = Part::Message(0);
        let new = self.with_key(post.place(), out.generation, &part, &out.body);
        self.replace(post.place(), out.generation, id, &new)?;
        let room = self.room_id()?;
        Ok(Receipt {
            id: id.to_string(),
            url: Some(self.link(&room, id)),
            ..Receipt::default()
        })
    }

    /// Found when what the message shows now (`latest`) is the text sent.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let Some(content) = self.latest(id)? else {
            return Ok(Lookup::CannotTell(format!(
                "message {id} is not in the room any more"
            )));
        };
        Ok(match out.marks.contains(&mark_of(&content)) {
            true => Lookup::Found(vec![Receipt::id(id)]),
            false => Lookup::Absent,
        })
    }
}

impl Matrix {
    /// The events that go with message `id`: its edits (`m.replace` by this account, from
    /// `/relations`) and the `m.image` events of its copy, sent just before it.
    fn belonging(&mut self, key: Key, id: &str, message: &Value) -> Result<Vec<String>, Error> {
        let room = self.room_id()?;
        let me = self.me()?;
        let path = format!(
            "{}/_matrix/client/v1/rooms/{}/relations/{}/m.replace?limit=100",
            self.homeserver,
            encode(&room),
            encode(id)
        );
        let reply = self.http.get(&path, &self.headers())?;
        let reply = reply.success(|r| self.failure("read a message's edits", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let mut ids: Vec<String> = (doc["chunk"].as_array().into_iter().flatten())
            .filter(|e| e["sender"] == me.as_str())
            .filter_map(|e| e["event_id"].as_str().map(str::to_string))
            .collect();
        let generation = message["content"][super::content::KEY_FIELD]["generation"].as_u64();
        let at = message["origin_server_ts"].as_i64().unwrap_or_default();
        let (Some(generation), Ok(at)) = (generation, jiff::Timestamp::from_millisecond(at)) else {
            return Ok(ids); // redacted already, or not dayrun's: no images to find
        };
        let generation = u32::try_from(generation).unwrap_or_default();
        ids.extend(self.images_before(key, generation, at)?);
        Ok(ids)
    }

    /// Redact event `id` (once: the transaction id is the redaction's own).
    fn redact(&mut self, key: Key, id: &str) -> Result<(), Error> {
        let room = self.room_id()?;
        let txn = crate::net::idempotency_key(&self.name, &format!("{key} redact {id}"));
        let path = format!(
            "/rooms/{}/redact/{}/{}",
            encode(&room),
            encode(id),
            encode(&txn)
        );
        let body = json!({ "reason": "retracted with dayrun" });
        let reply = self
            .http
            .send("PUT", &self.url(&path), &self.headers(), &body)?;
        if status_class(reply.status).is_none() || reply.status == 404 {
            return Ok(());
        }
        Err(self.failure("redact a message", &reply))
    }
}

impl Retract for Matrix {
    /// A redaction of message `id`, after its edits and its images (so a retract cut short
    /// is finished by the next, which finds them again from the message); one the server no
    /// longer knows is gone already.
    fn retract(&mut self, key: Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        if let Some(message) = self.event(id)? {
            for other in self.belonging(key, id, &message)? {
                self.redact(key, &other)?;
            }
        }
        self.redact(key, id)
    }

    /// Gone when the server knows no such event, or it is redacted (`redacted_because`, its
    /// content emptied).
    fn still_there(&mut self, _: Key, id: &str) -> Result<Lookup, Error> {
        let Some(event) = self.event(id)? else {
            return Ok(Lookup::Absent);
        };
        let redacted = !event["unsigned"]["redacted_because"].is_null()
            || event["content"].as_object().is_some_and(|c| c.is_empty());
        Ok(match redacted {
            true => Lookup::Absent,
            false => Lookup::Found(vec![Receipt::id(id)]),
        })
    }
}
