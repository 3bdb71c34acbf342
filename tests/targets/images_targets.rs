//! Issue 14 (images, /work/notes/contract-issue14.md) against the strict fakes: per target, a
//! post with two images and a cover, lost answers on uploads, a second run, a replaced image,
//! `--dry-run`, and a 0.3 done line. Every test asserts on what the fakes hold and on exact
//! state fields (`media=`), never on timing.

mod bluesky;
mod devto;
mod fakes;
mod local;
mod mastodon;
mod regressions;
mod upgrade;
mod wordpress;

use crate::fakes::media;
use crate::support::image_gen as pics;
use crate::support::util::{Output, Project};

pub const KEY: &str = "2026-11-29";
pub const TODAY: &str = "--today=2026-11-29";
pub const POST: &str = "content/2026-11-29.md";

/// A cover (front matter, with `image_alt`), two body images (the first named twice, the second
/// as `./`), and a remote image that must stay as it is.
pub const PICTURES: &str = "---\ntitle: Pictures of the day\nimage: images/cover.jpg\nimage_alt: \"The cover\"\n---\nA day in pictures.\n\n![A red square](images/a.png)\n\nBetween the pictures.\n\n![A blue one](./images/b.jpg)\n\nOnce more ![A red square](images/a.png) and a remote one ![remote](https://example.com/r.png).\n";

/// The alt texts in the order the contract sends them: cover first, then the body's.
pub const ALTS: [&str; 3] = ["The cover", "A red square", "A blue one"];

/// Write the three images and [`PICTURES`]. The cover is the rotated JPEG with EXIF and GPS,
/// `a.png` carries text chunks, `b.jpg` is plain.
pub fn pictures(p: &Project) {
    p.file("content/images/cover.jpg", pics::rotated_jpeg());
    p.file("content/images/a.png", pics::png_with_text());
    p.file(
        "content/images/b.jpg",
        pics::plain_jpeg(40, 30, [30, 30, 220]),
    );
    p.file(POST, PICTURES);
}

/// A post with a cover and five body images (six in all, each different): `b` to `f`.
pub fn six_pictures(p: &Project) {
    p.file(
        "content/images/cover.jpg",
        pics::plain_jpeg(48, 32, [200, 200, 200]),
    );
    let mut body = String::from(
        "---\ntitle: Six pictures\nimage: images/cover.jpg\nimage_alt: \"The cover\"\n---\nSix of them.\n",
    );
    for (i, name) in ["b", "c", "d", "e", "f"].iter().enumerate() {
        let shade = 40 * i as u8;
        p.file(
            &format!("content/images/{name}.jpg"),
            pics::plain_jpeg(30 + i as u32, 20, [shade, 100, 255 - shade]),
        );
        body.push_str(&format!("\n![Picture {name}](images/{name}.jpg)\n"));
    }
    p.file(POST, body);
}

/// State line values, as the README writes them: `name=value`, a value with spaces in double
/// quotes with `\"` and `\\` escapes.
pub fn fields(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    let mut word = String::new();
    let mut words = Vec::new();
    while let Some(c) = chars.next() {
        match c {
            ' ' if !word.is_empty() => words.push(std::mem::take(&mut word)),
            ' ' => {}
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => word.extend(chars.next()),
                        '"' => break,
                        c => word.push(c),
                    }
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    for w in words.into_iter().skip(3) {
        if let Some((name, value)) = w.split_once('=') {
            out.push((name.to_string(), value.to_string()));
        }
    }
    out
}

/// The value of `name=` on a state line.
pub fn field(line: &str, name: &str) -> Option<String> {
    fields(line)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

/// The `media=` field as (sha16, value) pairs, in the order written.
#[track_caller]
pub fn media_field(line: &str) -> Vec<(String, String)> {
    let value = field(line, "media").unwrap_or_else(|| panic!("no media= on {line}"));
    value
        .split(' ')
        .filter(|e| !e.is_empty())
        .map(|e| {
            let (sha, v) = e
                .split_once('=')
                .unwrap_or_else(|| panic!("media entry {e:?} is not sha16=VALUE in {line}"));
            assert!(
                sha.len() == 16 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "media entry {e:?}: {sha:?} is not 16 hex digits"
            );
            (sha.to_string(), v.to_string())
        })
        .collect()
}

/// The line of `key` on `target`.
#[track_caller]
pub fn line(p: &Project, target: &str, key: &str) -> String {
    let lines = p.state_lines(target);
    lines
        .iter()
        .find(|l| l.starts_with(key))
        .cloned()
        .unwrap_or_else(|| panic!("no line for {key} on {target}: {lines:#?}"))
}

/// The run's output, for assertion messages.
pub fn shown(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", out.stdout, out.stderr)
}

/// The first 16 hex digits of the sha256 of `bytes`.
pub fn sha16(bytes: &[u8]) -> String {
    media::sha256_hex(bytes)[..16].to_string()
}

/// Assert that bytes that left the machine carry no metadata (contract: "What leaves the
/// machine"), with both this module's reading and the generator's.
#[track_caller]
pub fn assert_private(what: &str, bytes: &[u8]) {
    let found = media::metadata(bytes);
    assert!(found.is_empty(), "{what} carries metadata: {found:?}");
    pics::assert_clean(what, bytes);
}

/// Trace lines (`state/<target>.log`) with action `image`.
pub fn image_trace(p: &Project, target: &str) -> Vec<String> {
    p.read(&format!("state/{target}.log"))
        .lines()
        .filter(|l| l.split_whitespace().any(|w| w == "image"))
        .map(str::to_string)
        .collect()
}

/// The `--dry-run` line for an image, up to the arrow's object: `KEY TARGET image PATH alt="ALT" → `.
pub fn image_line(target: &str, path: &str, alt: &str) -> String {
    format!("{KEY} {target} image {path} alt=\"{alt}\" → ")
}

/// A warning line's start for a target: `KEY TARGET warning `.
pub fn warning(target: &str) -> String {
    format!("{KEY} {target} warning ")
}

/// The no-alt warning after the target's name: `warning POST:LINE: image `DEST` has no alt text`.
pub fn no_alt(post_line: &str, dest: &str) -> String {
    format!("warning {post_line}: image `{dest}` has no alt text")
}
