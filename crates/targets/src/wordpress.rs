//! `kind = "wordpress"`: a self-hosted WordPress site through its REST API, with an Application
//! Password. WordPress has no idempotency key: the deterministic slug is what confirms a post.

use super::net::{Http, Reply, encode, status_class};
use super::secret::Secret;
use super::survey::Survey;
use super::{
    Attempts, Context, Find, Lookup, Media, Outgoing, Retract, Secrets, Target, Update, Upload,
};
use crate::clock::Clock;
use crate::error::{Class, Error};
use crate::post::Post;
use crate::redact::Redactor;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod lookup;
mod media;
mod terms;

use lookup::WINDOW_DAYS;

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
    /// Whether `term_ids` holds every tag of the site (`terms.rs`).
    tags: terms::Tags,
    /// The project takes slugged keys: a date key's day may hold other keys' copies (`place`).
    slugged: bool,
    /// The run's survey of the posts around its keys (`lookup.rs`).
    survey: Option<Survey<Vec<lookup::Window>>>,
    /// Uploads of this run whose answer was lost, by image hash, and when they were sent.
    lost: HashMap<String, Instant>,
    clock: Clock,
    timeout: Duration,
    /// The title (`template`).
    template: Option<crate::template::Template>,
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
            STANDARD.encode(format!("{}:{}", settings.user, password.expose()))
        );
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let mut redactor = Redactor::default();
        redactor.add_pair(&settings.user, password.expose());
        Ok(WordPress {
            template: ctx.target.template.clone(),
            base: settings.url.trim_end_matches('/').to_string(),
            user: settings.user,
            status: settings.status,
            categories: settings.categories,
            password,
            auth,
            http: Http::new(connect, timeout, redactor),
            pretty: None,
            term_ids: HashMap::new(),
            tags: terms::Tags::Unlisted,
            slugged: ctx.config.keys.slugs,
            survey: None,
            lost: HashMap::new(),
            clock: ctx.clock.clone(),
            timeout,
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
        let method = if body.is_some() { "POST" } else { "GET" };
        self.request(method, route, query, body)
    }

    /// `call` with any method (DELETE for the trash).
    fn request(
        &mut self,
        method: &str,
        route: &str,
        query: &str,
        body: Option<&Value>,
    ) -> Result<Reply, Error> {
        let headers = [("Authorization".to_string(), self.auth.clone())];
        let send = |this: &Self, pretty: bool| {
            let url = this.url(route, query, pretty);
            match (method, body) {
                ("DELETE", _) => this.http.delete(&url, &headers),
                (_, Some(body)) => this.http.send(method, &url, &headers, body),
                (_, None) => this.http.get(&url, &headers),
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

    /// Auth is classed by what happened: 401 (and a lookup refused for its statuses, which is
    /// how WordPress answers a request it treats as logged out) is the credential; 403 is the
    /// user's role.
    fn failure(&self, what: &str, reply: &Reply) -> Error {
        let doc = serde_json::from_str::<Value>(&reply.body).unwrap_or(Value::Null);
        let code = doc["code"].as_str().unwrap_or_default();
        let forbidden_status = code == "rest_invalid_param"
            && doc["data"]["details"]["status"]["code"] == "rest_forbidden_status";
        let mut err = self.http.failure(what, reply, Some(&self.password.file));
        if forbidden_status {
            err = err.reclass(Class::Auth);
        }
        if err.class() != Some(Class::Auth) {
            return err;
        }
        let hint = match reply.status {
            403 => format!(
                "user `{}` is logged in but may not do this: give it the Author role or higher",
                self.user
            ),
            _ => format!(
                "WordPress did not accept the login of user `{}`: renew the Application Password (Users → Profile → Application Passwords) and put it in {}; if it is right, your host may strip the Authorization header, or the site is plain HTTP (see docs/targets/wordpress.md)",
                self.user,
                self.password.file.display()
            ),
        };
        err.hint(hint)
    }

    /// What a lookup compares of a copy: the words of its title and content (tags, entities and
    /// spacing aside, which WordPress's filter may change for a user without `unfiltered_html`).
    pub(super) fn mark(title: &str, content: &str) -> String {
        let words = |html: &str| super::compare::html_text(html);
        crate::text::mark(&format!("wordpress\n{}\n{}", words(title), words(content)))
    }

    /// The slug that names this post on the site: the key, then the title.
    fn slug(post: &Post) -> String {
        crate::place::slug(post.place(), &post.title)
    }
}

/// A failure before the post itself was sent cannot have published it.
fn before_post(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => err.reclass(Class::RetrySafe),
        _ => err,
    }
}

/// `kind = "wordpress"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "wordpress",
    publishes_to: "a self-hosted WordPress, through its REST API",
    needs: "an Application Password",
    build: |ctx| Ok(Box::new(WordPress::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::IN_PLACE),
    template: Some("the title"),
    takes: &[super::shared::TIMEOUTS],
    undrillable: None,
};

impl Target for WordPress {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let mut tags = Vec::new();
        for tag in &post.tags {
            tags.push(self.term("tags", tag)?);
        }
        let mut categories = Vec::new();
        for name in self.categories.clone() {
            categories.push(self.term("categories", &name)?);
        }
        let title = super::payload::title(self.template.as_ref(), post)?;
        let mut body = json!({
            "title": title,
            "content": Self::content(post),
            "excerpt": post.summary,
            "status": self.status,
            "slug": Self::slug(post),
            "tags": tags,
        });
        if !categories.is_empty() {
            body["categories"] = json!(categories);
        }
        if let Some(cover) = Self::featured(post) {
            body["featured_media"] = cover;
        }
        // A post sent on a day other than its key's (a backfill, a late retry, `--today`)
        // carries its key's day, so the lookup's window around the key finds it.
        if post.place().day() != self.clock.now().date() {
            body["date"] = json!(format!("{}T12:00:00", post.place().day()));
        }
        let marks = vec![Self::mark(
            body["title"].as_str().unwrap_or_default(),
            body["content"].as_str().unwrap_or_default(),
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
            |v| format!("media {}", v.split('@').next().unwrap_or(v)),
            &format!(
                " as {} (unless a media item of that name is there)",
                image.hashed_name()
            ),
        )
    }

    fn publish(&mut self, _: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let body = Self::fill(&out.body, &out.media)?;
        let reply = self.call("/wp/v2/posts", "", Some(&body))?;
        let reply = reply.success(|r| self.failure("create post", r))?;
        let receipt = self.http.receipt(&reply, "/id", "/link")?;
        Ok(Receipt {
            note: Self::featured_note(&body, &reply),
            ..receipt
        })
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    /// PHP may go on with a request for a while after dayrun gave up on it.
    fn settle(&self) -> Duration {
        Duration::from_secs(60)
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "posts on {} (Posts → All, drafts and trash too) dated around {day} whose slug starts with `{start}`",
            self.base,
            day = key.day(),
            start = crate::place::start(key),
        )
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.http.redactor(), &self.password)
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }
}

impl Find for WordPress {
    /// By the key, not the title: the posts dated around the key's day (and around the first
    /// attempt, for a key sent on another day) whose slug starts with the key. This finds the
    /// post after a title edit, and every copy WordPress made unique with `-2`. A slug says
    /// where a copy would be, not that it is this post: a copy is ours when its raw title and
    /// content have the words an attempt sent (`Self::mark`); another post whose slug starts
    /// with the date (made by hand) is not ours. A copy of ours in the trash cannot tell: it is
    /// neither published nor provably absent.
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let mut found = Vec::new();
        let mut days = vec![attempts.key.day()];
        if let Some(since) = attempts.since {
            let day = since.to_zoned_datetime(self.clock.tz().clone()).date();
            if crate::clock::days_between(attempts.key.day(), day).abs()
                > i64::from(WINDOW_DAYS) - 1
            {
                days.push(day);
            }
        }
        for day in days {
            if let Some(why) = self.window(attempts, day, &mut found)? {
                return Ok(Lookup::CannotTell(why));
            }
        }
        // Numeric ids in their order (a shorter number is a smaller one), the lowest first.
        found.sort_by(|a, b| (a.id.len(), &a.id).cmp(&(b.id.len(), &b.id)));
        let (ours, foreign): (Vec<_>, Vec<_>) = found.into_iter().partition(|c| c.ours);
        let (trashed, live): (Vec<_>, Vec<_>) = ours.into_iter().partition(|c| c.trashed);
        Ok(
            match (live.is_empty(), trashed.first(), foreign.is_empty()) {
                (false, _, _) => Lookup::Found(live.into_iter().map(|c| c.receipt).collect()),
                (true, Some(copy), _) => Lookup::CannotTell(format!(
                    "a copy of this post is in the trash (id {}): restore it and `dayrun mark KEY done --id {}`, or delete it for good and `dayrun retry KEY`",
                    copy.id, copy.id
                )),
                (true, None, false) => {
                    Lookup::Foreign(foreign.into_iter().map(|c| c.receipt).collect())
                }
                (true, None, true) => Lookup::Absent,
            },
        )
    }

    /// One listing of the posts dated around all the keys (per stretch of keys a week or less
    /// apart), in place of one per key.
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_windows(keys, now).map(Some)
    }
}

