//! A fake Ghost 5.130.6 Admin API (`/ghost/api/admin/…`), as the harness Ghost answers
//! (/work/shared/harness/ghost/README.md) and as its source says (`api/endpoints/posts.js`,
//! `models/base/plugins/generate-slug.js`, `@tryghost/bookshelf-collision`,
//! `@tryghost/bookshelf-pagination`, `api/endpoints/images.js`): every request checked for an
//! Admin API token (`fake_ghost_rules.rs`); posts created from HTML (`source=html`) and rendered
//! again from Ghost's own document; slugs made unique with `-2`, `-3` across every status; tags
//! by name; `filter` in the NQL dayrun sends (anything else is a 400), `fields`, `formats`, pages
//! with `meta.pagination`; an update needs `updated_at` (422 without) and answers 409
//! `UpdateCollisionError` when it is not the post's and something changed; DELETE answers 204;
//! a missing id 404 `NotFoundError`; images uploaded as a multipart `file`, stored under a unique
//! name (`-1`, `-2`), with no way to list them. Unknown body fields are dropped, as Ghost's
//! schema does; any `newsletter` or `email_segment`, in the query or the body, is recorded.

use crate::fakes::fake_ghost_rules::{check_token, error, multipart, parse_filter};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const KEY_ID: &str = "6489f2d1c3a4b5e6f7a8b9c0";
pub const SECRET: &str = "5f3c9a1e7b2d4f6081a3c5e7092b4d6f8a1c3e5f7b9d0c2e4a6b8d0f1e3c5a79";
const API: &str = "/ghost/api/admin";
/// The fields of a post Ghost's schema takes from a client (the rest are dropped).
const FIELDS: [&str; 10] = [
    "title",
    "html",
    "status",
    "slug",
    "tags",
    "published_at",
    "updated_at",
    "custom_excerpt",
    "feature_image",
    "feature_image_alt",
];

#[derive(Default)]
pub struct Gh {
    /// Posts as the Admin API shows them (`html` as Ghost renders it).
    pub posts: Vec<Value>,
    /// Uploaded images: URL and bytes.
    pub images: Vec<(String, Vec<u8>)>,
    /// What the next `POST /posts/` requests meet.
    pub faults: VecDeque<Fault>,
    /// What the next `PUT /posts/{id}/` requests meet.
    pub update_faults: VecDeque<Fault>,
    /// What the next `POST /images/upload/` requests meet.
    pub image_faults: VecDeque<Fault>,
    /// `GET /posts/` listings answer this status (a database that went away).
    pub lookups_fail: Option<u16>,
    /// The secret the site holds for `KEY_ID` (another one: every token is refused).
    pub secret: String,
    /// Whether any request ever asked for a newsletter (`newsletter`, `email_segment`).
    pub newsletter_asked: bool,
    pub create_requests: usize,
    pub update_requests: usize,
    pub listings: usize,
    /// Every request, `METHOD path?query`, in order.
    pub log: Vec<String>,
    next_id: u64,
    last_stamp: i64,
}

pub struct FakeGhost {
    pub server: Server,
    pub state: Arc<Mutex<Gh>>,
}

impl FakeGhost {
    pub fn start() -> FakeGhost {
        let state = Arc::new(Mutex::new(Gh {
            secret: SECRET.into(),
            ..Gh::default()
        }));
        let shared = state.clone();
        let server = Server::start(move |req| handle(&shared, req));
        FakeGhost { server, state }
    }

    /// A `[targets.ghost]` table pointing at the fake, quick to give up; `extra` lines follow.
    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.ghost]\nkind = \"ghost\"\nurl = \"{}\"\nadmin_key_file = \"secrets/ghost.key\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n{extra}\n",
            self.server.url("")
        )
    }

    pub fn posts(&self) -> Vec<Value> {
        self.state.lock().unwrap().posts.clone()
    }

    /// A post made by hand in Ghost's editor (the same slug rules as through the API).
    pub fn seed(&self, slug: &str, title: &str, html: &str, published_at: &str) -> Value {
        let body = json!({"title": title, "html": html, "slug": slug, "status": "published",
            "published_at": published_at, "tags": []});
        self.state.lock().unwrap().insert(&body, "http://fake")
    }

    /// An edit made by hand in Ghost's editor: a new title, and a new `updated_at`.
    pub fn edit_by_hand(&self, id: &str, title: &str) {
        let mut s = self.state.lock().unwrap();
        let stamp = s.stamp();
        let post = s.posts.iter_mut().find(|p| p["id"] == id).unwrap();
        post["title"] = json!(title);
        post["updated_at"] = json!(stamp);
    }
}

