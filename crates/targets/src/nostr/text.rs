//! What a post becomes on Nostr, before it is signed: a short note (kind 1: the title, the
//! link, the hashtags, each also a `t` tag; or the template's text) or a long-form article
//! (NIP-23, kind 30023: the markdown, with `d`, `title`, `summary`, `published_at` and `t`
//! tags). The `d` tag names the copy: the key, and `#N` for generation N after the first, so
//! a `retry --force --new` copy is an article of its own and never replaces the earlier one.

use super::event::{Draft, LONG, SHORT};
use crate::error::Error;
use crate::post::Post;
use crate::template::{Template, Vars};
use life::Key;

/// `note = "short"` or `"long"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    Short,
    Long,
}

/// The `d` tag of copy `generation` of `key`.
pub fn d_tag(key: Key, generation: u32) -> String {
    match generation {
        0 => key.to_string(),
        n => format!("{key}#{n}"),
    }
}

/// The post as a draft (the `Outgoing` body): for a long note, its `d` tag is the first
/// generation's until `for_copy` sets the copy's.
pub fn draft(
    note: Note,
    post: &Post,
    link: Option<&str>,
    template: Option<&Template>,
) -> Result<Draft, Error> {
    let mut tags: Vec<Vec<String>> = Vec::new();
    let hashtags = hashtags(post);
    let content = match note {
        Note::Short => {
            let text = match template {
                Some(template) => template.render(&Vars::new(post, link))?,
                None => short_text(post, link, &hashtags),
            };
            clean(&text)
        }
        Note::Long => {
            tags.push(vec!["d".into(), d_tag(post.place(), 0)]);
            tags.push(vec!["title".into(), clean(&post.title)]);
            if !post.summary.is_empty() {
                tags.push(vec!["summary".into(), clean(&post.summary)]);
            }
            tags.push(vec!["published_at".into(), published_at(post).to_string()]);
            if let Some(link) = link {
                tags.push(vec!["r".into(), link.to_string()]);
            }
            let body = match template {
                Some(template) => template.render(&Vars::new(post, link))?,
                None => post.markdown.clone(),
            };
            clean(&body)
        }
    };
    tags.extend(hashtags.iter().map(|t| vec!["t".into(), t.to_lowercase()]));
    let kind = match note {
        Note::Short => SHORT,
        Note::Long => LONG,
    };
    Ok(Draft {
        kind,
        tags,
        content,
    })
}

/// The draft as copy `generation` of `key` sends it: a long note's `d` tag is the copy's.
pub fn for_copy(mut draft: Draft, key: Key, generation: u32) -> Draft {
    if let Some(d) = draft
        .tags
        .iter_mut()
        .find(|t| t.first().is_some_and(|n| n == "d"))
    {
        d.truncate(1);
        d.push(d_tag(key, generation));
    }
    draft
}

/// Title, link and hashtags, each on its own paragraph.
fn short_text(post: &Post, link: Option<&str>, hashtags: &[String]) -> String {
    let mut parts = vec![post.title.clone()];
    parts.extend(link.map(str::to_string));
    if !hashtags.is_empty() {
        let words: Vec<String> = hashtags.iter().map(|t| format!("#{t}")).collect();
        parts.push(words.join(" "));
    }
    parts.join("\n\n")
}

/// The post's hashtags (letters, digits and `_`), each once.
pub fn hashtags(post: &Post) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for tag in post.tags.iter().filter_map(|t| crate::text::hashtag(t)) {
        if !seen.iter().any(|s| s.eq_ignore_ascii_case(&tag)) {
            seen.push(tag);
        }
    }
    seen
}

/// The post's date as NIP-23's `published_at`: its due time, else its day's midnight (UTC).
fn published_at(post: &Post) -> i64 {
    let at = post.due.unwrap_or_else(|| {
        post.key
            .day()
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .map_or(jiff::Timestamp::UNIX_EPOCH, |z| z.timestamp())
    });
    at.as_second()
}

/// Text without the control characters NIP-01's serialization has no escape for (all but
/// newline and tab), and without carriage returns.
pub fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

/// The `d` tag of a draft, if it has one.
pub fn d_of(draft: &Draft) -> Option<&str> {
    draft.tag("d")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_note_has_title_link_and_hashtags_as_t_tags() {
        let post = crate::post::sample("Hello", "A summary", &["Rust", "rust", "c++"]);
        let draft = draft(Note::Short, &post, Some("https://x.example/p"), None).unwrap();
        assert_eq!(draft.kind, 1);
        assert_eq!(draft.content, "Hello\n\nhttps://x.example/p\n\n#Rust #c");
        assert_eq!(draft.tags, vec![vec!["t", "rust"], vec!["t", "c"]]);
    }

    #[test]
    fn a_long_note_is_nip23_with_the_copys_d_tag() {
        let post = crate::post::sample("Hello\u{7}", "Sum", &["go"]);
        let draft = draft(Note::Long, &post, None, None).unwrap();
        assert_eq!(draft.kind, 30023);
        assert_eq!(draft.tag("title"), Some("Hello"));
        assert_eq!(draft.tag("summary"), Some("Sum"));
        assert!(draft.tag("published_at").is_some());
        let key = post.place();
        assert_eq!(d_of(&draft), Some(key.to_string().as_str()));
        let again = for_copy(draft, key, 2);
        assert_eq!(d_of(&again), Some(format!("{key}#2").as_str()));
    }
}
