//! A fake WordPress REST API: `/wp-json/wp/v2/…` (or `?rest_route=` with plain permalinks),
//! Application Password auth, posts, tags with `term_exists`, categories, and WordPress's error
//! bodies (`{"code", "message", "data": {"status"}}`).

use crate::fake_posts::Fault;
use crate::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const USER: &str = "editor";
pub const PASSWORD: &str = "abcd EFGH 1234 ijkl MNOP 5678";

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
    pub post_requests: usize,
    pub password: String,
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

impl FakeWordPress {
    pub fn start() -> FakeWordPress {
        let state = Arc::new(Mutex::new(Wp {
            password: PASSWORD.into(),
            ..Wp::default()
        }));
        state
            .lock()
            .unwrap()
            .categories
            .push(json!({"id": 1, "name": "Uncategorized"}));
        state
            .lock()
            .unwrap()
            .categories
            .push(json!({"id": 7, "name": "Notes"}));
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
}

fn handle(state: &Mutex<Wp>, req: &Request) -> Reply {
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
        dayrun::targets::net::base64(format!("{USER}:{}", s.password).as_bytes())
    );
    match req.header("authorization") {
        None => {
            return wp_error(
                401,
                "rest_not_logged_in",
                "You are not currently logged in.",
            );
        }
        Some(auth) if auth != expected => {
            return wp_error(
                401,
                "incorrect_password",
                "The provided password is an invalid application password.",
            );
        }
        _ => {}
    }
    match (req.method.as_str(), route.as_str()) {
        ("GET", "/wp/v2/tags") | ("GET", "/wp/v2/categories") => {
            let search = req.query("search").unwrap_or_default().to_lowercase();
            let list = if route.ends_with("tags") {
                &s.tags
            } else {
                &s.categories
            };
            let found: Vec<Value> = if route.ends_with("tags") && s.stale_tag_search {
                Vec::new()
            } else {
                list.iter()
                    .filter(|t| t["name"].as_str().unwrap().to_lowercase().contains(&search))
                    .cloned()
                    .collect()
            };
            Reply::json(200, Value::Array(found))
        }
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
            if s.read_only_user {
                return wp_error(
                    403,
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
            let id = 500 + s.posts.len() as u64;
            let post = json!({
                "id": id,
                "slug": body["slug"],
                "status": body["status"],
                "title": {"raw": body["title"], "rendered": body["title"]},
                "content": {"raw": body["content"]},
                "excerpt": {"raw": body["excerpt"]},
                "tags": body["tags"],
                "categories": body.get("categories").cloned().unwrap_or(json!([1])),
                "link": format!("https://blog.test/?p={id}"),
            });
            s.posts.push(post.clone());
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
        ("GET", "/wp/v2/posts") => {
            if req.query("context").as_deref() != Some("edit") || req.query("status").is_none() {
                return wp_error(
                    400,
                    "test_expectation",
                    "confirmation must ask for every status with context=edit",
                );
            }
            let slug = req.query("slug").unwrap_or_default();
            let found: Vec<Value> = s
                .posts
                .iter()
                .filter(|p| p["slug"] == slug.as_str())
                .cloned()
                .collect();
            Reply::json(200, Value::Array(found))
        }
        _ => wp_error(
            404,
            "rest_no_route",
            "No route was found matching the URL and request method.",
        ),
    }
}
