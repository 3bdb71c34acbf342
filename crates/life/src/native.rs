//! What only one platform needs of a copy (Bluesky's record key, Ghost's version, a container
//! id): a few named short values the shared code carries and never reads. Only the platform
//! reads its own, through an accessor in its own folder. On the line each is a field of its
//! own, so people can grep it: a platform names its fields `kind.name` (`nostr.created=`), and
//! the two that 0.5 wrote without a namespace (`rkey=`, `version=`) keep their names, so files
//! written before parse as they are. A new platform adds nothing here.

/// The fields 0.5 wrote without a namespace: Bluesky's record key, Ghost's version.
pub const UNNAMESPACED: [&str; 2] = ["rkey", "version"];

/// The longest value kept from outside: a short token (a record key, a timestamp, an event id).
pub const MAX_VALUE: usize = 64;

/// A copy's platform data: at most one value per field, opaque to all but the platform that
/// wrote it, kept in the order of the fields' names. In an answer (a receipt), a field with no
/// value says the platform does not know it now: the copy forgets what it had.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Native(Vec<(String, String)>);

impl Native {
    /// No platform data (a `const`, so a lookup with nothing behind it can borrow one).
    pub const fn new() -> Native {
        Native(Vec::new())
    }

    /// The one field `name` set to `value`.
    pub fn one(name: &str, value: impl Into<String>) -> Native {
        let mut native = Native::default();
        native.put(name, value.into());
        native
    }

    /// An answer that says the field `name` is not known now (a Ghost post without
    /// `updated_at`): the copy that takes this answer forgets its value.
    pub fn unknown(name: &str) -> Native {
        let mut native = Native::default();
        native.put(name, String::new());
        native
    }

    /// The field's value, if it has one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, v)| n == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Set the field `name` (a platform's field: see `is_field`; any other is a bug, and is
    /// not kept); an empty value removes it.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        self.0.retain(|(n, _)| n != name);
        if !value.is_empty() {
            self.put(name, value);
        }
    }

    fn put(&mut self, name: &str, value: String) {
        if !is_field(name) {
            debug_assert!(false, "`{name}` is not a platform's field (`kind.name`)");
            return;
        }
        self.0.retain(|(n, _)| n != name);
        let at = self.0.partition_point(|(n, _)| n.as_str() < name);
        self.0.insert(at, (name.to_string(), value));
    }

    /// Whether no field has a value.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|(_, v)| v.is_empty())
    }

    /// Every field with a value, in the order of their names.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.0
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// A pending publish: the fields the platform chose for the copy that it does not have yet.
    pub fn fill(&mut self, chosen: &Native) {
        for (name, value) in chosen.fields() {
            if self.get(name).is_none() {
                self.set(name, value);
            }
        }
    }

    /// An answer (a landing, an update, a copy found): each field it names replaces the
    /// copy's, one it says is not known is forgotten, and the others stay as they were.
    pub fn answered(&mut self, brought: &Native) {
        for (name, value) in &brought.0 {
            self.set(name, value.as_str());
        }
    }

    /// The values a line may keep from outside: short tokens, no space, quote or control
    /// character. Anything else is not known (a version that is not known is forgotten, and
    /// the platform then has none to send back).
    pub fn checked(&self) -> Native {
        let known = |v: &String| if usable(v) { v.clone() } else { String::new() };
        Native(self.0.iter().map(|(n, v)| (n.clone(), known(v))).collect())
    }
}

/// Whether `name` is a platform's field: `kind.name` (lower-case letters, digits and `_` on
/// each side of one dot), or one of the two 0.5 wrote without a namespace.
pub fn is_field(name: &str) -> bool {
    let word = |w: &str| {
        !w.is_empty()
            && w.len() <= 32
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    UNNAMESPACED.contains(&name)
        || name
            .split_once('.')
            .is_some_and(|(k, f)| word(k) && word(f))
}

/// Whether a value from outside may be kept on a line.
pub(crate) fn usable(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= MAX_VALUE
        && value.chars().all(|c| c.is_ascii_graphic() && c != '"')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chosen_field_stays_and_an_answer_replaces_or_forgets_what_it_names() {
        let mut copy = Native::default();
        copy.fill(&Native::one("rkey", "3k2a"));
        copy.fill(&Native::one("rkey", "3k2b"));
        assert_eq!(copy.get("rkey"), Some("3k2a"), "a chosen field is kept");
        copy.answered(&Native::one("version", "v1"));
        assert_eq!(copy.get("version"), Some("v1"));
        copy.answered(&Native::default());
        assert_eq!(
            copy.get("version"),
            Some("v1"),
            "an answer that names nothing"
        );
        copy.answered(&Native::unknown("version"));
        assert_eq!(copy.get("version"), None, "an answer that does not know it");
        assert_eq!(
            copy.get("rkey"),
            Some("3k2a"),
            "a field no answer names stays"
        );
        copy.answered(&Native::one("rkey", "3k2c"));
        assert_eq!(copy.get("rkey"), Some("3k2c"), "unless the answer names it");
    }

    #[test]
    fn fields_are_in_one_order_whatever_order_they_are_set_in() {
        let mut a = Native::one("version", "v");
        a.set("rkey", "r");
        a.set("nostr.created", "1");
        let mut b = Native::one("rkey", "r");
        b.set("nostr.created", "1");
        b.set("version", "v");
        assert_eq!(a, b);
        let names: Vec<_> = a.fields().map(|(n, _)| n).collect();
        assert_eq!(names, ["nostr.created", "rkey", "version"]);
        a.set("rkey", "");
        assert_eq!(a.get("rkey"), None);
    }

    #[test]
    fn a_platforms_field_is_namespaced_unless_0_5_wrote_it() {
        for name in ["rkey", "version", "nostr.created", "threads.container_id"] {
            assert!(is_field(name), "{name}");
        }
        for name in [
            "id", "marks", "nostr", "nostr.", ".x", "a.b.c", "Nostr.x", "n.x-y",
        ] {
            assert!(!is_field(name), "{name}");
        }
    }

    #[test]
    fn only_short_plain_tokens_are_kept_from_outside() {
        let mut native = Native::one("version", "2026 \"x\"");
        native.set("rkey", "3k2a");
        assert_eq!(native.checked().get("rkey"), Some("3k2a"));
        assert_eq!(native.checked().get("version"), None);
        let mut copy = Native::one("version", "v0");
        copy.answered(&native.checked());
        assert_eq!(
            copy.get("version"),
            None,
            "a value that cannot be kept is not known"
        );
        assert!(
            Native::one("rkey", "x".repeat(MAX_VALUE + 1))
                .checked()
                .is_empty()
        );
    }
}
