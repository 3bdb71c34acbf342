//! A post's front matter: the fields dayrun reads from it, whichever its language (title, tags,
//! summary, draft, lang, the cover image; in the blog layout also Jekyll's and Hugo's
//! `published`, `categories`, `excerpt` and `slug`), each error at its line.

use super::fence::{Format, Matter};
use super::toml_matter;
use super::yaml::{self, YamlError};
use crate::images::ImageRef;
use crate::layout::Layout;
use std::collections::HashMap;
use yaml_rust2::Yaml;
use yaml_rust2::yaml::Hash;

#[derive(Debug, Default)]
pub(super) struct FrontMatter {
    pub title: Option<String>,
    /// `tags` (and in the blog layout `categories` after them); `None`: neither is set.
    pub tags: Option<Vec<String>>,
    /// The line (within the matter) that sets `tags` (else `categories`).
    pub tags_line: Option<usize>,
    /// `summary`, else `description`, else (blog layout) `excerpt`.
    pub summary: Option<String>,
    /// `draft: true`, or (blog layout) `published: false`.
    pub draft: bool,
    pub lang: Vec<String>,
    /// `image:` (with `image_alt:`): the cover, at its line in the file.
    pub image: Option<ImageRef>,
    /// `slug:` (blog layout): the post's slug in links, checked to be one.
    pub slug: Option<String>,
    /// `date:` as written, and its line within the matter: when the post is due, with `times
    /// = "front-matter"` (`due.rs`).
    pub date: Option<String>,
    pub date_line: Option<usize>,
}

impl FrontMatter {
    /// Read `matter` as `layout` reads it. Errors carry the line within the matter (1-based)
    /// where the parser knows it.
    pub fn parse(matter: &Matter, layout: Layout) -> Result<FrontMatter, YamlError> {
        let (map, lines) = match matter.format {
            Format::Yaml => match yaml::load(matter.text)? {
                Yaml::Hash(map) => (map, Lines::Yaml(matter.text)),
                Yaml::Null => return Ok(FrontMatter::default()),
                _ => return Err((None, "front matter must be `name: value` lines".into())),
            },
            Format::Toml => {
                let (map, lines) = toml_matter::load(matter.text)?;
                (map, Lines::Toml(lines))
            }
        };
        let fields = Fields {
            map: &map,
            lines: &lines,
            layout,
        };
        fields.read(matter.first_line)
    }
}

/// Where each top-level field is: found in a YAML text by its `name:` line, or kept from TOML's
/// spans.
enum Lines<'a> {
    Yaml(&'a str),
    Toml(HashMap<String, usize>),
}

impl Lines<'_> {
    /// The line (1-based, within the matter) that sets `name`.
    fn of(&self, name: &str) -> Option<usize> {
        match self {
            Lines::Yaml(text) => line_of(text, name),
            Lines::Toml(lines) => lines.get(name).copied(),
        }
    }
}

/// A front matter's fields as one layout reads them.
struct Fields<'a> {
    map: &'a Hash,
    lines: &'a Lines<'a>,
    layout: Layout,
}

