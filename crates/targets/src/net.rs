//! What network targets share: credential files, an HTTP agent with per-phase timeouts, and
//! replies checked against the one table that classes every failure (`net/class.rs`). Every
//! request goes through `exchange`, where the drill's faults (`net/fault.rs`) sit when armed.

mod class;
pub mod fault;
pub mod pages;
mod upload;
use crate::error::{Class, Error, Server};
use crate::redact::Redactor;
use class::{describe, host, is_certificate, is_unreachable, retry_after};
pub use class::{status_class, transport_class};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::Duration;
pub use upload::FilePart;

/// Largest response body read (list endpoints can be long; more is an error, not a hang).
const MAX_BODY: u64 = 16 * 1024 * 1024;

/// Requests made by this process, answered or not (`requests`).
static REQUESTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many requests this process has made so far, answered or not: a run's metrics say it.
pub fn requests() -> u64 {
    REQUESTS.load(std::sync::atomic::Ordering::Relaxed)
}

/// An HTTP client for one target: the run's one agent, this target's per-phase timeouts, and
/// the secrets it must never echo (every text it returns from outside is redacted).
pub struct Http {
    agent: ureq::Agent,
    connect: Duration,
    timeout: Duration,
    redactor: Redactor,
}

/// The run's one HTTP agent: every target's requests share its connections (keep-alive), so a
/// run that makes 40 posts on one server opens one connection, not 40. No status is an error
/// (each target classes them) and no redirect is followed.
fn agent() -> ureq::Agent {
    static AGENT: std::sync::OnceLock<ureq::Agent> = std::sync::OnceLock::new();
    AGENT
        .get_or_init(|| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .user_agent(concat!("dayrun/", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        })
        .clone()
}

/// A response that arrived: status, body, and how long the server asked us to wait.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<Duration>,
    /// A header the caller asked for (e.g. `X-WP-TotalPages`), as text.
    pub headers: Vec<(String, String)>,
}

