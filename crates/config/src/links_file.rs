//! Where a `links_file` may go: never over one of dayrun's own files or the user's posts.

use crate::error::Error;
use std::path::{Component, Path, PathBuf};

/// A `links_file` among dayrun's own files or the user's posts is a config error before
/// anything runs: written there, it would replace a state file, a journal, the config or a
/// post (and lose it). `written` is the setting as the user wrote it, for the message.
pub(super) fn check_place(
    links: &Path,
    written: &Path,
    state: &Path,
    content: &Path,
    config: Option<&Path>,
) -> Result<(), Error> {
    let links = resolved(links);
    let inside = |folder: &Path, what: &str| {
        links
            .starts_with(resolved(folder))
            .then(|| what.to_string())
    };
    let why = inside(
        state,
        "inside the state folder, where dayrun keeps its own files",
    )
    .or_else(|| inside(content, "inside the content folder, among the posts"))
    .or_else(|| {
        config
            .filter(|c| resolved(c) == links)
            .map(|_| "the config file itself".to_string())
    });
    match why {
        None => Ok(()),
        Some(why) => Err(Error::config(format!(
            "`links_file = \"{}\"` is {why}",
            written.display()
        ))
        .hint("write the links where your site reads its data, e.g. `links_file = \"data/syndication.json\"`")),
    }
}

/// `path` with `.` and `..` taken out, and its longest existing ancestor's links resolved.
fn resolved(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    let mut rest = Vec::new();
    let mut base = lexical.as_path();
    loop {
        if let Ok(real) = base.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                base = parent;
            }
            _ => return lexical,
        }
    }
}
