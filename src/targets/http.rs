//! `kind = "http"`: POST the post as JSON to an endpoint; confirm through an optional list URL.

use super::net::{Http, Secret, id_at, idempotency_key, status_class, timeouts};
use super::{Context, Receipt, Target, payload};
use crate::error::{Class, Error};
use crate::post::Post;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Endpoint the post is POSTed to.
    url: String,
    /// Optional GET endpoint listing recent posts: enables confirmation and pre-submit dedup.
    list_url: Option<String>,
    /// File holding a token sent as `Authorization: Bearer <token>`.
    token_file: Option<PathBuf>,
    /// File holding raw `Name: value` header lines (e.g. a Cookie).
    header_file: Option<PathBuf>,
    /// JSON pointer to the receipt id in the POST answer and in each listed item.
    #[serde(default = "default_id")]
    id_pointer: String,
    /// JSON pointer to the post's URL in the POST answer.
    #[serde(default = "default_url")]
    url_pointer: String,
    /// JSON pointer to the array in the list answer ("" = the answer is the array).
    #[serde(default)]
    items_pointer: String,
    /// How a listed item is matched: auto (key, else idempotency key, else title, else
    /// fingerprint, by what the item carries), key, title or fingerprint.
    #[serde(default = "default_match")]
    match_by: String,
    /// Timeout for sending and for each wait for an answer (default 15 s).
    timeout_secs: Option<toml::Value>,
    /// Timeout for resolving and connecting (default 10 s).
    connect_timeout_secs: Option<toml::Value>,
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
    settings: Settings,
    http: Http,
    token: Option<Secret>,
    headers: Vec<(String, String)>,
    header_file: Option<Secret>,
}

impl HttpTarget {
    pub fn new(ctx: &Context, settings: Settings) -> Result<HttpTarget, Error> {
        let bad = |msg: String| {
            Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
                .at(ctx.config.show(&ctx.target.source))
        };
        if !["auto", "key", "title", "fingerprint"].contains(&settings.match_by.as_str()) {
            return Err(bad(format!(
                "match_by = `{}`: use auto, key, title or fingerprint",
                settings.match_by
            )));
        }
        let (timeout, connect) =
            timeouts(ctx, &settings.timeout_secs, &settings.connect_timeout_secs)?;
        let token = settings
            .token_file
            .as_ref()
            .map(|f| Secret::read(ctx, f, "token"))
            .transpose()?;
        let header_file = settings
            .header_file
            .as_ref()
            .map(|f| Secret::read(ctx, f, "header"))
            .transpose()?;
        let mut headers = Vec::new();
        let mut secrets = Vec::new();
        if let Some(token) = &token {
            headers.push((
                "Authorization".to_string(),
                format!("Bearer {}", token.expose()),
            ));
            secrets.push(token.expose().to_string());
        }
        if let Some(file) = &header_file {
            for (i, line) in file
                .expose()
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                let (name, value) = line.split_once(':').ok_or_else(|| {
                    bad(format!(
                        "{}:{}: expected `Name: value`",
                        file.file.display(),
                        i + 1
                    ))
                })?;
                headers.push((name.trim().to_string(), value.trim().to_string()));
                secrets.push(value.trim().to_string());
            }
        }
        Ok(HttpTarget {
            name: ctx.target.name.clone(),
            http: Http::new(connect, timeout, secrets),
            settings,
            token,
            headers,
            header_file,
        })
    }

    fn credential_file(&self) -> Option<PathBuf> {
        self.token
            .as_ref()
            .or(self.header_file.as_ref())
            .map(|s| s.file.clone())
    }

    fn matches(&self, item: &Value, post: &Post) -> bool {
        let text = |name: &str| item.get(name).and_then(Value::as_str);
        let key = post.key.to_string();
        let idem = idempotency_key(&self.name, &key);
        match self.settings.match_by.as_str() {
            "key" => text("key") == Some(&key) || text("idempotency_key") == Some(&idem),
            "title" => text("title") == Some(&post.title),
            "fingerprint" => text("fingerprint") == Some(&post.fingerprint),
            _ => {
                if let Some(k) = text("key") {
                    k == key
                } else if let Some(i) = text("idempotency_key") {
                    i == idem
                } else if let Some(t) = text("title") {
                    t == post.title
                } else {
                    text("fingerprint") == Some(&post.fingerprint)
                }
            }
        }
    }
}

impl Target for HttpTarget {
    fn publish(&mut self, post: &Post) -> Result<Receipt, Error> {
        let mut headers = self.headers.clone();
        headers.push((
            "Idempotency-Key".into(),
            idempotency_key(&self.name, &post.key.to_string()),
        ));
        let reply = self
            .http
            .post(&self.settings.url, &headers, &payload(post))?;
        if status_class(reply.status).is_some() {
            return Err(self
                .http
                .failure("POST", &reply, self.credential_file().as_deref()));
        }
        self.http.receipt(
            &reply,
            &self.settings.id_pointer,
            &self.settings.url_pointer,
        )
    }

    fn find(&mut self, post: &Post) -> Result<Option<Receipt>, Error> {
        let Some(list_url) = &self.settings.list_url else {
            return Err(Error::failure(
                Class::Unknown,
                "no list_url to look posts up",
            ));
        };
        let reply = self.http.get(list_url, &self.headers)?;
        if status_class(reply.status).is_some() {
            return Err(self
                .http
                .failure("list", &reply, self.credential_file().as_deref()));
        }
        let doc: Value = serde_json::from_str(&reply.body)
            .map_err(|e| Error::failure(Class::Unknown, format!("list answer is not JSON: {e}")))?;
        let items = doc
            .pointer(&self.settings.items_pointer)
            .and_then(Value::as_array)
            .ok_or_else(|| {
                Error::failure(
                    Class::Unknown,
                    format!(
                        "list answer has no array at `{}`",
                        self.settings.items_pointer
                    ),
                )
            })?;
        Ok(items
            .iter()
            .find(|item| self.matches(item, post))
            .map(|item| Receipt {
                id: id_at(item, &self.settings.id_pointer).unwrap_or_else(|| "found".into()),
                url: id_at(item, &self.settings.url_pointer),
                note: None,
            }))
    }

    fn can_find(&self) -> bool {
        self.settings.list_url.is_some()
    }

    fn credential(&self) -> Option<String> {
        self.token
            .as_ref()
            .or(self.header_file.as_ref())
            .map(|s| s.fingerprint.clone())
    }
}
