//! The rules the fake Ghost (`fake_ghost.rs`) checks requests by, as Ghost 5.130.6 does
//! (observed on the harness Ghost, /work/shared/harness/ghost/README.md, and read in its source:
//! `core/server/services/auth/api-key/admin.js`, `@tryghost/bookshelf-filter`, `@tryghost/nql`,
//! `@tryghost/errors`): the Admin API token, the filter syntax dayrun sends, multipart uploads and
//! Ghost's error bodies. Written here, not taken from dayrun: a fake must not trust the code it
//! tests. One check is stricter than Ghost and says so: a token whose `exp` is more than five
//! minutes after its `iat` is refused (Ghost's documentation asks for it; the server itself only
//! refuses an `iat` older than five minutes).

#![allow(dead_code)]

use crate::fakes::fake_server::Reply;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// Ghost's error body: `{"errors": [{message, context, type, code, …}]}` with its status.
pub fn error(status: u16, kind: &str, message: &str, code: Option<&str>) -> Reply {
    Reply::json(
        status,
        json!({"errors": [{"message": message, "context": null, "type": kind, "details": null,
            "property": null, "help": null, "code": code, "id": "fake", "ghostErrorCode": null}]}),
    )
}

fn unauthorized(message: &str, code: &str) -> Reply {
    error(401, "UnauthorizedError", message, Some(code))
}

/// Check `Authorization: Ghost <jwt>` against the key `kid:secret_hex` at `now` (seconds), as
/// `apiKeyAdminAuth` does; `None` when it passes.
pub fn check_token(header: Option<&str>, kid: &str, secret_hex: &str, now: i64) -> Option<Reply> {
    let Some(header) = header else {
        return Some(error(
            403,
            "NoPermissionError",
            "Authorization failed",
            None,
        ));
    };
    let (scheme, token) = header.split_once(' ').unwrap_or((header, ""));
    if !scheme.eq_ignore_ascii_case("Ghost") || token.is_empty() {
        return Some(unauthorized(
            "Authorization header format is \"Authorization: Ghost [token]\"",
            "INVALID_AUTH_HEADER",
        ));
    }
    let parts: Vec<&str> = token.split('.').collect();
    let decoded: Option<(Value, Value)> = (parts.len() == 3)
        .then(|| {
            let json = |s: &str| serde_json::from_slice::<Value>(&unbase64url(s)?).ok();
            Some((json(parts[0])?, json(parts[1])?))
        })
        .flatten();
    let Some((head, claims)) = decoded else {
        return Some(error(
            400,
            "BadRequestError",
            "Invalid token",
            Some("INVALID_JWT"),
        ));
    };
    let Some(id) = head["kid"].as_str() else {
        return Some(error(
            400,
            "BadRequestError",
            "Admin API kid missing.",
            Some("MISSING_ADMIN_API_KID"),
        ));
    };
    if id != kid {
        return Some(unauthorized(
            "Unknown Admin API Key",
            "UNKNOWN_ADMIN_API_KEY",
        ));
    }
    let invalid = |why: &str| {
        Some(unauthorized(
            &format!("Invalid token: {why}"),
            "INVALID_JWT",
        ))
    };
    if head["alg"] != "HS256" {
        return invalid("invalid algorithm");
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(&unhex(secret_hex)).unwrap();
    mac.update(format!("{}.{}", parts[0], parts[1]).as_bytes());
    if unbase64url(parts[2]).is_none_or(|sig| mac.verify_slice(&sig).is_err()) {
        return invalid("invalid signature");
    }
    let aud = claims["aud"].as_str().unwrap_or_default();
    if !["/admin/", "admin/", "/admin", "admin"].contains(&aud) {
        return invalid("jwt audience invalid. expected: /\\/?admin\\/?$/");
    }
    let (Some(iat), Some(exp)) = (claims["iat"].as_i64(), claims["exp"].as_i64()) else {
        return invalid("iat required when maxAge is specified");
    };
    if exp <= now {
        return invalid("jwt expired");
    }
    if now - iat > 300 {
        return invalid("maxAge exceeded");
    }
    if exp - iat > 300 {
        return invalid("exp is more than 5 minutes after iat (stricter than Ghost)");
    }
    None
}

/// What a `filter` selects: the NQL dayrun sends, and nothing else.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Or(Vec<Filter>),
    And(Vec<Filter>),
    /// `slug:~^'x'`
    SlugStarts(String),
    /// `slug:'x'`
    SlugIs(String),
    /// `published_at:OP'YYYY-MM-DD HH:MM:SS'`
    Published(String, String),
}

