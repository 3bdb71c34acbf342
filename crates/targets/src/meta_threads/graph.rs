//! How the Threads API's answers are classed. Errors come as the Graph API's
//! `{"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}`: code 190 is a
//! token that is invalid or expired, 10 and 200–299 a missing permission (both need a person:
//! auth); 4, 17, 32 and 613 are rate limits (retry-safe: nothing was done); an object that
//! does not exist is code 100 with subcode 33 (or a 404).

use crate::error::{Class, Error};
use crate::net::{Http, Reply};
use serde_json::Value;
use std::path::Path;

/// The Graph error's code and subcode, when the body is one.
fn codes(reply: &Reply) -> Option<(i64, i64)> {
    let doc: Value = serde_json::from_str(&reply.body).ok()?;
    let error = doc.get("error")?;
    let code = error["code"].as_i64()?;
    Some((code, error["error_subcode"].as_i64().unwrap_or(0)))
}

/// The failure of `what`, classed by the Graph error code where there is one, else by status.
pub fn failure(http: &Http, what: &str, reply: &Reply, token: &Path) -> Error {
    let err = http.failure(what, reply, Some(token));
    let err = match codes(reply) {
        Some((190 | 10 | 200..=299, _)) => err.reclass(Class::Auth),
        Some((4 | 17 | 32 | 613, _)) => err.reclass(Class::RetrySafe),
        _ => err,
    };
    match err.class() {
        Some(Class::Auth) => err.hint(format!(
            "make a new long-lived Threads token (threads_basic, threads_content_publish, threads_delete) and put it in {}",
            token.display()
        )),
        _ => err,
    }
}

/// Whether the answer says the object is not there (a 404, or code 100 subcode 33).
pub fn is_gone(reply: &Reply) -> bool {
    reply.status == 404 || matches!(codes(reply), Some((100, 33)))
}
