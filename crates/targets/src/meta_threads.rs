//! `kind = "threads"`: a post on Meta's Threads, in the two steps the Threads API has: a media
//! container (`POST /me/threads`), then its publish (`POST /me/threads_publish`). Built from
//! Meta's documentation (docs/targets/threads.md lists the pages), tested against a fake written
//! from it. The module is `meta_threads`, not `threads`: `threading.rs` (the `Thread`
//! capability) and `content::thread` (the splitting) are the generic "a long post as a thread
//! of replies", which any platform has; this is one platform.

use super::net::{Http, Reply, encode, status_class};
use super::payload::ImageLinks;
use super::secret::Secret;
use super::{
    Attempts, Context, Find, Lookup, Media, Noting, Outgoing, Retract, Secrets, Target, Update,
};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use life::{Key, Receipt};
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

mod container;
mod graph;
mod listing;
mod native;
mod quota;
mod text;
mod thread;
mod token;

/// The documented base: `https://graph.threads.net/v1.0` (the overview: graph.threads.net or
/// graph.threads.com).
const API_URL: &str = "https://graph.threads.net/v1.0";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// File holding a long-lived Threads user access token (`threads_basic`,
    /// `threads_content_publish`, `threads_delete`).
    token_file: PathBuf,
    /// The API's base, up to and with the version; tests, proxies and `dayrun drill` set it.
    #[serde(default = "default_api_url")]
    api_url: String,
    /// Link template added at the end; `{key}` and `{slug}` are filled in.
    link: Option<String>,
    /// Where the site serves the post's images: Threads fetches an image from a public URL.
    image_base_url: Option<String>,
    /// Warn this many days before the token's 60 days are up (default 10).
    #[serde(default = "default_warn_days")]
    token_warn_days: u32,
}

fn default_api_url() -> String {
    API_URL.into()
}

fn default_warn_days() -> u32 {
    10
}

pub struct Threads {
    name: String,
    settings: Settings,
    token: Secret,
    http: Http,
    timeout: Duration,
    images: ImageLinks,
    template: Option<crate::template::Template>,
    /// The run's clock: when a container was made (`container.rs`).
    clock: crate::clock::Clock,
    /// The account's limits as read this run (`quota.rs`).
    quota: Option<quota::Quota>,
    /// The token's estimated end (`token.rs`).
    expiry: token::Expiry,
    long: crate::thread::Long,
    /// The run's survey of the user's posts (`listing.rs`).
    survey: Option<super::survey::Survey<listing::Surveyed>>,
}

impl Threads {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Threads, Error> {
        let token = Secret::read(ctx, &settings.token_file, "access token")?
            .one_line(ctx, "access token")?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let http = Http::new(connect, timeout, token.redactor());
        let images = ImageLinks::new(ctx, settings.image_base_url.clone())?;
        let written = ctx.config.from_file(&settings.token_file);
        let expiry = token::Expiry::of(&written, ctx.clock.instant(), settings.token_warn_days);
        expiry.warn(&ctx.target.name, &token.file);
        Ok(Threads {
            name: ctx.target.name.clone(),
            settings,
            token,
            http,
            timeout,
            images,
            template: ctx.target.template.clone(),
            clock: ctx.clock.clone(),
            quota: None,
            expiry,
            long: super::shared::long(ctx)?,
            survey: None,
        })
    }

    /// `path` under the API's base, with the token as the documented `access_token` parameter
    /// and `query` (already encoded) after it.
    fn url(&self, path: &str, query: &str) -> String {
        let base = self.settings.api_url.trim_end_matches('/');
        let token = encode(self.token.expose());
        match query.is_empty() {
            true => format!("{base}{path}?access_token={token}"),
            false => format!("{base}{path}?{query}&access_token={token}"),
        }
    }

    fn failure(&self, what: &str, reply: &Reply) -> Error {
        graph::failure(&self.http, what, reply, &self.token.file)
    }

    fn get(&self, what: &str, path: &str, query: &str) -> Result<Value, Error> {
        let reply = self.http.get(&self.url(path, query), &[])?;
        let reply = reply.success(|r| self.failure(what, r))?;
        Ok(serde_json::from_str(&reply.body).unwrap_or(Value::Null))
    }

    fn post(&self, what: &str, path: &str, query: &str) -> Result<Value, Error> {
        let reply = self.http.post_empty(&self.url(path, query), &[])?;
        let reply = reply.success(|r| self.failure(what, r))?;
        Ok(serde_json::from_str(&reply.body).unwrap_or(Value::Null))
    }

    fn link(&self, post: &Post) -> Option<String> {
        let pattern = self.settings.link.as_ref()?;
        Some(crate::template::link(pattern, post))
    }
}

/// `kind = "threads"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "threads",
    publishes_to: "a Threads (Meta) post",
    needs: "a long-lived access token",
    build: |ctx| Ok(Box::new(Threads::new(ctx, super::settings(ctx)?)?)),
    capabilities,
    template: Some("the post text"),
    takes: &[super::shared::TIMEOUTS, super::shared::LONG],
    undrillable: None,
};

/// A timeline; `on_edit = "update"` is refused: the Threads API has no edit endpoint.
fn capabilities(ctx: &Context) -> Result<config::Capabilities, Error> {
    if ctx.target.policy.on_edit == Some(true) {
        return Err(Error::config(format!(
            "[targets.{}]: on_edit = \"update\": the Threads API cannot edit a published post; use on_edit = \"ignore\" (or retract and publish again)",
            ctx.target.name
        ))
        .at(ctx.config.show(&ctx.target.source))
        .at_line(ctx.target.line_of("on_edit")));
    }
    super::kinds::fixed::<Settings>(ctx, config::Capabilities::TIMELINE)
}

