//! What the catalog reads: the content folder and the names that make a post there, the folder
//! paths are shown from, and the further folders a site-root image path may come from.

use crate::layout::Names;
use std::path::PathBuf;

/// A project may name at most this many `static_dirs`: each is looked in for every site-root
/// image, and a site has one or two (Hugo's `static/`, a theme's).
pub const MAX_STATIC_DIRS: usize = 16;

/// Everything `Catalog::scan` reads from, built once from the config (`Config::sources`) so
/// the run, the dry run, `status` and `check` find the same posts and the same images.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    /// The content folder: the posts, their images, and the first place a site-root image
    /// path (`/img/x.png`) is looked for.
    pub root: PathBuf,
    /// The project folder: paths in messages are shown relative to it.
    pub project: PathBuf,
    /// The file names that make a post (`keys`).
    pub names: Names,
    /// The folders a site-root image path is looked for in after the content folder, in
    /// order (`static_dirs`; none by default). Each is a folder inside the project, checked
    /// when the config was read.
    pub static_dirs: Vec<PathBuf>,
    /// The configured zone, when a post's front matter `date` says when it is due (`times =
    /// "front-matter"`); `None`: it is not read.
    pub times: Option<jiff::tz::TimeZone>,
}
