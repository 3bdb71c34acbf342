//! The room, once a run: an alias resolved to its id (`GET /directory/room/{alias}`), and the
//! room checked for encryption (`GET /rooms/{id}/state/m.room.encryption/`: 404 is a room
//! without it). dayrun does not encrypt, so an encrypted room is refused before anything is
//! sent. And the account the token is (`whoami`), for lookups.

use super::{Matrix, errcode};
use crate::error::{Class, Error};
use crate::net::encode;
use serde_json::Value;

impl Matrix {
    /// The room's id, resolved and checked on first use.
    pub(super) fn room_id(&mut self) -> Result<String, Error> {
        if let Some(id) = &self.room_id {
            return Ok(id.clone());
        }
        let id = match self.room.starts_with('#') {
            true => self.resolve()?,
            false => self.room.clone(),
        };
        self.refuse_encrypted(&id)?;
        self.room_id = Some(id.clone());
        Ok(id)
    }

    /// The alias's room id; an alias the server does not know is the target's setup.
    fn resolve(&self) -> Result<String, Error> {
        let path = format!("/directory/room/{}", encode(&self.room));
        let reply = self.http.get(&self.url(&path), &self.headers())?;
        if reply.status == 404 {
            return Err(Error::config(format!(
                "[targets.{}]: the homeserver knows no room `{}`",
                self.name, self.room
            ))
            .hint("check the alias in `room` (or write the room's id, `!…:server`)"));
        }
        let reply = reply.success(|r| before_send(self.failure("resolve the room alias", r)))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match doc["room_id"].as_str() {
            Some(id) if id.starts_with('!') => Ok(id.to_string()),
            _ => Err(Error::failure(
                Class::RetrySafe,
                format!(
                    "resolve the room alias: HTTP {} without a room id{}",
                    reply.status,
                    self.http.excerpt(&reply.body)
                ),
            )),
        }
    }

    /// An encrypted room is refused: its members' clients would show dayrun's messages as
    /// unencrypted ones in an encrypted room, and some would not show them at all.
    fn refuse_encrypted(&self, id: &str) -> Result<(), Error> {
        let path = format!("/rooms/{}/state/m.room.encryption/", encode(id));
        let reply = self.http.get(&self.url(&path), &self.headers())?;
        if reply.status == 404 && errcode(&reply).0.as_deref() == Some("M_NOT_FOUND") {
            return Ok(());
        }
        let reply =
            reply.success(|r| before_send(self.failure("read the room's encryption", r)))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let algorithm = doc["algorithm"].as_str().unwrap_or("an algorithm");
        Err(Error::config(format!(
            "[targets.{}]: the room {} is end-to-end encrypted ({}); dayrun does not encrypt, so nothing was sent",
            self.name,
            self.room,
            crate::outside::escape(algorithm, 60)
        ))
        .hint("use a room without encryption (encryption cannot be turned off in a room once on)"))
    }

    /// The account the token belongs to (`GET /account/whoami`), once a run.
    pub(super) fn me(&mut self) -> Result<String, Error> {
        if let Some(me) = &self.me {
            return Ok(me.clone());
        }
        let reply = self.get("/account/whoami", "ask who the token is")?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let me = doc["user_id"].as_str().filter(|u| u.starts_with('@'));
        let me = me.ok_or_else(|| {
            Error::failure(Class::Unknown, "whoami answered no user id".to_string())
        })?;
        self.me = Some(me.to_string());
        Ok(me.to_string())
    }
}

/// A request made before the message was sent cannot have sent it.
fn before_send(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => err.reclass(Class::RetrySafe),
        _ => err,
    }
}
