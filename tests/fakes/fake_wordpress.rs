//! A fake WordPress 6.1 REST API (facts: /work/notes/facts-wordpress.md): `/wp-json/wp/v2/…` (or
//! `?rest_route=`), Application Password auth, posts with unique slugs (`-2`, `-3`; drafts are not
//! uniquified), `date` on create, lookups by `slug`, `status`, `after`/`before` and pages with
//! X-WP-Total, tags with `term_exists`, categories, a PHP worker that commits after the client
//! gave up, and WordPress's error bodies (`{"code", "message", "data": {"status"}}`).
//!
//! Media (issue 14), as `WP_REST_Attachments_Controller` in 6.1.1 does it: `POST /wp/v2/media`
//! with a raw body needs Content-Type and a Content-Disposition filename (400
//! `rest_upload_no_data`, `…_no_content_type`, `…_no_content_disposition`,
//! `…_invalid_disposition`); the type is read from the bytes (not an image: 500
//! `rest_upload_sideload_error`; a wrong extension is corrected, as `wp_check_filetype_and_ext`
//! does); the file lands in `uploads/YYYY/MM/` under a unique name (`wp_unique_filename`: `-1`,
//! `-2`, …); the title is that name without extension; `alt_text` from the query is cleaned by
//! `sanitize_text_field`; images over 2560 px get a `-scaled` copy that `source_url` names.
//! Attachments are posts: one id sequence with the posts. `GET /wp/v2/media` searches title,
//! excerpt, content and the attached file name (`wp_allow_query_attachment_by_filename`), every
//! term, case aside. A post's `featured_media` is set only to an existing image attachment;
//! any other id is dropped without an error (`handle_featured_media`'s result is ignored by
//! create_item and update_item), so the post shows `featured_media: 0`.

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request, Server};
use jiff::civil::DateTime;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const USER: &str = "editor";
pub const PASSWORD: &str = "abcd EFGH 1234 ijkl MNOP 5678";
const STATUSES: [&str; 8] = [
    "publish",
    "future",
    "draft",
    "pending",
    "private",
    "trash",
    "auto-draft",
    "inherit",
];

#[derive(Default)]
pub struct Wp {
    pub posts: Vec<Value>,
    pub tags: Vec<Value>,
    pub categories: Vec<Value>,
    pub faults: VecDeque<Fault>,
    /// Plain permalinks: `/wp-json/` is a 404 page, only `?rest_route=` works.
    pub plain_permalinks: bool,
    /// Tag search misses existing tags (another writer created it a moment ago).
    pub stale_tag_search: bool,
    /// The user may not create posts (403 rest_cannot_create).
    pub read_only_user: bool,
    /// A plain-HTTP site that is not `local`: Application Passwords are silently ignored and
    /// every request runs logged out (POST 401 rest_cannot_create, a draft lookup 400).
    pub app_passwords_ignored: bool,
    /// GET /wp/v2/posts answers 500 (a PHP fatal error, a database that went away).
    pub lookups_fail: bool,
    /// What the next `GET /wp/v2/posts` listings meet.
    pub list_faults: VecDeque<ListFault>,
    pub post_requests: usize,
    pub password: String,
    /// What the next `POST /wp/v2/posts/{id}` requests (updates) meet.
    pub update_faults: VecDeque<Fault>,
    pub update_requests: usize,
    pub trash: crate::fakes::fake_wordpress_trash::Trash,
    /// Attachments (as `GET /wp/v2/media/{id}?context=edit` shows them), in upload order.
    pub media: Vec<Value>,
    /// The bytes of each attachment, by id.
    pub media_bytes: std::collections::HashMap<u64, Vec<u8>>,
    /// What the next `POST /wp/v2/media` requests meet (`CommitHang`: stored, no answer).
    pub media_faults: VecDeque<Fault>,
    /// `POST /wp/v2/media` requests that reached the handler.
    pub media_requests: usize,
    /// `GET /wp/v2/media` (searches) that reached the handler.
    pub media_searches: Vec<String>,
    /// A slow uplink for uploads: each `POST /wp/v2/media` reaches WordPress this long after
    /// it arrived (no lock held meanwhile, so other requests and the test go on).
    pub media_delay: std::time::Duration,
}

/// What a `GET /wp/v2/posts` listing meets instead of WordPress's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFault {
    /// The page without `X-WP-Total` and `X-WP-TotalPages` (a cache or proxy that drops them).
    NoTotals,
    /// An error status, as a PHP fatal error gives.
    Status(u16),
}

