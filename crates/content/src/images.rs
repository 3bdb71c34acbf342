//! A post's images: which local files its markdown and front matter name, read, checked and
//! cleaned (orientation applied, metadata gone) before any target sees a byte of them.

use crate::error::{Class, Error};
use crate::sources::Sources;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod budget;
pub mod clean;
pub mod fit;
mod frames;
mod gif;
mod jpeg;
mod locate;
mod png;
pub mod rewrite;
mod webp;

pub use clean::Format;

/// Image files larger than this are refused (no platform takes them, and a photo never is).
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// A post's images may hold at most this many bytes in all (they are held in memory while the
/// next one is decoded: with `budget`'s pixel limits this keeps one post under 256 MB).
pub const MAX_TOTAL_BYTES: u64 = 50 * 1024 * 1024;
/// A post may name at most this many local images.
pub const MAX_IMAGES: usize = 100;
/// Alt text longer than this (in characters) is refused: Mastodon's limit, the strictest.
pub const MAX_ALT_CHARS: usize = 1500;

/// Where the post names an image: the destination as written, its alt text, and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    pub dest: String,
    pub alt: String,
    pub line: usize,
    /// Named by the front matter's `image:` (the cover).
    pub cover: bool,
}

/// One local image of a post, read and cleaned.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Every destination in the post that names this file, as written.
    pub srcs: Vec<String>,
    /// The file as shown to the user (relative to the project folder).
    pub path: PathBuf,
    /// The file as the site serves it, with `/` (what `image_base_url` is joined to): relative
    /// to the content folder, or to the static folder it was found in.
    pub rel: String,
    pub alt: String,
    /// The line that first names it.
    pub line: usize,
    pub cover: bool,
    /// sha256 hex of `bytes`.
    pub sha256: String,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// What leaves the machine: orientation applied, location and camera metadata removed.
    pub bytes: Arc<[u8]>,
}

impl Image {
    /// The first 16 hex digits of the hash: file names and state lines use it.
    pub fn sha16(&self) -> &str {
        &self.sha256[..16]
    }

    /// `images/cat.jpg` → `cat-<sha16>.jpg`: a name that is the same for the same bytes.
    pub fn hashed_name(&self) -> String {
        let stem: String = Path::new(&self.rel)
            .file_stem()
            .map(|s| s.to_string_lossy().to_lowercase())
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let stem = stem.trim_matches('-');
        let stem = match stem.is_empty() {
            true => "image",
            false => &stem[..stem.len().min(40)],
        };
        format!("{stem}-{}.{}", self.sha16(), self.format.ext())
    }

    /// One more place that names this image: its destination is rewritten too, and its alt
    /// text stands in when the image has none yet.
    fn also_named(&mut self, r: &ImageRef) {
        if !self.named_by(&r.dest) {
            self.srcs.push(r.dest.clone());
        }
        if self.alt.is_empty() {
            self.alt = r.alt.trim().to_string();
        }
    }

    /// Whether the post's destination `dest` names this image.
    pub fn named_by(&self, dest: &str) -> bool {
        self.srcs.iter().any(|s| s == dest)
    }
}

/// The images `markdown` names (in order), with the file line of each; `first_line` is the
/// file line `markdown` starts on. Remote images (`https://…`) are not listed.
pub fn refs(markdown: &str, first_line: usize) -> Vec<ImageRef> {
    let mut found = Vec::new();
    let mut inside: Option<ImageRef> = None;
    let line_of = |at: usize| first_line + markdown[..at].matches('\n').count();
    for (event, range) in
        Parser::new_ext(markdown, crate::text::markdown_options()).into_offset_iter()
    {
        match (&mut inside, event) {
            (None, Event::Start(Tag::Image { dest_url, .. })) => {
                inside = Some(ImageRef {
                    dest: dest_url.to_string(),
                    alt: String::new(),
                    line: line_of(range.start),
                    cover: false,
                });
            }
            (Some(image), Event::Text(t) | Event::Code(t)) => image.alt.push_str(&t),
            (Some(image), Event::SoftBreak | Event::HardBreak) => image.alt.push(' '),
            (Some(_), Event::End(TagEnd::Image)) => {
                let image = inside.take().expect("inside an image");
                if is_local(&image.dest) {
                    found.push(image);
                }
            }
            _ => {}
        }
    }
    found
}

