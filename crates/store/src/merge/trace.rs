//! Traces (`state/<target>.log`) merge as a union of their lines, sorted by time.

use jiff::Timestamp;

/// Whether a text reads like a trace: its first line starts with an RFC 3339 time.
pub fn looks_like_trace(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| time_of(l).is_some())
}

fn time_of(line: &str) -> Option<Timestamp> {
    line.split_ascii_whitespace().next()?.parse().ok()
}

/// Every line of either side once, in time order (lines without a time keep their place after
/// the timed line before them); equal times keep the bytes' order, so the result is the same
/// whichever side is "ours".
pub fn merge(a: &str, b: &str) -> String {
    let mut lines: Vec<(Option<Timestamp>, &str)> = Vec::new();
    for text in [a, b] {
        let mut last = None;
        for line in text.lines().filter(|l| !l.is_empty()) {
            last = time_of(line).or(last);
            lines.push((last, line));
        }
    }
    lines.sort();
    lines.dedup_by(|x, y| x.1 == y.1);
    let mut out = String::with_capacity(a.len() + b.len());
    for (_, line) in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_lines_once_in_time_order_whichever_is_ours() {
        let a = "2026-11-29T07:00:00+01:00 2026-11-29 publish done id=1\n2026-11-30T07:00:00+01:00 2026-11-30 publish done id=2\n";
        let b = "2026-11-29T07:00:00+01:00 2026-11-29 publish done id=1\n2026-11-29T08:00:00+00:00 2026-11-28 publish failed class=local\n";
        let merged = merge(a, b);
        assert_eq!(merged, merge(b, a));
        assert_eq!(
            merged,
            "2026-11-29T07:00:00+01:00 2026-11-29 publish done id=1\n2026-11-29T08:00:00+00:00 2026-11-28 publish failed class=local\n2026-11-30T07:00:00+01:00 2026-11-30 publish done id=2\n"
        );
        assert!(looks_like_trace(a));
        assert!(!looks_like_trace(
            "# dayrun state format 2\n2026-11-29 done 2026-11-29T07:00:00Z\n"
        ));
    }
}
