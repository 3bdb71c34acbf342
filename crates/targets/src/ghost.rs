//! `kind = "ghost"`: a Ghost site through its Admin API, with a custom integration's Admin API
//! key. Ghost has no idempotency key: the key in the slug says where a copy would be, and the
//! words of its title and HTML say whether the copy there is this post.

use super::net::{Http, Reply, encode, status_class};
use super::secret::Secret;
use super::{Attempts, Context, Find, Lookup, Media, Outgoing, Secrets, Target, Upload};
use crate::clock::Clock;
use crate::error::{Class, Error, Kind};
use crate::post::Post;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

mod edit;
mod lookup;
mod media;
mod token;
mod version;

use token::AdminKey;

/// Ghost keeps at most this many characters of a cover's alt text (`posts_meta`).
const MAX_ALT: usize = 191;
/// Ghost refuses a `custom_excerpt` longer than this.
const MAX_EXCERPT: usize = 300;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The site root, e.g. `https://blog.example.com`.
    url: String,
    /// File holding the integration's Admin API key, `id:secret`.
    admin_key_file: PathBuf,
}

pub struct Ghost {
    /// The site root, without a trailing `/`.
    site: String,
    key: AdminKey,
    secret: Secret,
    http: Http,
    /// The target's name and its state file as shown, for the advice after a refused update.
    name: String,
    state_file: PathBuf,
    clock: Clock,
    timeout: Duration,
    /// The project takes slugged keys: a date key's day may hold other keys' copies (`place`).
    slugged: bool,
    /// The title (`template`).
    template: Option<crate::template::Template>,
}

impl Ghost {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Ghost, Error> {
        let secret = Secret::read(ctx, &settings.admin_key_file, "Admin API key")?
            .one_line(ctx, "Admin API key")?;
        let key = AdminKey::parse(secret.expose()).map_err(|why| {
            Error::config(format!(
                "[targets.{}]: the Admin API key file {} cannot be used: {why}",
                ctx.target.name,
                secret.file.display()
            ))
            .hint("in Ghost, Settings → Integrations → Add custom integration; copy its Admin API key into the file")
        })?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let mut redactor = secret.redactor();
        if let Some((_, hex)) = secret.expose().split_once(':') {
            redactor.add(hex);
        }
        // A token is made per request: masked by its header, which every token starts with.
        redactor.add_token_start(key.header());
        let state = ctx.config.state.join(format!("{}.state", ctx.target.name));
        Ok(Ghost {
            site: settings.url.trim_end_matches('/').to_string(),
            key,
            secret,
            http: Http::new(connect, timeout, redactor),
            name: ctx.target.name.clone(),
            state_file: ctx.config.show(&state),
            clock: ctx.clock.clone(),
            timeout,
            template: ctx.target.template.clone(),
            slugged: ctx.config.keys.slugs,
        })
    }

    /// An Admin API URL: `path` under `/ghost/api/admin`, with its query.
    fn url(&self, path: &str, query: &str) -> String {
        match query.is_empty() {
            true => format!("{}/ghost/api/admin{path}", self.site),
            false => format!("{}/ghost/api/admin{path}?{query}", self.site),
        }
    }

    /// The headers of one request, with a token made for it alone. The token carries the
    /// machine's real time, not dayrun's clock (`--today` and tests move that one): Ghost
    /// checks it against its own.
    fn headers(&self) -> Vec<(String, String)> {
        let now = jiff::Timestamp::now().as_second();
        vec![
            (
                "Authorization".to_string(),
                format!("Ghost {}", self.key.token(now)),
            ),
            ("Accept-Version".to_string(), "v5.0".to_string()),
        ]
    }

    /// `body` with any token of this key masked (a server that echoes a request's headers
    /// would otherwise hand one back; it grants five minutes of access).
    pub(super) fn masked(&self, body: String) -> String {
        match body.contains(self.key.header()) {
            true => self.http.redactor().redact(&body),
            false => body,
        }
    }

