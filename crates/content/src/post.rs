//! One post: read a dated markdown file and derive title, tags, summary, body, HTML, fingerprint.

use crate::error::{Class, Error};
use crate::images::{Image, ImageRef};
use crate::text::{hex, markdown_options};
use life::Key;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod due;
mod edit_mark;
mod fence;
mod front_matter;
pub mod markup;
pub mod plain;
mod toml_matter;
mod yaml;

use crate::layout::Layout;
use front_matter::FrontMatter;
use markup::Markup;

/// Another target's copy of a key, as a template sees it (`copies.NAME.id`, `.url`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyRef {
    pub id: String,
    pub url: Option<String>,
}

/// The copies a post's text links to, by target name.
pub type Copies = BTreeMap<String, CopyRef>;

/// Posts larger than this are refused (a sign of a wrong file, not a post).
pub const MAX_BYTES: u64 = 5 * 1024 * 1024;
/// Titles longer than this (in characters) are refused: no platform takes them.
pub const MAX_TITLE_CHARS: usize = 300;
/// Posts with more distinct tags than this are refused: no platform takes that many.
pub const MAX_TAGS: usize = 100;
/// The summary derived from the first paragraph is cut near this many characters.
pub const SUMMARY_CHARS: usize = 200;

/// Everything a target needs, derived from the file itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    /// The date in the file name: the idempotency key.
    pub key: Key,
    /// The file, as shown to the user (relative to the project folder).
    pub path: PathBuf,
    pub title: String,
    pub tags: Vec<String>,
    pub summary: String,
    /// Markdown without front matter and without the H1 used as title.
    pub markdown: String,
    /// `markdown` rendered (tables, footnotes, strikethrough).
    pub html: String,
    /// sha256 hex of the normalised title and body; CRLF and trailing blanks do not change it.
    pub fingerprint: String,
    /// `draft: true` in the front matter: never published.
    pub draft: bool,
    /// `lang:` in the front matter: language tags (e.g. `en`, `pt-BR`), at most 3.
    pub lang: Vec<String>,
    /// Where the post names local images (the front matter's `image:` and the markdown's).
    pub image_refs: Vec<ImageRef>,
    /// Those images, read and cleaned (`images::load`), the cover first.
    pub images: Vec<Image>,
    /// Images a target's limit left out of `images` (the rest of the post's, in order): they
    /// are not sent, but they are still part of what the post says (its edit hash).
    pub left_out: Vec<Image>,
    /// The copies of this key on other targets that a target's template links to: set by the
    /// runner for the target at hand (`Copies`), empty as read.
    pub copies: Copies,
    /// `slug:` in the front matter (blog layout): the post's slug in links (`link_slug`); the
    /// key stays the file's name.
    pub slug: Option<String>,
    /// A site generator's markup in the body (blog layout), which would go out as written:
    /// `check` warns at each.
    pub markup: Vec<Markup>,
    /// The key whose place on the target at hand holds this post's copies, when that is not
    /// its own (a renamed post whose line was carried over: `place=`): set by the runner for
    /// the target at hand, `None` as read. Targets find, name, edit and remove the copies by
    /// `place()`.
    pub place: Option<Key>,
    /// The instant the post is due, when its front matter's `date` names a time of its day
    /// (`times = "front-matter"`, `due.rs`); `None`: its day's start.
    pub due: Option<jiff::Timestamp>,
}

/// What a post's place says about it, beside its text: the layout that reads it, the folder
/// names that are its tags when its front matter names none, and whether its folder makes it a
/// draft (`Layout`).
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub layout: Layout,
    pub folder_tags: Vec<String>,
    pub in_drafts: bool,
    /// The configured zone, when the front matter's `date` says when the post is due (`times
    /// = "front-matter"`); `None`: that `date` is not read.
    pub times: Option<jiff::tz::TimeZone>,
}

impl Post {
    /// The slug a target's `link` fills `{slug}` with: the front matter's `slug:`, else the
    /// key's slug, else the title's (a date key).
    pub fn link_slug(&self) -> std::borrow::Cow<'_, str> {
        match (&self.slug, self.key.slug()) {
            (Some(slug), _) => slug.into(),
            (None, Some(slug)) => slug.into(),
            (None, None) => crate::text::slug(&self.title, 80).into(),
        }
    }

    /// The key whose place on the target holds this post's copies: its own, or the one its
    /// line was carried over from (`place`).
    pub fn place(&self) -> Key {
        self.place.unwrap_or(self.key)
    }
}

