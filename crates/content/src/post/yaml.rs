//! A front matter's YAML, built from yaml-rust2's parser events within a budget: at most
//! `MAX_VALUES` values (an alias counts every value it repeats, each time it is used), nested at
//! most `MAX_DEPTH` deep. A "billion laughs" of a few hundred bytes is an error at the alias
//! that crosses the budget, not gigabytes of copies; parsing stops there.

use std::collections::HashMap;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::yaml::{Hash, Yaml};

/// Values one front matter may hold, counting each alias's copy in full. A post needs a few
/// dozen; this leaves room for long lists and stops an alias bomb at a few megabytes.
pub const MAX_VALUES: usize = 10_000;
/// Lists and maps nested deeper than this are refused (a post needs two levels).
pub const MAX_DEPTH: usize = 64;

/// The 1-based line within the YAML text (where known) and what is wrong with it.
pub type YamlError = (Option<usize>, String);

/// The first document in `text`, or `Yaml::Null` when it holds none.
pub fn load(text: &str) -> Result<Yaml, YamlError> {
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder::default();
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            (
                Some(e.marker().line()),
                format!("front matter is not valid YAML: {}", e.info()),
            )
        })?;
        if let Some(document) = builder.take(event, mark)? {
            return Ok(document);
        }
    }
}

/// A list or map not closed yet, with its anchor and the values it holds so far.
enum Open {
    List(Vec<Yaml>, usize, usize),
    Map(Hash, Option<Yaml>, usize, usize),
}

#[derive(Default)]
struct Builder {
    open: Vec<Open>,
    /// Each anchored value, and how many values it holds.
    anchors: HashMap<usize, (Yaml, usize)>,
    /// Values made so far, an alias's in full each time.
    values: usize,
    /// The key of the top-level entry being read, for messages.
    entry: Option<String>,
    done: Option<Yaml>,
}

impl Builder {
    /// Take one event; the document once it is complete.
    fn take(&mut self, event: Event, mark: Marker) -> Result<Option<Yaml>, YamlError> {
        match event {
            Event::StreamEnd | Event::DocumentEnd => {
                return Ok(Some(self.done.take().unwrap_or(Yaml::Null)));
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1, false, mark)?;
                self.insert(scalar(text, style, tag.as_ref()), 1, anchor, mark)?;
            }
            Event::SequenceStart(anchor, _) => {
                self.start(mark)?;
                self.open.push(Open::List(Vec::new(), anchor, 1));
            }
            Event::MappingStart(anchor, _) => {
                self.start(mark)?;
                self.open.push(Open::Map(Hash::new(), None, anchor, 1));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor, size) = match self.open.pop() {
                    Some(Open::List(items, anchor, size)) => (Yaml::Array(items), anchor, size),
                    Some(Open::Map(map, _, anchor, size)) => (Yaml::Hash(map), anchor, size),
                    None => return Err((Some(mark.line()), "unbalanced YAML".into())),
                };
                self.insert(value, size, anchor, mark)?;
            }
            Event::Alias(id) => {
                let Some((value, size)) = self.anchors.get(&id) else {
                    return Err((Some(mark.line()), "an alias names no anchor".into()));
                };
                let (value, size) = (value.clone(), *size);
                self.count(size, true, mark)?;
                self.insert(value, size, 0, mark)?;
            }
            Event::Nothing | Event::StreamStart | Event::DocumentStart => {}
        }
        Ok(None)
    }

    fn start(&mut self, mark: Marker) -> Result<(), YamlError> {
        if self.open.len() >= MAX_DEPTH {
            return Err((
                Some(mark.line()),
                format!("front matter is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.count(1, false, mark)
    }

    /// Count `more` values against the budget; `alias`: they are an alias's copy.
    fn count(&mut self, more: usize, alias: bool, mark: Marker) -> Result<(), YamlError> {
        self.values += more;
        if self.values <= MAX_VALUES {
            return Ok(());
        }
        let at = match &self.entry {
            Some(key) => format!(" (at `{}`)", crate::outside::escape(key, 40)),
            None => String::new(),
        };
        Err((
            Some(mark.line()),
            match alias {
                true => format!(
                    "front matter aliases (`*name`) expand to more than {MAX_VALUES} values{at}"
                ),
                false => format!("front matter holds more than {MAX_VALUES} values{at}"),
            },
        ))
    }

    /// Put a finished value into the list or map it belongs to (or make it the document).
    fn insert(
        &mut self,
        value: Yaml,
        size: usize,
        anchor: usize,
        mark: Marker,
    ) -> Result<(), YamlError> {
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), size));
        }
        let top = self.open.len() == 1;
        match self.open.last_mut() {
            None => self.done = Some(value),
            Some(Open::List(items, _, total)) => {
                items.push(value);
                *total += size;
            }
            Some(Open::Map(_, key @ None, _, total)) => {
                if top {
                    self.entry = value.as_str().map(str::to_string);
                }
                *key = Some(value);
                *total += size;
            }
            Some(Open::Map(map, key, _, total)) => {
                let key = key.take().expect("matched Some");
                *total += size;
                if map.contains_key(&key) {
                    let name = key.as_str().map_or("a key".into(), |k| format!("`{k}`"));
                    return Err((
                        Some(mark.line()),
                        format!(
                            "front matter sets {} twice",
                            crate::outside::escape(&name, 60)
                        ),
                    ));
                }
                map.insert(key, value);
            }
        }
        Ok(())
    }
}