    /// One Admin API call; any status is a `Reply`, its body with any token masked.
    fn call(
        &self,
        method: &str,
        path: &str,
        query: &str,
        body: Option<&Value>,
    ) -> Result<Reply, Error> {
        let url = self.url(path, query);
        let headers = self.headers();
        let mut reply = match (method, body) {
            ("DELETE", _) => self.http.delete(&url, &headers),
            (_, Some(body)) => self.http.send(method, &url, &headers, body),
            (_, None) => self.http.get(&url, &headers),
        }?;
        reply.body = self.masked(reply.body);
        Ok(reply)
    }

    /// A refusal, classed; the key file is named on 401/403, with what else makes Ghost refuse
    /// a token (a clock that is minutes off).
    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let err = self.http.failure(what, reply, Some(&self.secret.file));
        if err.class() != Some(Class::Auth) {
            return err;
        }
        err.hint(format!(
            "Ghost did not accept the Admin API key in {} (key id {}): copy the Admin API key of your custom integration (Settings → Integrations) into it again; if it is right, check this machine's clock (Ghost refuses tokens more than 5 minutes off)",
            self.secret.file.display(),
            self.key.id()
        ))
    }

    /// The slug that names this post on the site: the key, then the title. Ghost makes a taken
    /// slug unique with `-2`, `-3`.
    fn slug(post: &Post) -> String {
        crate::place::slug(post.place(), &post.title)
    }

    /// What a lookup compares of a copy: the characters of its title and HTML other than tags
    /// and whitespace. Ghost stores HTML sent with `source=html` as its own document and
    /// renders it again (`<figure>` around images, other spacing between blocks); the text
    /// stays.
    fn mark(title: &str, html: &str) -> String {
        let text = |s: &str| -> String {
            super::compare::html_text(s)
                .split_whitespace()
                .collect::<String>()
        };
        crate::text::mark(&format!("ghost\n{}\n{}", text(title), text(html)))
    }

    /// The receipt in an answer holding one post: its id, link and `updated_at`.
    fn receipt(&self, reply: &Reply) -> Result<Receipt, Error> {
        let receipt = self.http.receipt(reply, "/posts/0/id", "/posts/0/url")?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        Ok(Receipt {
            native: version::of_post(&doc["posts"][0]),
            ..receipt
        })
    }

    /// Read post `id` (its HTML too): `None` when Ghost answers that there is none.
    fn read(&self, id: &str) -> Result<Option<Value>, Error> {
        let path = format!("/posts/{}/", encode(id));
        let reply = self.call("GET", &path, "formats=html", None)?;
        if reply.status == 404 && error_type(&reply) == Some("NotFoundError") {
            return Ok(None);
        }
        if status_class(reply.status).is_some() {
            return Err(self.failure("read a post", &reply));
        }
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match &doc["posts"][0] {
            Value::Object(_) => Ok(Some(doc["posts"][0].clone())),
            _ => Err(Error::failure(
                Class::Unknown,
                format!(
                    "read a post: HTTP {} without a post{}",
                    reply.status,
                    self.http.excerpt(&reply.body)
                ),
            )),
        }
    }

    /// An update Ghost refused because the post changed on Ghost since dayrun wrote it (409),
    /// or one dayrun refuses to send because it never recorded which version it wrote.
    fn stale(&self, key: Key, id: &str, why: String) -> Error {
        let now = self.read(id).ok().flatten().and_then(|p| {
            p["updated_at"]
                .as_str()
                .map(|v| crate::outside::escape(v, 64))
        });
        let version = now.map_or("VERSION (its updated_at)".to_string(), |v| v);
        Error::failure(Class::Rejected, why).hint(format!(
            "nothing was overwritten. To replace what is on Ghost with the file, put `version={version}` on the {key} line of {} and run `dayrun retry {key} --force --target {}`",
            self.state_file.display(),
            self.name
        ))
    }
}

/// The `type` of Ghost's first error (`NotFoundError`, `UpdateCollisionError`, …).
fn error_type(reply: &Reply) -> Option<&'static str> {
    let doc: Value = serde_json::from_str(&reply.body).ok()?;
    let kind = doc["errors"][0]["type"].as_str()?;
    ["NotFoundError", "UpdateCollisionError"]
        .into_iter()
        .find(|k| *k == kind)
}

