//! A post's body as plain text for a thread: paragraphs, headings, list items and code blocks
//! as paragraphs (a blank line between), a link as its text and its URL, images left out (they
//! go as attachments), inline markup flattened.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The plain text of `markdown` (no trailing whitespace).
pub fn plain(markdown: &str) -> String {
    let mut out = String::new();
    let mut links: Vec<String> = Vec::new();
    let mut image = 0usize;
    let mut list: Vec<Option<u64>> = Vec::new();
    let block = |out: &mut String| {
        let kept = out.trim_end_matches([' ', '\n']).len();
        out.truncate(kept);
        if !out.is_empty() {
            out.push_str("\n\n");
        }
    };
    for event in Parser::new_ext(markdown, crate::text::markdown_options()) {
        match event {
            Event::Start(Tag::Image { .. }) => image += 1,
            Event::End(TagEnd::Image) => image = image.saturating_sub(1),
            _ if image > 0 => {}
            // A block opening an item stays on the item's line.
            Event::Start(
                Tag::Paragraph | Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::BlockQuote(_),
            ) if !matches!(out.chars().last(), Some(' ') if list.last().is_some()) => {
                block(&mut out)
            }
            Event::Start(
                Tag::Paragraph | Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::BlockQuote(_),
            ) => {}
            Event::Start(Tag::List(start)) => {
                block(&mut out);
                list.push(start);
            }
            Event::End(TagEnd::List(_)) => {
                list.pop();
            }
            Event::Start(Tag::Item) => {
                block(&mut out);
                match list.last_mut() {
                    Some(Some(n)) => {
                        out.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    _ => out.push_str("- "),
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                let url = links.pop().unwrap_or_default();
                let shown = out.rsplit(char::is_whitespace).next().unwrap_or_default();
                if !url.is_empty() && shown != url {
                    out.push_str(&format!(" ({url})"));
                }
            }
            Event::Text(text) | Event::Code(text) => out.push_str(&text),
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::Rule => block(&mut out),
            _ => {}
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn blocks_become_paragraphs_and_inline_markup_goes() {
        let md = "Some *emphasis* and `code`,\nwrapped.\n\n## A heading\n\n- one\n- two\n\n1. first\n2. second\n\n```\nfn main() {}\n```\n";
        assert_eq!(
            plain(md),
            "Some emphasis and code, wrapped.\n\nA heading\n\n- one\n\n- two\n\n1. first\n\n2. second\n\nfn main() {}"
        );
    }

    #[test]
    fn links_keep_their_url_and_images_go() {
        let md =
            "See [the docs](https://x.test/d) or <https://x.test/e>.\n\n![a cat](cat.png)\n\nEnd.";
        assert_eq!(
            plain(md),
            "See the docs (https://x.test/d) or https://x.test/e.\n\nEnd."
        );
    }
}