pub struct FakeWordPress {
    pub server: Server,
    pub state: Arc<Mutex<Wp>>,
}

fn wp_error(status: u16, code: &str, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"code": code, "message": message, "data": {"status": status}}),
    )
}

/// A parameter WordPress refuses: 400 rest_invalid_param naming it.
/// Page `page` of a listing, with WordPress's total headers; a page past the end is a 400.
fn one_page(found: Vec<&Value>, page: usize, per_page: usize) -> Reply {
    let total = found.len();
    let pages = total.div_ceil(per_page);
    if page > pages && total > 0 {
        return wp_error(
            400,
            "rest_post_invalid_page_number",
            "The page number requested is larger than the number of pages available.",
        );
    }
    let items: Vec<Value> = found
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect();
    let headers = vec![
        ("X-WP-Total".to_string(), total.to_string()),
        ("X-WP-TotalPages".to_string(), pages.to_string()),
    ];
    Reply::Json(200, headers, Value::Array(items))
}

fn invalid_param(name: &str, message: &str, details: Value) -> Reply {
    Reply::json(
        400,
        json!({"code": "rest_invalid_param", "message": format!("Invalid parameter(s): {name}"),
               "data": {"status": 400, "params": {name: message}, "details": {name: details}}}),
    )
}

impl FakeWordPress {
    pub fn start() -> FakeWordPress {
        let state = Arc::new(Mutex::new(Wp {
            password: PASSWORD.into(),
            ..Wp::default()
        }));
        state.lock().unwrap().categories = vec![
            json!({"id": 1, "name": "Uncategorized"}),
            json!({"id": 7, "name": "Notes"}),
        ];
        let shared = state.clone();
        FakeWordPress {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.wp]\nkind = \"wordpress\"\nurl = \"{}\"\nuser = \"{USER}\"\npassword_file = \"secrets/wp.password\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\n{extra}\n",
            self.server.url("")
        )
    }

    pub fn posts(&self) -> Vec<Value> {
        self.state.lock().unwrap().posts.clone()
    }

    /// Every attachment, in upload order.
    pub fn media(&self) -> Vec<Value> {
        self.state.lock().unwrap().media.clone()
    }

    /// The bytes WordPress stored for attachment `id`.
    pub fn media_bytes(&self, id: u64) -> Vec<u8> {
        self.state.lock().unwrap().media_bytes[&id].clone()
    }

    /// A post created by hand in wp-admin (the same rules as through the API).
    pub fn seed(&self, slug: &str, status: &str, date: &str) -> Value {
        let body = json!({"title": slug, "slug": slug, "status": status, "date": date, "tags": []});
        self.state.lock().unwrap().insert(&body)
    }

    /// A post with this title and content, as a lost attempt of dayrun's (or a hand) made it.
    pub fn seed_post(&self, slug: &str, date: &str, title: &str, content: &str) -> Value {
        let body = json!({"title": title, "content": content, "slug": slug, "status": "publish", "date": date, "tags": []});
        self.state.lock().unwrap().insert(&body)
    }

    /// Move a post to the trash: WordPress renames its slug `<slug>__trashed`.
    #[allow(dead_code)] // no test trashes a post yet
    pub fn trash(&self, id: u64) {
        let mut s = self.state.lock().unwrap();
        let post = s.posts.iter_mut().find(|p| p["id"] == id).unwrap();
        post["slug"] = json!(format!("{}__trashed", post["slug"].as_str().unwrap()));
        post["status"] = json!("trash");
    }
}

/// What WordPress stores of a title or content sent by a user without `unfiltered_html` (an
/// Author or Editor on a multisite; the role dayrun's README asks for): `wp_filter_post_kses`
/// drops tags it does not allow (keeping their text), writes a bare `&` as `&amp;`, and
/// normalises `<br>` to `<br />`. What dayrun sends and what a lookup reads back differ so.
fn kses(text: &str) -> String {
    let mut out = text.replace("<br>", "<br />");
    for tag in ["script", "style", "iframe"] {
        out = out
            .replace(&format!("<{tag}>"), "")
            .replace(&format!("</{tag}>"), "");
    }
    let mut fixed = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find('&') {
        fixed.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let entity = after.find(';').is_some_and(|end| {
            end <= 8
                && after[..end]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '#')
        });
        fixed.push_str(if entity { "&" } else { "&amp;" });
        rest = after;
    }
    fixed.push_str(rest);
    fixed
}

