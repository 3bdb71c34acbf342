//! What a file's name makes it to the catalog: a post, a problem to show, a file to list as
//! ignored, or an image beside the posts.

use crate::clock::{looks_like_key, parse_key};
use crate::error::{Class, Error};
use crate::layout::Names;
use life::key::Slugs;
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
pub(super) fn sort_file(
    name: &str,
    is_symlink: bool,
    (names, slugs): (Names, &mut Slugs),
    at: &dyn Fn() -> PathBuf,
) -> Sorted {
    if is_symlink {
        return Sorted::Ignored("symbolic link (not followed)");
    }
    if is_leftover(name) {
        return Sorted::Ignored("editor leftover");
    }
    if name.starts_with('.') {
        return Sorted::Ignored("hidden file");
    }
    let markdown = match names.slugs {
        true => name.strip_suffix(".md").or(name.strip_suffix(".markdown")),
        false => name.strip_suffix(".md"),
    };
    let drilled = markdown.filter(|stem| stem.contains("--drill-"));
    if let Some(key) = drilled.and_then(|stem| life::Key::parse_in(stem, slugs)) {
        return drill(key, names.drill, at);
    }
    match markdown {
        Some(stem) if (names.weeks || names.months) && stem.len() < 10 => {
            sort_period(stem, names, at)
        }
        Some(stem) if names.slugs && stem.len() > 10 => sort_slugged(stem, slugs, at),
        Some(stem) => sort_stem(stem, at),
        None => sort_other(name, at),
    }
}

/// A drill's post (`YYYY-MM-DD--drill-TAG`): one in the drill's own folder (`taken`), else a
/// problem naming the file. So no real key is a drill's, and no drill copy is taken for one.
pub(super) fn drill(key: life::Key, taken: bool, at: &dyn Fn() -> PathBuf) -> Sorted {
    match taken {
        true => Sorted::Post(key),
        false => Sorted::Problem(
            Error::failure(
                Class::Local,
                format!("`{key}` is a name kept for `dayrun drill`'s throwaway posts"),
            )
            .at(at())
            .hint("rename the file: a post's slug has single dashes (`YYYY-MM-DD-my-post.md`)"),
        ),
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

/// Sort a page bundle's `index.md` by its folder's name, as a file of that name is sorted:
/// a post (`2026-12-01`, `2026-12-01-my-post`), a problem naming the file, or another page.
pub(super) fn sort_bundle(folder: &str, slugs: &mut Slugs, at: &dyn Fn() -> PathBuf) -> Sorted {
    let sorted = match folder.len() > 10 {
        true => sort_slugged(folder, slugs, at),
        false => sort_stem(folder, at),
    };
    match sorted {
        Sorted::Ignored(_) => Sorted::Ignored("an index.md whose folder is not YYYY-MM-DD[-slug]"),
        Sorted::Problem(err) => {
            let name = match folder.split_at_checked(10) {
                Some((day, rest)) if rest.len() > 1 => format!("{day}-{}", suggest(&rest[1..])),
                _ => "the date it is meant for".into(),
            };
            Sorted::Problem(err.hint(format!("rename the folder to {name}")))
        }
        sorted => sorted,
    }
}

/// Sort a markdown file whose `stem` is longer than a date, with slugged keys on: a post
/// `YYYY-MM-DD-slug`, a slug that is not one (an error naming the file), or another name.
fn sort_slugged(stem: &str, slugs: &mut Slugs, at: &dyn Fn() -> PathBuf) -> Sorted {
    if let Some(key) = life::Key::parse_in(stem, slugs) {
        return Sorted::Post(key);
    }
    let Some((day, slug)) = stem.split_at_checked(10) else {
        return Sorted::Ignored("name is not YYYY-MM-DD[-slug].md");
    };
    match (parse_key(day), slug.strip_prefix('-')) {
        (Some(_), Some(slug)) => Sorted::Problem(
            Error::failure(
                Class::Local,
                format!(
                    "`{}` is not a slug: a slug is lower-case letters, digits and single dashes",
                    crate::outside::escape(slug, 80)
                ),
            )
            .at(at())
            .hint(format!(
                "rename the file to {day}-{}.md ({} characters at most for the whole name)",
                suggest(slug),
                life::key::MAX_KEY
            )),
        ),
        (None, Some(_)) if looks_like_key(day) => Sorted::Problem(
            Error::failure(Class::Local, format!("`{day}` is not a real date"))
                .at(at())
                .hint("rename the file to the date it is meant for"),
        ),
        _ => Sorted::Ignored("name is not YYYY-MM-DD[-slug].md"),
    }
}

/// Sort a markdown file whose `stem` is shorter than a date, with week or month keys on: a
/// week's post `YYYY-Www`, a month's `YYYY-MM` (each only when `keys` takes it), a week or
/// month that does not exist (an error naming the file), or another name.
fn sort_period(stem: &str, names: Names, at: &dyn Fn() -> PathBuf) -> Sorted {
    let week = stem.len() == 8 && stem.as_bytes().get(5) == Some(&b'W');
    let (taken, shape) = match (week, stem.len()) {
        (true, _) => (
            names.weeks,
            "YYYY-Www (an ISO week: 01 to 52, or 53 in a year that has it)",
        ),
        (false, 7) => (names.months, "YYYY-MM"),
        _ => return Sorted::Ignored("name is not a post's"),
    };
    let shaped = stem.bytes().enumerate().all(|(i, b)| match i {
        4 => b == b'-',
        5 if week => true,
        _ => b.is_ascii_digit(),
    });
    match life::Key::parse(stem) {
        Some(key) if taken => Sorted::Post(key),
        None if taken && shaped => Sorted::Problem(
            Error::failure(Class::Local, format!("`{stem}` is not a real {shape}"))
                .at(at())
                .hint("rename the file to the week or month it is meant for"),
        ),
        _ => Sorted::Ignored("name is not a post's"),
    }
}

/// A slug made of `text`: lower-case letters and digits, single dashes between words.
fn suggest(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    match words.is_empty() {
        true => "post".into(),
        false => words.join("-"),
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
