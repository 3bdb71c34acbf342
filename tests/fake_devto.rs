//! A fake Forem (dev.to) API v1: `api-key` auth, articles with Forem's validations and its
//! five-minute duplicate-title rule, `/api/articles/me/all`, and `{"error", "status"}` bodies.

use crate::fake_posts::Fault;
use crate::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const KEY: &str = "devto-KEY-42";

#[derive(Default)]
pub struct Forem {
    pub articles: Vec<Value>,
    pub faults: VecDeque<Fault>,
    pub post_requests: usize,
    pub accept_headers: Vec<String>,
}

pub struct FakeDevto {
    pub server: Server,
    pub state: Arc<Mutex<Forem>>,
}

fn forem_error(status: u16, message: &str) -> Reply {
    Reply::json(status, json!({"error": message, "status": status}))
}

impl FakeDevto {
    pub fn start() -> FakeDevto {
        let state = Arc::new(Mutex::new(Forem::default()));
        let shared = state.clone();
        FakeDevto {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.devto]\nkind = \"devto\"\napi_key_file = \"secrets/devto.key\"\nbase_url = \"{}\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\n{extra}\n",
            self.server.url("")
        )
    }

    /// Let five minutes pass: the duplicate-title rule no longer applies to what is there.
    pub fn age(&self) {
        for article in &mut self.state.lock().unwrap().articles {
            article["recent"] = Value::Bool(false);
        }
    }

    pub fn articles(&self) -> Vec<Value> {
        self.state.lock().unwrap().articles.clone()
    }
}

fn handle(state: &Mutex<Forem>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    if req.header("api-key") != Some(KEY) {
        return forem_error(401, "unauthorized");
    }
    s.accept_headers
        .push(req.header("accept").unwrap_or("").to_string());
    match (req.method.as_str(), req.path()) {
        ("POST", "/api/articles") => {
            s.post_requests += 1;
            let article = req.json()["article"].clone();
            let title = article["title"].as_str().unwrap_or("");
            let tags = article["tags"].as_array().cloned().unwrap_or_default();
            if title.trim().is_empty() {
                return forem_error(422, "Title can't be blank");
            }
            if tags.len() > 4 {
                return forem_error(422, "Tag list exceed the maximum of 4 tags");
            }
            if tags.iter().any(|t| {
                !t.as_str()
                    .unwrap_or("")
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            }) {
                return forem_error(422, "Tag list contains non-alphanumeric characters");
            }
            match s.faults.pop_front().unwrap_or(Fault::Normal) {
                Fault::Reject(status) => {
                    forem_error(status, "Canonical url has already been taken")
                }
                Fault::RateLimit(secs) => Reply::Json(
                    429,
                    vec![("Retry-After".into(), secs.to_string())],
                    json!({"error": "Rate limit reached, try again in 30 seconds", "status": 429}),
                ),
                fault => {
                    if s.articles
                        .iter()
                        .any(|a| a["title"] == title && a["recent"] == true)
                    {
                        return forem_error(
                            422,
                            "Title has already been used in the last five minutes",
                        );
                    }
                    let id = 1000 + s.articles.len() as u64;
                    let stored = json!({
                        "id": id,
                        "title": title,
                        "body_markdown": article["body_markdown"],
                        "published": article["published"],
                        "tag_list": tags,
                        "description": article["description"],
                        "canonical_url": article["canonical_url"],
                        "url": format!("https://dev.test/writer/{}-{id}", title.to_lowercase().replace(' ', "-")),
                        "recent": true,
                    });
                    s.articles.push(stored.clone());
                    if fault == Fault::CommitHang {
                        return Reply::Hang(Duration::from_millis(600));
                    }
                    Reply::json(201, stored)
                }
            }
        }
        ("GET", "/api/articles/me/all") => Reply::json(
            200,
            Value::Array(s.articles.iter().rev().cloned().collect()),
        ),
        _ => forem_error(404, "not found"),
    }
}