/// The HTML Ghost shows for HTML it was sent: converted to its own document and rendered again
/// (no newlines between blocks, an image alone in a paragraph as an image card).
fn rendered(html: &str) -> String {
    let mut out = html.trim().replace(">\n<", "><");
    while let Some(at) = out.find("<p><img ") {
        let Some(end) = out[at..].find("</p>").map(|e| at + e) else {
            break;
        };
        let img = out[at + 3..end]
            .trim_end_matches(" />")
            .trim_end_matches('>')
            .to_string();
        let card = format!(
            "<figure class=\"kg-card kg-image-card\">{img} class=\"kg-image\" loading=\"lazy\"></figure>"
        );
        out.replace_range(at..end + 4, &card);
    }
    out
}

impl Gh {
    /// `updated_at` as Ghost writes it on SQLite (to the second), never the same twice here.
    fn stamp(&mut self) -> String {
        let now = jiff::Timestamp::now().as_second().max(self.last_stamp + 1);
        self.last_stamp = now;
        let at = jiff::Timestamp::from_second(now).unwrap();
        format!("{}.000Z", &at.to_string()[..19])
    }

    /// `generateSlug`: `-2`, then `-3` (the number replaced), while any post holds it.
    fn unique_slug(&self, base: &str) -> String {
        let taken = |s: &str| self.posts.iter().any(|p| p["slug"] == s);
        let mut slug = base.to_string();
        let mut n = 2;
        while taken(&slug) {
            slug = format!("{base}-{n}");
            n += 1;
        }
        slug
    }

    /// `Post.add`: a new post from a cleaned body, as the API shows it.
    fn insert(&mut self, body: &Value, site: &str) -> Value {
        self.next_id += 1;
        let id = format!("6b0f{:020x}", self.next_id);
        let stamp = self.stamp();
        let base = body["slug"]
            .as_str()
            .or(body["title"].as_str())
            .unwrap_or("post");
        let slug = self.unique_slug(base);
        let status = body["status"].as_str().unwrap_or("draft").to_string();
        let published = match (&body["published_at"], status.as_str()) {
            (Value::String(at), _) => json!(at),
            (_, "published") => json!(stamp),
            _ => Value::Null,
        };
        let mut post = json!({
            "id": id, "slug": slug, "status": status, "title": body["title"],
            "html": rendered(body["html"].as_str().unwrap_or_default()),
            "created_at": stamp, "updated_at": stamp, "published_at": published,
            "url": format!("{site}/{slug}/"),
            "custom_excerpt": body["custom_excerpt"], "feature_image": body["feature_image"],
            "feature_image_alt": body["feature_image_alt"],
        });
        post["tags"] = tags(&body["tags"]);
        self.posts.push(post.clone());
        post
    }
}

/// Tags by name (strings, or `{name}`), as the API shows them.
fn tags(value: &Value) -> Value {
    let names = value.as_array().cloned().unwrap_or_default();
    Value::Array(
        names
            .iter()
            .filter_map(|t| t.as_str().or(t["name"].as_str()))
            .map(|n| json!({"name": n, "slug": n.to_lowercase().replace(' ', "-")}))
            .collect(),
    )
}

/// The post as one answer shows it: `fields` only, `html` only with `formats=html`.
fn shown(post: &Value, req: &Request) -> Value {
    let mut post = post.clone();
    let formats = req.query("formats").unwrap_or_default();
    if !formats.split(',').any(|f| f == "html") {
        post["html"] = Value::Null;
    }
    if let Some(fields) = req.query("fields") {
        let keep: Vec<&str> = fields.split(',').collect();
        let all = post.as_object().cloned().unwrap_or_default();
        post = Value::Object(
            all.into_iter()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .collect(),
        );
    }
    post
}

