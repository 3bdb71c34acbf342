//! A key's place on a site that names its posts by slug (WordPress, Ghost): the slug a copy is
//! sent with, and which slugs a lookup takes for the key's. Neither site takes an idempotency
//! key, so the slug is what says where a key's copy would be; the words sent say whether it is
//! this post (`Find`).
//!
//! - A date key `2026-12-01` sends `2026-12-01-title-words`; its place is `2026-12-01` and
//!   every `2026-12-01-…` (a title edited since, the `-2` a site adds to a taken slug, and
//!   WordPress's `…__trashed`), as in 0.5.
//! - A slugged key `2026-12-01-my-post` (`keys = ["date", "slug"]`) sends
//!   `2026-12-01-my-post_title-words`: no key holds `_`, and both sites keep one `_` between
//!   letters, so its place is every slug that starts with `2026-12-01-my-post_`. Another key of
//!   the day (`2026-12-01-my-post-2`) never starts so.
//! - In a project with slugged keys, a date key's place leaves out slugs with a `_` (beside
//!   WordPress's `__trashed`): those are its day's slugged keys'. Its own copies never have
//!   one: their words are `text::slug`'s, letters, digits and `-`.

use life::Key;

/// What a title adds when it has no letters or digits, after a slugged key's `_`.
const NO_WORDS: &str = "post";

/// The slug `key`'s copy is sent with: the key, then its title's words (60 bytes at most).
pub fn slug(key: Key, title: &str) -> String {
    let words = crate::text::slug(title, 60);
    match (key.slug().is_some(), words.is_empty()) {
        (true, true) => format!("{key}_{NO_WORDS}"),
        (true, false) => format!("{key}_{words}"),
        (false, true) => key.to_string(),
        (false, false) => format!("{key}-{words}"),
    }
}

/// A key's place, made once for the many slugs a listing shows.
pub struct Place {
    key: String,
    /// The key has a slug: its place is `KEY_…`.
    slugged_key: bool,
    /// The project takes slugged keys, so a date key's day may hold other keys' copies.
    slugged: bool,
}

impl Place {
    /// `key`'s place; `slugged`: the project takes slugged keys.
    pub fn of(key: Key, slugged: bool) -> Place {
        Place {
            key: key.to_string(),
            slugged_key: key.slug().is_some(),
            slugged,
        }
    }

    /// Whether `slug` (as the site shows it) is at this place.
    pub fn holds(&self, slug: &str) -> bool {
        let Some(rest) = slug.strip_prefix(self.key.as_str()) else {
            return false;
        };
        if self.slugged_key {
            return rest.starts_with('_');
        }
        let dated = rest.is_empty() || rest.starts_with('-') || rest.starts_with("__");
        let own = rest.strip_suffix("__trashed").unwrap_or(rest);
        dated && !(self.slugged && own.contains('_'))
    }
}

/// How a person finds the place: the start every slug there has.
pub fn start(key: Key) -> String {
    match key.slug() {
        Some(_) => format!("{key}_"),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key {
        text.parse().unwrap()
    }

    fn holds(slug: &str, key: Key, slugged: bool) -> bool {
        Place::of(key, slugged).holds(slug)
    }

    #[test]
    fn a_copy_is_sent_with_its_key_then_its_title() {
        assert_eq!(
            slug(key("2026-03-01"), "Weekly notes!"),
            "2026-03-01-weekly-notes"
        );
        assert_eq!(slug(key("2026-03-01"), "日記"), "2026-03-01");
        let slugged = key("2026-03-01-notes");
        assert_eq!(
            slug(slugged, "Weekly notes!"),
            "2026-03-01-notes_weekly-notes"
        );
        assert_eq!(slug(slugged, "日記"), "2026-03-01-notes_post");
    }

    #[test]
    fn a_date_key_keeps_its_place_of_0_5() {
        let day = key("2026-03-01");
        for at in [
            "2026-03-01",
            "2026-03-01-notes",
            "2026-03-01-notes-2",
            "2026-03-01-x__trashed",
        ] {
            assert!(holds(at, day, false), "{at}");
            assert!(holds(at, day, true), "{at}");
        }
        for not in ["2026-03-02", "2026-03-011", "notes-2026-03-01"] {
            assert!(!holds(not, day, false), "{not}");
        }
    }

    #[test]
    fn one_days_keys_never_hold_each_others_copies() {
        let day = key("2026-03-01");
        let notes = key("2026-03-01-notes");
        let notes_2 = key("2026-03-01-notes-2");
        let sent = |k: Key| slug(k, "Weekly notes");
        // Each key's copy, made unique by the site, trashed: its own place, no other's.
        for k in [day, notes, notes_2] {
            for copy in [
                sent(k),
                format!("{}-2", sent(k)),
                format!("{}__trashed", sent(k)),
            ] {
                for other in [day, notes, notes_2] {
                    assert_eq!(holds(&copy, other, true), other == k, "{copy} at {other}");
                }
            }
        }
        // Without slugged keys a date key's place is as it was, `_` or not.
        assert!(holds("2026-03-01-notes_weekly", day, false));
    }
}
