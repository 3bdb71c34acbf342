//! The content folder: find every `YYYY-MM-DD.md` below it, without reading the posts yet.

use crate::clock::{looks_like_key, parse_key};
use crate::error::{Class, Error};
use crate::post::{self, Post};
use jiff::civil::Date;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// What the walk found. Posts are read only when a decision needs them (`Catalog::post`).
#[derive(Debug, Default)]
pub struct Catalog {
    root: PathBuf,
    project: PathBuf,
    /// Every key with the file(s) named after it; two files for one key is an error for that key.
    pub files: BTreeMap<Date, Files>,
    /// Files that could not become a key (impossible dates, unreadable folders).
    pub problems: Vec<Error>,
    /// Files that are not posts, with the reason, for `check`.
    pub ignored: Vec<(PathBuf, &'static str)>,
}

impl Catalog {
    /// Walk `root` (the content folder). `project` is the folder paths are shown relative to.
    pub fn scan(root: &Path, project: &Path) -> Result<Catalog, Error> {
        let shown = |p: &Path| p.strip_prefix(project).unwrap_or(p).to_path_buf();
        match std::fs::metadata(root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::config("the content folder is not a folder").at(shown(root)));
            }
            Err(e) => {
                return Err(
                    Error::config(format!("cannot read the content folder: {e}"))
                        .at(shown(root))
                        .hint("create it, or set `content` in dayrun.toml"),
                );
            }
        }
        let mut catalog = Catalog {
            root: root.to_path_buf(),
            project: project.to_path_buf(),
            ..Catalog::default()
        };
        let walk = WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            // Hidden folders (.git) are not walked; hidden files are listed for `check`.
            .filter_entry(|e| {
                e.depth() == 0 || !(e.file_type().is_dir() && name_of(e.path()).starts_with(b"."))
            });
        let prefix = root.as_os_str().len();
        for entry in walk {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let path = e.path().map(shown).unwrap_or_else(|| shown(root));
                    let msg = e
                        .io_error()
                        .map_or_else(|| e.to_string(), |io| io.to_string());
                    catalog.problems.push(
                        Error::failure(Class::Local, format!("cannot read: {msg}"))
                            .at(path)
                            .hint("posts below it are not seen; fix its permissions"),
                    );
                    continue;
                }
            };
            let path = entry.path();
            let name = String::from_utf8_lossy(name_of(path));
            if entry.file_type().is_dir() {
                continue;
            }
            if entry.path_is_symlink() {
                catalog
                    .ignored
                    .push((shown(path), "symbolic link (not followed)"));
                continue;
            }
            if is_leftover(&name) {
                catalog.ignored.push((shown(path), "editor leftover"));
                continue;
            }
            if name.starts_with('.') {
                catalog.ignored.push((shown(path), "hidden file"));
                continue;
            }
            let Some(stem) = name.strip_suffix(".md") else {
                catalog.ignored.push((shown(path), "not a .md file"));
                continue;
            };
            match parse_key(stem) {
                Some(key) => {
                    let relative: Box<Path> = relative_to(path, prefix).into();
                    match catalog.files.entry(key) {
                        std::collections::btree_map::Entry::Occupied(mut files) => {
                            files.get_mut().more.get_or_insert_default().push(relative)
                        }
                        std::collections::btree_map::Entry::Vacant(slot) => {
                            slot.insert(Files {
                                first: relative,
                                more: None,
                            });
                        }
                    }
                }
                None if looks_like_key(stem) => catalog.problems.push(
                    Error::failure(Class::Local, format!("`{stem}` is not a real date"))
                        .at(shown(path))
                        .hint("rename the file to the date it is meant for"),
                ),
                None if stem.len() == 8 && stem.bytes().all(|b| b.is_ascii_digit()) => {
                    catalog.problems.push(
                        Error::failure(Class::Local, "not a post: the name must be YYYY-MM-DD.md")
                            .at(shown(path))
                            .hint(format!(
                                "rename it to {}-{}-{}.md",
                                &stem[..4],
                                &stem[4..6],
                                &stem[6..]
                            )),
                    )
                }
                None => catalog
                    .ignored
                    .push((shown(path), "name is not YYYY-MM-DD.md")),
            }
        }
        // Unsorted walk (sorting 100k names costs more than the walk); keys are ordered by the
        // map, and the files of a duplicated key are sorted here so messages are stable.
        for files in catalog.files.values_mut() {
            if let Some(more) = files.more.as_mut() {
                more.push(files.first.clone());
                more.sort();
                files.first = more.remove(0);
            }
        }
        // Built in walk order, the map's nodes are half empty; rebuilt from its sorted entries
        // they are full (100k posts: about 3 MB less, held for the whole run).
        catalog.files = std::mem::take(&mut catalog.files).into_iter().collect();
        catalog.ignored.sort();
        Ok(catalog)
    }

    /// Read and derive the post for `key`, its images read and cleaned (what a target needs).
    pub fn post(&self, key: Date) -> Result<Post, Error> {
        let mut post = self.text(key)?;
        let path = &self.files[&key].first;
        crate::images::load(&mut post, &self.root.join(path), &self.root, &self.project)?;
        Ok(post)
    }

    /// Read and derive the post for `key` without reading its images (`images` is empty):
    /// enough for its title, draft flag and fingerprint.
    pub fn text(&self, key: Date) -> Result<Post, Error> {
        let files = self
            .files
            .get(&key)
            .ok_or_else(|| Error::failure(Class::Local, format!("no file for {key}")))?;
        let full = |p: &Path| self.root.join(p);
        let shown = |p: &Path| {
            full(p)
                .strip_prefix(&self.project)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| full(p))
        };
        if let Some(two) = files.more.as_ref().and_then(|more| more.first()) {
            let one = &files.first;
            return Err(Error::failure(
                Class::Local,
                format!(
                    "two files for {key}: {} and {}; nothing is published for this date",
                    shown(one).display(),
                    shown(two).display()
                ),
            )
            .hint("keep one file per date"));
        }
        let path = &files.first;
        post::read(key, &full(path), &shown(path), dir_tags(path))
    }
}

