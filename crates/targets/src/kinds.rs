//! The registry of target kinds: one entry per platform, which config parsing, its error
//! suggestions, `build`, `status` and the README's targets table all read. A new platform is
//! one file with its `KIND`, and one line in `KINDS`.

use super::{Context, Target};
use crate::error::Error;
use config::{Capabilities, Config, KnownKind, TargetConfig};
use serde::de::DeserializeOwned;

/// One kind of target.
pub struct Kind {
    /// What `kind = "…"` says.
    pub name: &'static str,
    /// For the README's table: where a post goes, and what the user must provide.
    pub publishes_to: &'static str,
    pub needs: &'static str,
    /// Build a target of this kind from its table (reads credential files, sends nothing).
    pub build: fn(&Context) -> Result<Box<dyn Target>, Error>,
    /// What a target with this table can do: its settings read (no credential is), and their
    /// `Settings::capabilities`. Every kind's is `capabilities::<Settings>`.
    pub capabilities: fn(&Config, &TargetConfig) -> Result<Capabilities, Error>,
    /// What a template (`template`, `template_file`) sets here; `None`: the kind takes none.
    pub template: Option<&'static str>,
}

/// Every kind, in the order the README lists them.
pub const KINDS: &[Kind] = &[
    super::folder::KIND,
    super::http::KIND,
    super::command::KIND,
    super::wordpress::KIND,
    super::devto::KIND,
    super::mastodon::KIND,
    super::bluesky::KIND,
    super::ghost::KIND,
];

/// The kind named `name`.
pub fn find(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// What reading the config needs of every kind, in the registry's order (`Config::load`).
pub fn known() -> Vec<KnownKind> {
    KINDS
        .iter()
        .map(|k| KnownKind {
            name: k.name,
            templated: k.template.is_some(),
        })
        .collect()
}

/// Every kind's name, for messages and suggestions.
pub fn names() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|k| k.name)
}

/// A kind's own settings, read from its table. What a target can do follows from them alone,
/// derived here once: `status`, the rules of a key's life and the runner all read this value.
pub trait Settings: DeserializeOwned {
    /// What a target with these settings can do (before `on_edit`).
    fn capabilities(&self) -> Capabilities;
}

/// What a target whose kind reads settings `S` can do, from its table (`Kind::capabilities`).
pub fn capabilities<S: Settings>(
    config: &Config,
    target: &TargetConfig,
) -> Result<Capabilities, Error> {
    Ok(super::settings::<S>(config, target)?.capabilities())
}

/// The README's targets table, made from the registry.
pub fn markdown() -> String {
    let mut out = String::from("| kind | publishes to | needs | page |\n|---|---|---|---|\n");
    for kind in KINDS {
        out.push_str(&format!(
            "| `{0}` | {1} | {2} | [{0}](docs/targets/{0}.md) |\n",
            kind.name, kind.publishes_to, kind.needs
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_lists_every_kind_and_each_has_its_page() {
        let want = markdown();
        let have = testkit::region(
            "README.md",
            "<!-- the targets: made by `targets::kinds::markdown`, checked by a test -->\n",
            "<!-- end of the targets -->",
            &want,
        );
        assert_eq!(
            have, want,
            "README.md: run `DAYRUN_BLESS=1 cargo test -p dayrun-targets kinds` and review the diff"
        );
        for kind in KINDS {
            let page = testkit::root().join(format!("docs/targets/{}.md", kind.name));
            assert!(page.is_file(), "{} has no page", page.display());
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KINDS.len());
    }
}
