//! Links back: `links_file` maps each published key to its copies' URLs and ids on every target,
//! for a static site's templates ("discuss this on Mastodon", canonical links). Written
//! atomically after a run that changed something; byte for byte the same when nothing did.

use crate::config::Config;
use crate::error::{Error, Kind};
use crate::fsutil;
use crate::life::{KeyLine, Phase};
use crate::state::StateFile;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// A `links_file` among dayrun's own files or the user's posts is a config error before
/// anything runs: written there, it would replace a state file, a journal, the config or a
/// post (and lose it). `written` is the setting as the user wrote it, for the message.
pub fn check_place(
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

/// Write the links file, if one is configured, from every target's state file.
pub fn write(config: &Config) -> Result<(), Error> {
    let Some(path) = &config.links_file else {
        return Ok(());
    };
    let shown = config.show(&config.state);
    let mut links: BTreeMap<String, BTreeMap<&str, serde_json::Value>> = BTreeMap::new();
    let mut states = Vec::new();
    for target in &config.targets {
        states.push((
            target,
            StateFile::load(&config.state, &target.name, &shown)?,
        ));
    }
    for (target, state) in &states {
        for line in state.records().map(KeyLine::of) {
            if line.phase != Phase::Done {
                continue;
            }
            let mut copy = serde_json::Map::new();
            if let Some(id) = &line.copy.id {
                copy.insert("id".into(), id.clone().into());
            }
            // Only a web URL goes to a site's templates (a line may hold an older answer).
            if let Some(url) = crate::outside::web_url(line.copy.url.as_deref()) {
                copy.insert("url".into(), url.into());
            }
            links
                .entry(line.key.to_string())
                .or_default()
                .insert(&target.name, copy.into());
        }
    }
    let mut text = serde_json::to_string_pretty(&links).expect("links serialise");
    text.push('\n');
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    let shown = config.show(path);
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| fsutil::write_atomic(path, text.as_bytes()))
        .map_err(|e| Error::io(Kind::State, &shown, "write the links file", &e))
}