impl Reply {
    /// The reply when it is a success (2xx); otherwise the error `failure` makes of it (the
    /// platform's reading of `Http::failure`).
    pub fn success(self, failure: impl FnOnce(&Reply) -> Error) -> Result<Reply, Error> {
        match status_class(self.status) {
            None => Ok(self),
            Some(_) => Err(failure(&self)),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Http {
    /// `connect` bounds resolving and connecting (nothing sent yet: retry-safe); `timeout`
    /// bounds sending and each wait for the answer (after sending: unknown).
    /// The redactor's secrets become the run's: every target masks them (`Redactor::register`).
    pub fn new(connect: Duration, timeout: Duration, redactor: Redactor) -> Http {
        redactor.register();
        Http {
            agent: agent(),
            connect,
            timeout,
            redactor,
        }
    }

    /// This target's timeouts, to put on a request (`Limits::on`).
    fn limits(&self) -> Limits {
        Limits {
            connect: self.connect,
            timeout: self.timeout,
        }
    }

    /// Make the request `call` builds and sends: at once, or as the drill's armed fault says
    /// (`net/fault.rs`); `method` and `url` name it for the drill's trace.
    fn exchange(&self, method: &str, url: &str, call: Call) -> Result<Reply, Error> {
        let what = || format!("{method} {}", self.redactor.redact(&path_of(url)));
        match fault::draw(&fault::NETWORK, method != "GET", what) {
            None => self.reply(url, call(&self.agent)),
            Some(injected) => self.faulted(injected, url, call),
        }
    }

    /// A request that meets `injected`: what the client sees is its timeout, whatever became
    /// of the request.
    fn faulted(&self, injected: fault::Fault, url: &str, call: Call) -> Result<Reply, Error> {
        let started = std::time::Instant::now();
        match injected {
            fault::Fault::Late => {
                let (agent, delay) = (self.agent.clone(), fault::delay(self.timeout));
                fault::later(move || {
                    std::thread::sleep(delay);
                    if let Ok(answer) = call(&agent) {
                        let _ = answer.into_body().read_to_vec();
                    }
                });
            }
            fault::Fault::Lost => {
                if let Ok(answer) = call(&self.agent) {
                    let _ = answer.into_body().read_to_vec();
                }
            }
            fault::Fault::Dropped | fault::Fault::Killed => {}
        }
        std::thread::sleep(self.timeout.saturating_sub(started.elapsed()));
        let gave_up = ureq::Error::Timeout(ureq::Timeout::RecvResponse);
        Err(self.transport(&gave_up, url, ""))
    }

    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// A secret learnt while running (a session token), masked from now on like the others.
    pub fn add_secret(&mut self, secret: &str) {
        let mut learnt = Redactor::default();
        learnt.add(secret);
        learnt.register();
        self.redactor.extend(&learnt);
    }

    /// POST a JSON body. Transport failures come back classed; any status is a `Reply`.
    pub fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &serde_json::Value,
    ) -> Result<Reply, Error> {
        self.send("POST", url, headers, body)
    }

    /// Send a JSON body with `method` (POST, PUT, PATCH). Transport failures come back classed.
    pub fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: &serde_json::Value,
    ) -> Result<Reply, Error> {
        let bytes = serde_json::to_vec(body).expect("a JSON value serialises");
        let (limits, to, verb, headers) = (
            self.limits(),
            url.to_string(),
            method.to_string(),
            headers.to_vec(),
        );
        self.exchange(
            method,
            url,
            Box::new(move |agent| {
                let req = match verb.as_str() {
                    "PUT" => agent.put(&to),
                    "PATCH" => agent.patch(&to),
                    _ => agent.post(&to),
                };
                let req = limits.on(req).header("Content-Type", "application/json");
                with(req, &headers).send(&bytes[..])
            }),
        )
    }

    /// POST a plain-text body (a ping's log). Transport failures come back classed.
    pub fn post_text(&self, url: &str, body: &str) -> Result<Reply, Error> {
        let (limits, to, body) = (self.limits(), url.to_string(), body.to_string());
        self.exchange(
            "POST",
            url,
            Box::new(move |agent| {
                let req = limits.on(agent.post(&to));
                req.header("Content-Type", "text/plain; charset=utf-8")
                    .send(body.as_bytes())
            }),
        )
    }

    /// POST with no body (an XRPC procedure without input). Transport failures come back classed.
    pub fn post_empty(&self, url: &str, headers: &[(String, String)]) -> Result<Reply, Error> {
        let (limits, to, headers) = (self.limits(), url.to_string(), headers.to_vec());
        self.exchange(
            "POST",
            url,
            Box::new(move |agent| {
                let req = limits
                    .on(agent.post(&to))
                    .header("Accept", "application/json");
                with(req, &headers).send_empty()
            }),
        )
    }

    /// DELETE a URL. Transport failures come back classed; any status is a `Reply`.
    pub fn delete(&self, url: &str, headers: &[(String, String)]) -> Result<Reply, Error> {
        let (limits, to, headers) = (self.limits(), url.to_string(), headers.to_vec());
        self.exchange(
            "DELETE",
            url,
            Box::new(move |agent| {
                let req = limits
                    .on(agent.delete(&to))
                    .header("Accept", "application/json");
                with(req, &headers).call()
            }),
        )
    }

    /// GET a URL. Transport failures come back classed; any status is a `Reply`.
    pub fn get(&self, url: &str, headers: &[(String, String)]) -> Result<Reply, Error> {
        let (limits, to, headers) = (self.limits(), url.to_string(), headers.to_vec());
        self.exchange(
            "GET",
            url,
            Box::new(move |agent| {
                let mut req = limits.on(agent.get(&to));
                if !headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("accept"))
                {
                    req = req.header("Accept", "application/json");
                }
                with(req, &headers).call()
            }),
        )
    }

