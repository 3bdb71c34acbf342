//! `kind = "linkedin"`: a post through LinkedIn's Posts API (`POST /rest/posts`), as a member
//! or as an organization, with an access token from a file. Written from Microsoft's LinkedIn
//! documentation of version 202601 (which pages, and which parts were not re-read: the docs
//! page, docs/targets/linkedin.md) and tested against a fake that follows it, not against the
//! live service.
//!
//! The write carries no idempotency key. An organization's posts can be listed (the lookup);
//! a member's cannot without a permission LinkedIn grants only to approved apps, so a member
//! target has no lookup and a lost answer goes to a person.

use super::net::{Http, Reply, encode};
use super::secret::Secret;
use super::{Context, Lookup, Media, Outgoing, Secrets, Target, Upload};
use crate::error::{Class, Error};
use crate::post::Post;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

mod expiry;
mod little;
mod lookup;
mod manage;
mod media;
mod quota;

pub use little::escape;

/// The documented base of the versioned APIs.
const API_URL: &str = "https://api.linkedin.com/rest";
/// The newest version in the docs this target was written from (`LinkedIn-Version`).
const VERSION: &str = "202601";
/// The most characters LinkedIn takes in a post's commentary.
const MAX_COMMENTARY: usize = 3000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Who posts: `urn:li:person:…` (the member) or `urn:li:organization:…` (a page).
    author: String,
    /// File holding the OAuth access token (`w_member_social`, or `w_organization_social` and
    /// `r_organization_social`). Its expiry, when known, is in `<token_file>.expires`.
    token_file: PathBuf,
    /// `LinkedIn-Version` (YYYYMM); LinkedIn supports a version for at least a year.
    #[serde(default = "default_version")]
    version: String,
    /// The API's base URL (tests, proxies, the drill).
    #[serde(default = "default_api_url")]
    api_url: String,
    /// Link template added at the end; `{key}` and `{slug}` are filled in.
    link: Option<String>,
}

fn default_version() -> String {
    VERSION.into()
}

fn default_api_url() -> String {
    API_URL.into()
}

/// Who the posts are by: only an organization's posts can be listed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Author {
    Member,
    Organization,
}

impl Settings {
    /// The author's kind, or why the URN is not one LinkedIn posts as.
    fn author(&self) -> Result<Author, String> {
        let id = |prefix: &str| {
            self.author.strip_prefix(prefix).filter(|id| {
                !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
        };
        match (id("urn:li:person:"), id("urn:li:organization:")) {
            (Some(_), _) => Ok(Author::Member),
            (_, Some(_)) => Ok(Author::Organization),
            _ => Err(format!(
                "author = `{}`: use urn:li:person:ID (yourself) or urn:li:organization:ID (a page you administer)",
                crate::outside::escape(&self.author, 200)
            )),
        }
    }
}

pub struct Linkedin {
    settings: Settings,
    author: Author,
    token: Secret,
    http: Http,
    timeout: Duration,
    /// When the token stops working, when known (`expiry.rs`).
    expires: Option<jiff::Timestamp>,
    clock: crate::clock::Clock,
    template: Option<crate::template::Template>,
    /// The run's survey of an organization's posts (`lookup.rs`).
    survey: Option<super::survey::Survey<lookup::Listing>>,
}

impl Linkedin {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Linkedin, Error> {
        let bad = |why: String| {
            Error::config(format!("[targets.{}]: {why}", ctx.target.name))
                .at(ctx.config.show(&ctx.target.source))
        };
        let author = settings.author().map_err(bad)?;
        expiry::version_ok(&settings.version, ctx.clock.today()).map_err(bad)?;
        let token = Secret::read(ctx, &settings.token_file, "access token")?
            .one_line(ctx, "access token")?;
        let expires = expiry::read(ctx, &settings.token_file)?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let target = Linkedin {
            http: Http::new(connect, timeout, token.redactor()),
            settings,
            author,
            token,
            timeout,
            expires,
            clock: ctx.clock.clone(),
            template: ctx.target.template.clone(),
            survey: None,
        };
        target.warn(&ctx.target.name, ctx.config.show(&target.token.file));
        Ok(target)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.api_url.trim_end_matches('/'))
    }

    /// The headers every versioned call needs (the docs: both are required).
    fn headers(&self) -> Vec<(String, String)> {
        vec![
            (
                "Authorization".into(),
                format!("Bearer {}", self.token.expose()),
            ),
            ("LinkedIn-Version".into(), self.settings.version.clone()),
            ("X-Restli-Protocol-Version".into(), "2.0.0".into()),
        ]
    }

    /// A refusal, classed; on 401 and 403 the token file is named, with what to renew; a 429
    /// that names no wait waits for the daily reset (`quota.rs`).
    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let err = self.http.failure(what, reply, Some(&self.token.file));
        if reply.status == 429 && reply.retry_after.is_none() {
            return quota::until_midnight(err, self.clock.instant());
        }
        if err.class() != Some(Class::Auth) {
            return err;
        }
        err.hint(format!(
            "LinkedIn refused the token in {}: create a new one (tokens last 60 days) with w_member_social, or w_organization_social and r_organization_social for a page, put it in that file and its expiry in {}.expires",
            self.token.file.display(),
            self.token.file.display()
        ))
    }

    /// The post `urn`'s path under the API (`/posts/{encoded urn}`).
    fn post_path(urn: &str) -> String {
        format!("/posts/{}", encode(urn))
    }