impl Target for Threads {
    /// The text within the documented limits, and the image's public URL; refused (nothing
    /// sent) when it cannot be.
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let link = self.link(post);
        let text = match &self.template {
            Some(template) => {
                let vars = crate::template::Vars::new(post, link.as_deref());
                let fits = |t: &str| text::check(t).is_ok();
                let over = |t: &str| text::check(t).err().unwrap_or_default();
                template.fit_or_refuse(vars, &fits, &over)?
            }
            None => text::fit(post, link.as_deref())?,
        };
        text::check(&text).map_err(|why| {
            Error::failure(Class::Rejected, why)
                .at(&post.path)
                .hint("shorten the post or its template (nothing was sent)")
        })?;
        let image = self.image_url(post)?;
        Ok(Outgoing {
            marks: vec![mark(&text::normal(&text))],
            body: json!({ "text": text, "image_url": image }),
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, _: &Media) -> String {
        match self.images.url(image) {
            Some(url) => format!("send as image_url {url} (Threads fetches it)"),
            None => "refused: no image_base_url".into(),
        }
    }

    /// `publish_noting` with no line to note the container on.
    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        self.publish_noting(post, out, &mut Noting::nowhere(out.native.clone()))
    }

    /// A container (or the one the key's line keeps for this copy and text, when it is still
    /// ready), noted on the line before its publish is sent; then its publish.
    fn publish_noting(
        &mut self,
        post: &Post,
        out: &Outgoing,
        line: &mut Noting,
    ) -> Result<Receipt, Error> {
        self.room_to_publish(false)?;
        let container = self.container_for(post.place(), out, None, line)?;
        self.publish_container(&container, quota::Use::Post)
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        format!("the post for {key} on your Threads profile")
    }

    /// A post is in the user's threads once published; the documentation names no lag.
    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.token)
    }

    /// When the token is estimated to end (`token.rs`: its file's last change plus the
    /// documented 60 days): `check`, `status --check` and the metrics warn before then.
    fn credential_expiry(&self) -> Option<jiff::Timestamp> {
        self.expiry.ends
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_thread(&mut self) -> Option<&mut dyn super::Thread> {
        match self.long {
            crate::thread::Long::Thread(_) => Some(self),
            crate::thread::Long::Cut => None,
        }
    }

    fn as_update(&mut self) -> Result<&mut dyn Update, Error> {
        Err(Error::config(
            "the Threads API cannot edit a published post (on_edit = \"update\" is refused)",
        ))
    }
}

impl Threads {
    /// The image the post sends, as a public URL (`image_base_url`); Threads takes no upload.
    /// One image per post: the first (the cover when there is one).
    fn image_url(&self, post: &Post) -> Result<Option<String>, Error> {
        let Some(first) = post.images.first() else {
            return Ok(None);
        };
        match self.images.url(first) {
            Some(url) => Ok(Some(url)),
            None => Err(Error::failure(
                Class::Local,
                format!(
                    "the post has a local image (`{}`) and Threads takes images only by a public URL",
                    first.srcs[0]
                ),
            )
            .at(&post.path)
            .line(first.line)
            .hint(format!(
                "publish the images with the site and set image_base_url = \"https://…/\" in [targets.{}] (nothing was sent)",
                self.name
            ))),
        }
    }
}

impl Find for Threads {
    /// The user's threads since the first attempt (or the key's eve), newest first, matched
    /// by the text sent.
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.look(attempts)
    }

    fn marks_of(&mut self, post: &Post) -> Option<Vec<String>> {
        self.prepare(post).ok().map(|out| out.marks)
    }

    /// One walk back to the earliest key's eve in place of a walk per key.
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_listing(keys, now).map(Some)
    }
}

impl Update for Threads {
    fn update(&mut self, _: &str, _: &Post, _: &Outgoing) -> Result<Receipt, Error> {
        Err(Error::config(
            "the Threads API cannot edit a published post",
        ))
    }

    fn read_back(&mut self, _: &str, _: &Outgoing) -> Result<Lookup, Error> {
        Ok(Lookup::CannotTell(
            "the Threads API cannot edit a published post".into(),
        ))
    }
}

impl Retract for Threads {
    /// `DELETE /{media-id}` within the documented 100 deletes a day (read from
    /// `threads_publishing_limit` first: at the limit, nothing is sent and the key waits).
    fn retract(&mut self, _: Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        self.room_to_delete()?;
        let url = self.url(&format!("/{}", encode(id)), "");
        let reply = self.http.delete(&url, &[])?;
        if status_class(reply.status).is_none() || graph::is_gone(&reply) {
            self.quota_used(quota::Use::Delete);
            return Ok(());
        }
        Err(self.failure("delete the post", &reply))
    }

    fn still_there(&mut self, _: Key, id: &str) -> Result<Lookup, Error> {
        let url = self.url(&format!("/{}", encode(id)), "fields=id");
        let reply = self.http.get(&url, &[])?;
        if graph::is_gone(&reply) {
            return Ok(Lookup::Absent);
        }
        reply.success(|r| self.failure("read the post", r))?;
        Ok(Lookup::Found(vec![Receipt::id(id)]))
    }
}
