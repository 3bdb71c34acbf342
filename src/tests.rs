//! The workspace as docs/development.md draws it: what each crate may import, read from the
//! crates' own `Cargo.toml`, so the drawing and the code cannot drift.

use testkit::{region, root};

const DOC: &str = "docs/development.md";
const BEGIN: &str = "<!-- the crates: made by `crates_as_drawn`, checked by a test -->\n";
const END: &str = "<!-- end of the crates -->";

/// The crates from the bottom up, as (name, folder).
const CRATES: [(&str, &str); 7] = [
    ("life", "crates/life"),
    ("base", "crates/base"),
    ("store", "crates/store"),
    ("content", "crates/content"),
    ("config", "crates/config"),
    ("targets", "crates/targets"),
    ("dayrun", "."),
];

/// The crates of ours a manifest's `[dependencies]` names (`name.workspace = true`), in the
/// order of `CRATES`; dev-dependencies are not imports of the crate's code.
fn imports(manifest: &str) -> Vec<&'static str> {
    let deps = manifest
        .split("\n[")
        .find(|t| t.starts_with("dependencies]"))
        .unwrap_or("");
    let named = |name: &str| {
        deps.lines()
            .any(|l| l.split(['.', ' ', '=']).next() == Some(name))
    };
    CRATES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| named(n))
        .collect()
}

#[test]
fn crates_as_drawn() {
    let mut want = String::new();
    for (i, (name, dir)) in CRATES.iter().enumerate() {
        let path = root().join(dir).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path).expect("a crate's manifest");
        let imports = imports(&manifest);
        // Beneath it only: a crate named later in CRATES is above.
        let below: Vec<&str> = CRATES[..i].iter().map(|(n, _)| *n).collect();
        for import in &imports {
            assert!(
                below.contains(import),
                "{name} imports {import}, which is not beneath it"
            );
        }
        let list = match imports.is_empty() {
            true => "nothing of ours".to_string(),
            false => imports.join(", "),
        };
        want.push_str(&format!("- `{name}` ({dir}): {list}\n"));
    }
    assert_eq!(
        region(DOC, BEGIN, END, &want),
        want,
        "{DOC}: DAYRUN_BLESS=1 rewrites it"
    );
}
