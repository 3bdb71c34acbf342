//! What a template uses, found before it ever renders: the post's fields (which `fit` may
//! shrink), `link`, and other targets' copies (which order the targets and make a key wait).
//! Anything else is an unknown variable: a config error naming where it is.

use super::copies::template_name;
use std::collections::BTreeMap;

/// The post's fields a template may use.
pub const POST_VARS: [&str; 8] = [
    "title",
    "summary",
    "body",
    "body_text",
    "tags",
    "hashtags",
    "key",
    "date",
];
/// minijinja's global functions, and the loop variable inside `{% for %}`.
const GLOBALS: [&str; 4] = ["range", "dict", "namespace", "loop"];

/// What a template uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uses {
    pub body: bool,
    /// `body_text`: the body as plain text.
    pub body_text: bool,
    pub summary: bool,
    /// `tags` or `hashtags`.
    pub tags: bool,
    pub link: bool,
    /// Other targets' copies of the key, by target name.
    pub copies: BTreeMap<String, Need>,
}

/// Which fields of another target's copy a template uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Need {
    pub url: bool,
    pub id: bool,
}

/// What `template` (whose text is `source`) uses, on target `own` among the configured
/// `names`; `link`: the target has a `link` setting. `Err`: where (a byte offset in `source`,
/// if found) and what is wrong.
pub(super) fn analyse(
    template: &minijinja::Template,
    source: &str,
    own: &str,
    names: &[String],
    link: bool,
) -> Result<Uses, (Option<usize>, String)> {
    let mut found: Vec<String> = template.undeclared_variables(true).into_iter().collect();
    found.sort();
    let mut uses = Uses::default();
    for var in &found {
        let parts: Vec<&str> = var.split('.').collect();
        let root = parts[0];
        let place = || find(source, var).or(find(source, root));
        let fail = |msg: String| Err((place(), msg));
        match root {
            "body" => uses.body = true,
            "body_text" => uses.body_text = true,
            "summary" => uses.summary = true,
            "tags" | "hashtags" => uses.tags = true,
            _ if POST_VARS.contains(&root) || GLOBALS.contains(&root) => {}
            "link" if link => uses.link = true,
            "link" => {
                return fail(format!(
                    "`link` is not set here: [targets.{own}] has no `link` setting"
                ));
            }
            "copies" => {
                let (name, need) = copy(&parts, own, names).map_err(|msg| (place(), msg))?;
                let entry = uses.copies.entry(name).or_default();
                entry.url |= need.url;
                entry.id |= need.id;
            }
            _ => {
                let known = POST_VARS.iter().copied().chain(["link", "copies"]);
                let guess = crate::text::closest(root, known)
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                return fail(format!(
                    "unknown variable `{root}`{guess}; a template knows {}, link (with a `link` setting), copies.NAME.url and copies.NAME.id",
                    POST_VARS.join(", ")
                ));
            }
        }
    }
    Ok(uses)
}

/// `copies.NAME.url` / `copies.NAME.id`: the target it names and the field.
fn copy(parts: &[&str], own: &str, names: &[String]) -> Result<(String, Need), String> {
    let [_, name, field] = parts else {
        return Err(format!(
            "`{}`: name one copy and its field, as copies.NAME.url or copies.NAME.id (NAME a target, with `_` for `-`)",
            parts.join(".")
        ));
    };
    let matching: Vec<&String> = names.iter().filter(|n| template_name(n) == *name).collect();
    let target = match matching[..] {
        [target] => target.clone(),
        [] => {
            let known: Vec<String> = names.iter().map(|n| template_name(n)).collect();
            return Err(format!(
                "`copies.{name}`: no target is named `{name}` (copies of: {})",
                known.join(", ")
            ));
        }
        _ => {
            let both: Vec<&str> = matching.iter().map(|n| n.as_str()).collect();
            return Err(format!(
                "`copies.{name}` could be any of {}: rename one of them",
                both.join(", ")
            ));
        }
    };
    if target == own {
        return Err(format!(
            "`copies.{name}`: a template cannot use its own target's copy"
        ));
    }
    let need = match *field {
        "url" => Need {
            url: true,
            id: false,
        },
        "id" => Need {
            url: false,
            id: true,
        },
        other => {
            return Err(format!(
                "`copies.{name}.{other}`: a copy has a `url` and an `id`"
            ));
        }
    };
    Ok((target, need))
}

/// Where `word` (a variable, maybe dotted) first appears as a whole word inside a tag of
/// `source` (`{{ … }}`, `{% … %}`).
fn find(source: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(open) = source[from..].find(['{']).map(|i| from + i) {
        let rest = &source[open..];
        let close = match rest.get(..2) {
            Some("{{") => "}}",
            Some("{%") => "%}",
            _ => {
                from = open + 1;
                continue;
            }
        };
        let end = rest.find(close).map_or(source.len(), |i| open + i);
        let tag = &source[open..end];
        let mut at = 0;
        while let Some(i) = tag[at..].find(word).map(|i| at + i) {
            let before = tag[..i].chars().next_back();
            let after = tag[i + word.len()..].chars().next();
            if !before.is_some_and(|c| ident(c) || c == '.') && !after.is_some_and(ident) {
                return Some(open + i);
            }
            at = i + word.len();
        }
        from = end.max(open + 2);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn a_variable_is_found_as_a_word_inside_a_tag_only() {
        let source = "titel here {{ title }} and {{ x.titel }} {% if titel %}";
        assert_eq!(find(source, "titel"), Some(source.rfind("titel").unwrap()));
        assert_eq!(find("{{ copies.wp.url }}", "copies.wp.url"), Some(3));
        assert_eq!(find("{{ copies.wp.urls }}", "copies.wp.url"), None);
        assert_eq!(find("no tags at all", "x"), None);
    }
}
