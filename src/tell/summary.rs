//! The line a target's pass ends with, and the one `status` ends a target's rows with: the
//! counts in the words of `tally`, each with its range and advice where a person may act.

use crate::life::Key;
use crate::tally::{Count, Tally};

/// The keys a pass's summary shows as a range, by what they are.
#[derive(Debug, Clone, Copy)]
pub struct Ranges<'a> {
    pub stale: &'a [Key],
    pub drafts: &'a [Key],
    /// Failed, and past the catch-up window.
    pub held: &'a [Key],
    /// Done, and the post's file is gone.
    pub deleted: &'a [Key],
}

/// " FIRST..LAST", " KEY" or nothing.
fn range(keys: &[Key]) -> String {
    match (keys.first(), keys.last()) {
        (Some(first), Some(last)) if first != last => format!(" {first}..{last}"),
        (Some(first), _) => format!(" {first}"),
        _ => String::new(),
    }
}

/// A pass's one summary line for `target`: what happened today and where the keys stand, in
/// the words `status` uses; keys that need nothing (drafts, stale) as a count and a range.
pub fn pass(target: &str, tally: &Tally, ranges: Ranges, catchup_days: i64) -> String {
    let mut parts = tally.parts(|count, n| match count {
        Count::Stale => format!(
            "{n} stale{} (`run --backfill` publishes them)",
            range(ranges.stale)
        ),
        Count::Draft => format!("{n} draft{}", range(ranges.drafts)),
        Count::HeldBack => format!(
            "{n} held back{} (failed, and now past the {catchup_days}-day catch-up window: `dayrun run --backfill` or `dayrun retry KEY…` sends them, `dayrun mark KEY… failed` puts them aside)",
            range(ranges.held),
        ),
        Count::Deleted => format!(
            "{n} deleted{} (published, and the post's file is gone: `dayrun retract` removes the copies)",
            range(ranges.deleted)
        ),
        count => format!("{n} {}", count.word()),
    });
    if parts.is_empty() {
        parts.push("nothing to do".into());
    }
    format!("{target}: {}", parts.join(", "))
}

/// `status`'s line after a target's rows: its counts, plain.
pub fn status(target: &str, tally: &Tally) -> String {
    let parts = tally.parts(|count, n| format!("{n} {}", count.word()));
    let parts = match parts.is_empty() {
        true => "no keys".into(),
        false => parts.join(", "),
    };
    format!("{target}: {parts}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_says_its_ranges_and_nothing_to_do_when_it_counted_nothing() {
        let day = |d: &str| d.parse::<Key>().expect("a key");
        let (stale, one) = ([day("2026-01-01"), day("2026-01-03")], [day("2026-02-01")]);
        let mut tally = Tally::default();
        for count in [Count::Stale, Count::Stale, Count::Draft, Count::Published] {
            tally.add(count);
        }
        let ranges = Ranges {
            stale: &stale,
            drafts: &one,
            held: &[],
            deleted: &[],
        };
        assert_eq!(
            pass("blog", &tally, ranges, 3),
            "blog: 1 published, 1 draft 2026-02-01, 2 stale 2026-01-01..2026-01-03 (`run --backfill` publishes them)"
        );
        let none = Ranges {
            stale: &[],
            ..ranges
        };
        assert_eq!(
            pass("blog", &Tally::default(), none, 3),
            "blog: nothing to do"
        );
        assert_eq!(status("blog", &Tally::default()), "blog: no keys");
    }
}
