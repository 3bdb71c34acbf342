//! `static_dirs`: the folders besides the content folder that a site-root image path
//! (`/img/x.png`) may come from, each checked once when the config is read: a folder, inside
//! the project, at most `MAX_STATIC_DIRS` of them.

use crate::error::Error;
use content::content::MAX_STATIC_DIRS;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// `static_dirs` as written: the list, and each entry, with where it is in the file.
pub(super) type Written = Spanned<Vec<Spanned<String>>>;

/// Where the file's paths are resolved and what they must stay in.
pub(super) struct Place<'a> {
    /// The config file's text, for line numbers.
    pub text: &'a str,
    /// The config file as shown in messages.
    pub shown: &'a Path,
    /// The config file's folder: relative entries start here.
    pub base: &'a Path,
    /// The project folder: every static folder is inside it (or inside `base`).
    pub project: &'a Path,
}

/// The static folders `written` names, resolved from the config's folder, in order. An entry
/// that is no folder or lies outside the project, or more than `MAX_STATIC_DIRS` entries, is a
/// config error at the file and line.
pub(super) fn read(written: Option<Written>, place: &Place) -> Result<Vec<PathBuf>, Error> {
    let Some(written) = written else {
        return Ok(Vec::new());
    };
    let at = |span: std::ops::Range<usize>, message: String| {
        Error::config(message)
            .at(place.shown)
            .line(crate::line_at(place.text, span.start))
    };
    if written.get_ref().len() > MAX_STATIC_DIRS {
        let message = format!(
            "`static_dirs` names {} folders; at most {MAX_STATIC_DIRS} are allowed",
            written.get_ref().len()
        );
        return Err(at(written.span(), message)
            .hint("name only the folders a post's site-root images come from, e.g. `static_dirs = [\"static\"]`"));
    }
    let inside = [place.project, place.base].map(real);
    let mut dirs = Vec::new();
    for entry in written.into_inner() {
        let shown = life::outside::escape(entry.get_ref(), 60);
        let dir = place.base.join(entry.get_ref());
        let why = problem(entry.get_ref(), &dir, &inside);
        if let Some((why, hint)) = why {
            let message = format!("`static_dirs`: `{shown}` {why}");
            return Err(at(entry.span(), message).hint(hint));
        }
        dirs.push(dir);
    }
    Ok(dirs)
}

/// What is wrong with the entry `written`, resolved to `dir`, and what to do; `inside`: the
/// real folders it must be below.
fn problem(written: &str, dir: &Path, inside: &[PathBuf]) -> Option<(&'static str, &'static str)> {
    if written.is_empty() {
        return Some(("is empty", "name a folder, e.g. \"static\""));
    }
    match std::fs::metadata(dir) {
        Err(_) => Some((
            "is not a folder that can be read",
            "create it, or take it out of `static_dirs`",
        )),
        Ok(m) if !m.is_dir() => Some((
            "is not a folder",
            "name the folder your site's static files are in",
        )),
        Ok(_) if !inside.iter().any(|i| real(dir).starts_with(i)) => Some((
            "is outside the project",
            "name a folder inside the project, relative to dayrun.toml (symbolic links are followed)",
        )),
        Ok(_) => None,
    }
}

/// `path` with its symbolic links and `..` resolved, as far as it exists.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
