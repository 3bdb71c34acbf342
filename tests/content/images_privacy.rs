//! Issue 14, "What leaves the machine": every image is cleaned before any target sees it. The
//! folder target's copies and the command target's `file` copies carry no GPS, no camera, no
//! XMP/IPTC/comments and no PNG text chunks; the EXIF orientation is applied to the pixels
//! (a 64×32 photo with orientation 6 comes out 32×64, red on top); and the cleaning is
//! deterministic: the same input gives the same bytes in two separate projects.

use crate::support::image_gen::{self, assert_clean, dimensions, sha256};
use crate::support::util::Project;
use serde_json::Value;
use std::collections::BTreeMap;

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";

/// The command target's script: saves the payload and copies every image's `file` into `got/`
/// (what a real script would upload), then prints an id.
const COPY: &str = r#"#!/bin/sh
input=$(cat)
mkdir -p got
printf '%s' "$input" > "got/$DAYRUN_KEY.json"
printf '%s' "$input" | grep -o '"file" *: *"[^"]*"' | sed 's/^.*"\([^"]*\)"$/\1/' | while read -r f; do
  cp "$f" got/ || exit 3
done
echo "{\"id\":\"c-$DAYRUN_KEY\"}"
"#;

/// The post: a cover (the rotated JPEG with GPS) and three body images, one per other format.
const POST: &str = "---\nimage: images/rotated.jpg\nimage_alt: \"A lighthouse\"\n---\n# Privacy first\n\n\
    A PNG: ![A png with text chunks](images/text.png)\n\n\
    ![A looping gif](images/anim.gif)\n\n\
    ![A webp with exif](./images/meta.webp)\n\n\
    ![An upright photo](/images/upright.jpg)\n";

/// One image of the post and what its cleaned copy must be.
struct Img {
    /// Content-relative path.
    source: &'static str,
    alt: &'static str,
    ext: &'static str,
    content_type: &'static str,
    /// Width × height as shown (after the orientation is applied).
    shown: (u32, u32),
}

const fn img(
    source: &'static str,
    alt: &'static str,
    ext: &'static str,
    content_type: &'static str,
    shown: (u32, u32),
) -> Img {
    Img {
        source,
        alt,
        ext,
        content_type,
        shown,
    }
}

/// In the contract's order: the cover, then the body images in order.
const IMAGES: [Img; 5] = [
    img(
        "images/rotated.jpg",
        "A lighthouse",
        "jpg",
        "image/jpeg",
        (32, 64),
    ),
    img(
        "images/text.png",
        "A png with text chunks",
        "png",
        "image/png",
        (48, 24),
    ),
    img(
        "images/anim.gif",
        "A looping gif",
        "gif",
        "image/gif",
        (40, 20),
    ),
    img(
        "images/meta.webp",
        "A webp with exif",
        "webp",
        "image/webp",
        (30, 20),
    ),
    // Orientation 1: cleaned without re-encoding (the metadata-stripping path, not the rotating one).
    img(
        "images/upright.jpg",
        "An upright photo",
        "jpg",
        "image/jpeg",
        (40, 20),
    ),
];

/// A project with a folder target `site` and a command target `cmd`, and the post.
fn project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "timezone = \"UTC\"\n\n[targets.site]\nkind = \"folder\"\ndir = \"site\"\n\n\
         [targets.cmd]\nkind = \"command\"\nrun = [\"./scripts/copy.sh\"]\ntimeout_secs = 10\ndedup = false\n",
    );
    p.script("scripts/copy.sh", COPY);
    p.file("content/images/rotated.jpg", image_gen::rotated_jpeg())
        .file("content/images/text.png", image_gen::png_with_text())
        .file("content/images/anim.gif", image_gen::gif())
        .file("content/images/meta.webp", image_gen::webp_with_exif())
        .file(
            "content/images/upright.jpg",
            image_gen::jpeg_with_exif(40, 20, image_gen::ORIENTATION_NORMAL),
        );
    p.file(&format!("content/{KEY}.md"), POST);
    p
}

/// Every property a cleaned copy of `IMAGES[i]` must have.
#[track_caller]
fn check_cleaned(what: &str, i: usize, bytes: &[u8]) {
    let Img { ext, shown, .. } = IMAGES[i];
    assert_clean(what, bytes);
    assert_eq!(dimensions(bytes), shown, "{what}: width and height");
    match ext {
        "jpg" => {
            let (w, h) = shown;
            let rotated = h > w;
            assert_eq!(
                image_gen::red_on_top(bytes),
                rotated,
                "{what}: orientation 6 applied (red on top) only where it was set"
            );
            assert_eq!(
                image::guess_format(bytes).unwrap(),
                image::ImageFormat::Jpeg
            );
        }
        "png" => {
            let chunks = image_gen::png_chunks(bytes);
            for gone in ["tEXt", "iTXt", "zTXt", "tIME", "eXIf", "dyRn"] {
                assert!(
                    !chunks.iter().any(|c| c == gone),
                    "{what}: {gone} in {chunks:?}"
                );
            }
        }
        "gif" => {
            use image::AnimationDecoder;
            let frames = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(bytes))
                .unwrap()
                .into_frames()
                .collect_frames()
                .unwrap();
            assert_eq!(frames.len(), 2, "{what}: both frames kept");
            assert!(
                bytes.windows(11).any(|w| w == b"NETSCAPE2.0"),
                "{what}: the loop count is kept"
            );
        }
        "webp" => {
            let chunks = image_gen::webp_chunks(bytes);
            assert!(
                !chunks.iter().any(|c| c == "EXIF" || c == "XMP "),
                "{what}: {chunks:?}"
            );
        }
        _ => unreachable!(),
    }
}