/// Site time (the fake site's zone is UTC), as WordPress prints it: no offset.
fn now() -> DateTime {
    jiff::tz::Offset::UTC.to_datetime(jiff::Timestamp::now())
}

/// WordPress's date parameter: `YYYY-MM-DDTHH:MM:SS`, optional fraction, and an optional `Z` or
/// offset (then converted to site time); without one it is site time already.
fn parse_date(value: &str) -> Option<DateTime> {
    let v = value.replacen([' ', 't'], "T", 1);
    let ok = v.len() >= 19
        && v.as_bytes()[..19].iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            10 => *b == b'T',
            13 | 16 => *b == b':',
            _ => b.is_ascii_digit(),
        });
    if !ok {
        return None;
    }
    if let Ok(ts) = v.parse::<jiff::Timestamp>() {
        return Some(jiff::tz::Offset::UTC.to_datetime(ts));
    }
    v.parse::<DateTime>().ok()
}

fn show(date: DateTime) -> String {
    date.strftime("%Y-%m-%dT%H:%M:%S").to_string()
}

impl Wp {
    /// `wp_unique_post_slug`: drafts and pending posts keep what they asked for; anything else
    /// gets `-2`, `-3`, … while any post of any status holds the slug.
    fn unique_slug(&self, slug: &str, status: &str) -> String {
        if slug.is_empty() || ["draft", "pending"].contains(&status) {
            return slug.to_string();
        }
        let taken = |s: &str| self.posts.iter().any(|p| p["slug"] == s);
        let mut candidate = slug.to_string();
        let mut suffix = 2;
        while taken(&candidate) {
            candidate = format!("{slug}-{suffix}");
            suffix += 1;
        }
        candidate
    }

    /// `wp_insert_post`: status from the date, a unique slug, then the post as the API shows it.
    fn insert(&mut self, body: &Value) -> Value {
        let date = body["date"]
            .as_str()
            .and_then(parse_date)
            .unwrap_or_else(now);
        let mut status = body["status"].as_str().unwrap_or("draft").to_string();
        if status == "publish" && (date - now()).get_seconds() >= 60 {
            status = "future".into();
        }
        let slug = self.unique_slug(body["slug"].as_str().unwrap_or(""), &status);
        let id = self.next_id();
        let featured = self.featured(body);
        let post = json!({
            "id": id,
            "date": show(date),
            "date_gmt": show(date),
            "slug": slug,
            "status": status,
            "title": {"raw": kses(body["title"].as_str().unwrap_or("")), "rendered": body["title"]},
            "content": {"raw": kses(body["content"].as_str().unwrap_or(""))},
            "excerpt": {"raw": body["excerpt"]},
            "tags": body["tags"],
            "categories": body.get("categories").cloned().unwrap_or(json!([1])),
            "link": format!("https://blog.test/?p={id}"),
            "featured_media": featured,
        });
        self.posts.push(post.clone());
        post
    }

    /// Posts and attachments share `wp_posts`, so one id sequence.
    fn next_id(&self) -> u64 {
        500 + (self.posts.len() + self.media.len()) as u64
    }

    /// `handle_featured_media`: an existing image attachment becomes the thumbnail; anything
    /// else is dropped and the post shows 0 (create_item and update_item ignore the WP_Error).
    fn featured(&self, body: &Value) -> u64 {
        let id = body["featured_media"].as_u64().unwrap_or(0);
        match self.media.iter().any(|m| m["id"] == id) {
            true => id,
            false => 0,
        }
    }

