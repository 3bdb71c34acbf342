//! Test support for dayrun's crates (a dev-dependency only): a region of a file in the
//! repository that a test keeps equal to what the code makes, and a crate's source to read.
#![cfg_attr(test, allow(clippy::too_many_lines))]

/// The text between `begin` and `end` in a file of the repository; with `DAYRUN_BLESS=1`, the
/// file is rewritten with `want` there first.
pub fn region(path: &str, begin: &str, end: &str, want: &str) -> String {
    let full = root().join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{path} lacks {begin:?}"))
        + begin.len();
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{path} lacks {end:?}"));
    if std::env::var_os("DAYRUN_BLESS").is_some() {
        let blessed = format!("{}{want}{}", &text[..start], &text[stop..]);
        std::fs::write(&full, blessed).unwrap();
        return want.to_string();
    }
    text[start..stop].to_string()
}

/// Every `.rs` file under `dir` (relative to the workspace root), as (path, text), sorted: for
/// tests that hold a crate's source to a rule clippy cannot state.
pub fn sources(dir: &str) -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    out
}

/// The workspace root (this crate sits in `crates/testkit`).
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
