//! The content folder: find every post below it (`YYYY-MM-DD.md`; with slugged keys,
//! `YYYY-MM-DD-slug.md` and `.markdown` too), without reading the posts yet.

use crate::error::{Class, Error};
use crate::post::{self, Post};
use jiff::civil::Date;
use life::Key;
use life::key::Slugs;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

mod names;
pub use crate::layout::Names;
pub use crate::sources::{MAX_STATIC_DIRS, Sources};
use names::{Sorted, sort_bundle, sort_file};

/// What the walk found. Posts are read only when a decision needs them (`Catalog::post`).
#[derive(Debug, Default)]
pub struct Catalog {
    /// What the walk read: the content folder, the names, where images come from.
    sources: Sources,
    /// Every key with the file(s) named after it; two files for one key is an error for that key.
    pub files: BTreeMap<Key, Files>,
    /// Files that could not become a key (impossible dates, unreadable folders).
    pub problems: Vec<Error>,
    /// Files that are not posts, with the reason, for `check`.
    pub ignored: Vec<(PathBuf, &'static str)>,
}

impl Catalog {
    /// Walk the content folder of `sources` for posts with the names it takes; their images
    /// are read later from the folders it names (`post`, `image_errors`).
    pub fn scan(sources: &Sources) -> Result<Catalog, Error> {
        check_root(&sources.root, &sources.project)?;
        let mut catalog = Catalog {
            sources: sources.clone(),
            ..Catalog::default()
        };
        let found = catalog.walk();
        catalog.files = by_key(found);
        catalog.ignored.sort();
        Ok(catalog)
    }

    /// The walk: a stack of open folders, each entry seen by its name alone (no path is built
    /// for it unless it is a post, or reported). `rel` is the folder being read, relative to
    /// the root; each stack level remembers how long `rel` is for it. Returns the posts found,
    /// unsorted.
    fn walk(&mut self) -> Vec<Found> {
        let mut found: Vec<Found> = Vec::new();
        let mut stack: Vec<(std::fs::ReadDir, usize)> = Vec::new();
        let mut rel: Vec<u8> = Vec::new();
        // Every slugged key's slug, kept in blocks rather than one allocation each.
        let mut slugs = life::key::Slugs::together();
        match std::fs::read_dir(&self.sources.root) {
            Ok(entries) => stack.push((entries, 0)),
            Err(e) => {
                self.problems
                    .push(cannot_read(&self.sources.project, &self.sources.root, &e))
            }
        }
        while let Some((entries, len)) = stack.last_mut() {
            let len = *len;
            let Some(entry) = entries.next() else {
                stack.pop();
                continue;
            };
            rel.truncate(len);
            let entry = match entry {
                Ok(entry) => entry,
                // An entry the folder listing itself failed on has no name to show.
                Err(e) => {
                    self.problems
                        .push(cannot_read(&self.sources.project, &self.sources.root, &e));
                    continue;
                }
            };
            let file_name = entry.file_name();
            let file_type = match entry.file_type() {
                Ok(file_type) => file_type,
                Err(e) => {
                    let path = self.sources.root.join(below(&rel, &file_name));
                    self.problems
                        .push(cannot_read(&self.sources.project, &path, &e));
                    continue;
                }
            };
            if file_type.is_dir() {
                if let Some(entries) = self.open_folder(&mut rel, &file_name) {
                    stack.push((entries, rel.len()));
                }
                continue;
            }
            let found = (&mut found, &mut slugs);
            self.file(found, &rel, &file_name, file_type.is_symlink());
        }
        found
    }