/// Parse a filter; `Err` is Ghost's 400 "Error parsing filter" (anything this fake does not
/// understand is refused, never ignored).
pub fn parse_filter(text: &str) -> Result<Filter, Reply> {
    let refuse = || {
        error(
            400,
            "BadRequestError",
            "Request not understood error, cannot list posts.",
            None,
        )
    };
    let mut rest = text;
    let filter = or(&mut rest).ok_or_else(refuse)?;
    match rest.is_empty() {
        true => Ok(filter),
        false => Err(refuse()),
    }
}

fn or(rest: &mut &str) -> Option<Filter> {
    let mut terms = vec![and(rest)?];
    while let Some(next) = rest.strip_prefix(',') {
        *rest = next;
        terms.push(and(rest)?);
    }
    Some(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Filter::Or(terms)
    })
}

fn and(rest: &mut &str) -> Option<Filter> {
    let mut terms = vec![atom(rest)?];
    while let Some(next) = rest.strip_prefix('+') {
        *rest = next;
        terms.push(atom(rest)?);
    }
    Some(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Filter::And(terms)
    })
}

fn atom(rest: &mut &str) -> Option<Filter> {
    if let Some(inner) = rest.strip_prefix('(') {
        *rest = inner;
        let filter = or(rest)?;
        *rest = rest.strip_prefix(')')?;
        return Some(filter);
    }
    let (field, after) = rest.split_once(':')?;
    let op_len = after.find('\'')?;
    let (op, quoted) = after.split_at(op_len);
    let end = quoted[1..].find('\'')? + 1;
    let value = quoted[1..end].to_string();
    *rest = &quoted[end + 1..];
    match (field, op) {
        ("slug", "~^") => Some(Filter::SlugStarts(value)),
        ("slug", "") => Some(Filter::SlugIs(value)),
        ("published_at", ">=" | ">" | "<" | "<=") if is_date(&value) => {
            Some(Filter::Published(op.to_string(), value))
        }
        _ => None,
    }
}

/// `YYYY-MM-DD HH:MM:SS`, the form Ghost's own clients write a date in a filter.
fn is_date(value: &str) -> bool {
    value.len() == 19
        && value.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b' ',
            13 | 16 => b == b':',
            _ => b.is_ascii_digit(),
        })
}

impl Filter {
    /// Whether `post` (as the API shows it) is selected.
    pub fn matches(&self, post: &Value) -> bool {
        let slug = post["slug"].as_str().unwrap_or_default();
        match self {
            Filter::Or(terms) => terms.iter().any(|t| t.matches(post)),
            Filter::And(terms) => terms.iter().all(|t| t.matches(post)),
            Filter::SlugStarts(prefix) => slug.starts_with(prefix.as_str()),
            Filter::SlugIs(want) => slug == want,
            Filter::Published(op, value) => {
                // `2026-11-29T12:00:00.000Z` as the database holds it: `2026-11-29 12:00:00`.
                let Some(at) = post["published_at"].as_str().filter(|a| a.len() >= 19) else {
                    return false;
                };
                let at = at[..19].replace('T', " ");
                match op.as_str() {
                    ">=" => at.as_str() >= value.as_str(),
                    ">" => at.as_str() > value.as_str(),
                    "<" => at.as_str() < value.as_str(),
                    _ => at.as_str() <= value.as_str(),
                }
            }
        }
    }
}

/// One part of a `multipart/form-data` body: its field name, file name and type, and bytes.
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// The parts of a multipart body with this `Content-Type`; `None` when it is not one.
pub fn multipart(content_type: Option<&str>, body: &[u8]) -> Option<Vec<Part>> {
    let boundary = content_type?
        .split(';')
        .find_map(|p| p.trim().strip_prefix("boundary="))?
        .trim_matches('"');
    let delimiter = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut rest = &body[find(body, delimiter.as_bytes())? + delimiter.len()..];
    while !rest.starts_with(b"--") {
        rest = rest.strip_prefix(b"\r\n")?;
        let head_end = find(rest, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&rest[..head_end]).into_owned();
        let content = &rest[head_end + 4..];
        let end = find(content, format!("\r\n{delimiter}").as_bytes())?;
        let param = |name: &str| {
            let at = head.find(&format!("{name}=\""))? + name.len() + 2;
            Some(head[at..at + head[at..].find('"')?].to_string())
        };
        let content_type = head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        });
        parts.push(Part {
            name: param("name")?,
            filename: param("filename"),
            content_type,
            bytes: content[..end].to_vec(),
        });
        rest = &content[end + 2 + delimiter.len()..];
    }
    Some(parts)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Base64url without padding (JWT's parts); `None` for anything else.
fn unbase64url(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        acc = acc << 6 | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
