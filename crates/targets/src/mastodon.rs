//! `kind = "mastodon"`: a status with title, summary, hashtags and link, fitted to the
//! instance's character limit, sent with an Idempotency-Key.

use super::net::{Http, Reply, encode, id_text, status_class};
use super::secret::Secret;
use super::survey::Survey;
use super::{
    Attempts, Context, Find, Lookup, Media, Outgoing, Retract, Secrets, Target, Update, Upload,
};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

mod media;
mod text;
mod thread;
mod timeline;

pub use text::{Limits, fit, length, normal};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The instance's base URL, e.g. `https://mastodon.social`.
    instance: String,
    /// File holding an access token with `write:statuses` and `read:accounts` `read:statuses`.
    token_file: PathBuf,
    /// `public` (default), `unlisted`, `private` or `direct`.
    #[serde(default = "default_visibility")]
    visibility: String,
    /// Link template added at the end; `{key}` and `{slug}` are filled in.
    link: Option<String>,
}

fn default_visibility() -> String {
    "public".into()
}

pub struct Mastodon {
    name: String,
    settings: Settings,
    token: Secret,
    http: Http,
    limits: Option<Limits>,
    account: Option<String>,
    timeout: Duration,
    /// The mark of each status's source text read in this run, by id (`timeline.rs`).
    sources: HashMap<String, Option<String>>,
    /// The run's survey of the account's statuses (`timeline.rs`).
    survey: Option<Survey<timeline::Timeline>>,
    /// The status text (`template`); without one, `text::fit` composes it.
    template: Option<crate::template::Template>,
    long: crate::thread::Long,
}

impl Mastodon {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Mastodon, Error> {
        if !["public", "unlisted", "private", "direct"].contains(&settings.visibility.as_str()) {
            return Err(Error::config(format!(
                "[targets.{}]: visibility = `{}`: use public, unlisted, private or direct",
                ctx.target.name, settings.visibility
            ))
            .at(ctx.config.show(&ctx.target.source)));
        }
        let long = super::shared::long(ctx)?;
        let token = Secret::read(ctx, &settings.token_file, "access token")?
            .one_line(ctx, "access token")?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let http = Http::new(connect, timeout, token.redactor());
        Ok(Mastodon {
            name: ctx.target.name.clone(),
            settings,
            token,
            http,
            limits: None,
            account: None,
            timeout,
            sources: HashMap::new(),
            survey: None,
            template: ctx.target.template.clone(),
            long,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.instance.trim_end_matches('/'))
    }

    fn headers(&self) -> Vec<(String, String)> {
        vec![(
            "Authorization".into(),
            format!("Bearer {}", self.token.expose()),
        )]
    }

    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let mut err = self.http.failure(what, reply, Some(&self.token.file));
        if reply.status == 422 && reply.body.contains("requires an authenticated user") {
            // A token of an application without a user: it can never post.
            err = err.reclass(Class::Auth);
        }
        if err.class() == Some(Class::Auth) {
            return err.hint(format!(
                "create a new access token (Preferences → Development → your application) with write:statuses, write:media, read:accounts and read:statuses, and put it in {}",
                self.token.file.display()
            ));
        }
        err
    }

    /// The instance's limits (defaults when it does not say or cannot be asked).
    fn limits(&mut self) -> Limits {
        if let Some(limits) = self.limits {
            return limits;
        }
        let mut limits = Limits::default();
        if let Ok(reply) = self.http.get(&self.url("/api/v2/instance"), &[])
            && reply.status == 200
        {
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            let statuses = &doc["configuration"]["statuses"];
            if let Some(n) = statuses["max_characters"].as_u64() {
                limits.max_characters = n as usize;
            }
            if let Some(n) = statuses["characters_reserved_per_url"].as_u64() {
                limits.url_characters = n as usize;
            }
            if let Some(n) = statuses["max_media_attachments"].as_u64() {
                limits.max_media = n as usize;
            }
        }
        self.limits = Some(limits);
        limits
    }

    fn link(&self, post: &Post) -> Option<String> {
        let pattern = self.settings.link.as_ref()?;
        Some(crate::template::link(pattern, post))
    }

    /// The status text: the template's, fitted to the instance's limit, else title, summary,
    /// hashtags and link (`text::fit`).
    fn text(&mut self, post: &Post) -> Result<String, Error> {
        let limits = self.limits();
        let link = self.link(post);
        let Some(template) = &self.template else {
            return fit(post, link.as_deref(), limits);
        };
        let vars = crate::template::Vars::new(post, link.as_deref());
        let fits = |t: &str| length(t, limits) <= limits.max_characters;
        let over = |t: &str| {
            format!(
                "{} characters; the instance allows {}",
                length(t, limits),
                limits.max_characters
            )
        };
        template.fit_or_refuse(vars, &fits, &over)
    }
}

