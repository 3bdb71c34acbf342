//! A post's key: the name its file is known by (`2026-11-29` for `content/2026-11-29.md`),
//! the idempotency key of every line, trace, lookup and link. One type, so that what a key is
//! can grow (a slug, a week) without every place that carries one changing; where a key is
//! needed as a day (when it is due, how old it is), `day` says which.

use jiff::civil::Date;
use std::fmt;
use std::str::FromStr;

/// A post's key. Today a date; it orders as its text does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(Date);

impl Key {
    /// The key of a day's post.
    pub const fn of_day(day: Date) -> Key {
        Key(day)
    }

    /// The day the key is due (a dated post's date).
    pub const fn day(self) -> Date {
        self.0
    }

    /// Read a key as dayrun writes it: exactly `YYYY-MM-DD`, a real calendar date.
    pub fn parse(s: &str) -> Option<Key> {
        crate::day::parse_key(s).map(Key)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Key {
    type Err = String;

    fn from_str(s: &str) -> Result<Key, String> {
        Key::parse(s).ok_or_else(|| format!("`{s}` is not a key (YYYY-MM-DD)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_reads_and_prints_as_its_name_and_orders_by_it() {
        let key: Key = "2026-11-29".parse().unwrap();
        assert_eq!(key.to_string(), "2026-11-29");
        assert_eq!(key.day(), jiff::civil::date(2026, 11, 29));
        assert!(key < "2026-11-30".parse().unwrap());
        for bad in ["20261129", "2026-02-30", "2026-11-29-x", ""] {
            assert_eq!(Key::parse(bad), None, "{bad}");
        }
    }
}
