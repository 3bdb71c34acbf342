//! `kind = "http"`: POST the post as JSON to an endpoint; confirm through an optional list URL.

mod edit;
mod lookup;

use super::items;
use super::net::{Http, encode, id_at, idempotency_key, status_class};
use super::secret::Secret;
use super::{
    Attempts, Context, Find, ImageLinks, Lookup, Outgoing, Retract, Secrets, Target, Update,
    outgoing, payload_key,
};
use crate::error::Error;
use crate::post::Post;
use crate::redact::Redactor;
use life::Receipt;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Endpoint the post is POSTed to.
    url: String,
    /// Optional GET endpoint to look posts up: enables confirmation and pre-submit dedup.
    /// `{key}` and `{idempotency_key}` in it make it an exact query.
    list_url: Option<String>,
    /// JSON pointer to each listed item's creation time (RFC 3339): a plain listing whose oldest
    /// item is older than the attempt proves absence.
    created_pointer: Option<String>,
    /// The user's promise that `list_url` lists every post: a listing without the post proves
    /// absence.
    #[serde(default)]
    list_complete: bool,
    /// File holding a token sent as `Authorization: Bearer <token>`.
    token_file: Option<PathBuf>,
    /// File holding raw `Name: value` header lines (e.g. a Cookie).
    header_file: Option<PathBuf>,
    /// URL that replaces a published post with an edit; `{id}` and `{key}` are filled in.
    update_url: Option<String>,
    /// Method for `update_url` (default PUT).
    #[serde(default = "default_update_method")]
    update_method: String,
    /// URL that removes a post (`dayrun retract`); `{id}` and `{key}` are filled in.
    delete_url: Option<String>,
    /// Method for `delete_url` (default DELETE; POST, PUT or PATCH send the post's key as JSON).
    #[serde(default = "default_delete_method")]
    delete_method: String,
    /// JSON pointer to the receipt id in the POST answer and in each listed item.
    #[serde(default = "default_id")]
    id_pointer: String,
    /// JSON pointer to the post's URL in the POST answer.
    #[serde(default = "default_url")]
    url_pointer: String,
    /// JSON pointer to the array in the list answer ("" = the answer is the array).
    #[serde(default)]
    items_pointer: String,
    /// How a listed item is matched: auto (key, else idempotency key, else fingerprint, by what
    /// the item carries), key, idempotency_key or fingerprint. Never by title.
    #[serde(default = "default_match")]
    match_by: String,
    /// Where the post's images are public: each image's `url` in the payload is this plus
    /// its path in the content folder.
    image_base_url: Option<String>,
}

/// A lookup needs `list_url`; edits go to the copy when `update_url` is set.
impl Settings {
    /// What a target with these settings can do (before `on_edit`): its kind's `capabilities`.
    fn capabilities(&self) -> config::Capabilities {
        config::Capabilities {
            can_find: self.list_url.is_some(),
            updates: self.update_url.is_some(),
        }
    }
}

fn default_update_method() -> String {
    "PUT".into()
}
fn default_delete_method() -> String {
    "DELETE".into()
}
fn default_id() -> String {
    "/id".into()
}
fn default_url() -> String {
    "/url".into()
}
fn default_match() -> String {
    "auto".into()
}

pub struct HttpTarget {
    name: String,
    images: ImageLinks,
    settings: Settings,
    http: Http,
    token: Option<Secret>,
    headers: Vec<(String, String)>,
    header_file: Option<Secret>,
    timeout: std::time::Duration,
    /// The payload's `text` (`template`).
    template: Option<crate::template::Template>,
}

