//! A post's text with its local image destinations replaced (by uploaded media URLs, copied
//! file names or public URLs), in the HTML it renders and in the markdown itself.

use pulldown_cmark::{CowStr, Event, Parser, Tag};

/// The post's markdown rendered to HTML, each image destination `to` maps replaced.
pub fn html(markdown: &str, to: impl Fn(&str) -> Option<String>) -> String {
    let events =
        Parser::new_ext(markdown, crate::text::markdown_options()).map(|event| match event {
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Image {
                link_type,
                dest_url: to(&dest_url).map_or(dest_url, CowStr::from),
                title,
                id,
            }),
            other => other,
        });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// The markdown with each image destination `to` maps replaced where it is written (inline
/// `![alt](dest)` and reference definitions `[ref]: dest`); everything else is left as it is.
pub fn markdown(markdown: &str, to: impl Fn(&str) -> Option<String>) -> String {
    let parser = Parser::new_ext(markdown, crate::text::markdown_options());
    // (start, end, replacement) of each destination to replace, in the source.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (_, def) in parser.reference_definitions().iter() {
        if let Some(new) = to(&def.dest) {
            let span = def.span.clone();
            if let Some(at) = markdown[span.clone()].find(&*def.dest) {
                let start = span.start + at;
                edits.push((start, start + def.dest.len(), new));
            }
        }
    }
    for (event, range) in parser.into_offset_iter() {
        let Event::Start(Tag::Image { dest_url, .. }) = event else {
            continue;
        };
        let Some(new) = to(&dest_url) else { continue };
        let source = &markdown[range.clone()];
        // Inline: the destination is written after the last `](`.
        if let Some(open) = source.rfind("](")
            && let Some(at) = source[open..].find(&*dest_url)
        {
            let start = range.start + open + at;
            edits.push((start, start + dest_url.len(), new));
        }
    }
    edits.sort_by_key(|e| e.0);
    edits.dedup_by_key(|e| e.0);
    let mut out = String::with_capacity(markdown.len());
    let mut at = 0;
    for (start, end, new) in edits {
        if start < at {
            continue;
        }
        out.push_str(&markdown[at..start]);
        out.push_str(&new);
        at = end;
    }
    out.push_str(&markdown[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(dest: &str) -> Option<String> {
        (dest == "images/cat.jpg").then(|| "https://cdn/cat-1.jpg".to_string())
    }

    #[test]
    fn html_sources_are_replaced() {
        let html = html("![A cat](images/cat.jpg) ![x](https://x/y.png)", map);
        assert!(
            html.contains(r#"<img src="https://cdn/cat-1.jpg" alt="A cat" />"#),
            "{html}"
        );
        assert!(html.contains(r#"src="https://x/y.png""#));
    }

    #[test]
    fn markdown_destinations_are_replaced_in_place() {
        let md = "See ![A [cat]](images/cat.jpg \"t\") and ![b][c].\n\n[c]: images/cat.jpg\n";
        assert_eq!(
            markdown(md, map),
            "See ![A [cat]](https://cdn/cat-1.jpg \"t\") and ![b][c].\n\n[c]: https://cdn/cat-1.jpg\n"
        );
        assert_eq!(markdown("no images", map), "no images");
    }
}