/// A scalar as YAML's core schema reads it: quoted is text; plain is null, a boolean, a number
/// or text; `!!str` and other tags keep the text.
fn scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Yaml {
    match (style, tag) {
        (TScalarStyle::Plain, None) => Yaml::from_str(&text),
        (TScalarStyle::Plain, Some(tag))
            if tag.handle == "tag:yaml.org,2002:" && tag.suffix != "str" =>
        {
            Yaml::from_str(&text)
        }
        _ => Yaml::String(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_a_front_matter_holds() {
        let doc = load("title: Hi\ntags: [a, b]\ndraft: true\nn: 3\nx: ~\n").unwrap();
        assert_eq!(doc["title"].as_str(), Some("Hi"));
        assert_eq!(doc["tags"].as_vec().map(Vec::len), Some(2));
        assert_eq!(doc["draft"].as_bool(), Some(true));
        assert_eq!(doc["n"].as_i64(), Some(3));
        assert!(doc["x"].is_null());
        assert_eq!(load("t: '3'\n").unwrap()["t"].as_str(), Some("3"));
        assert_eq!(load("").unwrap(), Yaml::Null);
    }

    #[test]
    fn aliases_within_the_budget_are_copies() {
        let doc = load("a: &x [1, 2]\nb: *x\n").unwrap();
        assert_eq!(doc["b"], doc["a"]);
    }

    #[test]
    fn a_billion_laughs_stops_at_the_budget() {
        let mut text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_string();
        for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
            .iter()
            .zip("abcdefgh".chars())
        {
            let refs = vec![format!("*{prev}"); 9].join(", ");
            text.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let (line, msg) = load(&text).unwrap_err();
        assert!(msg.contains("aliases"), "{msg}");
        assert!(line.is_some_and(|l| l <= 5), "{line:?}");
    }

    #[test]
    fn too_many_values_too_deep_and_twice_set_keys_are_errors() {
        let many = format!("tags: [{}]\n", vec!["t"; MAX_VALUES + 1].join(", "));
        let (line, msg) = load(&many).unwrap_err();
        assert_eq!(line, Some(1));
        assert!(msg.contains("more than") && msg.contains("`tags`"), "{msg}");
        let deep = format!("x: {}{}\n", "[".repeat(100), "]".repeat(100));
        assert!(load(&deep).unwrap_err().1.contains("nested"));
        let (line, msg) = load("title: a\ntitle: b\n").unwrap_err();
        assert_eq!((line, msg.contains("`title` twice")), (Some(2), true));
    }
}