/// A post with these words, for tests of what targets make of them (the `testing` feature:
/// dev-only, never in a release build).
#[cfg(any(test, feature = "testing"))]
pub fn sample(title: &str, summary: &str, tags: &[&str]) -> Post {
    Post {
        key: "2026-11-29".parse().unwrap(),
        path: "content/2026-11-29.md".into(),
        title: title.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: summary.into(),
        markdown: String::new(),
        html: String::new(),
        fingerprint: String::new(),
        draft: false,
        lang: Vec::new(),
        image_refs: Vec::new(),
        images: Vec::new(),
        left_out: Vec::new(),
        copies: Default::default(),
        slug: None,
        markup: Vec::new(),
        place: None,
        due: None,
    }
}

/// Read and derive the post at `path` (shown to the user as `shown`), from `origin`.
pub fn read(key: Key, path: &Path, shown: &Path, origin: Origin) -> Result<Post, Error> {
    let local = |msg: String| Error::failure(Class::Local, msg).at(shown);
    // Never blocks (a FIFO named like a post), and the size is that of what was read.
    let bytes =
        crate::fsutil::read_regular(path, MAX_BYTES, false).map_err(|e| match e.kind() {
            std::io::ErrorKind::FileTooLarge => local(format!(
                "file is more than the {} MB a post may have",
                MAX_BYTES / 1024 / 1024
            ))
            .hint("is this really a post? move it out of the content folder"),
            _ => local(format!("cannot read: {e}")).hint(
                "a post is a regular file of text; move anything else out of the content folder",
            ),
        })?;
    parse(key, shown, &bytes, origin)
}

/// Derive a post from the file's bytes.
pub fn parse(key: Key, shown: &Path, bytes: &[u8], origin: Origin) -> Result<Post, Error> {
    let local = |msg: &str| Error::failure(Class::Local, msg).at(shown);
    let text = utf8_text(bytes, &local)?;
    let (matter, body) =
        fence::split(&text, origin.layout).map_err(|(line, msg)| local(&msg).line(line))?;
    let (meta, first_line) = match matter {
        Some(matter) => (
            FrontMatter::parse(&matter, origin.layout).map_err(|(line, msg)| {
                local(&msg).line(line.map_or(matter.first_line, |l| matter.first_line + l - 1))
            })?,
            matter.first_line,
        ),
        None => (FrontMatter::default(), 1),
    };

    let body_start_line = text[..text.len() - body.len()].matches('\n').count() + 1;
    let (title, markdown) = title_and_markdown(meta.title, body, body_start_line, &local)?;
    let markdown = strip_leading_blank_lines(&markdown).to_string();
    let summary = match meta.summary.filter(|s| !s.trim().is_empty()) {
        Some(s) => collapse(&s),
        None => cut(&first_paragraph(&markdown), SUMMARY_CHARS),
    };
    let tags_line = meta.tags_line.map(|l| first_line + l - 1);
    let tags = clean_tags(meta.tags.unwrap_or(origin.folder_tags));
    if tags.len() > MAX_TAGS {
        return Err(local(&format!(
            "the post has {} tags; at most {MAX_TAGS} are allowed",
            tags.len()
        ))
        .at_line(tags_line)
        .hint("keep the tags that say what the post is about"));
    }
    let image_refs = meta
        .image
        .into_iter()
        .chain(crate::images::refs(body, body_start_line))
        .collect();
    let markup = match origin.layout {
        Layout::Blog => markup::find(body, body_start_line),
        Layout::Dated => Vec::new(),
    };
    let due = match (&origin.times, &meta.date) {
        (Some(zone), Some(date)) => due::due(date, (key.day(), key.last_day()), zone)
            .map_err(|msg| local(&msg).at_line(meta.date_line.map(|l| first_line + l - 1)))?,
        _ => None,
    };
    let html = render(&markdown);
    let fingerprint = fingerprint(&title, &markdown);
    Ok(Post {
        key,
        path: shown.to_path_buf(),
        title,
        tags,
        summary,
        markdown,
        html,
        fingerprint,
        draft: meta.draft || origin.in_drafts,
        lang: meta.lang,
        image_refs,
        images: Vec::new(),
        left_out: Vec::new(),
        copies: Default::default(),
        slug: meta.slug,
        markup,
        place: None,
        due,
    })
}

/// The file's text: UTF-8 (else the line the first bad byte is on), without a byte order mark,
/// `\n` line ends; an empty file is refused.
fn utf8_text(bytes: &[u8], local: &dyn Fn(&str) -> Error) -> Result<String, Error> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            return Err(local("not UTF-8 text")
                .line(line)
                .hint("save the file as UTF-8"));
        }
    };
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n");
    if text.trim().is_empty() {
        return Err(local("the file is empty").hint("write the post, or delete the file"));
    }
    Ok(text)
}