fn handle(state: &Mutex<Gh>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    s.log.push(format!("{} {}", req.method, req.target));
    let Some(path) = req.path().strip_prefix(API) else {
        return error(404, "NotFoundError", "Resource not found", None);
    };
    let now = jiff::Timestamp::now().as_second();
    let secret = s.secret.clone();
    if let Some(refused) = check_token(req.header("Authorization"), KEY_ID, &secret, now) {
        return refused;
    }
    if req.query("newsletter").is_some() || req.query("email_segment").is_some() {
        s.newsletter_asked = true;
    }
    let site = format!("http://{}", req.header("Host").unwrap_or("ghost.test"));
    let id = path
        .strip_prefix("/posts/")
        .map(|rest| rest.trim_end_matches('/'))
        .filter(|rest| !rest.is_empty());
    match (req.method.as_str(), path, id) {
        ("POST", "/posts/" | "/posts", _) => create(&mut s, req, &site),
        ("GET", "/posts/" | "/posts", _) => list(&mut s, req),
        ("GET", _, Some(id)) => match s.posts.iter().find(|p| p["id"] == id) {
            Some(post) => Reply::json(200, json!({"posts": [shown(post, req)]})),
            None => not_found("read"),
        },
        ("PUT", _, Some(id)) => update(&mut s, req, id),
        ("DELETE", _, Some(id)) => match s.posts.iter().position(|p| p["id"] == id) {
            Some(at) => {
                s.posts.remove(at);
                Reply::raw(204, "application/json", Vec::new())
            }
            None => not_found("delete"),
        },
        ("POST", "/images/upload/" | "/images/upload", _) => upload(&mut s, req, &site),
        _ => error(404, "NotFoundError", "Resource not found", None),
    }
}

fn not_found(what: &str) -> Reply {
    error(
        404,
        "NotFoundError",
        &format!("Resource not found error, cannot {what} post."),
        None,
    )
}

/// The one post of a `{"posts": [{…}]}` body, with the fields Ghost takes; `Err` is its 422.
fn one_post(s: &mut Gh, req: &Request, what: &str) -> Result<Map<String, Value>, Reply> {
    let doc = req.json();
    let invalid = |why: &str| {
        error(
            422,
            "ValidationError",
            &format!("Validation error, cannot {what} post."),
            Some(why),
        )
    };
    let posts = doc["posts"].as_array().cloned().unwrap_or_default();
    let [Value::Object(post)] = posts.as_slice() else {
        return Err(invalid("posts must hold one post"));
    };
    if post.contains_key("newsletter") || post.contains_key("email_segment") {
        s.newsletter_asked = true;
    }
    let post: Map<String, Value> = post
        .clone()
        .into_iter()
        .filter(|(k, _)| FIELDS.contains(&k.as_str()))
        .collect();
    let chars = |k: &str| {
        post.get(k)
            .and_then(Value::as_str)
            .map_or(0, |v| v.chars().count())
    };
    if chars("custom_excerpt") > 300 || chars("feature_image_alt") > 191 || chars("title") > 2000 {
        return Err(invalid("a field is too long"));
    }
    if req.query("source").is_some_and(|v| v != "html") {
        return Err(invalid("source must be html"));
    }
    Ok(post)
}

fn create(s: &mut Gh, req: &Request, site: &str) -> Reply {
    s.create_requests += 1;
    let fault = s.faults.pop_front().unwrap_or(Fault::Normal);
    let post = match one_post(s, req, "add") {
        Ok(post) => post,
        Err(refused) => return refused,
    };
    if !post.get("title").is_some_and(Value::is_string) {
        return error(
            422,
            "ValidationError",
            "Validation error, cannot add post.",
            None,
        );
    }
    match fault {
        Fault::Reject(status) => return error(status, "ValidationError", "Refused", None),
        Fault::Hang => return Reply::Hang(Duration::from_secs(2)),
        _ => {}
    }
    let created = s.insert(&Value::Object(post), site);
    after_commit(fault, Reply::json(201, json!({"posts": [created]})))
}

/// What the client hears of a request the server committed.
fn after_commit(fault: Fault, answer: Reply) -> Reply {
    match fault {
        Fault::CommitHang => Reply::Hang(Duration::from_secs(2)),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => error(status, "InternalServerError", "Oops", None),
        _ => answer,
    }
}

