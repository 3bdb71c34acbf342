//! Links back: `links_file` maps each published key to its copies' URLs and ids on every target,
//! for a static site's templates ("discuss this on Mastodon", canonical links). Written
//! atomically after a run that changed something; byte for byte the same when nothing did.

use crate::config::Config;
use crate::error::{Error, Kind};
use crate::fsutil;
use crate::life::{KeyLine, Phase};
use crate::state::StateFile;
use std::collections::BTreeMap;

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
            if let Some(id) = &line.copies.current.id {
                copy.insert("id".into(), id.clone().into());
            }
            // Only a web URL goes to a site's templates (a line may hold an older answer).
            if let Some(url) = crate::outside::web_url(line.copies.current.url.as_deref()) {
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