impl Update for WordPress {
    /// `POST /wp/v2/posts/{id}` with the new title, content, excerpt and terms; the slug and
    /// date stay as published, so links to the post keep working.
    fn update(&mut self, id: &str, _: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let mut body = Self::fill(&out.body, &out.media)?;
        if let Some(fields) = body.as_object_mut() {
            fields.remove("slug");
            fields.remove("date");
        }
        let route = format!("/wp/v2/posts/{}", encode(id));
        let reply = self.call(&route, "", Some(&body))?;
        let reply = reply.success(|r| self.failure("update post", r))?;
        self.http.receipt(&reply, "/id", "/link")
    }

    /// The copy holds the edit when its raw title and content have the words that were sent.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let route = format!("/wp/v2/posts/{}", encode(id));
        let reply = self.call(&route, "context=edit", None)?;
        let reply = reply.success(|r| self.failure("read a post back", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let Ok(sent) = Self::fill(&out.body, &out.media) else {
            return Ok(Lookup::Absent); // an image it needs was never uploaded
        };
        // By their words: WordPress's filter may store `&amp;` and `<br />` for what was sent.
        let words = |v: &Value| {
            Self::mark(
                v["title"]
                    .as_str()
                    .or(v["title"]["raw"].as_str())
                    .unwrap_or_default(),
                v["content"]
                    .as_str()
                    .or(v["content"]["raw"].as_str())
                    .unwrap_or_default(),
            )
        };
        let same = words(&doc) == words(&sent);
        Ok(match same {
            true => Lookup::Found(vec![Receipt::id(id)]),
            false => Lookup::Absent,
        })
    }
}

impl Retract for WordPress {
    /// `DELETE /wp/v2/posts/{id}`: WordPress moves the post to the trash (it can be restored).
    /// A drill's copy (`dayrun drill`) is deleted for good (`force=true`): in the trash, the
    /// drill's own lookups would still see it.
    fn retract(&mut self, key: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let route = format!("/wp/v2/posts/{}", encode(id));
        let force = if key.is_drill() { "force=true" } else { "" };
        let reply = self.request("DELETE", &route, force, None)?;
        // 410 rest_already_trashed: already where it was asked to go.
        if status_class(reply.status).is_none() || reply.status == 410 {
            return Ok(());
        }
        Err(self.failure("trash post", &reply))
    }

    /// Gone when WordPress no longer has it, or has it in the trash (a drill's copy: only when
    /// WordPress no longer has it).
    fn still_there(&mut self, key: life::Key, id: &str) -> Result<Lookup, Error> {
        let route = format!("/wp/v2/posts/{}", encode(id));
        let reply = self.call(&route, "context=edit", None)?;
        if reply.status == 404 {
            let code = serde_json::from_str::<Value>(&reply.body).unwrap_or(Value::Null)["code"]
                .as_str()
                .map(str::to_string);
            return Ok(match code.as_deref() {
                Some("rest_post_invalid_id") => Lookup::Absent,
                _ => Lookup::CannotTell("HTTP 404 without WordPress's own answer".into()),
            });
        }
        let reply = reply.success(|r| self.failure("look up post", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        Ok(match doc["status"].as_str() {
            Some("trash") if !key.is_drill() => Lookup::Absent,
            Some(_) => Lookup::Found(vec![Receipt::id(id)]),
            None => Lookup::CannotTell("the post's answer has no status".into()),
        })
    }
}
