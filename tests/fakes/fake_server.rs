//! An in-process HTTP/1.1 server for network-target tests: a handler decides each answer,
//! including the faults real servers show (hang after commit, close without answering, go down).

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path with query string.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    pub fn query(&self, name: &str) -> Option<String> {
        let query = self.target.split_once('?')?.1;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == name).then(|| percent_decode(v))
        })
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Status, extra headers, JSON body.
    Json(u16, Vec<(String, String)>, Value),
    /// Read the request, then wait this long and close without answering.
    Hang(Duration),
    /// Read the request, then close without answering.
    Close,
    /// Status, headers, and a body sent byte for byte (any encoding, any size, not JSON).
    Raw(u16, Vec<(String, String)>, Vec<u8>),
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::Json(status, Vec::new(), body)
    }

    /// A body exactly as given, with this Content-Type.
    pub fn raw(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Raw(
            status,
            vec![("Content-Type".into(), content_type.into())],
            body.into(),
        )
    }

    /// A 3xx pointing at `location`, with a small HTML body as servers send.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Raw(
            status,
            vec![
                ("Location".into(), location.into()),
                ("Content-Type".into(), "text/html".into()),
            ],
            format!("<a href=\"{location}\">Moved</a>").into_bytes(),
        )
    }
}

type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

pub struct Server {
    pub addr: SocketAddr,
    listener: Arc<Mutex<Option<TcpListener>>>,
    stop: Arc<AtomicBool>,
    pub requests: Arc<AtomicUsize>,
    /// `METHOD target` of every request read, in arrival order (for counting them by kind).
    pub seen: Arc<Mutex<Vec<String>>>,
    /// Connections being served now.
    active: Arc<AtomicUsize>,
}

impl Server {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let server = Server {
            addr,
            listener: Arc::new(Mutex::new(Some(listener))),
            stop: Arc::new(AtomicBool::new(false)),
            requests: Arc::new(AtomicUsize::new(0)),
            seen: Arc::new(Mutex::new(Vec::new())),
            active: Arc::new(AtomicUsize::new(0)),
        };
        let handler: Handler = Arc::new(handler);
        let (slot, stop, count, seen, active) = (
            server.listener.clone(),
            server.stop.clone(),
            server.requests.clone(),
            server.seen.clone(),
            server.active.clone(),
        );
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let accepted = slot.lock().unwrap().as_ref().map(|l| l.accept());
                match accepted {
                    Some(Ok((stream, _))) => {
                        let (handler, count, seen) = (handler.clone(), count.clone(), seen.clone());
                        active.fetch_add(1, Ordering::SeqCst);
                        let active = active.clone();
                        std::thread::spawn(move || {
                            serve(stream, &handler, &count, &seen);
                            active.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    _ => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        });
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stop listening: connections are refused until `up`.
    pub fn down(&self) {
        *self.listener.lock().unwrap() = None;
    }

    pub fn up(&self) {
        let mut slot = self.listener.lock().unwrap();
        if slot.is_none() {
            let listener = TcpListener::bind(self.addr).unwrap();
            listener.set_nonblocking(true).unwrap();
            *slot = Some(listener);
        }
    }

    /// Wait until every connection made so far has been served (a client killed, or one that
    /// gave up waiting, leaves one the server still answers), at most `limit`. `backlog`: how
    /// long to let the accept loop pick up a connection still waiting to be accepted.
    pub fn settle(&self, backlog: Duration, limit: Duration) {
        let start = std::time::Instant::now();
        std::thread::sleep(backlog);
        while self.active.load(Ordering::SeqCst) > 0 && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn request_count(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.down();
    }
}

fn serve(stream: TcpStream, handler: &Handler, count: &AtomicUsize, seen: &Mutex<Vec<String>>) {
    stream.set_nonblocking(false).ok();
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    count.fetch_add(1, Ordering::SeqCst);
    seen.lock().unwrap().push(format!("{method} {target}"));
    let request = Request {
        method,
        target,
        headers,
        body,
    };
    let mut stream = stream;
    match handler(&request) {
        Reply::Json(status, extra, value) => {
            let body = value.to_string();
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (n, v) in extra {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.flush();
        }
        Reply::Raw(status, extra, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (n, v) in extra {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
            let _ = stream.flush();
        }
        Reply::Hang(wait) => std::thread::sleep(wait),
        Reply::Close => {}
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}