    /// GET /wp/v2/posts with WordPress's params, checks and headers. `logged_in` false: the
    /// request runs as a visitor.
    fn list(&self, req: &Request, logged_in: bool) -> Reply {
        let per_page = req.query("per_page").map_or(Some(10), |n| n.parse().ok());
        let Some(per_page) = per_page.filter(|n: &usize| (1..=100).contains(n)) else {
            let msg = "per_page must be between 1 (inclusive) and 100 (inclusive)";
            return invalid_param("per_page", msg, json!({"code": "rest_out_of_bounds"}));
        };
        let page: usize = req
            .query("page")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
            .max(1);
        let mut window = [None, None];
        for (slot, name) in window.iter_mut().zip(["after", "before"]) {
            if let Some(value) = req.query(name) {
                *slot = parse_date(&value);
                if slot.is_none() {
                    return invalid_param(
                        name,
                        "Invalid date.",
                        json!({"code": "rest_invalid_date"}),
                    );
                }
            }
        }
        let asked = req.query("status").unwrap_or("publish".into());
        let mut statuses: Vec<&str> = Vec::new();
        for status in asked.split(',').map(str::trim) {
            match status {
                "any" => statuses.extend(["publish", "future", "draft", "pending", "private"]),
                s if STATUSES.contains(&s) => statuses.push(s),
                _ => {
                    let msg = format!("status[0] is not one of {}, any.", STATUSES.join(", "));
                    return invalid_param("status", &msg, json!({"code": "rest_not_in_enum"}));
                }
            }
            if !logged_in && status != "publish" {
                let forbidden = json!({"code": "rest_forbidden_status", "message": "Status is forbidden.", "data": {"status": 401}});
                return invalid_param("status", "Status is forbidden.", forbidden);
            }
        }
        if !logged_in && req.query("context").as_deref() == Some("edit") {
            return wp_error(
                401,
                "rest_forbidden_context",
                "Sorry, you are not allowed to edit posts in this post type.",
            );
        }
        if req.query("context").as_deref() != Some("edit") || req.query("status").is_none() {
            return wp_error(
                400,
                "test_expectation",
                "confirmation must ask for every status with context=edit",
            );
        }
        let slugs = req.query("slug");
        let date_of = |p: &Value| parse_date(p["date"].as_str().unwrap()).unwrap();
        let mut found: Vec<&Value> = self
            .posts
            .iter()
            .filter(|p| statuses.iter().any(|s| p["status"] == *s))
            .filter(|p| {
                slugs
                    .as_ref()
                    .is_none_or(|list| list.split(',').any(|s| p["slug"] == s.trim()))
            })
            .filter(|p| window[0].is_none_or(|after| date_of(p) > after))
            .filter(|p| window[1].is_none_or(|before| date_of(p) < before))
            .collect();
        match req.query("orderby").as_deref().unwrap_or("date") {
            "id" => found.sort_by_key(|p| p["id"].as_u64()),
            "date" => found.sort_by_key(|p| (date_of(p), p["id"].as_u64())),
            other => {
                let msg = format!("orderby is not one of date, id (fake: got {other})");
                return invalid_param("orderby", &msg, json!({"code": "rest_not_in_enum"}));
            }
        }
        match req.query("order").as_deref().unwrap_or("desc") {
            "desc" => found.reverse(),
            "asc" => {}
            _ => {
                let msg = "order is not one of asc, desc.";
                return invalid_param("order", msg, json!({"code": "rest_not_in_enum"}));
            }
        }
        one_page(found, page, per_page)
    }

    /// `GET /wp/v2/tags` and `/wp/v2/categories`: `search` (part of a name, case aside),
    /// ordered by name (or `orderby=id`), in pages with WordPress's total headers.
    fn terms(&self, req: &Request, tags: bool) -> Reply {
        let per_page = req.query("per_page").map_or(Some(10), |n| n.parse().ok());
        let Some(per_page) = per_page.filter(|n: &usize| (1..=100).contains(n)) else {
            let msg = "per_page must be between 1 (inclusive) and 100 (inclusive)";
            return invalid_param("per_page", msg, json!({"code": "rest_out_of_bounds"}));
        };
        let page: usize = req
            .query("page")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
            .max(1);
        let search = req.query("search").unwrap_or_default().to_lowercase();
        let list = if tags { &self.tags } else { &self.categories };
        let mut found: Vec<&Value> = match tags && self.stale_tag_search {
            true => Vec::new(),
            false => list
                .iter()
                .filter(|t| t["name"].as_str().unwrap().to_lowercase().contains(&search))
                .collect(),
        };
        match req.query("orderby").as_deref().unwrap_or("name") {
            "id" => found.sort_by_key(|t| t["id"].as_u64()),
            "name" => found.sort_by_key(|t| t["name"].as_str().unwrap().to_lowercase()),
            other => {
                let msg = format!("orderby is not one of id, name (fake: got {other})");
                return invalid_param("orderby", &msg, json!({"code": "rest_not_in_enum"}));
            }
        }
        if req.query("order").as_deref() == Some("desc") {
            found.reverse();
        }
        one_page(found, page, per_page)
    }
}

