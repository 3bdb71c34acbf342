//! A post's key: the name its file is known by without the extension (`2026-11-29` for
//! `content/2026-11-29.md`, `2026-11-29-my-post` for a Jekyll-style name), the idempotency key
//! of every line, trace, lookup and link. One type, so that what a key is can grow without
//! every place that carries one changing; where a key is needed as a day (when it is due, how
//! old it is), `day` says which. A key may also name a period (issue 33): an ISO week
//! (`2026-W49`) or a month (`2026-12`), whose day is its first and `last_day` its last.
//! `dayrun drill` (issue 37) names its throwaway posts `YYYY-MM-DD--drill-TAG`: the double
//! dash no real key can have (`Key::is_drill`).

use jiff::civil::Date;
use std::fmt;
use std::str::FromStr;

/// The longest key, in bytes: a date, a dash and a slug of up to 89 characters.
pub const MAX_KEY: usize = 100;

/// A post's key: a date (`2026-11-29`), or a date and a slug (`2026-11-29-my-post`: lower-case
/// letters, digits and single dashes). `Copy`, as the date it was: a slug read from outside is
/// kept for the rest of the process (`Box::leak`), which costs what the text read costs and
/// nothing per copy. Keys order by day, then by slug, so a day's keys sit together and a date
/// key comes before its day's slugged ones, as their text sorts.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// The day and the period as one number in that order, so that keys compare as cheaply
    /// as integers (a run looks up every key it walks); then the slug; the day itself follows
    /// from them.
    order: i32,
    slug: Option<&'static str>,
    day: Date,
}

/// What a key names: a day (most keys), or a period that starts on its day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Period {
    Day,
    /// An ISO week, Monday to Sunday (`2026-W49`).
    Week,
    /// A calendar month (`2026-12`).
    Month,
}

impl Key {
    /// The key of a day's post (`YYYY-MM-DD`).
    pub fn of_day(day: Date) -> Key {
        Key {
            order: order(day, Period::Day),
            slug: None,
            day,
        }
    }

    /// The day the key is due (its date; a period's first day).
    pub const fn day(self) -> Date {
        self.day
    }

    /// The key's last day: its date, or its period's last.
    pub fn last_day(self) -> Date {
        match self.period() {
            Period::Day => self.day,
            Period::Week => self.day.saturating_add(jiff::Span::new().days(6)),
            Period::Month => self.day.last_of_month(),
        }
    }

    /// What the key names: a day, a week or a month (`order`'s last two bits: a key stays the
    /// size it was, 24 bytes, which the maps and sorts of every run move around).
    pub const fn period(self) -> Period {
        match self.order & 3 {
            0 => Period::Day,
            1 => Period::Week,
            _ => Period::Month,
        }
    }

    /// The slug after the date, if the key has one.
    pub const fn slug(self) -> Option<&'static str> {
        self.slug
    }

    /// Whether the key is a drill's (`YYYY-MM-DD--drill-TAG`, made by `dayrun drill` only: a
    /// content file so named is refused, so no real key is one).
    pub fn is_drill(self) -> bool {
        self.slug.is_some_and(|s| s.starts_with(DRILL))
    }

    /// The drill's key of `day` and `tag` (lower-case letters, digits and single dashes).
    pub fn drill(day: Date, tag: &str) -> Option<Key> {
        Key::parse(&format!("{day}-{DRILL}{tag}"))
    }

    /// The tag of a drill's key (`TAG` of `YYYY-MM-DD--drill-TAG`).
    pub fn drill_tag(self) -> Option<&'static str> {
        self.slug.and_then(|s| s.strip_prefix(DRILL))
    }

    /// Read a key: `YYYY-MM-DD` (a real calendar date), or that and `-slug`, `MAX_KEY` bytes at
    /// most; or a drill's key, `YYYY-MM-DD--drill-TAG`.
    pub fn parse(s: &str) -> Option<Key> {
        Key::parse_in(s, &mut Slugs::default())
    }

    /// `parse`, its slug kept in `slugs` (a reader of many keys keeps them together).
    pub fn parse_in(s: &str, slugs: &mut Slugs) -> Option<Key> {
        if s.len() < 10 {
            return period(s);
        }
        let day = crate::day::parse_key(s.get(..10)?)?;
        match s.get(10..)? {
            "" => Some(Key::of_day(day)),
            rest => {
                let slug = rest.strip_prefix('-')?;
                let drill = slug.strip_prefix(DRILL).is_some_and(is_slug);
                ((is_slug(slug) || drill) && s.len() <= MAX_KEY).then(|| Key {
                    order: order(day, Period::Day),
                    slug: Some(slugs.keep(slug)),
                    day,
                })
            }
        }
    }
}