impl Mastodon {
    fn account(&mut self) -> Result<String, Error> {
        if let Some(id) = &self.account {
            return Ok(id.clone());
        }
        let reply = self.http.get(
            &self.url("/api/v1/accounts/verify_credentials"),
            &self.headers(),
        )?;
        let reply = reply.success(|r| self.failure("verify credentials", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let id = id_text(&doc["id"]).ok_or_else(|| {
            Error::failure(Class::Unknown, "verify_credentials gave no account id")
        })?;
        self.account = Some(id.to_string());
        Ok(id.to_string())
    }

    /// The raw text of a status, as stored (`/api/v1/statuses/:id/source`, Mastodon 3.5+).
    fn source(&mut self, id: &str) -> Result<Option<String>, Error> {
        let path = format!("/api/v1/statuses/{}/source", encode(id));
        let reply = self.http.get(&self.url(&path), &self.headers())?;
        let reply = reply.success(|r| self.failure("read a status's source", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        Ok(doc["text"].as_str().map(str::to_string))
    }
}

/// `kind = "mastodon"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "mastodon",
    publishes_to: "a Mastodon status",
    needs: "an access token",
    build: |ctx| Ok(Box::new(Mastodon::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::TIMELINE),
    template: Some("the status text"),
    takes: &[super::shared::TIMEOUTS, super::shared::LONG],
    undrillable: None,
};

impl Target for Mastodon {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let text = self.text(post)?;
        Ok(Outgoing {
            marks: vec![mark(&normal(&text))],
            body: json!({ "status": text, "visibility": self.settings.visibility }),
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, media: &Media) -> String {
        media.plan(
            image,
            |id| format!("media {id}"),
            " with its alt text as description",
        )
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let body = Self::attach(&out.body, post, &out.media)?;
        let mut headers = self.headers();
        headers.push((
            "Idempotency-Key".into(),
            out.idempotency_key(&self.name, post.place()),
        ));
        let reply = self
            .http
            .post(&self.url("/api/v1/statuses"), &headers, &body)?;
        let reply = reply.success(|r| self.failure("post status", r))?;
        self.http.receipt(&reply, "/id", "/url")
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "the status for {key} on your profile at {}",
            self.settings.instance
        )
    }

    fn settle(&self) -> Duration {
        Duration::from_secs(30)
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

    fn as_thread(&mut self) -> Option<&mut dyn super::Thread> {
        match self.long {
            crate::thread::Long::Thread(_) => Some(self),
            crate::thread::Long::Cut => None,
        }
    }
}

impl Find for Mastodon {
    /// The account's statuses, newest first, back to the first attempt (or the key's eve):
    /// each one created since then is read back as source text and compared with the text
    /// sent. Absent once the pages reach a status older than that, or the end.
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.look(attempts)
    }

    /// The status text `prepare` would send, marked as it marks it (the lookup compares it);
    /// the instance's limits, read once a pass, are its one request.
    fn marks_of(&mut self, post: &Post) -> Option<Vec<String>> {
        self.prepare(post).ok().map(|out| out.marks)
    }

    /// One walk back to the earliest key's eve, and each status's source since, in place of
    /// a walk per key (which reads the sources of the statuses the run itself made).
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_timeline(keys, now).map(Some)
    }
}

impl Update for Mastodon {
    /// `PUT /api/v1/statuses/{id}` (Mastodon 3.5+). Off by default (`on_edit = "update"` turns
    /// it on): an edit notifies everyone who boosted the status.
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let body = Self::attach(&out.body, post, &out.media)?;
        let url = self.url(&format!("/api/v1/statuses/{}", encode(id)));
        self.sources.remove(id);
        let reply = self.http.send("PUT", &url, &self.headers(), &body)?;
        let reply = reply.success(|r| self.failure("edit status", r))?;
        let receipt = self.http.receipt(&reply, "/id", "/url")?;
        Ok(Receipt {
            id: id.to_string(),
            ..receipt
        })
    }

    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let Some(text) = self.source(id)? else {
            return Ok(Lookup::CannotTell(format!(
                "status {id} has no source text"
            )));
        };
        Ok(match out.marks.contains(&mark(&normal(&text))) {
            true => Lookup::Found(vec![Receipt::id(id)]),
            false => Lookup::Absent,
        })
    }
}

impl Retract for Mastodon {
    fn retract(&mut self, _: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let url = self.url(&format!("/api/v1/statuses/{}", encode(id)));
        self.sources.remove(id);
        let reply = self.http.delete(&url, &self.headers())?;
        if status_class(reply.status).is_none() || reply.status == 404 {
            return Ok(());
        }
        Err(self.failure("delete status", &reply))
    }

    fn still_there(&mut self, _: life::Key, id: &str) -> Result<Lookup, Error> {
        let url = self.url(&format!("/api/v1/statuses/{}", encode(id)));
        let reply = self.http.get(&url, &self.headers())?;
        match reply.status {
            404 => Ok(Lookup::Absent),
            _ if status_class(reply.status).is_some() => Err(self.failure("read a status", &reply)),
            _ => Ok(Lookup::Found(vec![Receipt::id(id)])),
        }
    }
}
