//! `kind = "matrix"`: an `m.room.message` in one Matrix room, sent with a transaction id
//! derived from target, key and generation (the homeserver answers a resend with the event it
//! made), carrying the key in its content (`app.dayrun.key`) so a lookup can find it again.

use super::net::{Http, Reply, encode};
use super::secret::Secret;
use super::{Attempts, Context, Find, Lookup, Media, Outgoing, Secrets, Target, Upload};
use crate::clock::Clock;
use crate::error::{Class, Error};
use crate::post::Post;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

mod content;
mod edit;
mod lookup;
mod media;
mod native;
mod room;
mod thread;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The homeserver's base URL, e.g. `https://matrix.example.org`.
    homeserver: String,
    /// The room: its id (`!abc:example.org`; `!abc` from room version 12) or an alias (`#blog:example.org`), resolved once
    /// a run.
    room: String,
    /// File holding the access token of the account that posts (a member of the room).
    token_file: PathBuf,
}

pub struct Matrix {
    name: String,
    /// The homeserver's base URL, without a trailing `/`.
    homeserver: String,
    /// The room as configured (an id or an alias).
    room: String,
    token: Secret,
    http: Http,
    clock: Clock,
    timeout: Duration,
    /// The room's id once resolved and checked (not encrypted), once a run (`room.rs`).
    room_id: Option<String>,
    /// The account the token belongs to (`whoami`), asked once a run when a lookup needs it.
    me: Option<String>,
    /// The message's text (`template`); without one, the post as text and HTML.
    template: Option<crate::template::Template>,
    /// `long = "thread"`: a long post as a thread of parts (`thread.rs`).
    long: crate::thread::Long,
    /// The parts (images) of a copy this run saw in the room or sent: not sent again.
    seen: std::collections::HashSet<(Key, u32, content::Part)>,
    /// The run's survey of the room (`lookup.rs`).
    survey: Option<crate::survey::Survey<lookup::Room>>,
}

impl Matrix {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Matrix, Error> {
        let at = || ctx.config.show(&ctx.target.source);
        let room = settings.room.trim().to_string();
        // A room id from room version 12 on has no `:server` (`!hash`); an alias always has.
        let id = room.starts_with('!') && room.len() > 1;
        if !(id || room.starts_with('#') && room.contains(':'))
            || room.contains(char::is_whitespace)
        {
            return Err(Error::config(format!(
                "[targets.{}]: room = `{}`: write a room id (`!abc:example.org`, or `!abc` from room version 12) or an alias (`#blog:example.org`)",
                ctx.target.name,
                crate::outside::escape(&room, 80)
            ))
            .at(at()));
        }
        let homeserver = settings.homeserver.trim_end_matches('/').to_string();
        if !(homeserver.starts_with("https://") || homeserver.starts_with("http://")) {
            return Err(Error::config(format!(
                "[targets.{}]: homeserver = `{}`: write its URL, e.g. https://matrix.example.org",
                ctx.target.name,
                crate::outside::escape(&homeserver, 80)
            ))
            .at(at()));
        }
        let token = Secret::read(ctx, &settings.token_file, "access token")?
            .one_line(ctx, "access token")?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let long = super::shared::long(ctx)?;
        Ok(Matrix {
            long,
            name: ctx.target.name.clone(),
            homeserver,
            room,
            http: Http::new(connect, timeout, token.redactor()),
            token,
            clock: ctx.clock.clone(),
            timeout,
            room_id: None,
            me: None,
            template: ctx.target.template.clone(),
            survey: None,
            seen: Default::default(),
        })
    }

    /// A client-server API URL: `path` under `/_matrix/client/v3`.
    fn url(&self, path: &str) -> String {
        format!("{}/_matrix/client/v3{path}", self.homeserver)
    }

    fn headers(&self) -> Vec<(String, String)> {
        vec![(
            "Authorization".into(),
            format!("Bearer {}", self.token.expose()),
        )]
    }

