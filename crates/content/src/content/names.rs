//! What a file's name makes it to the catalog: a post, a problem to show, a file to list as
//! ignored, or an image beside the posts.

use crate::clock::{looks_like_key, parse_key};
use crate::error::{Class, Error};
use std::path::PathBuf;

/// What one file (not a folder) below the root is to the catalog.
pub(super) enum Sorted {
    Post(life::Key),
    Problem(Error),
    Ignored(&'static str),
    /// Images sit beside the posts that show them.
    Image,
}

/// Sort the file `name`; `at` is its path as shown, built only when it is needed.
pub(super) fn sort_file(name: &str, is_symlink: bool, at: &dyn Fn() -> PathBuf) -> Sorted {
    if is_symlink {
        return Sorted::Ignored("symbolic link (not followed)");
    }
    if is_leftover(name) {
        return Sorted::Ignored("editor leftover");
    }
    if name.starts_with('.') {
        return Sorted::Ignored("hidden file");
    }
    match name.strip_suffix(".md") {
        Some(stem) => sort_stem(stem, at),
        None => sort_other(name, at),
    }
}

/// Sort a file not named `*.md`: a dated post under another markdown name is never published,
/// said on every run, not skipped in silence.
fn sort_other(name: &str, at: &dyn Fn() -> PathBuf) -> Sorted {
    match name.split_once('.') {
        Some((stem, ext)) if parse_key(stem).is_some() && is_markdown(ext) => Sorted::Problem(
            Error::failure(
                Class::Local,
                "a dated post that is never published: its name must end in `.md`",
            )
            .at(at())
            .hint(format!("rename it to {stem}.md")),
        ),
        Some((_, ext)) if is_image(ext) => Sorted::Image,
        _ => Sorted::Ignored("not a .md file"),
    }
}

/// Sort a `*.md` file by its `stem`: a post, a date that is not real, an undashed date, or
/// some other name.
fn sort_stem(stem: &str, at: &dyn Fn() -> PathBuf) -> Sorted {
    match parse_key(stem) {
        Some(key) => Sorted::Post(life::Key::of_day(key)),
        None if looks_like_key(stem) => Sorted::Problem(
            Error::failure(Class::Local, format!("`{stem}` is not a real date"))
                .at(at())
                .hint("rename the file to the date it is meant for"),
        ),
        None if stem.len() == 8 && stem.bytes().all(|b| b.is_ascii_digit()) => Sorted::Problem(
            Error::failure(Class::Local, "not a post: the name must be YYYY-MM-DD.md")
                .at(at())
                .hint(format!(
                    "rename it to {}-{}-{}.md",
                    &stem[..4],
                    &stem[4..6],
                    &stem[6..]
                )),
        ),
        None => Sorted::Ignored("name is not YYYY-MM-DD.md"),
    }
}

/// Another name for a markdown file (`2026-11-25.MD`, `.markdown`): a post dayrun would miss.
fn is_markdown(ext: &str) -> bool {
    [
        "md", "markdown", "mdown", "mkd", "mkdn", "mdwn", "mdtxt", "txt",
    ]
    .iter()
    .any(|e| ext.eq_ignore_ascii_case(e))
}

/// An image's file name: not a post, and not worth a line in `check`.
fn is_image(ext: &str) -> bool {
    ["jpg", "jpeg", "png", "gif", "webp", "svg", "avif", "heic"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
}

fn is_leftover(name: &str) -> bool {
    name.ends_with('~')
        || name.starts_with(".#")
        || (name.starts_with('#') && name.ends_with('#'))
        || name.ends_with(".swp")
        || name.ends_with(".swo")
        || name.ends_with(".tmp")
}