impl Wp {
    /// `POST /wp/v2/posts/{id}`: title, content, excerpt, tags (and status, slug, date when
    /// sent) replaced; 200 with the post.
    fn update(&mut self, id: &str, body: &Value) -> Reply {
        self.update_requests += 1;
        let fault = self.update_faults.pop_front().unwrap_or(Fault::Normal);
        let Some(post) = self
            .posts
            .iter_mut()
            .find(|p| p["id"] == id.parse::<u64>().unwrap_or(0))
        else {
            return wp_error(404, "rest_post_invalid_id", "Invalid post ID.");
        };
        match fault {
            Fault::Reject(status) => {
                return wp_error(
                    status,
                    "rest_invalid_param",
                    "Invalid parameter(s): content",
                );
            }
            Fault::Hang => return Reply::Hang(Duration::from_millis(600)),
            _ => {}
        }
        for (field, shown) in [("title", true), ("content", false), ("excerpt", false)] {
            if let Some(value) = body.get(field) {
                post[field] = match shown {
                    true => json!({"raw": value, "rendered": value}),
                    false => json!({ "raw": value }),
                };
            }
        }
        for field in ["tags", "categories", "status", "slug", "date"] {
            if let Some(value) = body.get(field) {
                post[field] = value.clone();
            }
        }
        if body.get("featured_media").is_some() {
            let featured = self.featured(body);
            let post = self
                .posts
                .iter_mut()
                .find(|p| p["id"] == id.parse::<u64>().unwrap_or(0))
                .unwrap();
            post["featured_media"] = json!(featured);
        }
        let post = self
            .posts
            .iter()
            .find(|p| p["id"] == id.parse::<u64>().unwrap_or(0))
            .unwrap();
        match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            _ => Reply::json(200, post.clone()),
        }
    }

    /// `GET /wp/v2/posts/{id}` (`context=edit` shows the raw fields, as stored here).
    fn one(&self, id: &str, req: &Request) -> Reply {
        if req.query("context").as_deref() != Some("edit") {
            return wp_error(
                400,
                "test_expectation",
                "read a post back with context=edit",
            );
        }
        match self
            .posts
            .iter()
            .find(|p| p["id"] == id.parse::<u64>().unwrap_or(0))
        {
            Some(post) => Reply::json(200, post.clone()),
            None => wp_error(404, "rest_post_invalid_id", "Invalid post ID."),
        }
    }
}

