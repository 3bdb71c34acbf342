//! Where a post's front matter is: between `---` lines (YAML), or in the blog layout between
//! `+++` lines too (TOML, Hugo's and Zola's default); the body is what follows.

use crate::layout::Layout;

/// The language of a front matter, told by its fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// `---` … `---` (or `...`).
    Yaml,
    /// `+++` … `+++`.
    Toml,
}

/// A front matter's text, its language, and the file line its text starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Matter<'a> {
    pub text: &'a str,
    pub format: Format,
    pub first_line: usize,
}

/// `(the front matter if the file opens with one, the body)`; a fence that never closes is an
/// error at line 1.
pub(super) fn split(
    text: &str,
    layout: Layout,
) -> Result<(Option<Matter<'_>>, &str), (usize, String)> {
    let (fence, format) = match (text.get(..3), layout) {
        (Some("---"), _) => ("---", Format::Yaml),
        (Some("+++"), Layout::Blog) => ("+++", Format::Toml),
        _ => return Ok((None, text)),
    };
    let rest = &text[3..];
    let Some(nl) = rest.find('\n') else {
        return Ok((None, text));
    };
    if !rest[..nl].trim().is_empty() {
        return Ok((None, text)); // `----` or `--- x`: a rule or text, not a fence
    }
    let start = 3 + nl + 1;
    let mut pos = start;
    for line in text[start..].split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == fence || (format == Format::Yaml && bare == "...") {
            let matter = Matter {
                text: &text[start..pos],
                format,
                first_line: 2,
            };
            return Ok((Some(matter), &text[pos + line.len()..]));
        }
        pos += line.len();
    }
    Err((
        1,
        format!("front matter opened with `{fence}` is never closed"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_opens_front_matter_only_in_its_layout() {
        let yaml = "---\ntitle: a\n---\nbody\n";
        let toml = "+++\ntitle = \"a\"\n+++\nbody\n";
        for layout in [Layout::Dated, Layout::Blog] {
            let (matter, body) = split(yaml, layout).unwrap();
            assert_eq!(
                matter.map(|m| (m.text, m.format)),
                Some(("title: a\n", Format::Yaml))
            );
            assert_eq!(body, "body\n");
        }
        let (matter, body) = split(toml, Layout::Blog).unwrap();
        assert_eq!(
            matter.map(|m| (m.text, m.format)),
            Some(("title = \"a\"\n", Format::Toml))
        );
        assert_eq!(body, "body\n");
        // dayrun's own layout: `+++` is text, as it always was.
        assert_eq!(split(toml, Layout::Dated).unwrap(), (None, toml));
        assert_eq!(split("+++ x\n+++\n", Layout::Blog).unwrap().0, None);
        let (line, msg) = split("+++\ntitle = 1\n", Layout::Blog).unwrap_err();
        assert_eq!((line, msg.contains("`+++` is never closed")), (1, true));
        // `...` closes YAML only.
        assert!(split("+++\nx = 1\n...\n", Layout::Blog).is_err());
    }
}