/// What a drill key's slug starts with: a dash, which no slug can start with.
const DRILL: &str = "-drill-";

/// Where slugs read from outside are kept for the rest of the process (a `Key` is `Copy`).
/// `Slugs::default()` gives each its own allocation; `Slugs::together()` copies them into
/// blocks of `BLOCK` bytes, one allocation for hundreds of keys (issue 32's benchmark: an
/// allocation per key was most of what slugged keys add to a no-op run). What is kept is
/// what was read, plus at most one block's unused tail.
#[derive(Default)]
pub struct Slugs {
    together: bool,
    rest: &'static mut [u8],
}

/// The size of one block of `Slugs::together`.
const BLOCK: usize = 16 * 1024;

impl Slugs {
    /// Slugs kept together, in blocks (for a reader of many keys).
    pub fn together() -> Slugs {
        Slugs {
            together: true,
            rest: &mut [],
        }
    }

    fn keep(&mut self, slug: &str) -> &'static str {
        if !self.together {
            return Box::leak(slug.into());
        }
        if self.rest.len() < slug.len() {
            self.rest = vec![0; BLOCK.max(slug.len())].leak();
        }
        let (kept, rest) = std::mem::take(&mut self.rest).split_at_mut(slug.len());
        self.rest = rest;
        kept.copy_from_slice(slug.as_bytes());
        std::str::from_utf8(kept).expect("a slug is ASCII")
    }
}

/// A period's key: `YYYY-Www` (an ISO week that exists) or `YYYY-MM`.
fn period(s: &str) -> Option<Key> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        let part = b.get(r)?;
        (part.iter().all(u8::is_ascii_digit))
            .then(|| part.iter().fold(0i16, |n, d| n * 10 + i16::from(d - b'0')))
    };
    let year = digits(0..4).filter(|_| b.get(4) == Some(&b'-'))?;
    let (period, day) = match b.len() {
        7 => (Period::Month, Date::new(year, digits(5..7)? as i8, 1).ok()?),
        8 if b[5] == b'W' => {
            let week = digits(6..8)? as i8;
            let iso = jiff::civil::ISOWeekDate::new(year, week, jiff::civil::Weekday::Monday);
            (Period::Week, iso.ok()?.date())
        }
        _ => return None,
    };
    Some(Key {
        order: order(day, period),
        slug: None,
        day,
    })
}

/// A date and a period as one number in that order (month * 32 + day < 512, then the period in
/// two bits): the key's first comparison, as cheap as an integer's, for the maps of every run.
fn order(day: Date, period: Period) -> i32 {
    let day = i32::from(day.year()) * 512 + i32::from(day.month()) * 32 + i32::from(day.day());
    day * 4 + period as i32
}

/// A slug as a key may end in: lower-case letters, digits and single dashes, neither first nor
/// last.
pub fn is_slug(s: &str) -> bool {
    // One pass over the bytes, one table lookup each: every state line and file name of a
    // slugged project comes through here (issue 32's benchmark). `prev` starts as a dash, so a
    // first dash, two in a row, a last one and the empty slug all fail.
    let mut prev = DASH;
    for &c in s.as_bytes() {
        let class = SLUG_BYTE[usize::from(c)];
        if (class == NOT) | (class & prev == DASH) {
            return false;
        }
        prev = class;
    }
    prev == WORD
}

/// What each byte is in a slug: not allowed, a letter or digit, or a dash.
const NOT: u8 = 0;
const WORD: u8 = 1;
const DASH: u8 = 2;
const SLUG_BYTE: [u8; 256] = {
    let mut table = [NOT; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = match c as u8 {
            b'a'..=b'z' | b'0'..=b'9' => WORD,
            b'-' => DASH,
            _ => NOT,
        };
        c += 1;
    }
    table
};