/// The file(s) named after one key, relative to the content folder.
#[derive(Debug)]
pub struct Files {
    first: Box<Path>,
    /// Further files for the same key: an error for that key.
    /// (Boxed, 8 bytes instead of 24: most keys have none, and the map holds one per post.)
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<Box<Path>>>>,
}

/// Folder names between the content root and the file (a path relative to it), except purely
/// numeric ones (`2026/11/` organises, it does not describe).
fn dir_tags(relative: &Path) -> Vec<String> {
    relative
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|name| !name.bytes().all(|b| b.is_ascii_digit()))
        .collect()
}

/// The last component's bytes. (Path::file_name parses components; a walk of 100k files
/// calls this twice per file.)
fn name_of(path: &Path) -> &[u8] {
    let bytes = path.as_os_str().as_bytes();
    bytes.rsplit(|b| *b == b'/').next().unwrap_or(bytes)
}

/// `path` without the first `prefix` bytes and the separator after them (walkdir yields every
/// path as the root joined with the rest).
fn relative_to(path: &Path, prefix: usize) -> &Path {
    let bytes = path.as_os_str().as_bytes();
    let rest = bytes.get(prefix..).unwrap_or(bytes);
    Path::new(OsStr::from_bytes(rest.strip_prefix(b"/").unwrap_or(rest)))
}

fn is_leftover(name: &str) -> bool {
    name.ends_with('~')
        || name.starts_with(".#")
        || (name.starts_with('#') && name.ends_with('#'))
        || name.ends_with(".swp")
        || name.ends_with(".swo")
        || name.ends_with(".tmp")
}