impl Fields<'_> {
    /// Every field dayrun reads; `first_line`: the file line the matter starts on.
    fn read(&self, first_line: usize) -> Result<FrontMatter, YamlError> {
        // In the order dayrun always read them, so a matter with two errors names the same one.
        let tags = self.words("tags")?;
        let draft = self.flag("draft")?.unwrap_or(false);
        let lang = languages(self.get("lang")).map_err(|msg| (self.line("lang"), msg))?;
        let image = self.image(first_line)?;
        let title = self.text("title")?;
        let summary = self.text("summary")?.or(self.text("description")?);
        let mut matter = FrontMatter {
            tags_line: self.line("tags"),
            tags,
            draft,
            lang,
            image,
            title,
            summary,
            slug: None,
            date_line: None,
            date: None,
        };
        if self.layout == Layout::Blog {
            self.read_blog(&mut matter)?;
        }
        // Its line only when it is there: finding a line reads the matter's text again.
        matter.date = self.text("date")?;
        matter.date_line = matter.date.as_ref().and_then(|_| self.line("date"));
        Ok(matter)
    }

    /// What only the blog layout reads: `categories` (and Jekyll's `category`) after the tags, `excerpt` as the summary
    /// when none is given, `published: false` as a draft, and `slug`.
    fn read_blog(&self, matter: &mut FrontMatter) -> Result<(), YamlError> {
        if let Some(categories) = self.words("categories")? {
            matter.tags_line = matter.tags_line.or(self.line("categories"));
            matter.tags.get_or_insert_default().extend(categories);
        }
        // Jekyll's one category: the whole text is its name, spaces and all.
        if let Some(category) = self.text("category")? {
            matter.tags_line = matter.tags_line.or(self.line("category"));
            matter.tags.get_or_insert_default().push(category);
        }
        if matter.summary.is_none() {
            matter.summary = self.text("excerpt")?;
        }
        matter.draft |= self.flag("published")? == Some(false);
        matter.slug = self.slug()?;
        Ok(())
    }

    fn get(&self, name: &str) -> Option<&Yaml> {
        self.map.get(&Yaml::String(name.into()))
    }

    fn line(&self, name: &str) -> Option<usize> {
        self.lines.of(name)
    }

    /// A text field (a number is its text); `None` when absent or null.
    fn text(&self, name: &str) -> Result<Option<String>, YamlError> {
        match self.get(name) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::String(s)) => Ok(Some(s.clone())),
            Some(Yaml::Integer(n)) => Ok(Some(n.to_string())),
            Some(real @ Yaml::Real(_)) => Ok(real.as_f64().map(|n| n.to_string())),
            Some(_) => Err((
                self.line(name),
                format!("front matter `{name}` must be text"),
            )),
        }
    }

    /// `true` or `false`; `None` when absent or null.
    fn flag(&self, name: &str) -> Result<Option<bool>, YamlError> {
        match self.get(name) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::Boolean(b)) => Ok(Some(*b)),
            Some(_) => Err((
                self.line(name),
                format!("front matter `{name}` must be true or false"),
            )),
        }
    }

    /// A list of words (`tags`, `categories`): a list, or one string of them separated by
    /// commas (in the blog layout, a string without a comma by spaces, as Jekyll reads it).
    fn words(&self, name: &str) -> Result<Option<Vec<String>>, YamlError> {
        let wrong = |what: &str| {
            (
                self.line(name),
                format!("front matter `{name}` must be {what}"),
            )
        };
        match self.get(name) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::String(s)) if self.layout == Layout::Blog && !s.contains(',') => {
                Ok(Some(s.split_whitespace().map(str::to_string).collect()))
            }
            Some(Yaml::String(s)) => Ok(Some(s.split(',').map(str::to_string).collect())),
            Some(Yaml::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Yaml::String(s) => Ok(s.clone()),
                    Yaml::Integer(n) => Ok(n.to_string()),
                    _ => Err(wrong("a list of words")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(wrong("a list or a comma-separated string")),
        }
    }

    /// `image:` (with `image_alt:`), a file beside the posts; a URL is left as it is.
    fn image(&self, first_line: usize) -> Result<Option<ImageRef>, YamlError> {
        let image = self.text("image")?.filter(|i| !i.trim().is_empty());
        Ok(match image {
            Some(dest) if !crate::images::is_local(dest.trim()) => None,
            Some(dest) => Some(ImageRef {
                dest: dest.trim().to_string(),
                alt: self.text("image_alt")?.unwrap_or_default(),
                line: self.line("image").map_or(1, |l| first_line + l - 1),
                cover: true,
            }),
            None => None,
        })
    }

    /// `slug:`: lower-case letters, digits and single dashes, as a key's slug is.
    fn slug(&self) -> Result<Option<String>, YamlError> {
        let Some(slug) = self.text("slug")? else {
            return Ok(None);
        };
        let slug = slug.trim();
        let longest = life::key::MAX_KEY - "YYYY-MM-DD-".len();
        if life::key::is_slug(slug) && slug.len() <= longest {
            return Ok(Some(slug.to_string()));
        }
        let better = crate::text::slug(slug, longest);
        let instead = match better.is_empty() {
            true => String::new(),
            false => format!(" (write e.g. `{better}`)"),
        };
        Err((
            self.line("slug"),
            format!(
                "front matter `slug`: `{}` is not a slug: lower-case letters, digits and single dashes, {longest} at most{instead}",
                crate::outside::escape(slug, 80)
            ),
        ))
    }
}