/// The title (front matter's `title:`, else the first `# heading`, taken out of the body) and
/// the markdown left; a title over `MAX_TITLE_CHARS` is refused.
fn title_and_markdown(
    meta_title: Option<String>,
    body: &str,
    body_start_line: usize,
    local: &dyn Fn(&str) -> Error,
) -> Result<(String, String), Error> {
    let (title, markdown) = match meta_title.filter(|t| !t.trim().is_empty()) {
        Some(title) => (collapse(&title), body.to_string()),
        None => match first_h1(body) {
            Some((title, range)) if !title.is_empty() => {
                let mut md = String::with_capacity(body.len());
                md.push_str(&body[..range.start]);
                md.push_str(&body[range.end..]);
                (title, md)
            }
            Some((_, range)) => {
                let line = body_start_line + body[..range.start].matches('\n').count();
                return Err(
                    local("the first `# heading` has no text to use as the title")
                        .line(line)
                        .hint("write words in the heading, or set `title:` in the front matter"),
                );
            }
            None => {
                return Err(local("no title").hint(
                    "start the post with a `# Title` line, or set `title:` in the front matter",
                ));
            }
        },
    };
    let title_chars = title.chars().count();
    if title_chars > MAX_TITLE_CHARS {
        return Err(local(&format!(
            "the title is {title_chars} characters; at most {MAX_TITLE_CHARS} are allowed"
        ))
        .hint("shorten the title"));
    }
    Ok((title, markdown))
}

/// The first level-1 heading as plain text, and its byte range in `body`.
fn first_h1(body: &str) -> Option<(String, std::ops::Range<usize>)> {
    let mut inside: Option<(String, std::ops::Range<usize>)> = None;
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        match (&mut inside, event) {
            (
                None,
                Event::Start(Tag::Heading {
                    level: HeadingLevel::H1,
                    ..
                }),
            ) => {
                inside = Some((String::new(), range));
            }
            (Some((text, _)), Event::Text(t) | Event::Code(t)) => text.push_str(&t),
            (Some((text, _)), Event::SoftBreak | Event::HardBreak) => text.push(' '),
            (Some(_), Event::End(TagEnd::Heading(HeadingLevel::H1))) => {
                let (text, range) = inside.take()?;
                return Some((collapse(&text), range));
            }
            _ => {}
        }
    }
    None
}

/// The first paragraph as plain text (inline markup flattened), or "" when there is none.
fn first_paragraph(markdown: &str) -> String {
    let mut text = String::new();
    let mut depth = 0usize;
    for event in Parser::new_ext(markdown, markdown_options()) {
        match event {
            Event::Start(Tag::Paragraph) => depth += 1,
            Event::End(TagEnd::Paragraph) if depth > 0 => {
                if !text.trim().is_empty() {
                    return collapse(&text);
                }
                depth -= 1;
            }
            Event::Text(t) | Event::Code(t) if depth > 0 => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if depth > 0 => text.push(' '),
            _ => {}
        }
    }
    collapse(&text)
}

fn render(markdown: &str) -> String {
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(markdown, markdown_options()));
    html
}

fn strip_leading_blank_lines(s: &str) -> &str {
    let mut start = 0;
    for line in s.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    &s[start..]
}

