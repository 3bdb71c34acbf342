//! One relay over a WebSocket (`ws://` or `wss://` with the TLS ureq uses): the connection
//! kept for the run, each wait bounded by the target's timeouts, each message at most 16 MiB,
//! every text from the relay redacted. `EVENT` waits for its `OK`; `REQ` reads events until
//! `EOSE` (or `CLOSED`). Before an `EVENT` is written nothing was sent (retry-safe); after,
//! a failure may have left it stored (unknown). `DAYRUN_NOSTR_FAULT` is the fault point the
//! tests use, in a test build only (the `faults` feature; the fault proxy speaks HTTP only): `lose_ok:N[+K][@TEXT]` sends N
//! events (after the first K, to relays whose URL holds TEXT) and drops the connection before
//! their `OK`, as a lost answer does; `hang_ok:…` sends them and waits a minute first, for a kill.

use crate::error::{Class, Error};
use crate::redact::Redactor;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// The largest message read from a relay.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// The most events one query reads (a relay that never says `EOSE` is cut off here).
const MAX_EVENTS: usize = 5000;

/// What a relay said to an `EVENT`.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// It holds the event: `OK true`, or a duplicate (`OK true "duplicate:"` from
    /// nostr-rs-relay, `OK false "duplicate: exists"` from nostr-relay).
    Holds(String),
    /// It refused it; the class says what to do (`rate-limited:` waits, `restricted:` is the
    /// key's, the rest is the event's).
    Refused(Class, String),
}

/// What a relay answered to a `REQ`: the events, and whether it said `EOSE` (every stored
/// event that matches was sent) rather than `CLOSED`.
#[derive(Debug, Default)]
pub struct Answer {
    pub events: Vec<Value>,
    pub complete: bool,
    /// Why it closed the query instead, if it did.
    pub closed: Option<String>,
}

/// One relay: its URL, and the connection while it lasts.
pub struct Relay {
    pub url: String,
    connect: Duration,
    timeout: Duration,
    redactor: Redactor,
    conn: Option<WebSocket<Stream>>,
    queries: u64,
}

impl Relay {
    pub fn new(url: &str, connect: Duration, timeout: Duration, redactor: Redactor) -> Relay {
        Relay {
            url: url.to_string(),
            connect,
            timeout,
            redactor,
            conn: None,
            queries: 0,
        }
    }

    /// Send `event` and wait for its `OK`.
    pub fn publish(&mut self, event: &Value) -> Result<Said, Error> {
        let id = event["id"].as_str().unwrap_or_default().to_string();
        let message = json!(["EVENT", event]).to_string();
        let fault = fault(&self.url);
        let ws = self.open()?;
        if let Err(err) = ws.send(Message::text(message)) {
            self.conn = None;
            return Err(self.failed(Class::Unknown, "sending the event", &err.to_string()));
        }
        if let Some(fault) = fault {
            if fault == "hang_ok" {
                std::thread::sleep(Duration::from_secs(60));
            }
            self.conn = None;
            return Err(self.failed(Class::Unknown, "waiting for OK", "fault point: answer lost"));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let Some(msg) = self.next(deadline, Class::Unknown, "waiting for OK")? else {
                continue;
            };
            // nostr-relay answers an event it refuses with an empty id.
            if msg[0] == "OK" && (msg[1] == id.as_str() || msg[1] == "") {
                return Ok(said(msg[2].as_bool(), &self.text(&msg[3])));
            }
        }
    }

