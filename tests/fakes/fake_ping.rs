//! A healthchecks-style ping endpoint: every request is recorded (method, path, body) and
//! answered as the test says: `OK` (200, as healthchecks answers), a failure, or a hang.

use super::fake_server::{Reply, Server};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the endpoint answers.
#[derive(Clone, Copy)]
pub enum Answer {
    Ok,
    /// HTTP 500 with a body.
    Fails,
    /// Reads the request and answers nothing for this long.
    Hangs(Duration),
}

/// One ping received.
#[derive(Debug, Clone)]
pub struct Ping {
    pub method: String,
    pub path: String,
    pub body: String,
}

pub struct FakePing {
    pub server: Server,
    pub pings: Arc<Mutex<Vec<Ping>>>,
}

impl FakePing {
    pub fn start(answer: Answer) -> FakePing {
        let pings: Arc<Mutex<Vec<Ping>>> = Arc::default();
        let seen = pings.clone();
        let server = Server::start(move |req| {
            seen.lock().unwrap().push(Ping {
                method: req.method.clone(),
                path: req.path().to_string(),
                body: String::from_utf8_lossy(&req.body).into_owned(),
            });
            match answer {
                Answer::Ok => Reply::raw(200, "text/plain", "OK"),
                Answer::Fails => Reply::raw(500, "text/plain", "internal error"),
                Answer::Hangs(wait) => Reply::Hang(wait),
            }
        });
        FakePing { server, pings }
    }

    /// The check's URL: a secret, as healthchecks' are (the UUID is the credential).
    pub fn url(&self) -> String {
        self.server
            .url("/ping/5ec7e7-c0ffee-0000-4b1d-d00d5ec7e7ab")
    }

    /// The path of each ping received, after the check's URL (`start`, `0`, `1`, …).
    pub fn paths(&self) -> Vec<String> {
        let base = "/ping/5ec7e7-c0ffee-0000-4b1d-d00d5ec7e7ab/";
        let pings = self.pings.lock().unwrap();
        pings
            .iter()
            .map(|p| p.path.strip_prefix(base).unwrap_or(&p.path).to_string())
            .collect()
    }

    pub fn pings(&self) -> Vec<Ping> {
        self.pings.lock().unwrap().clone()
    }
}
