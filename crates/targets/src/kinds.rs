//! The registry of target kinds: one entry per platform, which config parsing, its error
//! suggestions, `build`, `status` and the README's targets table all read. A new platform is
//! one file with its `KIND`, and one line in `KINDS`.

use super::{Context, Target};
use crate::error::Error;
use config::{Capabilities, KnownKind};
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
    /// What a target with this table can do, derived once from its settings (no credential is
    /// read): `status`, `check`, the rules of a key's life and the runner all read this value.
    /// A kind whose settings give a capability (http's `list_url`) reads it from them; the
    /// others say `fixed`.
    pub capabilities: fn(&Context) -> Result<Capabilities, Error>,
    /// What a template (`template`, `template_file`) sets here; `None`: the kind takes none.
    pub template: Option<&'static str>,
    /// The groups of settings it takes that the shared code reads (`shared::TIMEOUTS`,
    /// `shared::LONG`), not its own `Settings`.
    pub takes: &'static [&'static [&'static str]],
    /// Why `dayrun drill` refuses every target of this kind before anything is sent, and what
    /// to do instead: its posts could not be removed, or the drill's faults cannot reach it.
    /// `None`: its settings decide (a lookup, and a way to remove a post).
    pub undrillable: Option<(&'static str, &'static str)>,
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
    super::nostr::KIND,
    super::matrix::KIND,
    super::linkedin::KIND,
    super::meta_threads::KIND,
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

/// `Kind::capabilities` for a kind whose settings give no capability of their own: `can`, once
/// the table reads as its settings `S` (a table that does not can do nothing, as it cannot
/// be built).
pub fn fixed<S: DeserializeOwned>(ctx: &Context, can: Capabilities) -> Result<Capabilities, Error> {
    super::settings::<S>(ctx).map(|_: S| can)
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
