//! The post text: title, summary, hashtags and link fitted to 300 graphemes and 3000 bytes,
//! with the facets (UTF-8 byte ranges) that make the link and hashtags clickable.

use super::facets::facet;
use crate::error::{Class, Error};
use crate::post::Post;
use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;

/// What `app.bsky.feed.post` allows in `text` (lexicon: maxGraphemes 300, maxLength 3000).
pub const MAX_GRAPHEMES: usize = 300;
pub const MAX_BYTES: usize = 3000;
/// A cut summary keeps at least this many graphemes, or goes.
const MIN_SUMMARY: usize = 10;

/// The text and its facets.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub text: String,
    pub facets: Vec<Value>,
}

/// Whether `text` is within both limits.
pub fn fits(text: &str) -> bool {
    text.len() <= MAX_BYTES && text.graphemes(true).count() <= MAX_GRAPHEMES
}

/// Hashtag text as Mastodon's (letters, digits and `_`), within what a tag facet holds (64
/// graphemes, 640 bytes).
fn hashtag(tag: &str) -> Option<String> {
    crate::text::hashtag(tag)
        .filter(|clean| clean.graphemes(true).count() <= 64 && clean.len() <= 640)
}

/// The post's hashtags as a tag facet holds them (without `#`).
pub fn tags(post: &Post) -> Vec<String> {
    let mut tags: Vec<String> = post.tags.iter().filter_map(|t| hashtag(t)).collect();
    tags.dedup();
    tags
}

/// Title, summary, hashtags and link, within the limits: the summary is cut first, then
/// hashtags are dropped from the end; the title and link are never cut. Fails (local) when
/// the title and link alone do not fit.
pub fn fit(post: &Post, link: Option<&str>) -> Result<Text, Error> {
    let mut tags = tags(post);
    let bare = compose(&post.title, "", &[], link);
    if !fits(&bare.text) {
        let what = match link {
            Some(_) => "the title and link alone are",
            None => "the title alone is",
        };
        return Err(Error::failure(
            Class::Local,
            format!(
                "{what} {} graphemes ({} bytes); a Bluesky post holds {MAX_GRAPHEMES} graphemes and {MAX_BYTES} bytes",
                bare.text.graphemes(true).count(),
                bare.text.len(),
            ),
        )
        .at(&post.path)
        .hint("shorten the title"));
    }
    loop {
        let whole = compose(&post.title, &post.summary, &tags, link);
        if fits(&whole.text) {
            return Ok(whole);
        }
        if !fits(&compose(&post.title, "", &tags, link).text) {
            tags.pop();
            continue;
        }
        // The longest cut of the summary that fits, found by halving.
        let graphemes: Vec<&str> = post.summary.graphemes(true).collect();
        // A cut ends at a word when that keeps at least half of it, and in `…`.
        let cut = |n: usize| {
            let head = graphemes[..n].concat();
            let head = match head.rfind(' ') {
                Some(space) if space > head.len() / 2 => head[..space].to_string(),
                _ => head,
            };
            format!("{}…", head.trim_end())
        };
        let (mut lo, mut hi) = (0, graphemes.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            match fits(&compose(&post.title, &cut(mid), &tags, link).text) {
                true => lo = mid,
                false => hi = mid - 1,
            }
        }
        let summary = cut(lo);
        // What is kept, without the `…`: too little of a summary says nothing.
        let summary = match summary.graphemes(true).count() > MIN_SUMMARY {
            true => summary,
            false => String::new(),
        };
        return Ok(compose(&post.title, &summary, &tags, link));
    }
}

/// The parts joined as on Mastodon: title, summary, then hashtags with the link on its own
/// line, a blank line between parts; a facet for each hashtag and the link.
fn compose(title: &str, summary: &str, tags: &[String], link: Option<&str>) -> Text {
    let mut text = title.to_string();
    let mut facets = Vec::new();
    if !summary.is_empty() {
        text.push_str("\n\n");
        text.push_str(summary);
    }
    if !tags.is_empty() || link.is_some() {
        text.push_str("\n\n");
    }
    for (i, tag) in tags.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        let start = text.len();
        text.push('#');
        text.push_str(tag);
        facets.push(facet(
            start,
            text.len(),
            json!({"$type": "app.bsky.richtext.facet#tag", "tag": tag}),
        ));
    }
    if let Some(link) = link {
        if !tags.is_empty() {
            text.push('\n');
        }
        let start = text.len();
        text.push_str(link);
        facets.push(facet(
            start,
            text.len(),
            json!({"$type": "app.bsky.richtext.facet#link", "uri": link}),
        ));
    }
    Text { text, facets }
}

