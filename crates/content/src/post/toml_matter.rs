//! A TOML front matter (Hugo's and Zola's `+++`), read by the `toml` crate and handed on as the
//! same values a YAML one gives, with the line each top-level field is on. Zola's
//! `[taxonomies]` table gives `tags` and `categories` as Hugo's top-level ones do.

use super::yaml::{MAX_DEPTH, MAX_VALUES, YamlError};
use std::collections::HashMap;
use toml::Spanned;
use toml::de::{DeTable, DeValue};
use yaml_rust2::yaml::{Hash, Yaml};

/// The largest TOML front matter read. Unlike YAML it has no aliases, so its values are bounded
/// by its bytes: this keeps what one takes in memory to a few megabytes (a post's needs a few
/// hundred bytes, and 64 KiB hold more tags than the 10,000 values allowed).
pub const MAX_BYTES: usize = 64 * 1024;

/// Zola's table of taxonomies, whose lists stand for the top-level ones.
const TAXONOMIES: &str = "taxonomies";

/// A TOML front matter's fields, and the line (within the matter, 1-based) each is set on.
pub(super) fn load(matter: &str) -> Result<(Hash, HashMap<String, usize>), YamlError> {
    if matter.len() > MAX_BYTES {
        return Err((
            Some(1),
            format!("TOML front matter is more than {} KiB", MAX_BYTES / 1024),
        ));
    }
    let table = DeTable::parse(matter).map_err(|e| {
        let line = e.span().map(|span| line_at(matter, span.start));
        let said = e.message().lines().next().unwrap_or_default().to_string();
        (line, format!("front matter is not valid TOML: {said}"))
    })?;
    let mut reader = Reader { matter, values: 0 };
    let mut map = Hash::new();
    let mut lines = HashMap::new();
    let mut taxonomies = Vec::new();
    for (key, value) in table.get_ref().iter() {
        let name = key.get_ref().to_string();
        let line = line_at(matter, key.span().start);
        if let (TAXONOMIES, DeValue::Table(inner)) = (name.as_str(), value.get_ref()) {
            taxonomies.extend(inner.iter());
        }
        map.insert(Yaml::String(name.clone()), reader.value(value, 1)?);
        lines.insert(name, line);
    }
    // `[taxonomies] tags = [...]` (Zola): the post's tags, unless the top level sets them too.
    for (key, value) in taxonomies {
        let name = key.get_ref().to_string();
        if lines.contains_key(&name) {
            continue;
        }
        lines.insert(name.clone(), line_at(matter, key.span().start));
        map.insert(Yaml::String(name), reader.value(value, 2)?);
    }
    Ok((map, lines))
}

/// Turns TOML values into YAML's within the budget YAML front matter has.
struct Reader<'a> {
    matter: &'a str,
    /// Values made so far.
    values: usize,
}

impl Reader<'_> {
    fn value(&mut self, value: &Spanned<DeValue<'_>>, depth: usize) -> Result<Yaml, YamlError> {
        self.values += 1;
        let at = || Some(line_at(self.matter, value.span().start));
        if self.values > MAX_VALUES {
            return Err((
                at(),
                format!("front matter holds more than {MAX_VALUES} values"),
            ));
        }
        if depth > MAX_DEPTH {
            return Err((
                at(),
                format!("front matter is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(match value.get_ref() {
            DeValue::String(s) => Yaml::String(s.to_string()),
            DeValue::Integer(n) => match i64::from_str_radix(n.as_str(), n.radix()) {
                Ok(n) => Yaml::Integer(n),
                Err(_) => Yaml::String(n.to_string()),
            },
            DeValue::Float(f) => Yaml::Real(f.as_str().to_string()),
            DeValue::Boolean(b) => Yaml::Boolean(*b),
            // A date is text to dayrun (it reads none of a front matter's dates).
            DeValue::Datetime(d) => Yaml::String(d.to_string()),
            DeValue::Array(items) => Yaml::Array(
                items
                    .iter()
                    .map(|item| self.value(item, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            DeValue::Table(table) => {
                let mut map = Hash::new();
                for (key, item) in table.iter() {
                    map.insert(
                        Yaml::String(key.get_ref().to_string()),
                        self.value(item, depth + 1)?,
                    );
                }
                Yaml::Hash(map)
            }
        })
    }
}

/// The 1-based line of byte `at` in `text`.
fn line_at(text: &str, at: usize) -> usize {
    let bytes = &text.as_bytes()[..at.min(text.len())];
    bytes.iter().filter(|b| **b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_values_read_as_yaml_ones_with_their_lines() {
        let text = "title = \"Hi\"\ndraft = true\ntags = [\"a\", \"b\"]\nweight = 3\ndate = 2026-12-01\n\n[taxonomies]\ncategories = [\"c\"]\n";
        let (map, lines) = load(text).unwrap();
        let get = |k: &str| map.get(&Yaml::String(k.into())).cloned();
        assert_eq!(get("title"), Some(Yaml::String("Hi".into())));
        assert_eq!(get("draft"), Some(Yaml::Boolean(true)));
        assert_eq!(get("tags").and_then(|t| t.as_vec().map(Vec::len)), Some(2));
        assert_eq!(get("weight"), Some(Yaml::Integer(3)));
        assert_eq!(get("date"), Some(Yaml::String("2026-12-01".into())));
        assert_eq!(
            get("categories").and_then(|t| t.as_vec().map(Vec::len)),
            Some(1)
        );
        assert_eq!(
            (lines["title"], lines["tags"], lines["categories"]),
            (1, 3, 8)
        );
    }

    #[test]
    fn top_level_tags_win_over_zolas_taxonomies() {
        let (map, lines) = load("tags = [\"top\"]\n[taxonomies]\ntags = [\"zola\"]\n").unwrap();
        let tags = &map[&Yaml::String("tags".into())];
        assert_eq!(tags[0].as_str(), Some("top"));
        assert_eq!(lines["tags"], 1);
    }

    #[test]
    fn errors_name_the_line_and_hostile_input_is_bounded() {
        let (line, msg) = load("title = \"a\"\ntags = [\"x\",\n\nbroken\n").unwrap_err();
        assert!(msg.contains("not valid TOML"), "{msg}");
        assert_eq!(line, Some(4), "{msg}");
        let (line, msg) = load("title = \"a\"\ntitle = \"b\"\n").unwrap_err();
        assert_eq!(line, Some(2), "{msg}");
        let many = format!("tags = [{}]\n", vec!["1"; MAX_VALUES + 1].join(", "));
        assert!(load(&many).unwrap_err().1.contains("more than"));
        let deep = format!("x = {}{}\n", "[".repeat(70), "]".repeat(70));
        assert!(load(&deep).is_err());
        let big = format!("x = \"{}\"\n", "a".repeat(MAX_BYTES));
        assert!(load(&big).unwrap_err().1.contains("KiB"));
        // The most values a matter within the size can hold: refused, in a few megabytes.
        let fullest = format!("x = [{}]\n", "1,".repeat(MAX_BYTES / 2 - 8));
        let (result, held) = crate::test_alloc::peak(|| load(&fullest));
        assert!(result.unwrap_err().1.contains("more than"));
        assert!(held <= 8 << 20, "{held} bytes");
    }
}