/// `lang: en` or `lang: [en, pt-BR]`: at most 3 language tags (`ab`, `abc`, then `-` parts).
fn languages(value: Option<&Yaml>) -> Result<Vec<String>, String> {
    let items = match value {
        None | Some(Yaml::Null) => return Ok(Vec::new()),
        Some(Yaml::String(s)) => vec![s.clone()],
        Some(Yaml::Array(items)) => items
            .iter()
            .map(|item| match item {
                Yaml::String(s) => Ok(s.clone()),
                _ => Err(String::new()),
            })
            .collect::<Result<_, _>>()
            .map_err(|_| {
                "front matter `lang` must be a language tag or a list of them".to_string()
            })?,
        Some(_) => {
            return Err("front matter `lang` must be a language tag like `en` or `pt-BR`".into());
        }
    };
    let valid = |tag: &str| {
        let mut parts = tag.split('-');
        let first = parts.next().unwrap_or_default();
        (2..=3).contains(&first.len())
            && first.chars().all(|c| c.is_ascii_alphabetic())
            && parts
                .all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    if let Some(bad) = items.iter().find(|t| !valid(t.trim())) {
        return Err(format!(
            "front matter `lang`: `{}` is not a language tag (write e.g. `en`, `de` or `pt-BR`)",
            crate::outside::escape(bad, 40)
        ));
    }
    if items.len() > 3 {
        return Err("front matter `lang` names more than the 3 languages a post may have".into());
    }
    Ok(items.iter().map(|t| t.trim().to_string()).collect())
}

/// The line (1-based, within the matter) that sets `name`.
fn line_of(matter: &str, name: &str) -> Option<usize> {
    matter
        .lines()
        .position(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, format: Format, layout: Layout) -> Result<FrontMatter, YamlError> {
        let matter = Matter {
            text,
            format,
            first_line: 2,
        };
        FrontMatter::parse(&matter, layout)
    }

    fn yaml(text: &str, layout: Layout) -> FrontMatter {
        read(text, Format::Yaml, layout).unwrap()
    }

    #[test]
    fn jekyll_fields_count_only_in_the_blog_layout() {
        let text =
            "tags: [a, b]\ncategories: [b, c]\npublished: false\nexcerpt: Short.\nslug: my-post\n";
        let dated = yaml(text, Layout::Dated);
        assert_eq!(dated.tags, Some(vec!["a".into(), "b".into()]));
        assert_eq!(
            (dated.draft, dated.summary, dated.slug),
            (false, None, None)
        );
        let blog = yaml(text, Layout::Blog);
        // Categories after the tags; `clean_tags` drops the second `b`.
        assert_eq!(blog.tags.unwrap(), ["a", "b", "b", "c"]);
        assert!(blog.draft);
        assert_eq!(blog.summary.as_deref(), Some("Short."));
        assert_eq!(blog.slug.as_deref(), Some("my-post"));
        // Categories alone are the tags, at their line.
        let only = yaml("title: T\ncategories: web dev\n", Layout::Blog);
        assert_eq!(
            (only.tags.unwrap(), only.tags_line),
            (vec!["web".to_string(), "dev".into()], Some(2))
        );
        assert!(!yaml("published: true\n", Layout::Blog).draft);
        // Jekyll's `category` is one name, after the tags and categories; a date project
        // does not read it.
        let one = yaml("tags: [a]\ncategory: web dev\n", Layout::Blog);
        assert_eq!(one.tags.unwrap(), ["a", "web dev"]);
        assert_eq!(yaml("category: web dev\n", Layout::Dated).tags, None);
        assert!(yaml("published: true\ndraft: true\n", Layout::Blog).draft);
    }

    #[test]
    fn the_summary_is_summary_then_description_then_excerpt() {
        for (text, summary) in [
            ("summary: S\ndescription: D\nexcerpt: E\n", "S"),
            ("description: D\nexcerpt: E\n", "D"),
            ("excerpt: E\n", "E"),
        ] {
            assert_eq!(
                yaml(text, Layout::Blog).summary.as_deref(),
                Some(summary),
                "{text}"
            );
        }
        assert_eq!(yaml("excerpt: E\n", Layout::Dated).summary, None);
    }

    #[test]
    fn toml_gives_the_fields_yaml_gives() {
        let text = "title = \"Hugo\"\ntags = [\"a\"]\ncategories = [\"b\"]\ndraft = true\ndescription = \"D\"\nslug = \"s-1\"\n";
        let toml = read(text, Format::Toml, Layout::Blog).unwrap();
        assert_eq!(toml.title.as_deref(), Some("Hugo"));
        assert_eq!(toml.tags.unwrap(), ["a", "b"]);
        assert_eq!(
            (toml.draft, toml.summary.as_deref(), toml.slug.as_deref()),
            (true, Some("D"), Some("s-1"))
        );
        assert_eq!(toml.tags_line, Some(2));
        let zola = "title = \"Zola\"\n\n[taxonomies]\ntags = [\"x\"]\ncategories = [\"y\"]\n";
        let zola = read(zola, Format::Toml, Layout::Blog).unwrap();
        assert_eq!(
            (zola.tags.unwrap(), zola.tags_line),
            (vec!["x".to_string(), "y".into()], Some(4))
        );
    }

    #[test]
    fn wrong_values_are_errors_at_their_line() {
        let cases = [
            (
                "title: T\npublished: maybe\n",
                Format::Yaml,
                2,
                "`published` must be true or false",
            ),
            (
                "title: T\nslug: My Post\n",
                Format::Yaml,
                2,
                "`My Post` is not a slug",
            ),
            ("title: T\nslug: -x\n", Format::Yaml, 2, "is not a slug"),
            (
                "title: T\ncategories: {a: 1}\n",
                Format::Yaml,
                2,
                "`categories` must be",
            ),
            (
                "title = \"T\"\n\nslug = \"Bad_One\"\n",
                Format::Toml,
                3,
                "(write e.g. `bad-one`)",
            ),
            (
                "title = \"T\"\ndraft = \"yes\"\n",
                Format::Toml,
                2,
                "`draft` must be true or false",
            ),
            ("title = [1]\n", Format::Toml, 1, "`title` must be text"),
        ];
        for (text, format, line, said) in cases {
            let (at, msg) = read(text, format, Layout::Blog).unwrap_err();
            assert!(msg.contains(said), "{text}: {msg}");
            assert_eq!(at, Some(line), "{text}: {msg}");
        }
        let long = format!("slug: {}\n", "a".repeat(90));
        assert!(read(&long, Format::Yaml, Layout::Blog).is_err());
        // dayrun's own layout reads none of these.
        assert!(
            read(
                "published: maybe\nslug: My Post\n",
                Format::Yaml,
                Layout::Dated
            )
            .is_ok()
        );
    }
}
