//! Ghost's own data on a key's line: the copy's version as dayrun last wrote it (Ghost's
//! `updated_at`, `version=` on the line). An update sends it back, so a post changed on Ghost
//! since is refused (409), never overwritten. The shared types carry it as `life::Native`.

use life::Native;
use serde_json::Value;

/// Its field on the line (one 0.5 wrote without a namespace), told by each answer.
const FIELD: &str = "version";

/// What a receipt brings of a post Ghost answered with: its `updated_at`, or that the version
/// is not known now, so the copy forgets the one it had rather than send a stale one back.
pub(super) fn of_post(post: &Value) -> Native {
    match post["updated_at"].as_str() {
        Some(version) => Native::one(FIELD, version),
        None => Native::unknown(FIELD),
    }
}

/// The version the copy's line keeps, if any.
pub(super) fn kept(native: &Native) -> Option<&str> {
    native.get(FIELD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posts_updated_at_is_its_version() {
        let post = serde_json::json!({"updated_at": "2026-11-20T08:00:00.000Z"});
        assert_eq!(kept(&of_post(&post)), Some("2026-11-20T08:00:00.000Z"));
        let mut copy = of_post(&post);
        copy.answered(&of_post(&Value::Null));
        assert_eq!(kept(&copy), None, "an answer without one: not known");
        assert!(life::native::is_field(FIELD));
    }
}