    /// One `REQ` with `filter`, read to `EOSE` or `CLOSED`, then `CLOSE`d.
    pub fn query(&mut self, filter: &Value) -> Result<Answer, Error> {
        self.queries += 1;
        let sub = format!("dayrun-{}", self.queries);
        let ws = self.open()?;
        if let Err(err) = ws.send(Message::text(json!(["REQ", sub, filter]).to_string())) {
            self.conn = None;
            return Err(self.failed(Class::RetrySafe, "asking", &err.to_string()));
        }
        let deadline = Instant::now() + self.timeout;
        let mut answer = Answer::default();
        loop {
            let Some(msg) = self.next(deadline, Class::RetrySafe, "reading a query")? else {
                continue;
            };
            if msg[1] != sub.as_str() {
                continue;
            }
            match msg[0].as_str() {
                Some("EVENT") if answer.events.len() < MAX_EVENTS => {
                    answer.events.push(msg[2].clone());
                }
                Some("EVENT") => {}
                Some("EOSE") => {
                    answer.complete = answer.events.len() < MAX_EVENTS;
                    break;
                }
                Some("CLOSED") => {
                    answer.closed = Some(self.text(&msg[2]));
                    return Ok(answer);
                }
                _ => {}
            }
        }
        if let Some(ws) = self.conn.as_mut()
            && ws
                .send(Message::text(json!(["CLOSE", sub]).to_string()))
                .is_err()
        {
            self.conn = None;
        }
        Ok(answer)
    }

    /// The next JSON array the relay sends before `deadline` (`None`: a frame that is not
    /// one, a ping, a `NOTICE`). A timeout, a closed connection or a frame too large ends
    /// the connection and is classed `class`.
    fn next(
        &mut self,
        deadline: Instant,
        class: Class,
        doing: &str,
    ) -> Result<Option<Value>, Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            self.conn = None;
            return Err(self.failed(class, doing, "no answer in time"));
        }
        let ws = self.conn.as_mut().expect("an open connection");
        ws.get_mut().tcp().set_read_timeout(Some(left)).ok();
        match ws.read() {
            Ok(Message::Text(text)) => {
                let value: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
                Ok(value.is_array().then_some(value))
            }
            Ok(_) => Ok(None),
            Err(err) => {
                self.conn = None;
                Err(self.failed(class, doing, &err.to_string()))
            }
        }
    }

    /// The open connection, or a new one (resolving, connecting, TLS and the handshake all
    /// within the connect timeout; nothing is sent yet, so a failure is retry-safe).
    fn open(&mut self) -> Result<&mut WebSocket<Stream>, Error> {
        if self.conn.is_none() {
            let ws = connect(&self.url, self.connect, self.timeout)
                .map_err(|why| self.failed(Class::RetrySafe, "connecting", &why))?;
            self.conn = Some(ws);
        }
        Ok(self.conn.as_mut().expect("just opened"))
    }

    /// A failure talking to this relay, its text redacted.
    fn failed(&self, class: Class, doing: &str, why: &str) -> Error {
        Error::failure(
            class,
            format!("relay {}: {doing}: {}", self.url, self.redactor.redact(why)),
        )
    }

    /// A reason from the relay, redacted and bounded.
    fn text(&self, value: &Value) -> String {
        let text = value.as_str().unwrap_or_default();
        crate::outside::escape(&self.redactor.redact(text), 200)
    }
}

/// What an `OK` says, by NIP-01's machine-readable prefixes.
fn said(accepted: Option<bool>, reason: &str) -> Said {
    let prefix = reason.split(':').next().unwrap_or_default().trim();
    match (accepted, prefix) {
        (Some(true), _) | (_, "duplicate") => Said::Holds(reason.to_string()),
        (_, "rate-limited") => Said::Refused(Class::RetrySafe, reason.to_string()),
        (_, "auth-required" | "restricted") => Said::Refused(Class::Auth, reason.to_string()),
        (_, "error") => Said::Refused(Class::RetrySafe, reason.to_string()),
        _ => Said::Refused(Class::Rejected, reason.to_string()),
    }
}

