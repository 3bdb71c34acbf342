//! `kind = "wordpress"`: a self-hosted WordPress site through its REST API, with an Application
//! Password. WordPress has no idempotency key: the deterministic slug is what confirms a post.

use super::net::{Http, Reply, Secret, base64, slug, status_class, timeouts};
use super::{Context, Receipt, Target};
use crate::error::{Class, Error};
use crate::post::Post;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The site root, e.g. `https://example.com`.
    url: String,
    /// The WordPress user the Application Password belongs to.
    user: String,
    /// File holding the Application Password.
    password_file: PathBuf,
    /// `publish` (default), `draft`, `pending` or `private`.
    #[serde(default = "default_status")]
    status: String,
    /// Category names; each must exist on the site.
    #[serde(default)]
    categories: Vec<String>,
    timeout_secs: Option<toml::Value>,
    connect_timeout_secs: Option<toml::Value>,
}

fn default_status() -> String {
    "publish".into()
}

pub struct WordPress {
    base: String,
    user: String,
    status: String,
    categories: Vec<String>,
    password: Secret,
    auth: String,
    http: Http,
    /// Pretty permalinks (`/wp-json/…`) or `?rest_route=`; found on the first call of a run.
    pretty: Option<bool>,
    term_ids: HashMap<(String, String), u64>,
}

impl WordPress {
    pub fn new(ctx: &Context, settings: Settings) -> Result<WordPress, Error> {
        if !["publish", "draft", "pending", "private"].contains(&settings.status.as_str()) {
            return Err(Error::config(format!(
                "[targets.{}]: status = `{}`: use publish, draft, pending or private",
                ctx.target.name, settings.status
            ))
            .at(ctx.config.show(&ctx.target.source)));
        }
        let password = Secret::read(ctx, &settings.password_file, "application password")?;
        // Application Passwords are shown with spaces; WordPress accepts them either way.
        let auth = format!(
            "Basic {}",
            base64(format!("{}:{}", settings.user, password.expose()).as_bytes())
        );
        let (timeout, connect) =
            timeouts(ctx, &settings.timeout_secs, &settings.connect_timeout_secs)?;
        let secrets = vec![password.expose().to_string(), auth.clone()];
        Ok(WordPress {
            base: settings.url.trim_end_matches('/').to_string(),
            user: settings.user,
            status: settings.status,
            categories: settings.categories,
            password,
            auth,
            http: Http::new(connect, timeout, secrets),
            pretty: None,
            term_ids: HashMap::new(),
        })
    }

    fn url(&self, route: &str, query: &str, pretty: bool) -> String {
        match (pretty, query.is_empty()) {
            (true, true) => format!("{}/wp-json{route}", self.base),
            (true, false) => format!("{}/wp-json{route}?{query}", self.base),
            (false, true) => format!("{}/?rest_route={route}", self.base),
            (false, false) => format!("{}/?rest_route={route}&{query}", self.base),
        }
    }

    /// One REST call. The first call of a run finds out whether pretty permalinks work: a 404
    /// that is not a WordPress REST answer means they are off, and the call goes again through
    /// `?rest_route=` (a 404 page created nothing, so this is safe for a POST too).
    fn call(&mut self, route: &str, query: &str, body: Option<&Value>) -> Result<Reply, Error> {
        let headers = [("Authorization".to_string(), self.auth.clone())];
        let send = |this: &Self, pretty: bool| {
            let url = this.url(route, query, pretty);
            match body {
                Some(body) => this.http.post(&url, &headers, body),
                None => this.http.get(&url, &headers),
            }
        };
        let reply = send(self, self.pretty.unwrap_or(true))?;
        if self.pretty.is_none() {
            let rest_answer = serde_json::from_str::<Value>(&reply.body)
                .is_ok_and(|v| v.get("code").is_some() || v.is_array() || v.get("id").is_some());
            if reply.status == 404 && !rest_answer {
                self.pretty = Some(false);
                return send(self, false);
            }
            self.pretty = Some(true);
        }
        Ok(reply)
    }

    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let mut err = self.http.failure(what, reply, Some(&self.password.file));
        if err.class() == Some(Class::Auth) {
            let code = serde_json::from_str::<Value>(&reply.body)
                .ok()
                .and_then(|v| v.get("code").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default();
            let mut hint = format!(
                "renew the Application Password for user `{}` in {} (Users → Profile → Application Passwords)",
                self.user,
                self.password.file.display()
            );
            if code == "rest_not_logged_in" || (reply.status == 401 && code.is_empty()) {
                hint.push_str("; if the password is right, your host may strip the Authorization header (see the README)");
            }
            if code == "rest_cannot_create" {
                hint = format!(
                    "user `{}` may not create posts: give it the Author role or higher",
                    self.user
                );
            }
            err = err.hint(hint);
        }
        err
    }