fn handle(state: &Arc<Mutex<Wp>>, req: &Request) -> Reply {
    if req.method == "POST" && req.path().ends_with("/wp/v2/media") {
        let delay = state.lock().unwrap().media_delay;
        std::thread::sleep(delay);
    }
    let mut s = state.lock().unwrap();
    // Routing as WordPress does it.
    let route = if let Some(route) = req.path().strip_prefix("/wp-json") {
        if s.plain_permalinks {
            return Reply::Json(
                404,
                vec![],
                Value::String("<html><body>Page not found</body></html>".into()),
            );
        }
        route.to_string()
    } else if req.path() == "/" && req.query("rest_route").is_some() {
        req.query("rest_route").unwrap()
    } else {
        return Reply::json(404, Value::String("<html>not found</html>".into()));
    };
    let expected = format!(
        "Basic {}",
        crate::support::util::base64(format!("{USER}:{}", s.password).as_bytes(), false, true)
    );
    // Without a usable Application Password the request runs logged out.
    let logged_in = match req.header("authorization") {
        _ if s.app_passwords_ignored => false,
        None => false,
        Some(auth) if auth != expected => {
            return wp_error(
                401,
                "incorrect_password",
                "The provided password is an invalid application password.",
            );
        }
        Some(_) => true,
    };
    match (req.method.as_str(), route.as_str()) {
        ("GET", "/wp/v2/tags") => s.terms(req, true),
        ("GET", "/wp/v2/categories") => s.terms(req, false),
        ("POST", "/wp/v2/tags") if !logged_in => wp_error(
            401,
            "rest_cannot_create",
            "Sorry, you are not allowed to create terms in this taxonomy.",
        ),
        ("POST", "/wp/v2/tags") => {
            let name = req.json()["name"].as_str().unwrap_or("").to_string();
            if let Some(existing) = s
                .tags
                .iter()
                .find(|t| t["name"].as_str().unwrap().eq_ignore_ascii_case(&name))
            {
                let id = existing["id"].clone();
                return Reply::json(
                    400,
                    json!({"code": "term_exists", "message": "A term with the name provided already exists in this taxonomy.", "data": {"status": 400, "term_id": id}}),
                );
            }
            let tag = json!({"id": 100 + s.tags.len(), "name": name.replace('&', "&amp;")});
            s.tags.push(tag.clone());
            Reply::json(201, tag)
        }
        ("POST", "/wp/v2/posts") => {
            s.post_requests += 1;
            if !logged_in || s.read_only_user {
                return wp_error(
                    if logged_in { 403 } else { 401 },
                    "rest_cannot_create",
                    "Sorry, you are not allowed to create posts as this user.",
                );
            }
            let body = req.json();
            let fault = s.faults.pop_front().unwrap_or(Fault::Normal);
            if let Fault::Reject(status) = fault {
                return Reply::json(
                    status,
                    json!({"code": "rest_invalid_param", "message": "Invalid parameter(s): status", "data": {"status": status, "params": {"status": "status is not one of publish, future, draft, pending, private, trash."}}}),
                );
            }
            if !body["tags"]
                .as_array()
                .is_some_and(|t| t.iter().all(Value::is_u64))
            {
                return wp_error(400, "rest_invalid_param", "Invalid parameter(s): tags");
            }
            if body
                .get("featured_media")
                .is_some_and(|f| !f.is_u64() && !f.is_null())
            {
                let msg = "featured_media is not of type integer.";
                return invalid_param("featured_media", msg, json!({"code": "rest_invalid_type"}));
            }
            if body["date"]
                .as_str()
                .is_some_and(|d| parse_date(d).is_none())
            {
                return invalid_param(
                    "date",
                    "Invalid date.",
                    json!({"code": "rest_invalid_date"}),
                );
            }
            if let Fault::LateCommit(after) = fault {
                // PHP goes on with the request after the client gave up; the slug is made unique
                // when it finally inserts.
                let late = state.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(after);
                    late.lock().unwrap().insert(&body);
                });
                return Reply::Hang(after + Duration::from_millis(600));
            }
            let post = s.insert(&body);
            match fault {
                Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
                Fault::CommitStatus(status) => wp_error(
                    status,
                    "internal_server_error",
                    "There has been a critical error on this website.",
                ),
                _ => Reply::json(201, post),
            }
        }
        ("GET", "/wp/v2/posts") if s.lookups_fail => wp_error(
            500,
            "internal_server_error",
            "There has been a critical error on this website.",
        ),
        ("GET", "/wp/v2/posts") => match s.list_faults.pop_front() {
            None => s.list(req, logged_in),
            Some(ListFault::Status(status)) => wp_error(
                status,
                "internal_server_error",
                "There has been a critical error on this website.",
            ),
            Some(ListFault::NoTotals) => match s.list(req, logged_in) {
                Reply::Json(status, _, body) => Reply::Json(status, Vec::new(), body),
                other => other,
            },
        },
        ("POST", "/wp/v2/media") => s.upload(req, logged_in),
        ("GET", "/wp/v2/media") => s.list_media(req, logged_in),
        ("GET", r) if r.starts_with("/wp/v2/media/") => {
            let id = r["/wp/v2/media/".len()..].parse::<u64>().unwrap_or(0);
            match s.media.iter().find(|m| m["id"] == id) {
                Some(item) => Reply::json(200, item.clone()),
                None => wp_error(404, "rest_post_invalid_id", "Invalid post ID."),
            }
        }
        ("POST", r) if r.starts_with("/wp/v2/posts/") && logged_in => {
            s.update(&r["/wp/v2/posts/".len()..], &req.json())
        }
        ("DELETE", r) if r.starts_with("/wp/v2/posts/") => {
            crate::fakes::fake_wordpress_trash::delete(
                &mut s,
                &r["/wp/v2/posts/".len()..],
                logged_in,
                req.query("force").as_deref() == Some("true"),
            )
        }
        ("GET", r) if r.starts_with("/wp/v2/posts/") && logged_in => {
            s.one(&r["/wp/v2/posts/".len()..], req)
        }
        _ => wp_error(
            404,
            "rest_no_route",
            "No route was found matching the URL and request method.",
        ),
    }
}

/// `sanitize_text_field`: tags stripped, line breaks, tabs and runs of spaces folded, trimmed,
/// and percent-encoded octets removed (`%[a-f0-9]{2}`, what WordPress does to `alt_text`).
fn sanitize_text_field(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    let mut clean = String::new();
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '%'
            && i + 2 < chars.len()
            && chars[i + 1].is_ascii_hexdigit()
            && chars[i + 2].is_ascii_hexdigit()
        {
            i += 3;
            continue;
        }
        clean.push(chars[i]);
        i += 1;
    }
    clean
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `sanitize_file_name`, near enough for the names a client sends: characters outside
/// letters, digits, `.`, `-` and `_` are dropped, spaces become `-`.
fn sanitize_file_name(name: &str) -> String {
    name.chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_ascii_alphanumeric() || ".-_".contains(c) => Some(c),
            _ => None,
        })
        .collect()
}

