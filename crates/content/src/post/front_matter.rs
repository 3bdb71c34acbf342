//! A post's front matter: the `---` fence, and the fields dayrun reads from its YAML (title,
//! tags, summary, draft, lang, the cover image), each error at its line.

use super::yaml::{self, YamlError};
use crate::images::ImageRef;
use yaml_rust2::Yaml;

/// Front matter text and the file line it starts on.
pub(super) type Matter<'a> = Option<(&'a str, usize)>;

/// `(Some((matter, first line of matter)), body)`; a fence that never closes is an error.
pub(super) fn split_front_matter(text: &str) -> Result<(Matter<'_>, &str), (usize, String)> {
    let Some(rest) = text.strip_prefix("---") else {
        return Ok((None, text));
    };
    let Some(nl) = rest.find('\n') else {
        return Ok((None, text));
    };
    if !rest[..nl].trim().is_empty() {
        return Ok((None, text)); // `----` or `--- x`: a rule or text, not a fence
    }
    let matter_start = 3 + nl + 1;
    let mut pos = matter_start;
    for line in text[matter_start..].split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Ok((
                Some((&text[matter_start..pos], 2)),
                &text[pos + line.len()..],
            ));
        }
        pos += line.len();
    }
    Err((1, "front matter opened with `---` is never closed".into()))
}

#[derive(Default)]
pub(super) struct FrontMatter {
    pub title: Option<String>,
    pub tags: Option<Vec<String>>,
    /// The line (within the matter) that sets `tags`.
    pub tags_line: Option<usize>,
    pub summary: Option<String>,
    pub draft: bool,
    pub lang: Vec<String>,
    /// `image:` (with `image_alt:`): the cover, at its line in the file.
    pub image: Option<ImageRef>,
}

impl FrontMatter {
    /// Errors carry the line within the matter (1-based) where the YAML parser knows it.
    pub fn parse(matter: &str) -> Result<FrontMatter, YamlError> {
        if matter.trim().is_empty() {
            return Ok(FrontMatter::default());
        }
        let map = match yaml::load(matter)? {
            Yaml::Hash(map) => map,
            Yaml::Null => return Ok(FrontMatter::default()),
            _ => return Err((None, "front matter must be `name: value` lines".into())),
        };
        let get = |name: &str| map.get(&Yaml::String(name.into()));
        let text = |name: &str| -> Result<Option<String>, YamlError> {
            match get(name) {
                None | Some(Yaml::Null) => Ok(None),
                Some(Yaml::String(s)) => Ok(Some(s.clone())),
                Some(Yaml::Integer(n)) => Ok(Some(n.to_string())),
                Some(real @ Yaml::Real(_)) => Ok(real.as_f64().map(|n| n.to_string())),
                Some(_) => Err((
                    line_of(matter, name),
                    format!("front matter `{name}` must be text"),
                )),
            }
        };
        let tags = match get("tags") {
            None | Some(Yaml::Null) => None,
            Some(Yaml::String(s)) => Some(s.split(',').map(str::to_string).collect()),
            Some(Yaml::Array(items)) => Some(
                items
                    .iter()
                    .map(|item| match item {
                        Yaml::String(s) => Ok(s.clone()),
                        Yaml::Integer(n) => Ok(n.to_string()),
                        _ => Err((
                            line_of(matter, "tags"),
                            "front matter `tags` must be a list of words".to_string(),
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => {
                return Err((
                    line_of(matter, "tags"),
                    "front matter `tags` must be a list or a comma-separated string".into(),
                ));
            }
        };
        let draft = match get("draft") {
            None | Some(Yaml::Null) => false,
            Some(Yaml::Boolean(b)) => *b,
            Some(_) => {
                return Err((
                    line_of(matter, "draft"),
                    "front matter `draft` must be true or false".into(),
                ));
            }
        };
        let lang = languages(get("lang")).map_err(|msg| (line_of(matter, "lang"), msg))?;
        let image = text("image")?.filter(|i| !i.trim().is_empty());
        let image = match image {
            Some(dest) if !crate::images::is_local(dest.trim()) => None, // a URL: left as it is
            Some(dest) => Some(ImageRef {
                dest: dest.trim().to_string(),
                alt: text("image_alt")?.unwrap_or_default(),
                // The matter starts on the file's line 2.
                line: line_of(matter, "image").map_or(1, |l| l + 1),
                cover: true,
            }),
            None => None,
        };
        Ok(FrontMatter {
            image,
            title: text("title")?,
            tags,
            tags_line: line_of(matter, "tags"),
            summary: text("summary")?.or(text("description")?),
            draft,
            lang,
        })
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