    /// Open the folder `name` in `rel` to be walked next, making `rel` its path; `None` for a
    /// hidden folder, a generator's output in the blog layout (listed for `check`), or one that
    /// cannot be read (a problem).
    fn open_folder(&mut self, rel: &mut Vec<u8>, name: &OsStr) -> Option<std::fs::ReadDir> {
        // Hidden folders (.git) are not walked; hidden files are listed for `check`.
        if name.as_bytes().starts_with(b".") {
            return None;
        }
        let folder = below(rel, name);
        let path = self.sources.root.join(&folder);
        if self.sources.names.layout().never_scanned(name.as_bytes()) {
            let why = "a built site or installed files (blog layout): not scanned";
            self.ignored
                .push((relative_to(&self.sources.project, &path), why));
            return None;
        }
        match std::fs::read_dir(&path) {
            Ok(entries) => {
                *rel = folder.into_os_string().into_vec();
                Some(entries)
            }
            Err(e) => {
                self.problems
                    .push(cannot_read(&self.sources.project, &path, &e));
                None
            }
        }
    }

    /// File the entry `file_name` in `rel` (not a folder): a post into `found`, anything else
    /// into `ignored` or `problems`, or nowhere (an image).
    /// `slugs`: where the keys' slugs are kept (`Key::parse_in`).
    fn file(
        &mut self,
        (found, slugs): (&mut Vec<Found>, &mut Slugs),
        rel: &[u8],
        file_name: &OsStr,
        is_symlink: bool,
    ) {
        let at = || {
            relative_to(
                &self.sources.project,
                &self.sources.root.join(below(rel, file_name)),
            )
        };
        let name = match std::str::from_utf8(file_name.as_bytes()) {
            Ok(name) => std::borrow::Cow::Borrowed(name),
            Err(_) => String::from_utf8_lossy(file_name.as_bytes()),
        };
        // A page bundle (`2026-12-01-my-post/index.md`): its folder names the post.
        let folder = rel.rsplit(|b| *b == b'/').next().filter(|f| !f.is_empty());
        let sorted = match folder.filter(|_| self.sources.names.slugs && !is_symlink) {
            Some(folder) if crate::layout::is_index(&name) => {
                match sort_bundle(&String::from_utf8_lossy(folder), slugs, &at) {
                    Sorted::Post(key) if key.is_drill() => {
                        names::drill(key, self.sources.names.drill, &at)
                    }
                    sorted => sorted,
                }
            }
            _ => sort_file(&name, is_symlink, (self.sources.names, slugs), &at),
        };
        match sorted {
            Sorted::Post(key) => found.push((
                key,
                Files {
                    first: below(rel, file_name).into_boxed_path(),
                    more: None,
                },
            )),
            Sorted::Problem(error) => self.problems.push(error),
            Sorted::Ignored(why) => self.ignored.push((at(), why)),
            Sorted::Image => {}
        }
    }

    /// Whether the catalog takes slugged keys (`keys = ["date", "slug"]`).
    pub fn slugged(&self) -> bool {
        self.sources.names.slugs
    }

    /// When the post's file for `key` was last modified (one `stat`, nothing read); `None`: no
    /// file, or the file system does not say.
    pub fn modified(
        &self,
        key: Key,
        mtimes: &mut crate::fsutil::Mtimes,
    ) -> Option<std::time::SystemTime> {
        let files = self.files.get(&key)?;
        mtimes.of(&self.sources.root.join(&files.first))
    }

    /// Read and derive the post for `key`, its images read and cleaned (what a target needs).
    pub fn post(&self, key: Key) -> Result<Post, Error> {
        let mut post = self.text(key)?;
        let path = &self.files[&key].first;
        post.images = crate::images::load(
            &post.image_refs,
            &post.path,
            &self.sources.root.join(path),
            &self.sources,
        )?;
        Ok(post)
    }

    /// Every problem with the images of `post` (read with `text`), one error per image: what
    /// `check` shows, where a run stops at the first. Each image is read alone.
    pub fn image_errors(&self, post: &Post) -> Vec<Error> {
        let Some(files) = self.files.get(&post.key) else {
            return Vec::new();
        };
        let file = self.sources.root.join(&files.first);
        post.image_refs
            .iter()
            .filter_map(|r| {
                let one = std::slice::from_ref(r);
                crate::images::load(one, &post.path, &file, &self.sources).err()
            })
            .collect()
    }