impl Wp {
    /// The uploads folder of this month, as `wp_upload_dir()` makes it (`uploads/YYYY/MM`).
    fn upload_dir() -> String {
        now().strftime("%Y/%m").to_string()
    }

    /// Is a file of this name in `dir`: an attached file, or the original of a `-scaled` one?
    fn file_exists(&self, dir: &str, name: &str) -> bool {
        let path = format!("{dir}/{name}");
        self.media.iter().any(|m| {
            let file = m["media_details"]["file"].as_str().unwrap_or("");
            let folder = file.rsplit_once('/').map_or("", |(d, _)| d);
            let original = m["media_details"]["original_image"].as_str();
            file == path || original.is_some_and(|o| format!("{folder}/{o}") == path)
        })
    }

    /// `wp_unique_filename`: `name.ext`, else `name-1.ext`, `name-2.ext`, …; a name that looks
    /// like an image sub-size (`-300x200`, `-scaled`, `-rotated`) gets a number at once.
    fn unique_filename(&self, dir: &str, filename: &str) -> String {
        let (stem, ext) = match filename.rsplit_once('.') {
            Some((stem, ext)) => (stem.to_string(), format!(".{}", ext.to_lowercase())),
            None => (filename.to_string(), String::new()),
        };
        let looks_like_size = {
            let tail = stem.rsplit('-').next().unwrap_or("");
            let dims = tail.split_once('x').is_some_and(|(w, h)| {
                !w.is_empty()
                    && !h.is_empty()
                    && (w.to_string() + h).bytes().all(|b| b.is_ascii_digit())
            });
            stem.contains('-') && (dims || tail == "scaled" || tail == "rotated")
        };
        let mut number = if looks_like_size { 1 } else { 0 };
        loop {
            let candidate = match number {
                0 => format!("{stem}{ext}"),
                n => format!("{stem}-{n}{ext}"),
            };
            if !self.file_exists(dir, &candidate) {
                return candidate;
            }
            number += 1;
        }
    }

