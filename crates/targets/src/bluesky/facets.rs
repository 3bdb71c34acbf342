//! The facets of a text written elsewhere (a template's, a thread's part): each http(s) link
//! and `#hashtag` in it, as the UTF-8 byte ranges that make them clickable (a text dayrun
//! composes itself knows its own).

use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;

/// A facet for every link and hashtag in `text`, in order.
pub fn found(text: &str) -> Vec<Value> {
    let mut facets = Vec::new();
    let mut at = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let start = at;
        at += word.len();
        let bare = word.trim_end();
        // A link in brackets or quotes (`text (url)`, as a thread writes a markdown link).
        let opened = bare.trim_start_matches(OPENERS);
        if opened.starts_with("https://") || opened.starts_with("http://") {
            let start = start + (bare.len() - opened.len());
            let link = trim_link(opened);
            if link.len() > "https://".len() {
                facets.push(facet(
                    start,
                    start + link.len(),
                    json!({"$type": "app.bsky.richtext.facet#link", "uri": link}),
                ));
            }
        } else if let Some(tag) = bare.strip_prefix('#') {
            let end = tag
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(tag.len());
            let tag = &tag[..end];
            let fits = tag.graphemes(true).count() <= 64 && tag.len() <= 640;
            if !tag.is_empty() && !tag.chars().all(|c| c.is_ascii_digit()) && fits {
                facets.push(facet(
                    start,
                    start + 1 + tag.len(),
                    json!({"$type": "app.bsky.richtext.facet#tag", "tag": tag}),
                ));
            }
        }
    }
    facets
}

/// What may open a link's word without being part of it: brackets and quotes.
const OPENERS: [char; 6] = ['(', '<', '"', '\'', '“', '«'];

/// A link without the punctuation a sentence puts after it (`… see https://x.test/a.`), the
/// closing quote or `>` around it, and a closing bracket it does not open
/// (`(see https://x.test/a)`).
fn trim_link(word: &str) -> &str {
    let mut link = word;
    loop {
        let trimmed =
            link.trim_end_matches(['.', ',', ';', ':', '!', '?', '"', '\'', '”', '’', '»', '>']);
        let unopened = trimmed.matches(')').count() > trimmed.matches('(').count();
        let trimmed = match trimmed.strip_suffix(')') {
            Some(inner) if unopened => inner,
            _ => trimmed,
        };
        if trimmed == link {
            return link;
        }
        link = trimmed;
    }
}

/// A facet over bytes `start..end` of a text, saying `feature`.
pub(super) fn facet(start: usize, end: usize, feature: Value) -> Value {
    json!({
        "index": {"byteStart": start, "byteEnd": end},
        "features": [feature],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each facet covers, and what it says.
    fn covered(text: &str) -> Vec<(String, String)> {
        found(text)
            .iter()
            .map(|f| {
                let i = &f["index"];
                let (s, e) = (
                    i["byteStart"].as_u64().unwrap() as usize,
                    i["byteEnd"].as_u64().unwrap() as usize,
                );
                let what = &f["features"][0];
                let said = what["uri"].as_str().or(what["tag"].as_str()).unwrap();
                (text[s..e].to_string(), said.to_string())
            })
            .collect()
    }

    #[test]
    fn links_and_hashtags_are_found_by_byte_range() {
        let text = "Grüße 🦀 (see https://blog.test/a_(b)/c?x=1#top). #rust #web_dev #2026 #\n\
                    https://x.test/ä, and #日本語!";
        assert_eq!(
            covered(text),
            [
                (
                    "https://blog.test/a_(b)/c?x=1#top".into(),
                    "https://blog.test/a_(b)/c?x=1#top".into()
                ),
                ("#rust".into(), "rust".into()),
                ("#web_dev".into(), "web_dev".into()),
                ("https://x.test/ä".into(), "https://x.test/ä".into()),
                ("#日本語".into(), "日本語".into()),
            ] as [(String, String); 5]
        );
        assert!(found("no links, no tags: a#b http:// https://").is_empty());
    }

    /// A thread writes a markdown link as `text (url)`; the facet covers the URL alone, at
    /// byte offsets counted past the multi-byte characters before it.
    #[test]
    fn a_link_in_brackets_or_quotes_is_found_without_them() {
        let text = "Grüße 🦀: the docs (https://x.test/d). Or <https://x.test/e>, \
                    «https://x.test/f» \"https://x.test/g,\" (https://x.test/a_(b)) #rust\n\n2/3";
        assert_eq!(
            covered(text),
            [
                ("https://x.test/d".into(), "https://x.test/d".into()),
                ("https://x.test/e".into(), "https://x.test/e".into()),
                ("https://x.test/f".into(), "https://x.test/f".into()),
                ("https://x.test/g".into(), "https://x.test/g".into()),
                ("https://x.test/a_(b)".into(), "https://x.test/a_(b)".into()),
                ("#rust".into(), "rust".into()),
            ] as [(String, String); 6]
        );
        // "Grüße 🦀: the docs (" is 24 bytes (ü and ß take 2 each, the crab 4), 18 characters.
        let first = &found(text)[0]["index"];
        assert_eq!(
            (first["byteStart"].as_u64(), first["byteEnd"].as_u64()),
            (Some(24), Some(40))
        );
        assert!(found("(https://) <http://> \"#\"").is_empty());
    }

    /// A thread's part: its own byte offsets, its numbering no facet.
    #[test]
    fn a_parts_facets_are_at_its_own_byte_offsets() {
        assert_eq!(
            covered("Grüße: see https://x.test/a. #rust #web-dev\n\n2/3"),
            [
                ("https://x.test/a".into(), "https://x.test/a".into()),
                ("#rust".into(), "rust".into()),
                ("#web".into(), "web".into()),
            ] as [(String, String); 3]
        );
    }
}