impl HttpTarget {
    pub fn new(ctx: &Context, mut settings: Settings) -> Result<HttpTarget, Error> {
        // A method is a method in any case (`"patch"` is PATCH), as it was before it was checked.
        settings.update_method.make_ascii_uppercase();
        settings.delete_method.make_ascii_uppercase();
        let bad = |msg: String| {
            Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
                .at(ctx.config.show(&ctx.target.source))
        };
        if let Some(msg) = refused(&settings) {
            return Err(bad(msg));
        }
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let token = settings
            .token_file
            .as_ref()
            .map(|f| Secret::read(ctx, f, "token")?.one_line(ctx, "token"))
            .transpose()?;
        let header_file = settings
            .header_file
            .as_ref()
            .map(|f| Secret::read(ctx, f, "header"))
            .transpose()?;
        let mut headers = Vec::new();
        let mut redactor = Redactor::default();
        if let Some(token) = &token {
            headers.push((
                "Authorization".to_string(),
                format!("Bearer {}", token.expose()),
            ));
            redactor.extend(&token.redactor());
        }
        if let Some(file) = &header_file {
            for (i, line) in file
                .expose()
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                let bad_line = |why: &str| {
                    Error::config(format!(
                        "[targets.{}]: the header file {}: {why}",
                        ctx.target.name,
                        file.file.display()
                    ))
                    .at(&file.file)
                    .line(i + 1)
                    .hint("each line is `Name: value`, e.g. `Cookie: session=…`")
                };
                let (name, value) = line
                    .split_once(':')
                    .ok_or_else(|| bad_line("expected `Name: value`"))?;
                let (name, value) = (name.trim(), value.trim());
                if name.is_empty() || !name.bytes().all(is_token_byte) {
                    return Err(bad_line(&format!(
                        "`{}` is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)",
                        name.escape_default()
                    )));
                }
                if value.chars().any(char::is_control) {
                    return Err(bad_line("the value holds a control character"));
                }
                headers.push((name.to_string(), value.to_string()));
                redactor.add_header_value(value);
            }
        }
        Ok(HttpTarget {
            images: ImageLinks::new(ctx, settings.image_base_url.clone())?,
            name: ctx.target.name.clone(),
            http: Http::new(connect, timeout, redactor),
            settings,
            token,
            headers,
            header_file,
            timeout,
            template: ctx.target.template.clone(),
        })
    }

    /// The credential it sends: the token, or the header file.
    fn secret(&self) -> Option<&Secret> {
        self.token.as_ref().or(self.header_file.as_ref())
    }

    fn credential_file(&self) -> Option<&std::path::Path> {
        self.secret().map(|s| s.file.as_path())
    }

    /// Where edits go: `update_url`, or what to set.
    fn update_url(&self) -> Result<&str, Error> {
        self.settings.update_url.as_deref().ok_or_else(|| {
            Error::config(format!(
                "[targets.{}]: set `update_url` (with {{id}}) so that edits can be sent",
                self.name
            ))
        })
    }

    /// Where retractions go: `delete_url`, or what to set.
    fn delete_url(&self) -> Result<&str, Error> {
        self.settings.delete_url.as_deref().ok_or_else(|| {
            Error::config(format!(
                "[targets.{}]: set `delete_url` (with {{id}}) so that posts can be retracted",
                self.name
            ))
        })
    }

    /// The fields an item is matched by, in the order `auto` tries them.
    fn fields(&self) -> &'static [&'static str] {
        match self.settings.match_by.as_str() {
            "auto" => &FIELDS,
            "key" => &FIELDS[..1],
            "idempotency_key" => &FIELDS[1..2],
            _ => &FIELDS[2..],
        }
    }

    /// `list_url` for this key: placeholders filled in (encoded), and whether that made it an
    /// exact query.
    fn list_url(&self, list_url: &str, attempts: &Attempts) -> (String, bool) {
        let exact = list_url.contains("{key}") || list_url.contains("{idempotency_key}");
        let url = list_url
            .replace("{key}", &encode(&attempts.key.to_string()))
            .replace("{idempotency_key}", &attempts.idempotency_key(&self.name));
        (url, exact)
    }
}

/// RFC 9110 token characters, the only ones a header name may hold.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// What is wrong with these settings' words, if anything: a `match_by` there is no such field
/// for, or a method dayrun does not send.
fn refused(settings: &Settings) -> Option<String> {
    if settings.match_by == "title" {
        return Some("match_by = \"title\" was removed in dayrun 0.2: a title cannot tell this week's \"Weekly notes\" from last week's, and a match on it lost posts; use match_by = \"key\", \"idempotency_key\" or \"fingerprint\" (see docs/upgrading.md)".into());
    }
    if !FIELDS.contains(&settings.match_by.as_str()) && settings.match_by != "auto" {
        return Some(format!(
            "match_by = `{}`: use auto, key, idempotency_key or fingerprint",
            settings.match_by
        ));
    }
    let methods = [
        (
            "update_method",
            &settings.update_method,
            &["PUT", "PATCH", "POST"][..],
        ),
        (
            "delete_method",
            &settings.delete_method,
            &["DELETE", "POST", "PUT", "PATCH"],
        ),
    ];
    methods
        .into_iter()
        .find(|(_, method, known)| !known.contains(&method.as_str()))
        .map(|(name, method, known)| format!("{name} = `{method}`: use {}", known.join(", ")))
}

/// The fields an item can be matched by.
const FIELDS: [&str; 3] = ["key", "idempotency_key", "fingerprint"];

/// `kind = "http"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "http",
    publishes_to: "a JSON endpoint of yours (`POST`)",
    needs: "an optional token or header file",
    build: |ctx| Ok(Box::new(HttpTarget::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| Ok(super::settings::<Settings>(ctx)?.capabilities()),
    template: Some("the payload's `text`"),
    takes: &[super::shared::TIMEOUTS],
    undrillable: None,
};

impl Target for HttpTarget {
    fn image_plan(&self, _: &Post, image: &crate::images::Image, _: &super::Media) -> String {
        match self.images.url(image) {
            Some(url) => format!("listed in the payload, url {url}"),
            None => "listed in the payload (no image_base_url: url null)".into(),
        }
    }

    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        super::payload::with_text(outgoing(post, &self.images), post, self.template.as_ref())
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let mut headers = self.headers.clone();
        headers.push((
            "Idempotency-Key".into(),
            out.idempotency_key(&self.name, post.place()),
        ));
        let reply = self.http.post(&self.settings.url, &headers, &out.body)?;
        let reply = reply.success(|r| self.http.failure("POST", r, self.credential_file()))?;
        self.http.receipt(
            &reply,
            &self.settings.id_pointer,
            &self.settings.url_pointer,
        )
    }

    fn timeout(&self) -> std::time::Duration {
        self.timeout
    }

    fn where_to_look(&self, key: life::Key) -> String {
        format!(
            "a post with key {key} (Idempotency-Key {}) at {}",
            idempotency_key(&self.name, &key.to_string()),
            self.settings.url
        )
    }

    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets {
            redactor: self.http.redactor(),
            credential: self.secret(),
        }
    }

    /// Used when `list_url` is set (`Settings::capabilities`).
    fn as_find(&mut self) -> Option<&mut dyn Find> {
        Some(self)
    }

    fn as_update(&mut self) -> Result<&mut dyn Update, Error> {
        self.update_url()?;
        Ok(self)
    }

    fn as_retract(&mut self) -> Result<&mut dyn Retract, Error> {
        self.delete_url()?;
        Ok(self)
    }
}