    /// The answer of a request to `url`.
    fn reply(
        &self,
        url: &str,
        result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Reply, Error> {
        REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let response = result.map_err(|e| self.transport(&e, url, ""))?;
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let headers = response
            .headers()
            .iter()
            .filter(|(n, _)| n.as_str().starts_with("x-") || *n == "link" || *n == "location")
            .filter_map(|(n, v)| Some((n.to_string(), v.to_str().ok()?.to_string())))
            .collect();
        // Bytes, decoded leniently: a body in another encoding must not cost the status code.
        let bytes = response
            .into_body()
            .with_config()
            .limit(MAX_BODY)
            .read_to_vec()
            .map_err(|e| self.transport(&e, url, &format!("HTTP {status}, then ")))?;
        let body = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok(Reply {
            status,
            body,
            retry_after,
            headers,
        })
    }

    /// The class and message for a reply that is not a success. `credential` names the file
    /// to renew on 401/403.
    pub fn failure(&self, what: &str, reply: &Reply, credential: Option<&Path>) -> Error {
        let class = status_class(reply.status).unwrap_or(Class::Unknown);
        let excerpt = self.excerpt(&reply.body);
        let to = match (reply.status, reply.header("location")) {
            (300..=399, Some(location)) => {
                format!(" to {}", self.redactor.excerpt(location, 300).0)
            }
            _ => String::new(),
        };
        let mut err = Error::failure(class, format!("{what}: HTTP {}{to}{excerpt}", reply.status));
        if (300..=399).contains(&reply.status) {
            err = err.hint("dayrun does not follow redirects: set the URL the server redirects to");
        }
        if class == Class::Auth {
            err = err.hint(match credential {
                Some(file) => format!(
                    "the credentials were refused: renew them in {}",
                    file.display()
                ),
                None => {
                    "the credentials were refused: check the target's credential settings".into()
                }
            });
        }
        if reply.status == 429 {
            // Without a Retry-After the runner's own backoff applies.
            err = err.retry_after(reply.retry_after);
        }
        err
    }

    /// The receipt in a 2xx answer: the id (string or number) at `id_pointer` and the URL at
    /// `url_pointer`. No id means the post may exist but we cannot name it: unknown, confirm.
    pub fn receipt(
        &self,
        reply: &Reply,
        id_pointer: &str,
        url_pointer: &str,
    ) -> Result<life::Receipt, Error> {
        let doc: serde_json::Value = serde_json::from_str(&reply.body).unwrap_or_default();
        let id = id_at(&doc, id_pointer).ok_or_else(|| {
            Error::failure(
                Class::Unknown,
                format!(
                    "HTTP {} but no receipt id at `{id_pointer}`{}",
                    reply.status,
                    self.excerpt(&reply.body)
                ),
            )
        })?;
        Ok(life::Receipt {
            id,
            url: crate::outside::web_url(id_at(&doc, url_pointer).as_deref()),
            ..Default::default()
        })
    }

    /// A short, single-line, secret-free excerpt of a body, with a leading `: `. Redacted
    /// first, then cut, so that no secret survives half-cut.
    pub fn excerpt(&self, body: &str) -> String {
        let (cut, more) = self.redactor.excerpt(body.trim_start(), 400);
        let flat: String = cut.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.is_empty() {
            return String::new();
        }
        let flat: String = flat.chars().take(200).collect();
        let more = if more || flat.chars().count() == 200 {
            "…"
        } else {
            ""
        };
        format!(": {flat}{more}")
    }

    /// A transport failure of a request to `url`, classed, redacted, and naming the server's
    /// host; a certificate that is refused is a problem of the target's setup (nothing was
    /// sent), never an unknown outcome.
    fn transport(&self, err: &ureq::Error, url: &str, before: &str) -> Error {
        let text = self.redactor.redact(&describe(err));
        let host = self.redactor.redact(&host(url));
        let server = Server {
            host: host.clone(),
            unreachable: is_unreachable(err),
        };
        if is_certificate(err) {
            return Error::config(format!("{host}: {before}TLS: {text}"))
                .hint(
                    "the server's certificate was refused (nothing was sent): fix the certificate on the server, or use the URL its certificate is for",
                )
                .server(server);
        }
        Error::failure(transport_class(err), format!("{host}: {before}{text}")).server(server)
    }
}

/// A request, built and sent on the agent it is given: a thread of its own may send it late
/// (`fault::Fault::Late`), so it owns what it sends.
type Call =
    Box<dyn FnOnce(&ureq::Agent) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> + Send>;

/// A target's timeouts, put on each request.
#[derive(Clone, Copy)]
struct Limits {
    connect: Duration,
    timeout: Duration,
}

impl Limits {
    /// `connect` bounds resolving and connecting (nothing sent yet: retry-safe); `timeout`
    /// bounds sending and each wait for the answer (after sending: unknown).
    fn on<B>(self, req: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        req.config()
            .timeout_resolve(Some(self.connect))
            .timeout_connect(Some(self.connect))
            .timeout_send_request(Some(self.timeout))
            .timeout_send_body(Some(self.timeout))
            .timeout_recv_response(Some(self.timeout))
            .timeout_recv_body(Some(self.timeout))
            .build()
    }
}

/// `req` with `headers` added.
fn with<B>(
    mut req: ureq::RequestBuilder<B>,
    headers: &[(String, String)],
) -> ureq::RequestBuilder<B> {
    for (name, value) in headers {
        req = req.header(name.as_str(), value.as_str());
    }
    req
}

/// A URL's path, without its query (which may hold a token) or host: what the drill's trace
/// says a fault met.
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |at| &rest[at..]);
    path.split('?').next().unwrap_or(path).to_string()
}