fn update(s: &mut Gh, req: &Request, id: &str) -> Reply {
    s.update_requests += 1;
    let fault = s.update_faults.pop_front().unwrap_or(Fault::Normal);
    let mut changes = match one_post(s, req, "edit") {
        Ok(post) => post,
        Err(refused) => return refused,
    };
    let Some(Value::String(client)) = changes.remove("updated_at") else {
        return error(
            422,
            "ValidationError",
            "Validation error, cannot edit post.",
            Some("should have required property 'updated_at'"),
        );
    };
    let Some(at) = s.posts.iter().position(|p| p["id"] == id) else {
        return not_found("edit");
    };
    if let Fault::Reject(status) = fault {
        return error(status, "ValidationError", "Refused", None);
    }
    if let Some(html) = changes.get_mut("html") {
        *html = json!(rendered(html.as_str().unwrap_or_default()));
    }
    let new_tags = changes.remove("tags").map(|t| tags(&t));
    let post = &s.posts[at];
    let changed: Vec<&String> = changes
        .keys()
        .filter(|k| post[k.as_str()] != changes[*k])
        .collect();
    if !changed.is_empty() && post["updated_at"].as_str() != Some(client.as_str()) {
        return Reply::json(
            409,
            json!({"errors": [{"message": "Saving failed! Someone else is editing this post.",
                "type": "UpdateCollisionError", "code": "UPDATE_COLLISION",
                "details": {"changedFields": changed, "clientUpdatedAt": client,
                    "serverUpdatedAt": post["updated_at"]}}]}),
        );
    }
    let touched = !changed.is_empty() || new_tags.as_ref().is_some_and(|t| *t != post["tags"]);
    let stamp = s.stamp();
    let post = &mut s.posts[at];
    for (k, v) in changes {
        post[k.as_str()] = v;
    }
    if let Some(tags) = new_tags {
        post["tags"] = tags;
    }
    if touched {
        post["updated_at"] = json!(stamp);
    }
    let post = post.clone();
    after_commit(
        fault,
        Reply::json(200, json!({"posts": [shown(&post, req)]})),
    )
}

fn list(s: &mut Gh, req: &Request) -> Reply {
    s.listings += 1;
    if let Some(status) = s.lookups_fail {
        return error(status, "InternalServerError", "Database went away", None);
    }
    let filter = match req.query("filter").map(|f| parse_filter(&f)) {
        None => None,
        Some(Ok(filter)) => Some(filter),
        Some(Err(refused)) => return refused,
    };
    if req.query("order").is_some_and(|o| o != "created_at asc") {
        return error(
            400,
            "BadRequestError",
            "this fake orders by created_at asc only",
            None,
        );
    }
    let limit = match req.query("limit").as_deref() {
        None => 15,
        Some(n) => match n.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                return error(
                    422,
                    "ValidationError",
                    "Validation (matches) failed for limit",
                    None,
                );
            }
        },
    };
    let page = req
        .query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let found: Vec<&Value> = s
        .posts
        .iter()
        .filter(|p| filter.as_ref().is_none_or(|f| f.matches(p)))
        .collect();
    let total = found.len();
    let pages = total.div_ceil(limit).max(1);
    let items: Vec<Value> = found
        .into_iter()
        .skip((page - 1) * limit)
        .take(limit)
        .map(|p| shown(p, req))
        .collect();
    let next = (page < pages).then_some(page + 1);
    let prev = (page > 1).then_some(page - 1);
    Reply::json(
        200,
        json!({"posts": items, "meta": {"pagination": {"page": page, "limit": limit,
            "pages": pages, "total": total, "next": next, "prev": prev}}}),
    )
}

fn upload(s: &mut Gh, req: &Request, site: &str) -> Reply {
    let fault = s.image_faults.pop_front().unwrap_or(Fault::Normal);
    let parts = multipart(req.header("Content-Type"), &req.body).unwrap_or_default();
    let Some(file) = parts
        .iter()
        .find(|p| p.name == "file" && p.filename.is_some())
    else {
        return error(422, "ValidationError", "Please select an image.", None);
    };
    let name = file.filename.clone().unwrap_or_default();
    let (stem, ext) = name.rsplit_once('.').unwrap_or((&name, ""));
    let types = [
        ("jpg", "image/jpeg"),
        ("jpeg", "image/jpeg"),
        ("png", "image/png"),
        ("gif", "image/gif"),
        ("webp", "image/webp"),
    ];
    let typed = types
        .iter()
        .any(|(e, t)| *e == ext.to_lowercase() && file.content_type.as_deref() == Some(*t));
    if !typed {
        return error(
            415,
            "UnsupportedMediaTypeError",
            "Please select a valid image.",
            None,
        );
    }
    let taken = |url: &str| s.images.iter().any(|(u, _)| u == url);
    let dir = format!("{site}/content/images/2026/12");
    let mut url = format!("{dir}/{name}");
    let mut n = 1;
    while taken(&url) {
        url = format!("{dir}/{stem}-{n}.{ext}");
        n += 1;
    }
    s.images.push((url.clone(), file.bytes.clone()));
    let reference = parts
        .iter()
        .find(|p| p.name == "ref")
        .map(|p| String::from_utf8_lossy(&p.bytes).into_owned());
    after_commit(
        fault,
        Reply::json(201, json!({"images": [{"url": url, "ref": reference}]})),
    )
}