/// The folder target's copies: `(sha256, bytes)` per image in the JSON's order, after checking
/// names, the JSON and the HTML.
fn folder_copies(p: &Project) -> Vec<(String, Vec<u8>)> {
    let json: Value = serde_json::from_str(&p.read(&format!("site/{KEY}.json"))).unwrap();
    let images = json["images"]
        .as_array()
        .unwrap_or_else(|| panic!("site/{KEY}.json has no images list: {json}"));
    assert_eq!(images.len(), IMAGES.len(), "{images:#?}");
    let html = p.read(&format!("site/{KEY}.html"));
    let mut out = Vec::new();
    for (i, entry) in images.iter().enumerate() {
        let Img {
            source, alt, ext, ..
        } = IMAGES[i];
        let sha = entry["sha256"].as_str().expect("sha256").to_string();
        assert_eq!(sha.len(), 64, "{entry}");
        assert_eq!(entry["alt"], alt, "{entry}");
        assert_eq!(entry["cover"], i == 0, "{entry}");
        let name = format!("{KEY}-{}.{ext}", &sha[..16]);
        let file = entry["file"].as_str().expect("file");
        assert!(
            file == name || file.ends_with(&format!("/{name}")),
            "{file} is not {name}"
        );
        let bytes = std::fs::read(p.path(&format!("site/{name}")))
            .unwrap_or_else(|e| panic!("site/{name}: {e}"));
        assert_eq!(
            sha256(&bytes),
            sha,
            "site/{name}: sha256 of the cleaned bytes"
        );
        check_cleaned(&format!("site/{name} (from {source})"), i, &bytes);
        if i > 0 {
            // Body images: the HTML's src is the copy's name, never the source path.
            assert!(
                html.contains(&format!("src=\"{name}\"")),
                "{name} in\n{html}"
            );
        }
        assert!(!html.contains(source), "{source} left in\n{html}");
        out.push((sha, bytes));
    }
    out
}

/// The command target's payload images and the copies its script made from each `file`.
fn command_copies(p: &Project) -> Vec<(String, Vec<u8>)> {
    let payload: Value = serde_json::from_str(&p.read(&format!("got/{KEY}.json"))).unwrap();
    let images = payload["images"]
        .as_array()
        .unwrap_or_else(|| panic!("the payload has no images list: {payload}"));
    assert_eq!(images.len(), IMAGES.len(), "{images:#?}");
    let mut out = Vec::new();
    for (i, entry) in images.iter().enumerate() {
        let Img {
            source,
            alt,
            ext,
            content_type,
            ..
        } = IMAGES[i];
        assert_eq!(entry["path"], format!("content/{source}"));
        assert_eq!(entry["alt"], alt, "{entry}");
        assert_eq!(entry["content_type"], content_type, "{entry}");
        assert_eq!(entry["url"], Value::Null, "{entry}");
        assert_eq!(entry["cover"], i == 0, "{entry}");
        let sha = entry["sha256"].as_str().expect("sha256").to_string();
        let file = entry["file"].as_str().expect("file");
        assert!(file.starts_with('/'), "file is absolute: {file}");
        assert!(
            file.ends_with(&format!("state/cmd.images/{}.{ext}", &sha[..16])),
            "{file}"
        );
        let name = std::path::Path::new(file).file_name().unwrap();
        let bytes = std::fs::read(p.path("got").join(name)).unwrap();
        assert_eq!(sha256(&bytes), sha, "{file}: sha256 of the cleaned bytes");
        check_cleaned(&format!("{file} (from {source})"), i, &bytes);
        out.push((sha, bytes));
    }
    out
}

#[test]
fn folder_and_command_targets_get_only_cleaned_oriented_images() {
    let p = project();
    // The sources really carry what must not leave.
    for Img { source, .. } in IMAGES {
        let bytes = std::fs::read(p.path(&format!("content/{source}"))).unwrap();
        assert!(!image_gen::private_leaks(&bytes).is_empty(), "{source}");
    }
    p.run(&["run", TODAY]).code(0);
    assert_eq!(p.statuses("site"), [format!("{KEY} done")]);
    assert_eq!(p.statuses("cmd"), [format!("{KEY} done")]);
    let folder = folder_copies(&p);
    let command = command_copies(&p);
    // One cleaning per image, whichever target asks.
    assert_eq!(folder, command, "folder and command got different bytes");
    // The sources are untouched.
    assert_eq!(
        std::fs::read(p.path("content/images/rotated.jpg")).unwrap(),
        image_gen::rotated_jpeg()
    );
}

#[test]
fn the_same_image_gives_the_same_bytes_every_run() {
    let first = project();
    first.run(&["run", TODAY]).code(0);
    let second = project();
    second.run(&["run", TODAY]).code(0);
    let names = |p: &Project| -> BTreeMap<String, String> {
        p.tree(&[])
            .into_iter()
            .filter(|(path, _)| path.starts_with("site/") && !path.ends_with(".json"))
            .filter(|(path, _)| !path.ends_with(".html"))
            .collect()
    };
    let (a, b) = (names(&first), names(&second));
    assert_eq!(
        a.len(),
        1 + IMAGES.len(),
        "the folder and its images: {a:#?}"
    );
    assert_eq!(a, b, "two runs on the same input made different files");
    assert_eq!(command_copies(&first), command_copies(&second));
    // And a forced resend in the same project writes the same bytes again.
    let before = folder_copies(&first);
    first
        .run(&["retry", KEY, "--force", "--target", "site"])
        .code(0);
    assert_eq!(folder_copies(&first), before);
}