    /// A refusal, classed by its `errcode` where the status alone says too little: a token
    /// the server does not know names the token file (auth, exit 3); `M_FORBIDDEN` from a
    /// room is the account's place in it, not its token; `M_LIMIT_EXCEEDED` waits as asked.
    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let err = self.http.failure(what, reply, Some(&self.token.file));
        let (code, wait) = errcode(reply);
        match (reply.status, code.as_deref()) {
            (401, _) | (_, Some("M_UNKNOWN_TOKEN" | "M_MISSING_TOKEN")) => {
                err.reclass(Class::Auth).hint(format!(
                    "the homeserver does not know the access token in {}: log in again (or make a new token for the account) and put it in that file",
                    self.token.file.display()
                ))
            }
            (403, Some("M_FORBIDDEN")) => err.reclass(Class::Rejected).hint(format!(
                "the account may not post in {}: invite it and join the room, or give it the power level to send messages",
                self.room
            )),
            (429, _) => err.retry_after(wait.or(reply.retry_after)),
            _ => err,
        }
    }

    /// `PUT` a JSON body; `what` names it in a failure.
    fn put(&self, path: &str, body: &Value, what: &str) -> Result<Reply, Error> {
        let reply = self
            .http
            .send("PUT", &self.url(path), &self.headers(), body)?;
        reply.success(|r| self.failure(what, r))
    }

    /// `GET` a client-server path.
    fn get(&self, path: &str, what: &str) -> Result<Reply, Error> {
        let reply = self.http.get(&self.url(path), &self.headers())?;
        reply.success(|r| self.failure(what, r))
    }

    /// Send `body` as an `m.room.message` with transaction id `txn`: the event's id, and its
    /// link. A resend with the same id (same device, while the server remembers it) answers
    /// the event the first one made.
    fn send_event(&mut self, txn: &str, body: &Value) -> Result<Receipt, Error> {
        let room = self.room_id()?;
        let path = format!(
            "/rooms/{}/send/m.room.message/{}",
            encode(&room),
            encode(txn)
        );
        let reply = self.put(&path, body, "send message")?;
        let receipt = self.http.receipt(&reply, "/event_id", "/no_url")?;
        Ok(Receipt {
            url: Some(self.link(&room, &receipt.id)),
            ..receipt
        })
    }

    /// The event's `matrix.to` link (readers open it in their own client).
    fn link(&self, room: &str, event: &str) -> String {
        format!("https://matrix.to/#/{}/{}", encode(room), encode(event))
    }
}

/// The `errcode` of a Matrix error body, and the wait a 429 asks for (`retry_after_ms`).
fn errcode(reply: &Reply) -> (Option<String>, Option<Duration>) {
    let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
    let code = doc["errcode"].as_str().map(str::to_string);
    let wait = doc["retry_after_ms"].as_u64().map(Duration::from_millis);
    (code, wait)
}

/// `kind = "matrix"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "matrix",
    publishes_to: "a message in a Matrix room (not end-to-end encrypted)",
    needs: "an access token",
    build: |ctx| Ok(Box::new(Matrix::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::TIMELINE),
    template: Some("the message's text"),
    takes: &[super::shared::TIMEOUTS, super::shared::LONG],
    undrillable: None,
};

impl Target for Matrix {
    /// The message, after the room is resolved and checked once a run: an encrypted room is
    /// refused here, before anything is sent.
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        self.room_id()?;
        let (body, marks) = self.message(post)?;
        Ok(Outgoing {
            body,
            marks,
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, media: &Media) -> String {
        media.plan(
            image,
            media::shown,
            " as an m.image with its alt text as body",
        )
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let part = content::Part::Message(0);
        self.send_images(post, out.generation, &out.media)?;
        let body = self.with_key(post.place(), out.generation, &part, &out.body);
        let txn = self.txn(post.place(), out.generation, &part);
        self.send_event(&txn, &body)
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "the message for {key} in {} on {} (its content's `app.dayrun.key` says {key})",
            self.room, self.homeserver
        )
    }

    /// Synapse stores the event before it answers: a send given up on lands at once or never.
    fn settle(&self) -> Duration {
        Duration::from_secs(5)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.token)
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }

    fn as_names(&self) -> Option<&dyn crate::Names> {
        Some(self)
    }

    fn as_thread(&mut self) -> Option<&mut dyn super::Thread> {
        match self.long {
            crate::thread::Long::Thread(_) => Some(self),
            crate::thread::Long::Cut => None,
        }
    }
}

impl Find for Matrix {
    /// Within the server's transaction window, with the token that sent it: the same send
    /// again (the server answers the event it made, or makes it now). Otherwise the room's
    /// messages, newest first, back to the first attempt, compared by the key they carry and
    /// the text sent (`lookup.rs`).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.look(attempts)
    }

    fn marks_of(&mut self, post: &Post) -> Option<Vec<String>> {
        self.message(post).ok().map(|(_, marks)| marks)
    }

    /// One read of the room back to the earliest key's eve, in place of a read per key.
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_room(keys, now).map(Some)
    }
}

impl crate::Names for Matrix {
    /// The token the copy is first sent with (its fingerprint): a lookup resends with the same
    /// transaction id only under that token.
    fn choose(&self, _: Key, _: u32) -> life::Native {
        native::chosen(&self.token)
    }

    /// Event ids are the server's: a found one is not named by what dayrun chose.
    fn copy_of(&self, _: Key, _: &str) -> Option<(u32, life::Native)> {
        None
    }
}
