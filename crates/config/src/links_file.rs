//! Where a file dayrun writes for others (`links_file`, `metrics_file`) may go: never over one
//! of dayrun's own files or the user's posts.

use crate::error::Error;
use std::path::{Component, Path, PathBuf};

/// What such a file must keep out of: the state and content folders, the config file.
pub struct Place<'a> {
    pub state: &'a Path,
    pub content: &'a Path,
    pub config: Option<&'a Path>,
}

impl Place<'_> {
    /// A file (`setting`: its setting's name or flag) among dayrun's own files or the user's
    /// posts is a config error before anything runs: written there, it would replace a state
    /// file, a journal, the config or a post (and lose it). `written` is the path as the user
    /// wrote it, for the message.
    pub fn check(&self, setting: &str, path: &Path, written: &Path) -> Result<(), Error> {
        check_place(setting, path, written, self)
    }
}

fn check_place(setting: &str, links: &Path, written: &Path, place: &Place) -> Result<(), Error> {
    let Place {
        state,
        content,
        config,
    } = *place;
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
        Some(why) => Err(Error::config(match setting.starts_with("--") {
            true => format!("`{setting} {}` is {why}", written.display()),
            false => format!("`{setting} = \"{}\"` is {why}", written.display()),
        })
        .hint(match setting {
            "--html" => "write the calendar beside the project, e.g. `--html calendar.html`",
            "links_file" => "write the links where your site reads its data, e.g. `links_file = \"data/syndication.json\"`",
            _ => "write the metrics where node_exporter's textfile collector reads, e.g. `metrics_file = \"/var/lib/prometheus/node-exporter/dayrun.prom\"`",
        })),
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
