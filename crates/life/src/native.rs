//! What only one platform needs of a copy (Bluesky's record key, Ghost's version): a few named
//! short values the shared code carries, moves by the rules below and never reads. Only the
//! platform reads its own, through an accessor in its own folder. On the line each is a field
//! of its own (`rkey=`, `version=`), so files written before parse as they are and people can
//! grep them.

/// Where a platform's value comes from, which says how the line keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Chosen by dayrun for the copy before its first send (Bluesky's record key): a pending
    /// publish takes it when the copy has none, and it stays for the copy's life. Printed
    /// beside the copy's generation.
    Chosen,
    /// Told by the platform in each answer (Ghost's version): every landing or update replaces
    /// it with what its receipt brings, and a receipt that brings none leaves it unknown.
    /// Printed after the copy's uploads (`media=`).
    Told,
}

/// The platforms' fields a key's line knows, in the order it prints them. This is the one list:
/// a platform with data of its own adds its field's name here, and reads and writes it only
/// through an accessor in its own folder.
pub const FIELDS: &[(&str, Source)] = &[("rkey", Source::Chosen), ("version", Source::Told)];

/// The longest value kept from outside: a short token (a record key, a timestamp, an event id).
pub const MAX_VALUE: usize = 64;

/// A copy's platform data: at most one value per field of `FIELDS`, opaque to all but the
/// platform that wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Native(Vec<(&'static str, String)>);

impl Native {
    /// No platform data (a `const`, so a lookup with nothing behind it can borrow one).
    pub const fn new() -> Native {
        Native(Vec::new())
    }

    /// The one field `name` (one of `FIELDS`) set to `value`.
    pub fn one(name: &str, value: impl Into<String>) -> Native {
        let mut native = Native::default();
        native.set(name, value);
        native
    }

    /// The field's value, if it has one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Set the field `name` (one of `FIELDS`; any other is a bug, and is not kept); an empty
    /// value removes it.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let Some((name, _)) = FIELDS.iter().find(|(n, _)| *n == name) else {
            debug_assert!(false, "`{name}` is not in life::native::FIELDS");
            return;
        };
        let value = value.into();
        self.0.retain(|(n, _)| n != name);
        if !value.is_empty() {
            self.0.push((name, value));
            self.0
                .sort_by_key(|(n, _)| FIELDS.iter().position(|(f, _)| f == n));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every field with a value, in the order of `FIELDS`, with where it comes from.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, Source, &str)> + '_ {
        self.0
            .iter()
            .map(|(name, value)| (*name, source(name), value.as_str()))
    }

    /// A pending publish: the fields the platform chose for the copy that it does not have yet.
    pub fn fill(&mut self, chosen: &Native) {
        for (name, _, value) in chosen.fields() {
            if self.get(name).is_none() {
                self.set(name, value);
            }
        }
    }

    /// A landing or an update: what its receipt brings replaces the copy's, and every field the
    /// platform tells is what this receipt says of it (unknown when it says nothing).
    pub fn answered(&mut self, brought: &Native) {
        self.0.retain(|(name, _)| source(name) == Source::Chosen);
        self.overlay(brought);
    }

    /// The fields `other` has, in place of these (a found copy the platform recognises: what
    /// it chose for that copy).
    pub fn overlay(&mut self, other: &Native) {
        for (name, _, value) in other.fields() {
            self.set(name, value);
        }
    }

    /// The values a line may keep from outside: short tokens, no space, quote or control
    /// character. Anything else is dropped (a version that is dropped is not known, and the
    /// platform then has none to send back).
    pub fn checked(&self) -> Native {
        Native(self.0.iter().filter(|(_, v)| usable(v)).cloned().collect())
    }
}

/// The field `name` of `FIELDS`, as the line names it, when it is one.
pub(crate) fn field(name: &str) -> Option<&'static str> {
    FIELDS.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}

fn source(name: &str) -> Source {
    FIELDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(Source::Told, |(_, s)| *s)
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
    fn a_chosen_field_stays_and_a_told_one_is_what_the_last_answer_said() {
        let mut copy = Native::default();
        copy.fill(&Native::one("rkey", "3k2a"));
        copy.fill(&Native::one("rkey", "3k2b"));
        assert_eq!(copy.get("rkey"), Some("3k2a"), "a chosen field is kept");
        copy.answered(&Native::one("version", "v1"));
        assert_eq!(copy.get("version"), Some("v1"));
        copy.answered(&Native::default());
        assert_eq!(copy.get("version"), None, "an answer without it: unknown");
        assert_eq!(copy.get("rkey"), Some("3k2a"), "a chosen field is not told");
        copy.answered(&Native::one("rkey", "3k2c"));
        assert_eq!(copy.get("rkey"), Some("3k2c"), "unless the answer names it");
    }

    #[test]
    fn fields_are_in_one_order_whatever_order_they_are_set_in() {
        let mut a = Native::one("version", "v");
        a.set("rkey", "r");
        let mut b = Native::one("rkey", "r");
        b.set("version", "v");
        assert_eq!(a, b);
        let names: Vec<_> = a.fields().map(|(n, ..)| n).collect();
        assert_eq!(names, ["rkey", "version"]);
        a.set("rkey", "");
        assert_eq!(a.get("rkey"), None);
    }

    #[test]
    fn only_short_plain_tokens_are_kept_from_outside() {
        let mut native = Native::one("version", "2026 \"x\"");
        native.set("rkey", "3k2a");
        assert_eq!(native.checked(), Native::one("rkey", "3k2a"));
        assert!(
            Native::one("rkey", "x".repeat(MAX_VALUE + 1))
                .checked()
                .is_empty()
        );
    }
}
