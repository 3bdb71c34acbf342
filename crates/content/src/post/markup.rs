//! A site generator's own markup in a post's body (Jekyll's Liquid `{% … %}`, Hugo's
//! shortcodes `{{< … >}}` and `{{% … %}}`): dayrun renders markdown, not these, so they would
//! go out as written. Found for `check` to warn about at their lines; in code (a block or a
//! span) they are an example, not markup.

use pulldown_cmark::{Event, Parser, Tag};
use std::ops::Range;

/// Whose markup it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// Jekyll's (and Eleventy's) Liquid tags: `{% include x.html %}`.
    Liquid,
    /// Hugo's shortcodes: `{{< figure src="x" >}}`, `{{% note %}}`.
    Shortcode,
}

impl Generator {
    /// Its name, as a person knows it.
    pub fn said(self) -> &'static str {
        match self {
            Generator::Liquid => "a Liquid tag (Jekyll)",
            Generator::Shortcode => "a shortcode (Hugo)",
        }
    }
}

/// One use of a generator's markup: the file line it is on, whose it is, and its text (cut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markup {
    pub line: usize,
    pub generator: Generator,
    pub text: String,
}

/// At most this many are kept for a post: the first few say what to fix.
pub const MAX_KEPT: usize = 20;
/// A use's text is cut to this many characters.
const SHOWN_CHARS: usize = 60;

/// Each markup's opening, its closing on the same line, and whose it is.
const PAIRS: [(&str, &str, Generator); 3] = [
    ("{%", "%}", Generator::Liquid),
    ("{{<", ">}}", Generator::Shortcode),
    ("{{%", "%}}", Generator::Shortcode),
];

/// The generator markup of `body` (whose first line is the file's `first_line`) outside code,
/// the first on each line, at most `MAX_KEPT`.
pub fn find(body: &str, first_line: usize) -> Vec<Markup> {
    let mut found: Vec<(Range<usize>, usize, Generator)> = Vec::new();
    let mut start = 0;
    for (index, line) in body.split_inclusive('\n').enumerate() {
        if let Some((range, generator)) = first_on(line) {
            let range = start + range.start..start + range.end;
            found.push((range, first_line + index, generator));
        }
        start += line.len();
    }
    if found.is_empty() {
        return Vec::new(); // the usual post: no parse of its markdown for this
    }
    let code = code_ranges(body);
    found
        .into_iter()
        .filter(|(range, _, _)| {
            !code
                .iter()
                .any(|c| c.start <= range.start && range.end <= c.end)
        })
        .take(MAX_KEPT)
        .map(|(range, line, generator)| Markup {
            line,
            generator,
            text: cut(&body[range]),
        })
        .collect()
}

/// The earliest markup on `line` that closes on it, and whose it is.
fn first_on(line: &str) -> Option<(Range<usize>, Generator)> {
    PAIRS
        .iter()
        .filter_map(|(open, close, generator)| {
            let at = line.find(open)?;
            let end = line[at + open.len()..].find(close)? + at + open.len() + close.len();
            Some((at..end, *generator))
        })
        .min_by_key(|(range, _)| range.start)
}

/// Where `body` has code: its code blocks and code spans.
fn code_ranges(body: &str) -> Vec<Range<usize>> {
    Parser::new_ext(body, crate::text::markdown_options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => Some(range),
            _ => None,
        })
        .collect()
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &str) -> Vec<(usize, Generator, String)> {
        find(body, 10)
            .into_iter()
            .map(|m| (m.line, m.generator, m.text))
            .collect()
    }

    #[test]
    fn liquid_and_shortcodes_outside_code_are_found_at_their_lines() {
        let body = "# T\n\nText {% include note.html %} more.\n\n{{< figure src=\"a.png\" >}}\n\n{{% note %}}\n";
        assert_eq!(
            lines(body),
            [
                (12, Generator::Liquid, "{% include note.html %}".to_string()),
                (
                    14,
                    Generator::Shortcode,
                    "{{< figure src=\"a.png\" >}}".to_string()
                ),
                (16, Generator::Shortcode, "{{% note %}}".to_string()),
            ]
        );
    }

    #[test]
    fn code_plain_braces_and_unclosed_openings_are_not_markup() {
        let body = "Use `{% raw %}` here.\n\n```\n{{< figure >}}\n```\n\n    {% indented %}\n\n{{ page.title }} and {% never closed\n\n{% real %}\n";
        assert_eq!(
            lines(body),
            [(20, Generator::Liquid, "{% real %}".to_string())]
        );
        assert!(find("", 1).is_empty());
    }

    #[test]
    fn a_page_of_markup_keeps_the_first_few() {
        let body = "{% x %}\n".repeat(MAX_KEPT * 5);
        assert_eq!(find(&body, 1).len(), MAX_KEPT);
        let long = format!("{{% {} %}}\n", "y".repeat(500));
        assert!(find(&long, 1)[0].text.ends_with('…'));
    }
}
