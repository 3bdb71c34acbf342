//! Ghost's own data on a key's line: the copy's version as dayrun last wrote it (Ghost's
//! `updated_at`, `version=` on the line). An update sends it back, so a post changed on Ghost
//! since is refused (409), never overwritten. The shared types carry it as `life::Native`.

use life::Native;
use serde_json::Value;

/// Its field on the line (one of `life::native::FIELDS`, told by each answer).
const FIELD: &str = "version";

/// What a receipt brings of a post Ghost answered with: its `updated_at` (none: not known).
pub(super) fn of_post(post: &Value) -> Native {
    match post["updated_at"].as_str() {
        Some(version) => Native::one(FIELD, version),
        None => Native::default(),
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
        assert!(of_post(&Value::Null).is_empty());
        let told = life::native::FIELDS.iter().find(|(name, _)| *name == FIELD);
        assert_eq!(told.map(|(_, s)| *s), Some(life::native::Source::Told));
    }
}