/// A destination that names a file here, not a URL (`https:`, `//host`, `data:`, `#x`).
pub fn is_local(dest: &str) -> bool {
    let scheme = dest.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    !dest.is_empty() && !scheme && !dest.starts_with("//") && !dest.starts_with('#')
}

/// Read, check and clean every image a post names (its `image_refs`), the cover first. `post`
/// is the post's path as shown, `file` the post's file; `sources` says where images may come
/// from (`locate`) and what paths are shown relative to. Errors are `local`, at the post's file
/// and the line naming the image.
pub fn load(
    image_refs: &[ImageRef],
    post: &Path,
    file: &Path,
    sources: &Sources,
) -> Result<Vec<Image>, Error> {
    if image_refs.is_empty() {
        return Ok(Vec::new());
    }
    let folders = locate::Folders::new(sources);
    let folder = file.parent().unwrap_or(Path::new("."));
    let mut refs = image_refs.to_vec();
    refs.sort_by_key(|r| !r.cover); // the cover first, then the body's order (a stable sort)
    let mut images: Vec<Image> = Vec::new();
    // Each file read, and the image it became (two files with the same bytes are one image).
    let mut seen: Vec<(PathBuf, usize)> = Vec::new();
    for r in &refs {
        let err = |msg: String| Error::failure(Class::Local, msg).at(post).line(r.line);
        check_alt(r, &err)?;
        let locate::Found { file: full, rel } =
            locate::locate(&r.dest, folder, &folders).map_err(|e| err(e.message).hint(e.hint))?;
        if let Some((_, i)) = seen.iter().find(|(p, _)| *p == full) {
            images[*i].also_named(r);
            continue;
        }
        if images.len() == MAX_IMAGES {
            return Err(err(format!(
                "the post names more than {MAX_IMAGES} local images"
            ))
            .hint("split the post, or link to an album"));
        }
        let bytes = read_image(r, &full, &err)?;
        let cleaned = clean_image(r, bytes, &err)?;
        check_total(&images, r, cleaned.bytes.len(), &err)?;
        let shown = project_path(&full, &sources.project);
        let sha256 = crate::text::hex(&Sha256::digest(&cleaned.bytes));
        if let Some(i) = images.iter().position(|i| i.sha256 == sha256) {
            images[i].also_named(r);
            seen.push((full, i));
            continue;
        }
        images.push(Image {
            srcs: vec![r.dest.clone()],
            path: shown,
            rel,
            alt: r.alt.trim().to_string(),
            line: r.line,
            cover: r.cover,
            sha256,
            format: cleaned.format,
            width: cleaned.width,
            height: cleaned.height,
            bytes: cleaned.bytes.into(),
        });
        seen.push((full, images.len() - 1));
    }
    Ok(images)
}

/// Refuse alt text over `MAX_ALT_CHARS` characters.
fn check_alt(r: &ImageRef, err: &dyn Fn(String) -> Error) -> Result<(), Error> {
    if r.alt.chars().count() > MAX_ALT_CHARS {
        return Err(err(format!(
            "the alt text of image `{}` is {} characters; at most {MAX_ALT_CHARS} are allowed",
            r.dest,
            r.alt.chars().count()
        ))
        .hint("shorten the alt text: describe what the image shows"));
    }
    Ok(())
}