impl Ord for Key {
    /// The day's and period's integer; a day's slugs only when they are equal (most keys have
    /// none).
    #[inline]
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        match self.order.cmp(&other.order) {
            std::cmp::Ordering::Equal => self.slug.cmp(&other.slug),
            order => order,
        }
    }
}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.period(), self.slug) {
            (Period::Week, _) => {
                let iso = self.day.iso_week_date();
                write!(f, "{:04}-W{:02}", iso.year(), iso.week())
            }
            (Period::Month, _) => write!(f, "{:04}-{:02}", self.day.year(), self.day.month()),
            (Period::Day, None) => fmt::Display::fmt(&self.day, f),
            (Period::Day, Some(slug)) => write!(f, "{}-{slug}", self.day),
        }
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({self})")
    }
}

impl FromStr for Key {
    type Err = String;

    fn from_str(s: &str) -> Result<Key, String> {
        Key::parse(s).ok_or_else(|| {
            format!("`{s}` is not a key (YYYY-MM-DD, YYYY-MM-DD-slug, YYYY-Www or YYYY-MM)")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Key {
        s.parse().unwrap()
    }

    #[test]
    fn a_week_or_a_month_reads_prints_and_orders_by_its_first_day_then_its_shape() {
        let week = key("2026-W49");
        assert_eq!(week.to_string(), "2026-W49");
        assert_eq!(week.period(), Period::Week);
        assert_eq!(
            (week.day(), week.last_day()),
            (
                jiff::civil::date(2026, 11, 30),
                jiff::civil::date(2026, 12, 6)
            )
        );
        // ISO week 1 of 2026 starts on Monday 2025-12-29.
        assert_eq!(key("2026-W01").day(), jiff::civil::date(2025, 12, 29));
        assert_eq!(key("2026-W01").to_string(), "2026-W01");
        let month = key("2026-02");
        assert_eq!(month.to_string(), "2026-02");
        assert_eq!(month.last_day(), jiff::civil::date(2026, 2, 28));
        for bad in [
            "2026-W54", "2026-W00", "2025-W53", "2026-13", "2026-00", "2026-W4", "2026-1",
        ] {
            assert_eq!(Key::parse(bad), None, "{bad}");
        }
        assert!(Key::parse("2026-W53").is_some(), "2026 has 53 ISO weeks");
        let mut keys = [
            "2026-12-01-a",
            "2026-12",
            "2026-W49",
            "2026-12-01",
            "2026-11-30",
        ]
        .map(key);
        keys.sort();
        assert_eq!(
            keys.map(|k| k.to_string()),
            [
                "2026-11-30",
                "2026-W49",
                "2026-12-01",
                "2026-12-01-a",
                "2026-12"
            ]
        );
    }

    #[test]
    fn a_key_reads_and_prints_as_its_name_and_orders_by_day_then_name() {
        assert_eq!(key("2026-11-29").to_string(), "2026-11-29");
        assert_eq!(key("2026-11-29").day(), jiff::civil::date(2026, 11, 29));
        assert_eq!(key("2026-11-29").slug(), None);
        let slugged = key("2026-11-29-my-post-2");
        assert_eq!(
            (slugged.to_string().as_str(), slugged.slug()),
            ("2026-11-29-my-post-2", Some("my-post-2"))
        );
        assert_eq!(slugged.day(), key("2026-11-29").day());
        let mut keys = ["2026-11-30", "2026-11-29-b", "2026-11-29", "2026-11-29-a"].map(key);
        keys.sort();
        assert_eq!(
            keys.map(|k| k.to_string()),
            ["2026-11-29", "2026-11-29-a", "2026-11-29-b", "2026-11-30"]
        );
        assert_eq!(
            Key::of_day(jiff::civil::date(2026, 11, 29)),
            key("2026-11-29")
        );
    }

    use jiff::civil::Date;
    use proptest::prelude::*;

    proptest! {
        /// The integer a key compares by first orders as the dates do.
        #[test]
        fn date_keys_order_as_dates(a in (-9999i16..=9999, 1i8..=12, 1i8..=31), b in (-9999i16..=9999, 1i8..=12, 1i8..=31)) {
            if let (Ok(a), Ok(b)) = (Date::new(a.0, a.1, a.2), Date::new(b.0, b.1, b.2)) {
                prop_assert_eq!(Key::of_day(a).cmp(&Key::of_day(b)), a.cmp(&b));
            }
        }
    }

    #[test]
    fn date_keys_order_as_dates_at_the_edges() {
        let dates = [
            Date::new(-9999, 1, 1).unwrap(),
            Date::new(-1, 12, 31).unwrap(),
            Date::new(0, 1, 1).unwrap(),
            Date::new(1700, 1, 1).unwrap(),
            Date::new(2026, 1, 31).unwrap(),
            Date::new(2026, 2, 1).unwrap(),
            Date::new(2026, 12, 31).unwrap(),
            Date::new(2027, 1, 1).unwrap(),
            Date::new(9999, 12, 31).unwrap(),
        ];
        for pair in dates.windows(2) {
            assert!(Key::of_day(pair[0]) < Key::of_day(pair[1]), "{pair:?}");
        }
    }

    #[test]
    fn only_a_real_date_and_a_plain_slug_make_a_key() {
        let long = format!("2026-11-29-{}", "a".repeat(MAX_KEY - 10));
        for bad in [
            "20261129",
            "2026-02-30",
            "2026-11-29-",
            "2026-11-29-My-Post",
            "2026-11-29-a--b",
            "2026-11-29--a",
            "2026-11-29-a-",
            "2026-11-29-a_b",
            "2026-11-29_a",
            "2026-11-29-ü",
            "",
            long.as_str(),
        ] {
            assert_eq!(Key::parse(bad), None, "{bad}");
        }
        for good in ["2026-11-29-a", "2026-11-29-my-post-2", "2026-11-29-0"] {
            assert_eq!(key(good).to_string(), good);
        }
        let longest = format!("2026-11-29-{}", "a".repeat(MAX_KEY - 11));
        assert_eq!(key(&longest).to_string(), longest);
    }

    #[test]
    fn a_drill_key_reads_back_and_no_real_key_is_one() {
        let drill = key("2026-12-05--drill-7f3a-01");
        assert!(drill.is_drill());
        assert_eq!(drill.to_string(), "2026-12-05--drill-7f3a-01");
        assert_eq!(drill.drill_tag(), Some("7f3a-01"));
        assert_eq!(drill.day(), jiff::civil::date(2026, 12, 5));
        assert_eq!(
            Key::drill(jiff::civil::date(2026, 12, 5), "7f3a-01"),
            Some(drill)
        );
        for real in [
            "2026-12-05",
            "2026-12-05-drill-7f3a-01",
            "2026-W49",
            "2026-12",
        ] {
            assert!(!key(real).is_drill(), "{real}");
        }
        for bad in [
            "2026-12-05--drill-",
            "2026-12-05--drill--a",
            "2026-12-05--drill-A",
            "2026-12-05--drills-a",
            "2026-12-05---drill-a",
        ] {
            assert_eq!(Key::parse(bad), None, "{bad}");
        }
        assert_eq!(Key::drill(jiff::civil::date(2026, 12, 5), "Bad"), None);
    }

    #[test]
    fn is_slug_is_the_rule_as_written_for_every_short_text() {
        let written = |s: &str| {
            !s.is_empty()
                && !s.starts_with('-')
                && !s.ends_with('-')
                && !s.contains("--")
                && s.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        };
        let alphabet = ["a", "z", "0", "9", "-", "A", "_", "\u{e9}", "/"];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = (texts.iter())
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        for text in texts {
            assert_eq!(is_slug(&text), written(&text), "{text:?}");
        }
    }

    #[test]
    fn slugs_kept_together_read_back_as_parsed_across_blocks() {
        let mut slugs = Slugs::together();
        let texts: Vec<String> = (0..3000)
            .map(|i| format!("2026-11-29-post-number-{i}"))
            .collect();
        let keys: Vec<Key> = (texts.iter())
            .map(|t| Key::parse_in(t, &mut slugs).unwrap())
            .collect();
        for (text, key) in texts.iter().zip(&keys) {
            assert_eq!(key.to_string(), *text);
            assert_eq!(*key, Key::parse(text).unwrap());
        }
        assert_eq!(Key::parse_in("2026-11-29-Bad", &mut slugs), None);
    }
}
