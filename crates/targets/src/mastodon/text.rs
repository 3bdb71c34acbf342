//! The status text: title, summary, hashtags and link fitted to the instance's limit, counted
//! the way Mastodon counts, and the form a lookup compares.

use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::hashtag;
use unicode_segmentation::UnicodeSegmentation;

/// What the instance allows; read once per run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub max_characters: usize,
    pub url_characters: usize,
    /// Images one status can carry (`max_media_attachments`).
    pub max_media: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_characters: 500,
            url_characters: 23,
            max_media: 4,
        }
    }
}

/// How Mastodon counts a status: every URL as `url_characters`, everything else in grapheme
/// clusters (an emoji with its modifiers is one).
pub fn length(text: &str, limits: Limits) -> usize {
    text.split_inclusive(char::is_whitespace)
        .map(|word| {
            let bare = word.trim_end();
            if bare.starts_with("http://") || bare.starts_with("https://") {
                limits.url_characters + word[bare.len()..].graphemes(true).count()
            } else {
                word.graphemes(true).count()
            }
        })
        .sum()
}

/// Title, summary, hashtags and link, within the limit: the summary is cut first, then
/// hashtags are dropped from the end; the title and link are never cut.
pub fn fit(post: &Post, link: Option<&str>, limits: Limits) -> Result<String, Error> {
    let mut tags: Vec<String> = post
        .tags
        .iter()
        .filter_map(|t| hashtag(t))
        .map(|t| format!("#{t}"))
        .collect();
    let compose = |summary: &str, tags: &[String]| {
        let mut parts = vec![post.title.clone()];
        if !summary.is_empty() {
            parts.push(summary.to_string());
        }
        let mut tail = tags.join(" ");
        if let Some(link) = link {
            if !tail.is_empty() {
                tail.push('\n');
            }
            tail.push_str(link);
        }
        if !tail.is_empty() {
            parts.push(tail);
        }
        parts.join("\n\n")
    };
    loop {
        let full = compose(&post.summary, &tags);
        let over = length(&full, limits).saturating_sub(limits.max_characters);
        if over == 0 {
            return Ok(full);
        }
        let summary_chars = post.summary.graphemes(true).count();
        let without = length(&compose("", &tags), limits);
        if without < limits.max_characters {
            // Room for part of the summary: "\n\n" + text + "…".
            let room = limits.max_characters.saturating_sub(without + 3);
            if room >= 10 && room < summary_chars {
                let cut: String = post.summary.graphemes(true).take(room).collect();
                let cut = match cut.rfind(' ') {
                    Some(space) if space > cut.len() / 2 => cut[..space].to_string(),
                    _ => cut,
                };
                return Ok(compose(&format!("{}…", cut.trim_end()), &tags));
            }
            return Ok(compose("", &tags));
        }
        if tags.pop().is_none() {
            return Err(Error::failure(
                Class::Rejected,
                format!(
                    "the title{} alone is {} characters; the instance allows {}",
                    if link.is_some() { " and link" } else { "" },
                    without,
                    limits.max_characters
                ),
            )
            .hint("shorten the title"));
        }
    }
}

/// The status text as a lookup compares it. Mastodon strips the text and rewrites each
/// mention to the account's canonical `acct` before it stores it (the domain's case changed, a
/// local domain dropped), so both sides are trimmed, lower-cased and have mentions without
/// their domain; the rest must be what was sent.
pub fn normal(text: &str) -> String {
    let text = text.trim().to_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('@') {
        let (before, mention) = rest.split_at(at);
        out.push_str(before);
        let user = mention[1..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(mention.len(), |end| end + 1);
        out.push_str(&mention[..user]);
        rest = &mention[user..];
        let starts_mention = user > 1 && !before.ends_with(|c: char| c.is_alphanumeric());
        if starts_mention && let Some(domain) = rest.strip_prefix('@') {
            let end = domain
                .find(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-'))
                .unwrap_or(domain.len());
            let host = domain[..end].trim_end_matches(['.', '-']);
            if host.contains('.') {
                rest = &domain[host.len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::post::sample as post;

    #[test]
    fn a_short_post_is_sent_whole() {
        let text = fit(
            &post("Title", "Summary.", &["rust", "web-dev"]),
            Some("https://x.test/a"),
            Limits::default(),
        )
        .unwrap();
        assert_eq!(text, "Title\n\nSummary.\n\n#rust #webdev\nhttps://x.test/a");
    }

    #[test]
    fn the_summary_is_cut_never_the_title_or_link() {
        let limits = Limits {
            max_characters: 80,
            url_characters: 23,
            max_media: 4,
        };
        let long_link = format!("https://example.test/{}", "p".repeat(200));
        let summary = "word ".repeat(40);
        let text = fit(
            &post("A title", summary.trim(), &["tag"]),
            Some(&long_link),
            limits,
        )
        .unwrap();
        assert!(text.starts_with("A title\n\nword"), "{text}");
        assert!(text.ends_with(&long_link), "{text}");
        assert!(text.contains("…"), "{text}");
        assert!(
            length(&text, limits) <= 80,
            "{} > 80: {text}",
            length(&text, limits)
        );
    }

    #[test]
    fn hashtags_go_before_the_title_does() {
        let limits = Limits {
            max_characters: 30,
            url_characters: 23,
            max_media: 4,
        };
        let text = fit(
            &post("Twenty characters!!!", "", &["aaaa", "bbbb", "cccc"]),
            None,
            limits,
        )
        .unwrap();
        assert_eq!(text, "Twenty characters!!!\n\n#aaaa");
        let err = fit(&post(&"t".repeat(31), "", &[]), None, limits).unwrap_err();
        assert_eq!(err.class(), Some(Class::Rejected));
    }

    #[test]
    fn urls_count_as_23() {
        let limits = Limits::default();
        assert_eq!(
            length("ab https://example.test/a/very/long/path", limits),
            3 + 23
        );
        assert_eq!(length("日本語", limits), 3);
    }

    #[test]
    fn source_text_is_compared_trimmed_case_folded_and_mentions_without_domain() {
        let sent = "Vec<T> in Rust & more\n\n@bob@Example.COM and @ed@m.test say hi.";
        let stored = "Vec<T> in Rust & more\n\n@bob@example.com and @ed say hi.\n";
        assert_eq!(normal(sent), normal(stored));
        assert_eq!(
            normal(sent),
            "vec<t> in rust & more\n\n@bob and @ed say hi."
        );
        assert_ne!(
            normal(sent),
            normal("Vec<T> in Rust\n\n@bob and @ed say hi.")
        );
        // Not mentions: an e-mail address, a lone @, a trailing @, a host without a dot.
        for text in [
            "mail a@b.test",
            "@ alone",
            "end@",
            "@user@ x",
            "@a@localhost",
        ] {
            assert_eq!(normal(text), text.to_lowercase(), "{text}");
        }
    }

    #[test]
    fn graphemes_count_once() {
        let family = "👨‍👩‍👧";
        assert_eq!(length(family, Limits::default()), 1);
        assert_eq!(length("e\u{301}", Limits::default()), 1);
    }
}
