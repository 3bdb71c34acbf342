//! Text helpers that posts, images, templates, threads and several targets share: the Markdown
//! options, lower-case hex, the short mark of a text kept on a line, URL slugs, hashtags, and
//! the known word a slip of the keyboard meant. Imports nothing of ours.

use pulldown_cmark::Options;
use sha2::{Digest, Sha256};

/// The Markdown extensions every reader of a post's body parses with (tables, footnotes,
/// strikethrough), so they all see the same document.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH
}

/// Lower-case hex, as every hash on a line is written.
pub fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// A short hash of something sent (a status text, a body, a fingerprint): 16 hex digits, kept on
/// the state line so that a later lookup compares with what was sent, not with the file now.
pub fn mark(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes())[..8])
}

/// A URL-safe slug: ASCII letters and digits, `-` between words, at most `max` bytes.
pub fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let mut out = out.trim_end_matches('-').to_string();
    if out.len() > max {
        out.truncate(max);
        out = out.trim_end_matches('-').to_string();
    }
    out
}

/// Hashtag text: letters, digits and `_` only; `None` when nothing is left.
pub fn hashtag(tag: &str) -> Option<String> {
    let clean: String = tag
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!clean.is_empty()).then_some(clean)
}

/// The known word `word` is most likely a misspelling of (at most one or two edits away). An
/// edit inserts, deletes or replaces a character or swaps two neighbours, and no character is
/// edited twice (the optimal string alignment distance).
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if word.chars().count() <= 4 { 1 } else { 2 };
    known
        .into_iter()
        .map(|k| (strsim::osa_distance(word, k), k))
        .filter(|(n, _)| *n <= limit)
        .min_by_key(|(n, _)| *n)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_ascii_and_bounded() {
        assert_eq!(
            slug("Why the Date is *the* Key!", 60),
            "why-the-date-is-the-key"
        );
        assert_eq!(slug("日記", 60), "");
        assert_eq!(slug("a b c d e f", 5), "a-b-c");
    }
}