    /// The slug that names this post on the site: the key, then the title.
    fn slug(post: &Post) -> String {
        let title = slug(&post.title, 60);
        if title.is_empty() {
            post.key.to_string()
        } else {
            format!("{}-{title}", post.key)
        }
    }

    /// The id of a tag (created when missing) or of a category (must exist).
    fn term(&mut self, taxonomy: &str, name: &str) -> Result<u64, Error> {
        let cache_key = (taxonomy.to_string(), name.to_lowercase());
        if let Some(id) = self.term_ids.get(&cache_key) {
            return Ok(*id);
        }
        let route = format!("/wp/v2/{taxonomy}");
        let reply = self.call(
            &route,
            &format!("search={}&per_page=100", encode(name)),
            None,
        )?;
        if status_class(reply.status).is_some() {
            return Err(before_post(
                self.failure(&format!("look up {taxonomy} `{name}`"), &reply),
            ));
        }
        let found = serde_json::from_str::<Value>(&reply.body)
            .ok()
            .and_then(|list| {
                list.as_array()?.iter().find_map(|t| {
                    let term = t.get("name")?.as_str()?;
                    (unescape(term).eq_ignore_ascii_case(name))
                        .then(|| t.get("id")?.as_u64())
                        .flatten()
                })
            });
        let id = match found {
            Some(id) => id,
            None if taxonomy == "categories" => {
                return Err(Error::failure(
                    Class::Rejected,
                    format!("category `{name}` does not exist on the site"),
                )
                .hint("create it in WordPress, or fix `categories` in dayrun.toml"));
            }
            None => {
                let reply = self.call(&route, "", Some(&json!({ "name": name })))?;
                let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
                match reply.status {
                    200 | 201 => doc["id"].as_u64(),
                    400 if doc["code"] == "term_exists" => doc["data"]["term_id"].as_u64(),
                    _ => {
                        return Err(before_post(
                            self.failure(&format!("create tag `{name}`"), &reply),
                        ));
                    }
                }
                .ok_or_else(|| {
                    Error::failure(
                        Class::RetrySafe,
                        format!("tag `{name}`: no id in the answer"),
                    )
                })?
            }
        };
        self.term_ids.insert(cache_key, id);
        Ok(id)
    }
}

/// A failure before the post itself was sent cannot have published it.
fn before_post(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => Error {
            kind: crate::error::Kind::Failure(Class::RetrySafe),
            ..err
        },
        _ => err,
    }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#039;", "'")
}

impl Target for WordPress {
    fn publish(&mut self, post: &Post) -> Result<Receipt, Error> {
        let mut tags = Vec::new();
        for tag in &post.tags {
            tags.push(self.term("tags", tag)?);
        }
        let mut categories = Vec::new();
        for name in self.categories.clone() {
            categories.push(self.term("categories", &name)?);
        }
        let mut body = json!({
            "title": post.title,
            "content": post.html,
            "excerpt": post.summary,
            "status": self.status,
            "slug": Self::slug(post),
            "tags": tags,
        });
        if !categories.is_empty() {
            body["categories"] = json!(categories);
        }
        let reply = self.call("/wp/v2/posts", "", Some(&body))?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("create post", &reply));
        }
        self.http.receipt(&reply, "/id", "/link")
    }

    fn find(&mut self, post: &Post) -> Result<Option<Receipt>, Error> {
        let query = format!(
            "slug={}&status=publish,future,draft,pending,private&context=edit",
            Self::slug(post)
        );
        let reply = self.call("/wp/v2/posts", &query, None)?;
        if status_class(reply.status).is_some() {
            return Err(self.failure("look up post", &reply));
        }
        let list: Value = serde_json::from_str(&reply.body).map_err(|e| {
            Error::failure(
                Class::Unknown,
                format!("post lookup answer is not JSON: {e}"),
            )
        })?;
        Ok(list
            .as_array()
            .and_then(|items| items.first())
            .and_then(|item| {
                Some(Receipt {
                    id: item.get("id")?.as_u64()?.to_string(),
                    url: item.get("link").and_then(Value::as_str).map(str::to_string),
                    note: None,
                })
            }))
    }

    fn credential(&self) -> Option<String> {
        Some(self.password.fingerprint.clone())
    }
}