/// `text` cut to `max` characters (Ghost counts characters, not bytes).
fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// `kind = "ghost"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "ghost",
    publishes_to: "a Ghost site, through its Admin API",
    needs: "a custom integration's Admin API key",
    build: |ctx| Ok(Box::new(Ghost::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::IN_PLACE),
    template: Some("the title"),
    takes: &[super::shared::TIMEOUTS],
    undrillable: None,
};

impl Target for Ghost {
    /// Title, HTML, tags by name (Ghost creates the missing ones), the cover, and the key's
    /// day as the date of a post sent on another day. Never `newsletter` or `email_segment`:
    /// a post created through the API this way e-mails nobody.
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let title = super::payload::title(self.template.as_ref(), post)?;
        let mut body = json!({
            "title": title,
            "html": Self::content(post),
            "status": "published",
            "slug": Self::slug(post),
            "tags": post.tags,
        });
        if !post.summary.trim().is_empty() {
            body["custom_excerpt"] = json!(cut(post.summary.trim(), MAX_EXCERPT));
        }
        if let Some((image, alt)) = Self::cover(post) {
            body["feature_image"] = json!(image);
            if !alt.is_empty() {
                body["feature_image_alt"] = json!(cut(&alt, MAX_ALT));
            }
        }
        // As WordPress: a backfill or a late retry carries its key's day (12:00 UTC), so the
        // archive shows it there and the lookup's date window finds it.
        if post.place().day() != self.clock.now().date() {
            body["published_at"] = json!(format!("{}T12:00:00.000Z", post.place().day()));
        }
        let marks = vec![Self::mark(
            body["title"].as_str().unwrap_or_default(),
            body["html"].as_str().unwrap_or_default(),
        )];
        Ok(Outgoing {
            body,
            marks,
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, media: &Media) -> String {
        media.plan(
            image,
            str::to_string,
            &format!(" as {}", image.hashed_name()),
        )
    }

    fn publish(&mut self, _: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let post = Self::fill(&out.body, &out.media)?;
        let reply = self.call(
            "POST",
            "/posts/",
            "source=html",
            Some(&json!({ "posts": [post] })),
        )?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("create post", &reply));
        }
        self.receipt(&reply)
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "posts on {}/ghost/#/posts (drafts and scheduled too) whose URL slug starts with `{start}`",
            self.site,
            start = crate::place::start(key),
        )
    }

    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.secret)
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }
}

/// No `survey` yet: a Ghost lookup lists by slug or date and then reads each
/// candidate to compare its words, so one listing for a run would still leave a read per
/// candidate; a Ghost backfill keeps one listing per key (issue 23 asks the floor of
/// WordPress and Bluesky).
impl Find for Ghost {
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.lookup(attempts)
    }
}

/// An error from a request made before the post itself was sent cannot have published it.
fn before_post(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => Error {
            kind: Kind::Failure(Class::RetrySafe),
            ..err
        },
        _ => err,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_ghost_rendered_again_has_the_words_that_were_sent() {
        let sent = "<p>First <em>paragraph</em>.</p>\n<p><img src=\"a.jpg\" alt=\"A cat\"></p>\n<pre><code>x = 1\n</code></pre>\n";
        let kept = "<p>First <em>paragraph</em>.</p><figure class=\"kg-card kg-image-card\"><img src=\"http://x/a.jpg\" class=\"kg-image\" alt=\"A cat\" loading=\"lazy\"></figure><pre><code>x = 1</code></pre>";
        assert_eq!(Ghost::mark("T", sent), Ghost::mark("T", kept));
        assert_ne!(Ghost::mark("T", sent), Ghost::mark("T2", kept));
        assert_ne!(
            Ghost::mark("T", "<p>Weekly notes</p>"),
            Ghost::mark("T", "<p>Weekly note</p>")
        );
    }
}
