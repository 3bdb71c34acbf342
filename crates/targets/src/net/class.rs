//! The one table that classes every failure of a request: an HTTP status or a transport error
//! is retry-safe, rejected, auth or unknown; and when the server asks to come back later.

use crate::error::Class;
use std::time::Duration;

/// How an HTTP status is classed; `None` for success (2xx).
pub fn status_class(status: u16) -> Option<Class> {
    match status {
        200..=299 => None,
        401 | 403 => Some(Class::Auth),
        408 | 409 => Some(Class::Unknown),
        429 => Some(Class::RetrySafe),
        400..=499 => Some(Class::Rejected),
        _ => Some(Class::Unknown),
    }
}

/// How a transport failure is classed: retry-safe only when the request provably never left
/// (name lookup, refused or unreachable, resolve or connect timeout).
pub fn transport_class(err: &ureq::Error) -> Class {
    use std::io::ErrorKind;
    use ureq::Timeout;
    match err {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => Class::RetrySafe,
        ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => Class::RetrySafe,
        ureq::Error::Io(e) => match e.kind() {
            ErrorKind::ConnectionRefused
            | ErrorKind::HostUnreachable
            | ErrorKind::NetworkUnreachable
            | ErrorKind::NetworkDown
            | ErrorKind::AddrNotAvailable => Class::RetrySafe,
            _ => Class::Unknown,
        },
        ureq::Error::BadUri(_) | ureq::Error::RequireHttpsOnly(_) => Class::Rejected,
        _ => Class::Unknown,
    }
}

/// Whether a transport failure shows that the server cannot be reached at all: the failures
/// that are retry-safe because the request never left (the next request would meet the same).
pub(super) fn is_unreachable(err: &ureq::Error) -> bool {
    transport_class(err) == Class::RetrySafe
}

/// The host of `url`, with its port when the URL names one: what a person checks. Never the
/// URL's userinfo, path or query (where secrets may be); the URL itself if it has no host.
pub(super) fn host(url: &str) -> String {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return "the target's URL".into();
    };
    match (uri.host(), uri.port_u16()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        (None, _) => "the target's URL".into(),
    }
}

pub(super) fn describe(err: &ureq::Error) -> String {
    match err {
        ureq::Error::Timeout(t) => format!("timed out ({t:?})"),
        other => other.to_string(),
    }
}

/// `Retry-After` (seconds or an HTTP date), Mastodon's `X-RateLimit-Reset` (a timestamp) or
/// atproto's `RateLimit-Reset` (epoch seconds; small numbers are read as seconds from now).
pub(super) fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let now = jiff::Timestamp::now();
    let until =
        |at: jiff::Timestamp| Duration::try_from(at.duration_since(now)).unwrap_or(Duration::ZERO);
    if let Some(value) = headers.get("retry-after").and_then(|v| v.to_str().ok()) {
        let value = value.trim();
        if let Ok(secs) = value.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(at) = jiff::fmt::rfc2822::parse(value) {
            return Some(until(at.timestamp()));
        }
    }
    if let Some(reset) = headers
        .get("x-ratelimit-reset")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<jiff::Timestamp>().ok())
    {
        return Some(until(reset));
    }
    let reset: i64 = headers
        .get("ratelimit-reset")
        .and_then(|v| v.to_str().ok())?
        .trim()
        .parse()
        .ok()?;
    match reset {
        0..1_000_000_000 => Some(Duration::from_secs(reset as u64)),
        _ => jiff::Timestamp::from_second(reset).ok().map(until),
    }
}

/// Whether a transport failure is the TLS handshake refusing the server (a certificate).
pub(super) fn is_certificate(err: &ureq::Error) -> bool {
    match err {
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::Pem(_) => true,
        ureq::Error::Io(e) => {
            let text = e.to_string().to_lowercase();
            text.contains("certificate") || text.contains("handshake")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_classed_row_by_row() {
        let table = [
            (200, None),
            (201, None),
            (204, None),
            (400, Some(Class::Rejected)),
            (401, Some(Class::Auth)),
            (403, Some(Class::Auth)),
            (404, Some(Class::Rejected)),
            (405, Some(Class::Rejected)),
            (408, Some(Class::Unknown)),
            (409, Some(Class::Unknown)),
            (410, Some(Class::Rejected)),
            (413, Some(Class::Rejected)),
            (422, Some(Class::Rejected)),
            (429, Some(Class::RetrySafe)),
            (500, Some(Class::Unknown)),
            (502, Some(Class::Unknown)),
            (503, Some(Class::Unknown)),
            (504, Some(Class::Unknown)),
            (301, Some(Class::Unknown)),
        ];
        for (status, class) in table {
            assert_eq!(status_class(status), class, "HTTP {status}");
        }
    }

    #[test]
    fn a_host_is_named_without_userinfo_path_or_query() {
        let cases = [
            (
                "https://user:pw-secret@blog.example.com/p?token=t-secret",
                "blog.example.com",
            ),
            ("http://127.0.0.1:8080/posts?key=1", "127.0.0.1:8080"),
            ("https://[::1]:8443/x", "[::1]:8443"),
            ("not a url", "the target's URL"),
            ("/relative/path", "the target's URL"),
        ];
        for (url, want) in cases {
            assert_eq!(host(url), want, "{url}");
        }
    }

    #[test]
    fn transport_failures_are_retry_safe_only_before_sending() {
        use std::io::{Error as Io, ErrorKind};
        use ureq::Timeout;
        let table = [
            (ureq::Error::HostNotFound, Class::RetrySafe),
            (ureq::Error::ConnectionFailed, Class::RetrySafe),
            (ureq::Error::Timeout(Timeout::Resolve), Class::RetrySafe),
            (ureq::Error::Timeout(Timeout::Connect), Class::RetrySafe),
            (
                ureq::Error::Io(Io::from(ErrorKind::ConnectionRefused)),
                Class::RetrySafe,
            ),
            (
                ureq::Error::Io(Io::from(ErrorKind::NetworkUnreachable)),
                Class::RetrySafe,
            ),
            (ureq::Error::Timeout(Timeout::SendRequest), Class::Unknown),
            (ureq::Error::Timeout(Timeout::SendBody), Class::Unknown),
            (ureq::Error::Timeout(Timeout::RecvResponse), Class::Unknown),
            (ureq::Error::Timeout(Timeout::RecvBody), Class::Unknown),
            (
                ureq::Error::Io(Io::from(ErrorKind::ConnectionReset)),
                Class::Unknown,
            ),
            (
                ureq::Error::Io(Io::from(ErrorKind::UnexpectedEof)),
                Class::Unknown,
            ),
            (
                ureq::Error::Io(Io::from(ErrorKind::BrokenPipe)),
                Class::Unknown,
            ),
            (ureq::Error::BadUri("x".into()), Class::Rejected),
        ];
        for (err, class) in table {
            assert_eq!(transport_class(&err), class, "{err:?}");
        }
    }
}