/// Read the image file `full` (a regular file of at most `MAX_IMAGE_BYTES`).
fn read_image(r: &ImageRef, full: &Path, err: &dyn Fn(String) -> Error) -> Result<Vec<u8>, Error> {
    crate::fsutil::read_regular(full, MAX_IMAGE_BYTES, false).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => {
            let size = std::fs::metadata(full).map_or(0, |m| m.len());
            err(format!(
                "image `{}` is {}; at most {} MB are allowed",
                r.dest,
                megabytes(size),
                MAX_IMAGE_BYTES / 1024 / 1024
            ))
            .hint("make the image smaller (a photo for the web needs 2 MB at most)")
        }
        _ => err(format!("image `{}` cannot be read: {e}", r.dest))
            .hint("an image is a regular file; check the path"),
    })
}

/// Decode and clean the image's bytes, within `budget`'s pixel limits.
fn clean_image(
    r: &ImageRef,
    bytes: Vec<u8>,
    err: &dyn Fn(String) -> Error,
) -> Result<clean::Cleaned, Error> {
    clean::clean(bytes).map_err(|unfit| match unfit {
        clean::Unfit::TooLarge(why) => {
            err(format!("image `{}` is too large to decode: {why}", r.dest)).hint(format!(
                "make it smaller: at most {} megapixels a frame, {} over all its frames",
                budget::MAX_PIXELS / 1_000_000,
                budget::MAX_TOTAL_PIXELS / 1_000_000
            ))
        }
        clean::Unfit::Unreadable(why) => err(format!(
            "image `{}` is not a JPEG, PNG, GIF or WebP image that can be read ({why})",
            r.dest
        ))
        .hint("open it in an image viewer; save it again as JPEG or PNG"),
    })
}

/// Refuse the image `r` of `added` bytes if with it the post's images would hold more than
/// `MAX_TOTAL_BYTES`.
fn check_total(
    images: &[Image],
    r: &ImageRef,
    added: usize,
    err: &dyn Fn(String) -> Error,
) -> Result<(), Error> {
    let so_far: u64 = images.iter().map(|i| i.bytes.len() as u64).sum();
    if so_far + added as u64 > MAX_TOTAL_BYTES {
        return Err(err(format!(
            "with image `{}` the post's images hold more than {} MB in all",
            r.dest,
            MAX_TOTAL_BYTES / 1024 / 1024
        ))
        .hint("make the images smaller, or split the post"));
    }
    Ok(())
}

/// How `full` is shown: relative to the project, like the post's own path.
fn project_path(full: &Path, project: &Path) -> PathBuf {
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    full.strip_prefix(&project)
        .map_or_else(|_| full.to_path_buf(), Path::to_path_buf)
}

/// `1234567` → `1.2 MB` (decimal, as platforms state their limits).
pub fn megabytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{:.1} kB", b as f64 / 1e3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_images_with_alt_and_line() {
        let md = "Intro\n\n![A *cat*](images/cat.jpg)\n\n![](https://x.org/a.png)\n![x](//h/a.png) ![d](data:image/png;base64,AA)\n\n![two\nlines](/top.png \"t\")\n";
        let refs = refs(md, 5);
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].dest, "images/cat.jpg");
        assert_eq!(refs[0].alt, "A cat");
        assert_eq!(refs[0].line, 7);
        assert_eq!(refs[1].dest, "/top.png");
        assert_eq!(refs[1].alt, "two lines");
        assert_eq!(refs[1].line, 12);
    }

    #[test]
    fn what_is_local() {
        for local in [
            "a.jpg",
            "./a.jpg",
            "../a.jpg",
            "/a.jpg",
            "my%20cat.jpg",
            "c:x",
        ] {
            assert_eq!(is_local(local), local != "c:x", "{local}");
        }
        for remote in [
            "https://a/b.jpg",
            "http://a",
            "//cdn/a.jpg",
            "data:x",
            "#top",
            "",
        ] {
            assert!(!is_local(remote), "{remote}");
        }
    }
}