    /// Read post `urn`: `None` when LinkedIn answers that there is none (404).
    fn read(&self, urn: &str) -> Result<Option<Value>, Error> {
        self.unexpired()?;
        let reply = self
            .http
            .get(&self.url(&Self::post_path(urn)), &self.headers())?;
        if reply.status == 404 {
            return Ok(None);
        }
        let reply = reply.success(|r| self.failure("read a post", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match doc["lifecycleState"].as_str() {
            Some("DELETED") => Ok(None),
            _ if doc.is_object() => Ok(Some(doc)),
            _ => Err(Error::failure(
                Class::Unknown,
                format!("read a post: HTTP {} without a post", reply.status),
            )),
        }
    }

    /// The commentary: the template's, or the title, the summary and the link, escaped as
    /// little text. Too long for LinkedIn: the summary goes; still too long, refused.
    fn commentary(&self, post: &Post) -> Result<String, Error> {
        let link = self
            .settings
            .link
            .as_ref()
            .map(|p| crate::template::link(p, post));
        let fits = |t: &str| escape(t).chars().count() <= MAX_COMMENTARY;
        if let Some(template) = &self.template {
            let vars = crate::template::Vars::new(post, link.as_deref());
            let over = |t: &str| {
                format!(
                    "{} characters; LinkedIn takes {MAX_COMMENTARY}",
                    escape(t).chars().count()
                )
            };
            return template
                .fit_or_refuse(vars, &fits, &over)
                .map(|t| escape(&t));
        }
        let tail = link.map(|l| format!("\n\n{l}")).unwrap_or_default();
        let whole = format!("{}\n\n{}{tail}", post.title, post.summary.trim());
        let short = format!("{}{tail}", post.title);
        match [whole, short].into_iter().find(|t| fits(t)) {
            Some(text) => Ok(escape(text.trim_end())),
            None => Err(Error::failure(
                Class::Local,
                format!(
                    "the title and link are over the {MAX_COMMENTARY} characters LinkedIn takes"
                ),
            )
            .at(post.path.clone())),
        }
    }

    /// The receipt of a post: its URN and where a person sees it.
    fn receipt(urn: &str) -> Receipt {
        Receipt {
            url: Some(format!("https://www.linkedin.com/feed/update/{urn}/")),
            ..Receipt::id(urn)
        }
    }

    /// The answer to a create: the URN from `x-restli-id`; a duplicate refusal is read back.
    fn created(&self, reply: Reply, out: &Outgoing) -> Result<Receipt, Error> {
        if reply.status == 422
            && let Some(urn) = lookup::duplicate_of(&reply.body)
        {
            return self.duplicate(&urn, out);
        }
        let reply = reply.success(|r| self.failure("create post", r))?;
        match reply
            .header("x-restli-id")
            .filter(|u| u.starts_with("urn:li:"))
        {
            Some(urn) if !urn.contains(char::is_whitespace) => Ok(Self::receipt(urn)),
            _ => Err(Error::failure(
                Class::Unknown,
                format!(
                    "create post: HTTP {} without the new post's URN in x-restli-id",
                    reply.status
                ),
            )),
        }
    }
}

/// `kind = "linkedin"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "linkedin",
    publishes_to: "a LinkedIn post, as you or as a page",
    needs: "an OAuth access token (60 days) and the author's URN",
    build: |ctx| Ok(Box::new(Linkedin::new(ctx, super::settings(ctx)?)?)),
    capabilities,
    template: Some("the commentary"),
    takes: &[super::shared::TIMEOUTS],
    // A member target has no lookup, which the drill refuses by itself; a page can be drilled.
    undrillable: None,
};

/// An organization's posts are looked up by listing them; a member's cannot be listed by an
/// ordinary app, so a member target has no lookup (a lost answer goes to a person, and the
/// drill refuses it). A timeline: edits go out only when `on_edit` asks.
fn capabilities(ctx: &Context) -> Result<config::Capabilities, Error> {
    let settings: Settings = super::settings(ctx)?;
    Ok(match settings.author() {
        Ok(Author::Organization) => config::Capabilities::TIMELINE,
        _ => config::Capabilities::NONE,
    })
}

impl Target for Linkedin {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let commentary = self.commentary(post)?;
        Ok(Outgoing {
            marks: vec![crate::text::mark(&commentary)],
            body: json!({
                "author": self.settings.author,
                "commentary": commentary,
                "visibility": "PUBLIC",
                "distribution": {
                    "feedDistribution": "MAIN_FEED",
                    "targetEntities": [],
                    "thirdPartyDistributionChannels": [],
                },
                "lifecycleState": "PUBLISHED",
                "isReshareDisabledByAuthor": false,
            }),
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, media: &Media) -> String {
        media.plan(
            image,
            str::to_string,
            " through the Images API, with its alt text",
        )
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        self.unexpired()?;
        let body = media::attach(&out.body, post, &out.media)?;
        let reply = self
            .http
            .post(&self.url("/posts"), &self.headers(), &body)?;
        self.created(reply, out)
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn where_to_look(&self, key: Key) -> String {
        let page = match self.author {
            Author::Member => {
                "your recent activity (linkedin.com/in/me/recent-activity/all/)".to_string()
            }
            Author::Organization => format!("the page's posts ({})", self.settings.author),
        };
        format!("the LinkedIn post for {key} in {page}")
    }

    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.token)
    }

    /// What the person wrote beside the token (`<token_file>.expires`).
    fn credential_expiry(&self) -> Option<jiff::Timestamp> {
        self.expires
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }
}

/// What a member target's lookup answers, were it asked (the runner does not ask it).
fn member_cannot_tell() -> Lookup {
    Lookup::CannotTell(
        "LinkedIn does not let an ordinary app list a member's posts (r_member_social is restricted): look on the profile yourself".into(),
    )
}