/// At most `n` graphemes of `text` (for the link card's description).
pub fn first_graphemes(text: &str, n: usize) -> String {
    text.graphemes(true).take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::post::sample as post;

    /// The text a facet covers.
    fn covered(text: &Text, i: usize) -> &str {
        let index = &text.facets[i]["index"];
        let (start, end) = (
            index["byteStart"].as_u64().unwrap() as usize,
            index["byteEnd"].as_u64().unwrap() as usize,
        );
        &text.text[start..end]
    }

    #[test]
    fn a_short_post_is_sent_whole_with_a_facet_per_tag_and_the_link() {
        let text = fit(
            &post("Grüße 🦀", "Ein Text.", &["rust", "web-dev"]),
            Some("https://x.test/a"),
        )
        .unwrap();
        assert_eq!(
            text.text,
            "Grüße 🦀\n\nEin Text.\n\n#rust #webdev\nhttps://x.test/a"
        );
        assert_eq!(covered(&text, 0), "#rust");
        assert_eq!(covered(&text, 1), "#webdev");
        assert_eq!(covered(&text, 2), "https://x.test/a");
        assert_eq!(text.facets[1]["features"][0]["tag"], "webdev");
        assert_eq!(text.facets[2]["features"][0]["uri"], "https://x.test/a");
    }

    #[test]
    fn the_summary_is_cut_first_then_hashtags_never_the_title_or_link() {
        let link = format!("https://example.test/{}", "p".repeat(100));
        let summary = "日本語の文章です。".repeat(40);
        let text = fit(&post("題名", &summary, &["tag"]), Some(&link)).unwrap();
        assert!(text.text.starts_with("題名\n\n日本語"), "{}", text.text);
        assert!(text.text.contains("…\n\n#tag\n"), "{}", text.text);
        assert!(text.text.ends_with(&link));
        let n = text.text.graphemes(true).count();
        assert!(n <= MAX_GRAPHEMES && n > MAX_GRAPHEMES - 5, "{n}");

        // No room for a summary: tags go from the end, the title stays whole.
        let title = "t".repeat(280);
        let text = fit(&post(&title, "summary", &["aaaa", "bbbb", "cccc"]), None).unwrap();
        assert_eq!(text.text, format!("{title}\n\n#aaaa #bbbb #cccc"));
        let text = fit(
            &post(&title, "summary", &["aaaa", "bbbb", "cccc", "dddd"]),
            None,
        )
        .unwrap();
        assert_eq!(text.text, format!("{title}\n\n#aaaa #bbbb #cccc"));
    }

    #[test]
    fn bytes_bind_before_graphemes_with_long_emoji() {
        let family = "👨‍👩‍👧‍👦"; // one grapheme, 25 bytes
        let summary = family.repeat(200);
        let text = fit(&post("T", &summary, &[]), None).unwrap();
        assert!(text.text.len() <= MAX_BYTES, "{}", text.text.len());
        assert!(text.text.len() > MAX_BYTES - 30, "{}", text.text.len());
        assert!(text.text.ends_with('…'));
    }

    #[test]
    fn a_title_and_link_that_cannot_fit_are_a_local_error_naming_the_post() {
        let err = fit(
            &post(&"t".repeat(290), "", &[]),
            Some("https://x.test/abcdef"),
        )
        .unwrap_err();
        assert_eq!(err.class(), Some(Class::Local));
        assert_eq!(
            err.path.as_deref(),
            Some(std::path::Path::new("content/2026-11-29.md"))
        );
        assert!(err.message.contains("are 313 graphemes"), "{}", err.message);
        assert!(fit(&post(&"t".repeat(300), "", &[]), None).is_ok());
        assert!(fit(&post(&"t".repeat(301), "", &[]), None).is_err());
    }
}
