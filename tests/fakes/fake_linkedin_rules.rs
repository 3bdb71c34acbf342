//! The rules the fake LinkedIn applies to every request before it reaches an endpoint, as
//! Microsoft's LinkedIn docs (version 202601) state them: a Bearer token (401 otherwise), a
//! `LinkedIn-Version` (400 when missing; an inactive one 426), `X-Restli-Protocol-Version:
//! 2.0.0`; and LinkedIn's error body as the Error Handling page shows it, `{"message",
//! "serviceErrorCode", "status"}`. Also the little text rule the fake enforces: a reserved
//! character not escaped is refused (the docs say each must be escaped).

use crate::fakes::fake_server::{Reply, Request};
use serde_json::json;

/// The characters little reserves.
pub const RESERVED: &[char] = &[
    '|', '{', '}', '@', '[', ']', '(', ')', '<', '>', '#', '\\', '*', '_', '~',
];

/// LinkedIn's error body (Error Handling: `message`, `serviceErrorCode` "a subcode that
/// further classifies the error", `status`). The pages read list no subcodes beyond their one
/// sample, whose subcode is its status: the fake answers that.
pub fn error(status: u16, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"message": message, "serviceErrorCode": status, "status": status}),
    )
}

/// What every versioned request must carry, checked in the docs' order; `None`: it does.
/// `oldest`: the oldest version the fake still serves.
pub fn check_headers(req: &Request, token: &str, oldest: &str) -> Option<Reply> {
    let bearer = req
        .header("Authorization")
        .and_then(|a| a.strip_prefix("Bearer "));
    if bearer != Some(token) {
        return Some(error(401, "Invalid access token"));
    }
    let Some(version) = req.header("LinkedIn-Version") else {
        return Some(error(
            400,
            "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
        ));
    };
    let main = version.split('.').next().unwrap_or_default();
    if main.len() != 6 || !main.chars().all(|c| c.is_ascii_digit()) || main < oldest {
        return Some(error(
            426,
            &format!("Requested version {version} is not active"),
        ));
    }
    if req.header("X-Restli-Protocol-Version") != Some("2.0.0") {
        return Some(error(400, "X-Restli-Protocol-Version 2.0.0 is required"));
    }
    None
}

/// Where `little` holds a reserved character that is not escaped (outside the mention and
/// hashtag elements the fake does not take).
pub fn unescaped(little: &str) -> Option<char> {
    let mut chars = little.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next) if RESERVED.contains(&next) => continue,
                _ => return Some('\\'),
            }
        }
        if RESERVED.contains(&c) {
            return Some(c);
        }
    }
    None
}

/// A path segment decoded (`urn%3Ali%3Ashare%3A1` → `urn:li:share:1`).
pub fn decoded(segment: &str) -> String {
    let probe = Request {
        method: String::new(),
        target: format!("/?v={segment}"),
        headers: Vec::new(),
        body: Vec::new(),
    };
    probe.query("v").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fake_refuses_unescaped_little_text() {
        assert_eq!(unescaped(r"a \@b \#c \\d"), None);
        assert_eq!(unescaped("a @b"), Some('@'));
        assert_eq!(unescaped(r"a \b"), Some('\\'));
        assert_eq!(unescaped("snake_case"), Some('_'));
    }
}