    /// `POST /wp/v2/media` with the file as the raw body (`upload_from_data`).
    fn upload(&mut self, req: &Request, logged_in: bool) -> Reply {
        self.media_requests += 1;
        if !logged_in || self.read_only_user {
            return wp_error(
                if logged_in { 403 } else { 401 },
                "rest_cannot_create",
                "Sorry, you are not allowed to create posts as this user.",
            );
        }
        let fault = self.media_faults.pop_front().unwrap_or(Fault::Normal);
        match fault {
            Fault::Reject(status) => {
                return wp_error(status, "rest_upload_unknown_error", "fake: upload refused");
            }
            Fault::Hang => return Reply::Hang(Duration::from_millis(600)),
            _ => {}
        }
        let content_type = req.header("content-type").unwrap_or("");
        if content_type.starts_with("multipart/") {
            // WordPress would take it through $_FILES; the contract says raw body.
            return wp_error(
                400,
                "test_expectation",
                "fake: the contract sends the image as the raw body, not multipart",
            );
        }
        if req.body.is_empty() {
            return wp_error(400, "rest_upload_no_data", "No data supplied.");
        }
        if content_type.is_empty() {
            return wp_error(
                400,
                "rest_upload_no_content_type",
                "No Content-Type supplied.",
            );
        }
        let Some(disposition) = req.header("content-disposition") else {
            return wp_error(
                400,
                "rest_upload_no_content_disposition",
                "No Content-Disposition supplied.",
            );
        };
        // get_filename_from_disposition: the `filename` attribute after the first `;`.
        let filename = disposition.split_once(';').and_then(|(_, attrs)| {
            attrs.split(';').find_map(|part| {
                let (k, v) = part.split_once('=')?;
                (k.trim() == "filename").then(|| {
                    let v = v.trim();
                    v.strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .unwrap_or(v)
                        .to_string()
                })
            })
        });
        let Some(filename) = filename.filter(|f| !f.is_empty()) else {
            return wp_error(
                400,
                "rest_upload_invalid_disposition",
                "Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename=\"image.png\"` or similar.",
            );
        };
        // wp_handle_sideload → wp_check_filetype_and_ext: the real type decides.
        let Some((mime, real_ext)) = crate::fakes::media::sniff(&req.body) else {
            return wp_error(
                500,
                "rest_upload_sideload_error",
                "Sorry, you are not allowed to upload this file type.",
            );
        };
        let mut filename = sanitize_file_name(&filename);
        let ext_ok = filename.rsplit_once('.').is_some_and(|(_, e)| {
            let e = e.to_lowercase();
            e == real_ext || (real_ext == "jpg" && (e == "jpeg" || e == "jpe"))
        });
        if !ext_ok {
            let stem = filename
                .rsplit_once('.')
                .map_or(filename.as_str(), |(s, _)| s);
            filename = format!("{stem}.{real_ext}");
        }
        let dir = Self::upload_dir();
        let unique = self.unique_filename(&dir, &filename);
        let (stem, ext) = unique.rsplit_once('.').unwrap();
        let (width, height) = crate::fakes::media::dimensions(&req.body).unwrap_or((0, 0));
        // big_image_size_threshold: 2560 px; the attached file becomes `<name>-scaled.<ext>`.
        let scaled = width > 2560 || height > 2560;
        let attached = match scaled {
            true => format!("{dir}/{stem}-scaled.{ext}"),
            false => format!("{dir}/{unique}"),
        };
        let id = self.next_id();
        let alt = req
            .query("alt_text")
            .map(|a| sanitize_text_field(&a))
            .unwrap_or_default();
        let mut details = json!({"width": width, "height": height, "file": attached, "sizes": {}});
        if scaled {
            details["original_image"] = json!(unique);
        }
        let item = json!({
            "id": id,
            "date": show(now()),
            "slug": stem,
            "status": "inherit",
            "type": "attachment",
            "link": format!("https://blog.test/?attachment_id={id}"),
            "title": {"raw": stem, "rendered": stem},
            "author": 1,
            "alt_text": alt,
            "caption": {"raw": ""},
            "description": {"raw": ""},
            "media_type": "image",
            "mime_type": mime,
            "media_details": details,
            "post": null,
            "source_url": format!("https://blog.test/wp-content/uploads/{attached}"),
        });
        self.media.push(item.clone());
        self.media_bytes.insert(id, req.body.clone());
        match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            Fault::CommitClose => Reply::Close,
            Fault::CommitStatus(status) => wp_error(
                status,
                "internal_server_error",
                "There has been a critical error on this website.",
            ),
            _ => Reply::Json(
                201,
                vec![(
                    "Location".into(),
                    format!("https://blog.test/wp-json/wp/v2/media/{id}"),
                )],
                item,
            ),
        }
    }

    /// `GET /wp/v2/media`: status `inherit` by default, newest first, `search` over title,
    /// excerpt, content and the attached file (every term must match, case aside; a term that
    /// starts with `-` excludes), pages as for posts.
    fn list_media(&mut self, req: &Request, logged_in: bool) -> Reply {
        let search = req.query("search").unwrap_or_default();
        self.media_searches.push(search.clone());
        if !logged_in && req.query("context").as_deref() == Some("edit") {
            return wp_error(
                401,
                "rest_forbidden_context",
                "Sorry, you are not allowed to edit posts in this post type.",
            );
        }
        let per_page = req.query("per_page").map_or(Some(10), |n| n.parse().ok());
        let Some(per_page) = per_page.filter(|n: &usize| (1..=100).contains(n)) else {
            let msg = "per_page must be between 1 (inclusive) and 100 (inclusive)";
            return invalid_param("per_page", msg, json!({"code": "rest_out_of_bounds"}));
        };
        let page: usize = req
            .query("page")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
            .max(1);
        let terms: Vec<String> = search
            .split([' ', '\t', ',', '+'])
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut found: Vec<&Value> = self
            .media
            .iter()
            .filter(|m| {
                let fields = [
                    m["title"]["raw"].as_str().unwrap_or(""),
                    m["caption"]["raw"].as_str().unwrap_or(""),
                    m["description"]["raw"].as_str().unwrap_or(""),
                    m["media_details"]["file"].as_str().unwrap_or(""),
                ]
                .map(str::to_lowercase);
                terms.iter().all(|t| match t.strip_prefix('-') {
                    Some(t) if !t.is_empty() => fields.iter().all(|f| !f.contains(t)),
                    _ => fields.iter().any(|f| f.contains(t.as_str())),
                })
            })
            .collect();
        found.sort_by_key(|m| std::cmp::Reverse(m["id"].as_u64()));
        one_page(found, page, per_page)
    }
}