    /// Read and derive the post for `key` without reading its images (`images` is empty):
    /// enough for its title, draft flag and fingerprint.
    pub fn text(&self, key: Key) -> Result<Post, Error> {
        let files = self
            .files
            .get(&key)
            .ok_or_else(|| Error::failure(Class::Local, format!("no file for {key}")))?;
        if let Some(err) = self.two_files(key) {
            return Err(err);
        }
        let path = &files.first;
        let full = self.sources.root.join(path);
        let layout = self.sources.names.layout();
        let origin = post::Origin {
            layout,
            folder_tags: layout.folder_tags(path, key),
            in_drafts: layout.in_drafts(path),
            times: self.sources.times.clone(),
        };
        post::read(key, &full, &self.shown(&full), origin)
    }

    /// What needs a human before the posts are looked at: files that never become a post, and
    /// future dates named by two files (a date fails the day it is due; said from today, while
    /// there is time to fix it). Due keys with two files fail as keys instead.
    pub fn standing_problems(&self, today: Date) -> Vec<Error> {
        let future = self
            .files
            .range(Key::of_day(today.tomorrow().unwrap_or(today))..)
            .filter_map(|(key, _)| self.two_files(*key));
        self.problems.iter().cloned().chain(future).collect()
    }

    /// The error of a key named by two files, if it is.
    pub fn two_files(&self, key: Key) -> Option<Error> {
        let files = self.files.get(&key)?;
        let two = files.more.as_ref().and_then(|more| more.first())?;
        Some(
            Error::failure(
                Class::Local,
                format!(
                    "two files for {key}: {} and {}; nothing is published for this {}",
                    self.shown(&self.sources.root.join(&files.first)).display(),
                    self.shown(&self.sources.root.join(two)).display(),
                    if key.slug().is_some() { "key" } else { "date" }
                ),
            )
            .hint(match key.slug() {
                Some(_) => "keep one file per key",
                None => "keep one file per date",
            }),
        )
    }

    /// A path as the user sees it: relative to the project folder where it is below it.
    fn shown(&self, full: &Path) -> PathBuf {
        relative_to(&self.sources.project, full)
    }
}

/// A path as the user sees it: relative to `project` where it is below it.
fn relative_to(project: &Path, full: &Path) -> PathBuf {
    full.strip_prefix(project)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| full.to_path_buf())
}

/// The content folder must be a folder, or there is nothing to walk.
fn check_root(root: &Path, project: &Path) -> Result<(), Error> {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => {
            Err(Error::config("the content folder is not a folder").at(relative_to(project, root)))
        }
        Err(e) => Err(
            Error::config(format!("cannot read the content folder: {e}"))
                .at(relative_to(project, root))
                .hint("create it, or set `content` in dayrun.toml"),
        ),
    }
}

/// The problem of a folder (or entry) that cannot be read.
fn cannot_read(project: &Path, path: &Path, e: &std::io::Error) -> Error {
    Error::failure(Class::Local, format!("cannot read: {e}"))
        .at(relative_to(project, path))
        .hint("posts below it are not seen; fix its permissions")
}

/// `rel` + `/` + the name: the entry's path below the root.
fn below(rel: &[u8], file_name: &OsStr) -> PathBuf {
    let mut path = Vec::with_capacity(rel.len() + 1 + file_name.len());
    path.extend_from_slice(rel);
    if !rel.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(file_name.as_bytes());
    PathBuf::from(std::ffi::OsString::from_vec(path))
}

/// Each post found, with its key (which sorts as cheaply as an integer: `Key`).
type Found = (Key, Files);

/// The posts found, unsorted walk, into the map: sorted here by key, the files of a duplicated
/// key by path (so messages are stable), then the map is built from them at once (full B-tree
/// nodes, no search per post).
fn by_key(mut found: Vec<Found>) -> BTreeMap<Key, Files> {
    found.sort_unstable_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.first.cmp(&y.first)));
    found.dedup_by(|(key, later), (first, files)| {
        if key != first {
            return false;
        }
        let path = std::mem::replace(&mut later.first, PathBuf::new().into_boxed_path());
        files.more.get_or_insert_default().push(path);
        true
    });
    found.into_iter().collect()
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