/// Percent-encode a query value or one part of a path: the one encoder of every target
/// (RFC 3986 unreserved characters pass).
pub fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, UNRESERVED).to_string()
}

/// What stays as it is (RFC 3986 unreserved).
const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The id (string or number) at `pointer`, as the server wrote it.
pub fn id_at(doc: &serde_json::Value, pointer: &str) -> Option<String> {
    id_text(doc.pointer(pointer)?)
}

/// An id as the server wrote it: a string, or a number's exact text (serde_json keeps it with
/// `arbitrary_precision`, so `12345678901234567890123` never becomes `1.2345678901234568e22`).
pub fn id_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `Idempotency-Key`: the same for every attempt of one key on one target.
pub fn idempotency_key(target: &str, key: &str) -> String {
    crate::text::hex(&Sha256::digest(format!("{target}\n{key}").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_encoder_for_queries_and_path_parts() {
        assert_eq!(encode("a b/ü~-._?&="), "a%20b%2F%C3%BC~-._%3F%26%3D");
    }

    #[test]
    fn excerpts_never_echo_a_secret() {
        let mut redactor = Redactor::default();
        redactor.add("s3cr3t-token");
        let http = Http::new(Duration::from_secs(1), Duration::from_secs(1), redactor);
        let excerpt = http.excerpt("{\"error\": \"bad token s3cr3t-token\",\n \"x\": 1}");
        assert_eq!(excerpt, ": {\"error\": \"bad token ***\", \"x\": 1}");
        assert!(http.excerpt(&"y".repeat(500)).ends_with('…'));
        let late = format!("{}Bearer s3cr3t-token", "z".repeat(185));
        assert!(
            !http.excerpt(&late).contains("s3cr3t"),
            "redacted before the cut"
        );
    }

    #[test]
    fn every_transport_failure_names_the_host_and_no_secret() {
        use std::io::{Error as Io, ErrorKind};
        let mut redactor = Redactor::default();
        redactor.add("tok-SECRET-1234");
        let http = Http::new(Duration::from_secs(1), Duration::from_secs(1), redactor);
        let url = "https://me:pw-SECRET-5678@blog.example.com:8443/api?token=tok-SECRET-1234";
        let cases = [
            (ureq::Error::HostNotFound, true),
            (ureq::Error::ConnectionFailed, true),
            (ureq::Error::Timeout(ureq::Timeout::Connect), true),
            (
                ureq::Error::Io(Io::from(ErrorKind::ConnectionRefused)),
                true,
            ),
            (ureq::Error::Timeout(ureq::Timeout::RecvResponse), false),
            (
                ureq::Error::Io(Io::other("invalid peer certificate")),
                false,
            ),
        ];
        for (err, unreachable) in cases {
            let got = http.transport(&err, url, "");
            assert!(
                got.message.starts_with("blog.example.com:8443: "),
                "{err:?}: {}",
                got.message
            );
            assert!(!got.to_string().contains("SECRET"), "{got}");
            let server = got.server.as_ref().expect("the server");
            assert_eq!(server.host, "blog.example.com:8443");
            assert_eq!(got.unreachable().is_some(), unreachable, "{err:?}");
        }
    }

    #[test]
    fn idempotency_keys_are_stable_per_target_and_key() {
        assert_eq!(
            idempotency_key("blog", "2026-11-29"),
            idempotency_key("blog", "2026-11-29")
        );
        assert_ne!(
            idempotency_key("blog", "2026-11-29"),
            idempotency_key("blog", "2026-11-30")
        );
        assert_ne!(
            idempotency_key("blog", "2026-11-29"),
            idempotency_key("site", "2026-11-29")
        );
        assert_eq!(idempotency_key("blog", "2026-11-29").len(), 64);
    }
}