/// The fault the fault point puts on this event's answer (`DAYRUN_NOSTR_FAULT=WHAT:N[+K][@TEXT]`:
/// `WHAT` `lose_ok` or `hang_ok`, on N events after the first K to relays whose URL holds TEXT),
/// if any. Only in a build for the tests (the `faults` feature); a release build has none.
#[cfg(feature = "faults")]
fn fault(url: &str) -> Option<&'static str> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SENT: AtomicUsize = AtomicUsize::new(0);
    let spec = std::env::var("DAYRUN_NOSTR_FAULT").ok()?;
    let (what, rest) = spec.split_once(':')?;
    let what = ["lose_ok", "hang_ok"].into_iter().find(|w| *w == what)?;
    let (count, only) = rest.split_once('@').unwrap_or((rest, ""));
    if !url.contains(only) {
        return None;
    }
    let (n, skip) = count.split_once('+').unwrap_or((count, "0"));
    let (n, skip): (usize, usize) = (n.parse().unwrap_or(0), skip.parse().unwrap_or(0));
    let sent = SENT.fetch_add(1, Ordering::SeqCst);
    (sent >= skip && sent < skip + n).then_some(what)
}

#[cfg(not(feature = "faults"))]
fn fault(_url: &str) -> Option<&'static str> {
    None
}

/// The parts of a relay URL: TLS or not, host, port and path.
pub fn parse_url(url: &str) -> Option<(bool, String, u16, String)> {
    let (tls, rest) = match url.split_once("://")? {
        ("wss", rest) => (true, rest),
        ("ws", rest) => (false, rest),
        _ => return None,
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => {
            (host, port.parse().ok()?)
        }
        _ => (authority, if tls { 443 } else { 80 }),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let bad = |c: char| c.is_whitespace() || c.is_control() || c == '@';
    if host.is_empty() || host.contains(bad) || path.contains(bad) {
        return None;
    }
    Some((tls, host.to_string(), port, path.to_string()))
}

fn connect(url: &str, connect: Duration, timeout: Duration) -> Result<WebSocket<Stream>, String> {
    let (tls, host, port, _) = parse_url(url).ok_or("not a ws:// or wss:// URL")?;
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .collect();
    let mut last = format!("{host} has no address");
    let mut tcp = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, connect) {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = e.to_string(),
        }
    }
    let tcp = tcp.ok_or(last)?;
    tcp.set_read_timeout(Some(connect)).ok();
    tcp.set_write_timeout(Some(timeout)).ok();
    tcp.set_nodelay(true).ok();
    let stream = match tls {
        false => Stream::Plain(tcp),
        true => Stream::Tls(Box::new(tls_stream(&host, tcp)?)),
    };
    let config = tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    let (ws, _) = tungstenite::client::client_with_config(url, stream, Some(config)).map_err(
        |e| match e {
            tungstenite::HandshakeError::Failure(e) => e.to_string(),
            tungstenite::HandshakeError::Interrupted(_) => "the handshake timed out".into(),
        },
    )?;
    Ok(ws)
}

fn tls_stream(
    host: &str,
    tcp: TcpStream,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name =
        rustls::pki_types::ServerName::try_from(host.to_string()).map_err(|e| e.to_string())?;
    let conn = rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    Ok(rustls::StreamOwned::new(conn, tcp))
}

/// A connection, plain or TLS.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ok_reads_by_its_prefix() {
        assert_eq!(said(Some(true), ""), Said::Holds(String::new()));
        let dup = "duplicate: exists";
        assert_eq!(said(Some(false), dup), Said::Holds(dup.into()));
        assert!(matches!(
            said(Some(false), "invalid: too old"),
            Said::Refused(Class::Rejected, _)
        ));
        assert!(matches!(
            said(Some(false), "rate-limited: slow"),
            Said::Refused(Class::RetrySafe, _)
        ));
        assert!(matches!(
            said(Some(false), "restricted: no"),
            Said::Refused(Class::Auth, _)
        ));
    }

    #[test]
    fn relay_urls_are_ws_or_wss() {
        assert_eq!(
            parse_url("ws://127.0.0.1:7447"),
            Some((false, "127.0.0.1".into(), 7447, "/".into()))
        );
        assert_eq!(
            parse_url("wss://relay.example/n"),
            Some((true, "relay.example".into(), 443, "/n".into()))
        );
        for bad in ["http://x", "ws://", "ws://a b", "ws://u@h", "ws://h:port"] {
            assert_eq!(parse_url(bad), None, "{bad}");
        }
    }
}
