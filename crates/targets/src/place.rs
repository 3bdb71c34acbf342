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
//! - A week's or a month's key (issue 33) is placed as a slugged key is, in lower case as both
//!   sites write slugs: `2026-w49_title-words`, `2026-12_title-words`. So a month's copy is
//!   never at its first day's place (`2026-12-01-…`), nor a day's at the month's.
//! - A drill's key `2026-12-01--drill-7f3a-01` (`dayrun drill`) sends
//!   `dayrun-drill-2026-12-01-7f3a-01_title-words`. Both sites collapse a double dash, so its
//!   slug must not start with the date (it would then be at the day's place); it starts with
//!   `dayrun-drill-`, which no real key's place does, and `keyed` says it is no real key's.

use life::Key;
use life::key::Period;

/// What a drill copy's slug starts with.
const DRILL: &str = "dayrun-drill-";

/// The key as a slug starts: its name, in lower case (a week's `W`); a drill's,
/// `dayrun-drill-DATE-TAG`.
fn text(key: Key) -> String {
    match key.drill_tag() {
        Some(tag) => format!("{DRILL}{}-{tag}", key.day()),
        None => key.to_string().to_ascii_lowercase(),
    }
}

/// Whether the key's copies are at `KEY_…`: a slugged key's, a week's, a month's or a drill's.
fn underscored(key: Key) -> bool {
    key.slug().is_some() || key.period() != Period::Day
}

/// Whether `slug` (as a site writes it) may be a drill's copy (`dayrun drill`).
pub fn drilled(slug: &str) -> bool {
    slug.starts_with(DRILL)
}

/// What a title adds when it has no letters or digits, after a slugged key's `_`.
const NO_WORDS: &str = "post";

/// The slug `key`'s copy is sent with: the key, then its title's words (60 bytes at most).
pub fn slug(key: Key, title: &str) -> String {
    let (words, name) = (crate::text::slug(title, 60), text(key));
    match (underscored(key), words.is_empty()) {
        (true, true) => format!("{name}_{NO_WORDS}"),
        (true, false) => format!("{name}_{words}"),
        (false, true) => name,
        (false, false) => format!("{name}-{words}"),
    }
}

/// A key's place, made once for the many slugs a listing shows.
pub struct Place {
    key: String,
    /// The key has a slug, or names a period: its place is `KEY_…`.
    slugged_key: bool,
    /// The project takes slugged keys, so a date key's day may hold other keys' copies.
    slugged: bool,
}

impl Place {
    /// `key`'s place; `slugged`: the project takes slugged keys.
    pub fn of(key: Key, slugged: bool) -> Place {
        Place {
            key: text(key),
            slugged_key: underscored(key),
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

/// Whether `slug` (as a site writes it) may be a key's copy: it starts with a date, or with a
/// week's or a month's key and `_`.
pub fn keyed(slug: &str) -> bool {
    if slug.get(..10).and_then(life::day::parse_key).is_some() {
        return true;
    }
    let Some((head, _)) = slug.split_once('_') else {
        return false;
    };
    head.len() < 10 && Key::parse(&head.to_ascii_uppercase()).is_some()
}

/// How a person finds the place: the start every slug there has.
pub fn start(key: Key) -> String {
    match underscored(key) {
        true => format!("{}_", text(key)),
        false => text(key),
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
    fn a_weeks_or_a_months_copy_is_at_its_own_place_never_its_first_days() {
        let (week, month, day) = (key("2026-W49"), key("2026-12"), key("2026-12-01"));
        assert_eq!(slug(week, "Week notes"), "2026-w49_week-notes");
        assert_eq!(slug(month, "日記"), "2026-12_post");
        assert!(holds("2026-w49_week-notes", week, false));
        assert!(holds("2026-12_month-2", month, false));
        assert!(!holds("2026-12-01-a-day", month, false), "a day's copy");
        assert!(!holds("2026-12_month", day, false), "a month's copy");
        assert!(!holds("2026-w49-x", week, false));
        assert_eq!(start(week), "2026-w49_");
        for (slug, keyed) in [
            ("2026-w49_week", true),
            ("2026-12_month", true),
            ("2026-12-01-day", true),
            ("2026-12-x", false),
            ("2026-w54_x", false),
            ("about", false),
        ] {
            assert_eq!(super::keyed(slug), keyed, "{slug}");
        }
    }

    #[test]
    fn a_drill_copy_is_never_at_a_real_keys_place_nor_the_reverse() {
        let drill = key("2026-03-01--drill-7f3a-01");
        let sent = slug(drill, "dayrun drill 7f3a-01 — safe to delete");
        assert_eq!(
            sent,
            "dayrun-drill-2026-03-01-7f3a-01_dayrun-drill-7f3a-01-safe-to-delete"
        );
        assert_eq!(start(drill), "dayrun-drill-2026-03-01-7f3a-01_");
        // What the site may make of it: unique with `-2`, trashed, a double dash collapsed.
        let copies = [
            sent.clone(),
            format!("{sent}-2"),
            format!("{sent}__trashed"),
        ];
        let real = [
            "2026-03-01",
            "2026-03-01-drill-7f3a-01",
            "2026-W09",
            "2026-03",
        ]
        .map(key);
        for copy in &copies {
            assert!(
                holds(copy, drill, false) && holds(copy, drill, true),
                "{copy}"
            );
            assert!(!keyed(copy), "{copy} is no real key's");
            assert!(drilled(copy), "{copy}");
            for other in real {
                for slugged in [false, true] {
                    assert!(!holds(copy, other, slugged), "{copy} at {other}");
                }
            }
        }
        // Real keys' copies, and another round's: never at the drill's place.
        let other_round = slug(key("2026-03-01--drill-7f3a-02"), "x");
        for other in real.into_iter().chain([key("2026-03-01-drill")]) {
            let theirs = slug(other, "dayrun drill 7f3a-01 — safe to delete");
            assert!(!holds(&theirs, drill, false), "{theirs}");
            assert!(!drilled(&theirs), "{theirs}");
        }
        assert!(!holds(&other_round, drill, false), "{other_round}");
        assert!(!holds("dayrun-drill-2026-03-01-7f3a-011_x", drill, false));
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
