//! The text of a Threads post and the documented limits it must meet before anything is sent:
//! 500 characters with each emoji counted as its UTF-8 bytes (the Posts page), at most one
//! topic tag, at most 5 distinct links (the Text Attachments page: more fail at the container
//! step with `THREADS_API__LINK_LIMIT_EXCEEDED`).

use crate::error::{Class, Error};
use crate::post::Post;

/// The most characters a post's text holds.
pub const MAX_CHARS: usize = 500;
/// The most distinct links a post holds.
pub const MAX_LINKS: usize = 5;
/// The most topic tags a post holds.
pub const MAX_TAGS: usize = 1;

/// Whether `c` is counted as an emoji. The documentation says emojis count as their UTF-8
/// bytes but not which code points it takes for emoji; this counts the pictographic blocks,
/// regional indicators and skin tones (all in the first block), the variation selector and the joiner, so a sequence
/// costs all its bytes. Counting more than Threads would only refuses a post that was near
/// the limit anyway, before anything is sent.
fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2300..=0x23FF | 0x2B00..=0x2BFF
        | 0xFE0F | 0x200D | 0x20E3 | 0xE0020..=0xE007F)
}

/// The length Threads counts: one per character, an emoji's UTF-8 bytes.
pub fn length(text: &str) -> usize {
    text.chars()
        .map(|c| if is_emoji(c) { c.len_utf8() } else { 1 })
        .sum()
}

/// The distinct links in `text`: words that begin with `http://`, `https://` or `www.`.
pub fn links(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        let word = word.trim_end_matches(['.', ',', ')', '!', '?', ';', ':']);
        let lower = word.to_ascii_lowercase();
        let link = ["http://", "https://", "www."]
            .iter()
            .any(|p| lower.starts_with(p));
        if link && !found.contains(&word) {
            found.push(word);
        }
    }
    found
}

/// The topic tags in `text`: a `#` at a word's start followed by a letter or digit.
pub fn tags(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .filter(|w| {
            w.strip_prefix('#')
                .and_then(|rest| rest.chars().next())
                .is_some_and(char::is_alphanumeric)
        })
        .collect()
}

/// Whether `text` meets every limit; `Err` says which it does not, for the person.
pub fn check(text: &str) -> Result<(), String> {
    let len = length(text);
    if len > MAX_CHARS {
        return Err(format!(
            "the text is {len} characters as Threads counts them (an emoji counts its UTF-8 bytes); Threads allows {MAX_CHARS}"
        ));
    }
    let tags = tags(text);
    if tags.len() > MAX_TAGS {
        return Err(format!(
            "the text has {} topic tags ({}); Threads allows {MAX_TAGS}",
            tags.len(),
            tags.join(" ")
        ));
    }
    let links = links(text);
    if links.len() > MAX_LINKS {
        return Err(format!(
            "the text has {} links; Threads allows {MAX_LINKS}",
            links.len()
        ));
    }
    Ok(())
}

/// The composed text: title, summary (cut at a word with `…` when needed), the first tag as
/// the one topic tag, and the link. Refused when even title and link do not fit.
pub fn fit(post: &Post, link: Option<&str>) -> Result<String, Error> {
    let tag = post
        .tags
        .first()
        .map(|t| format!("#{}", t.replace(' ', "")));
    let compose = |summary: &str, tag: Option<&str>| {
        let mut parts = vec![post.title.trim().to_string()];
        parts.extend(
            Some(summary.trim())
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let tail: Vec<&str> = tag.into_iter().chain(link).collect();
        if !tail.is_empty() {
            parts.push(tail.join("\n"));
        }
        parts.join("\n\n")
    };
    let words: Vec<&str> = post.summary.split_whitespace().collect();
    for n in (0..=words.len()).rev() {
        let summary = match n == words.len() {
            true => words.join(" "),
            false if n == 0 => String::new(),
            false => format!("{}…", words[..n].join(" ")),
        };
        let text = compose(&summary, tag.as_deref());
        if check(&text).is_ok() {
            return Ok(text);
        }
    }
    let bare = compose("", None);
    check(&bare).map(|()| bare.clone()).map_err(|why| {
        Error::failure(Class::Rejected, why)
            .at(&post.path)
            .hint("shorten the title or the link (nothing was sent)")
    })
}

/// The text as a lookup compares it: trimmed, line ends as `\n`.
pub fn normal(text: &str) -> String {
    text.replace("\r\n", "\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emoji_counts_its_bytes_and_the_limits_are_the_documented_ones() {
        assert_eq!(length("abc"), 3);
        assert_eq!(length("é"), 1);
        assert_eq!(length("🙂"), 4);
        assert_eq!(length("👍🏽"), 8);
        assert!(check(&"a".repeat(500)).is_ok());
        assert!(check(&format!("{}🙂", "a".repeat(497))).is_err());
        assert!(check("#one #two").unwrap_err().contains("2 topic tags"));
        assert!(check("#one and a # alone").is_ok());
        let six = "https://a.test/1 https://a.test/2 https://a.test/3 www.b.test https://a.test/5 http://c.test";
        assert!(check(six).unwrap_err().contains("6 links"));
        assert!(check("https://a.test https://a.test https://a.test").is_ok());
    }
}