/// Whitespace runs folded to one space, ends trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cut `s` to about `max` characters on a word (else character) boundary, marking the cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let end = s.char_indices().nth(max).map_or(s.len(), |(i, _)| i);
    let head = &s[..end];
    let head = match head.rfind(' ') {
        Some(space) if space > end / 2 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

/// Whitespace collapsed, empty and repeated tags dropped (the first stays), in one pass.
fn clean_tags(tags: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(tags.len());
    let mut out = Vec::with_capacity(tags.len());
    for tag in tags {
        let tag = collapse(&tag);
        if !tag.is_empty() && seen.insert(tag.clone()) {
            out.push(tag);
        }
    }
    out
}

/// sha256 hex of the title and body, each line's trailing whitespace and trailing blank lines
/// removed, line ends as LF.
pub fn fingerprint(title: &str, markdown: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(title.trim().as_bytes());
    hasher.update(b"\n\n");
    let body: Vec<&str> = markdown.lines().map(str::trim_end).collect();
    let end = body
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    for line in &body[..end] {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(text: &str) -> Result<Post, Error> {
        parse(
            "2026-11-29".parse().unwrap(),
            Path::new("content/2026-11-29.md"),
            text.as_bytes(),
            Origin {
                folder_tags: vec!["notes".into()],
                ..Origin::default()
            },
        )
    }

    #[test]
    fn title_from_h1_flattens_markup_and_leaves_the_body() {
        let p = post("# Hello *big* `world`\n\nFirst para\nline two.\n\nSecond.\n").unwrap();
        assert_eq!(p.title, "Hello big world");
        assert_eq!(p.summary, "First para line two.");
        assert_eq!(p.markdown, "First para\nline two.\n\nSecond.\n");
        assert_eq!(p.tags, vec!["notes"]);
        assert!(p.html.contains("<p>Second.</p>"), "{}", p.html);
        assert!(!p.draft);
    }

    #[test]
    fn front_matter_wins_over_derived_values() {
        let p = post("---\ntitle: Set\ntags: [a, b, a]\ndescription: Short.\ndraft: true\n---\n# H1 stays\n\nBody.\n").unwrap();
        assert_eq!((p.title.as_str(), p.summary.as_str()), ("Set", "Short."));
        assert_eq!(p.tags, vec!["a", "b"]);
        assert!(p.draft);
        assert!(p.markdown.starts_with("# H1 stays"));
        assert_eq!(
            post("---\ntags: x, y\n---\n# T\n").unwrap().tags,
            vec!["x", "y"]
        );
    }

    #[test]
    fn the_blog_layout_reads_drafts_folders_toml_and_the_slug_for_links() {
        let blog = |key: &str, text: &str, in_drafts: bool| {
            let origin = Origin {
                layout: Layout::Blog,
                folder_tags: vec!["travel".into()],
                in_drafts,
                times: None,
            };
            parse(
                key.parse().unwrap(),
                Path::new("p.md"),
                text.as_bytes(),
                origin,
            )
            .unwrap()
        };
        let p = blog(
            "2026-12-01-from-name",
            "+++\ntitle = \"Hi there\"\n+++\nBody {% x %}\n",
            true,
        );
        assert_eq!(
            (p.title.as_str(), p.markdown.as_str()),
            ("Hi there", "Body {% x %}\n")
        );
        assert!(p.draft, "below _drafts/");
        assert_eq!(p.tags, ["travel"]);
        assert_eq!((p.markup.len(), p.markup[0].line), (1, 4));
        assert_eq!(p.link_slug(), "from-name");
        let p = blog(
            "2026-12-01-from-name",
            "---\nslug: from-matter\n---\n# T\n",
            false,
        );
        assert_eq!((p.link_slug().as_ref(), p.draft), ("from-matter", false));
        assert_eq!(
            blog("2026-12-01", "# Some Title\n", false).link_slug(),
            "some-title"
        );
        // dayrun's own layout: `+++` is text and no markup is looked for.
        let dated = post("+++\ntitle = \"x\"\n+++\n# T\n\n{% x %}\n").unwrap();
        assert_eq!((dated.title.as_str(), dated.markup.len()), ("T", 0));
    }

    #[test]
    fn fingerprint_ignores_crlf_and_trailing_blanks() {
        let a = post("# T\n\nbody  \nmore\n\n\n").unwrap();
        let b = post("# T\r\n\r\nbody\r\nmore\r\n").unwrap();
        let c = post("# T\n\nbody\nmore!\n").unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        assert_ne!(a.fingerprint, c.fingerprint);
    }

    #[test]
    fn bad_posts_name_the_line_and_what_to_do() {
        let cases: &[(&[u8], Option<usize>, &str)] = &[
            (b"", None, "empty"),
            (b"  \n\n", None, "empty"),
            (b"just text\n", None, "no title"),
            (
                b"# ![](cover.png)\n\ntext\n",
                Some(1),
                "no text to use as the title",
            ),
            (
                b"---\ndraft: false\n---\n\n# <b></b>\n",
                Some(5),
                "no text to use as the title",
            ),
            (b"---\ntitle: x\n", Some(1), "never closed"),
            (b"---\ntitle: [x\n---\n# T\n", Some(3), "not valid YAML"),
            (
                b"---\ntitle: a\n- b\ntags: c\n---\n# T\n",
                Some(3),
                "not valid YAML",
            ),
            (
                b"---\ntitle: ok\ndraft: maybe\n---\n",
                Some(3),
                "`draft` must be",
            ),
            (b"# T\n\nok\n\xff\xfe\n", Some(4), "not UTF-8"),
        ];
        for (input, line, needle) in cases {
            let err = match parse(
                "2026-11-29".parse().unwrap(),
                Path::new("x.md"),
                input,
                Origin::default(),
            ) {
                Ok(post) => panic!("{input:?} gave a post: {post:?}"),
                Err(err) => err,
            };
            assert_eq!(err.class(), Some(Class::Local));
            assert!(err.message.contains(needle), "{input:?}: {err}");
            assert_eq!(err.line, *line, "{input:?}: {err}");
        }
    }

    #[test]
    fn bom_and_long_summaries() {
        let long = "word ".repeat(100);
        let p = post(&format!("\u{feff}# T\n\n{long}\n")).unwrap();
        assert_eq!(p.title, "T");
        assert!(p.summary.ends_with('…'));
        assert!(p.summary.chars().count() <= SUMMARY_CHARS + 1);
        let long_title = format!("# {}\n", "x".repeat(MAX_TITLE_CHARS + 1));
        assert!(post(&long_title).unwrap_err().message.contains("title is"));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// The most a post of a few kilobytes may take to derive (an alias bomb without the
        /// budget takes gigabytes).
        const BUDGET: usize = 16 << 20;

        #[test]
        fn the_alias_bomb_stays_within_the_memory_budget() {
            let mut bomb = "---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_string();
            for (name, prev) in "bcdefghi".chars().zip("abcdefgh".chars()) {
                let refs = vec![format!("*{prev}"); 9].join(", ");
                bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
            }
            bomb.push_str("---\n# Bomb\n");
            let (result, held) = crate::test_alloc::peak(|| derive(bomb.as_bytes()));
            assert!(result.unwrap_err().message.contains("aliases"));
            assert!(held <= BUDGET, "{held} bytes");
        }

        fn derive(bytes: &[u8]) -> Result<Post, Error> {
            parse(
                "2026-11-29".parse().unwrap(),
                Path::new("p.md"),
                bytes,
                Origin::default(),
            )
        }

        proptest! {
            #[test]
            fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
                let _ = derive(&bytes);
            }

            #[test]
            fn markdown_like_text_never_panics(text in "(---\n|# |\\*|`|\\[|\\]|title: |\n|[a-z ]{1,8}|\r\n|\\|){0,40}") {
                let _ = derive(text.as_bytes());
            }

            #[test]
            fn crlf_and_trailing_spaces_keep_the_fingerprint(lines in proptest::collection::vec("[a-z #*]{0,12}", 1..12)) {
                let lf = format!("# Title\n\n{}\n", lines.join("\n"));
                let crlf = format!("# Title\r\n\r\n{}  \r\n\r\n", lines.join("  \r\n"));
                if let (Ok(a), Ok(b)) = (derive(lf.as_bytes()), derive(crlf.as_bytes())) {
                    prop_assert_eq!(a.fingerprint, b.fingerprint);
                    prop_assert_eq!(a.title, b.title);
                }
            }
        }

        proptest! {
            // Each case derives a post under the counting allocator: fewer, larger cases.
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn arbitrary_bytes_stay_within_the_memory_budget(
                bytes in proptest::collection::vec(any::<u8>(), 0..4000),
            ) {
                let mut framed = b"---\n".to_vec();
                framed.extend_from_slice(&bytes);
                framed.extend_from_slice(b"\n---\n# T\n");
                for input in [&bytes, &framed] {
                    let (_, held) = crate::test_alloc::peak(|| derive(input));
                    prop_assert!(held <= BUDGET, "{held} bytes for {} bytes of input", input.len());
                }
            }

            #[test]
            fn yaml_with_anchors_and_aliases_stays_within_the_memory_budget(
                matter in "(&a |&b |&c |\\*a|\\*b|\\*c|\\[|\\]|\\{|\\}|, |: |- |\n|  |x|lol|tags|title|<<: )*{0,300}",
            ) {
                let text = format!("---\n{matter}\n---\n# T\n");
                let (_, held) = crate::test_alloc::peak(|| derive(text.as_bytes()));
                prop_assert!(held <= BUDGET, "{held} bytes for {text:?}");
            }

            #[test]
            fn toml_front_matter_never_panics_and_stays_within_the_memory_budget(
                matter in "(\\[|\\]|\\{|\\}|, |= |\n|\"|x|1|tags|title|taxonomies|draft|true|\\.|slug|published){0,300}",
            ) {
                let text = format!("+++\n{matter}\n+++\n# T\n{{% x %}}\n");
                let origin = Origin { layout: Layout::Blog, ..Origin::default() };
                let blog = || parse("2026-11-29-a".parse().unwrap(), Path::new("p.md"), text.as_bytes(), origin.clone());
                let (_, held) = crate::test_alloc::peak(blog);
                prop_assert!(held <= BUDGET, "{held} bytes for {text:?}");
            }
        }
    }
}
