//! A fake Mastodon API: bearer auth, `/api/v2/instance` limits, statuses with Idempotency-Key
//! (a repeat returns the first status), HTML-rendered content, 429 with `X-RateLimit-Reset`.

use crate::fake_posts::Fault;
use crate::fake_server::{Reply, Request, Server};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOKEN: &str = "masto-TOKEN-7";
const ACCOUNT: &str = "109";

#[derive(Default)]
pub struct Masto {
    pub statuses: Vec<Value>,
    pub sent_texts: Vec<String>,
    pub faults: VecDeque<Fault>,
    pub post_requests: usize,
    pub idempotent: HashMap<String, Value>,
    pub max_characters: u64,
}

pub struct FakeMastodon {
    pub server: Server,
    pub state: Arc<Mutex<Masto>>,
}

impl FakeMastodon {
    pub fn start(max_characters: u64) -> FakeMastodon {
        let state = Arc::new(Mutex::new(Masto {
            max_characters,
            ..Masto::default()
        }));
        let shared = state.clone();
        FakeMastodon {
            server: Server::start(move |req| handle(&shared, req)),
            state,
        }
    }

    pub fn config(&self, extra: &str) -> String {
        format!(
            "[targets.masto]\nkind = \"mastodon\"\ninstance = \"{}\"\ntoken_file = \"secrets/masto.token\"\ntimeout_secs = 0.3\nbackoff_secs = 0.01\nconfirm_polls = 2\nconfirm_delay_secs = 0.01\nretry_after_cap_secs = 2\n{extra}\n",
            self.server.url("")
        )
    }

    pub fn statuses(&self) -> Vec<Value> {
        self.state.lock().unwrap().statuses.clone()
    }
}

/// Mastodon's rendering: paragraphs, line breaks, hashtag links, URLs split into spans.
fn render(text: &str) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let word = |w: &str| {
        if let Some(tag) = w.strip_prefix('#') {
            format!(
                "<a href=\"https://m.test/tags/{tag}\" class=\"mention hashtag\" rel=\"tag\">#<span>{}</span></a>",
                esc(tag)
            )
        } else if let Some(rest) = w.strip_prefix("https://") {
            let (shown, hidden) = rest.split_at(rest.len().min(30));
            format!(
                "<a href=\"{}\"><span class=\"invisible\">https://</span><span class=\"ellipsis\">{}</span><span class=\"invisible\">{}</span></a>",
                esc(w),
                esc(shown),
                esc(hidden)
            )
        } else {
            esc(w)
        }
    };
    text.split("\n\n")
        .map(|para| {
            let lines: Vec<String> = para
                .lines()
                .map(|l| l.split(' ').map(word).collect::<Vec<_>>().join(" "))
                .collect();
            format!("<p>{}</p>", lines.join("<br />"))
        })
        .collect()
}

fn length(text: &str) -> u64 {
    text.split([' ', '\n'])
        .map(|w| {
            if w.starts_with("https://") {
                23
            } else {
                w.chars().count() as u64
            }
        })
        .sum::<u64>()
        + text.chars().filter(|c| *c == ' ' || *c == '\n').count() as u64
}

fn handle(state: &Mutex<Masto>, req: &Request) -> Reply {
    let mut s = state.lock().unwrap();
    if req.path() == "/api/v2/instance" {
        return Reply::json(
            200,
            json!({"domain": "m.test", "configuration": {"statuses": {"max_characters": s.max_characters, "characters_reserved_per_url": 23}}}),
        );
    }
    if req.header("authorization") != Some(&format!("Bearer {TOKEN}")) {
        return Reply::json(401, json!({"error": "The access token is invalid"}));
    }
    match (req.method.as_str(), req.path()) {
        ("POST", "/api/v1/statuses") => {
            s.post_requests += 1;
            let key = req.header("idempotency-key").unwrap_or("").to_string();
            if let Some(first) = s.idempotent.get(&key) {
                return Reply::json(200, first.clone());
            }
            let text = req.json()["status"].as_str().unwrap_or("").to_string();
            s.sent_texts.push(text.clone());
            if length(&text) > s.max_characters {
                return Reply::json(
                    422,
                    json!({"error": format!("Validation failed: Text character limit of {} exceeded", s.max_characters)}),
                );
            }
            let fault = s.faults.pop_front().unwrap_or(Fault::Normal);
            match fault {
                Fault::Reject(422) => {
                    return Reply::json(
                        422,
                        json!({"error": "Validation failed: Text can't be blank"}),
                    );
                }
                Fault::RateLimit(secs) => {
                    let reset =
                        jiff::Timestamp::now() + jiff::SignedDuration::from_secs(secs as i64);
                    return Reply::Json(
                        429,
                        vec![("X-RateLimit-Reset".into(), reset.to_string())],
                        json!({"error": "Too many requests"}),
                    );
                }
                _ => {}
            }
            let id = (110_000 + s.statuses.len()).to_string();
            let status = json!({"id": id, "url": format!("https://m.test/@writer/{id}"), "content": render(&text), "visibility": req.json()["visibility"]});
            s.statuses.insert(0, status.clone());
            if !key.is_empty() {
                s.idempotent.insert(key, status.clone());
            }
            match fault {
                Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
                // A concurrent duplicate was caught while the first one was being processed.
                Fault::Reject(503) => Reply::json(
                    503,
                    json!({"error": "Another identical request is currently being processed. Please try again later."}),
                ),
                _ => Reply::json(200, status),
            }
        }
        ("GET", "/api/v1/accounts/verify_credentials") => {
            Reply::json(200, json!({"id": ACCOUNT, "username": "writer"}))
        }
        ("GET", path) if path == format!("/api/v1/accounts/{ACCOUNT}/statuses") => {
            let limit: usize = req
                .query("limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(20);
            Reply::json(
                200,
                Value::Array(s.statuses.iter().take(limit).cloned().collect()),
            )
        }
        _ => Reply::json(404, json!({"error": "Record not found"})),
    }
}
