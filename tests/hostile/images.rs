//! Issue 21, the image rows: a corpus of hostile images, each with the outcome it must have.
//! Each case is its own project with two posts: the hostile image on line 5 of 2026-11-28, and
//! a good post on 2026-11-29 that must go out in the same run. A refused image is a `local`
//! error naming post, line and image, and nothing of its post reaches the folder; a published
//! one reaches it whole (every frame decodes), with no metadata left. Every run has a deadline
//! and its address space capped at the 256 MB budget, so a decompression bomb or a decoder
//! that needs more fails the case instead of the machine. The images are made by
//! `support/image_hostile.rs`; none is checked in.

use crate::hostile::round_one::{run_capped, table};
use crate::support::image_gen::{self, assert_clean};
use crate::support::image_hostile as hostile_gen;
use crate::support::util::{Output, Project};
use std::time::Duration;

const TODAY: &str = "--today=2026-11-29";
/// Far above what any case needs (a refusal takes milliseconds): only a runaway decode hits it.
const LIMIT: Duration = Duration::from_secs(20);
/// Address space for one run, in MiB: the memory budget of one post. The address space is never
/// less than the resident set, so a run that passes under this cap stayed within the budget.
pub const CAP_MIB: u64 = 256;

/// What a corpus image must come to.
pub enum Must {
    /// Refused before anything is sent: the error line says this.
    Refuse(&'static str),
    /// Published: the copy is this size with this many frames, all of them decoding, no
    /// metadata left, none of `absent` in it, and (when `same`) byte for byte the source.
    Publish {
        size: (u32, u32),
        frames: usize,
        absent: &'static [&'static [u8]],
        same: bool,
    },
}

const fn publish(size: (u32, u32), frames: usize) -> Must {
    Must::Publish {
        size,
        frames,
        absent: &[],
        same: false,
    }
}

/// One corpus entry: issue row, file name (its extension tells nothing: formats are sniffed),
/// the bytes and the outcome.
pub struct Case {
    pub row: u8,
    pub name: &'static str,
    pub bytes: Vec<u8>,
    pub must: Must,
}

fn case(row: u8, name: &'static str, bytes: Vec<u8>, must: Must) -> Case {
    Case {
        row,
        name,
        bytes,
        must,
    }
}

/// The corpus. scripts/bench measures each entry's time and peak memory too.
pub fn corpus() -> Vec<Case> {
    vec![
        // Row 2: frames checked before pixels are allocated; all frames counted.
        case(
            2,
            "gif-frame-larger-than-screen.gif",
            hostile_gen::gif_one_colour((10, 10), (20000, 20000), 1),
            Must::Refuse("20000×20000 pixels"),
        ),
        case(
            2,
            "gif-frame-of-100-megapixels.gif",
            hostile_gen::gif_one_colour((10, 10), (10000, 10000), 1),
            Must::Refuse("10000×10000 pixels"),
        ),
        case(
            2,
            "gif-ten-frames-of-100-megapixels.gif",
            hostile_gen::gif_one_colour((10, 10), (10000, 10000), 10),
            Must::Refuse("10000×10000 pixels"),
        ),
        case(
            2,
            "gif-frames-over-total.gif",
            hostile_gen::gif_one_colour((2000, 2000), (2000, 2000), 20),
            Must::Refuse("megapixels in all"),
        ),
        case(
            2,
            "apng-frames-over-total.png",
            hostile_gen::apng_black(2000, 2000, 20, None),
            Must::Refuse("megapixels in all"),
        ),
        case(
            2,
            "webp-tiny-frames-over-total.webp",
            hostile_gen::webp_tiny_frames(2000, 2000, 20),
            Must::Refuse("megapixels in all"),
        ),
        case(
            2,
            "webp-huge-canvas.webp",
            hostile_gen::webp_tiny_frames(16383, 16383, 1),
            Must::Refuse("16383×16383 pixels"),
        ),
        // The memory budget: one still image over the pixel limit.
        case(
            2,
            "png-20-megapixels.png",
            hostile_gen::png_black(5000, 4000),
            Must::Refuse("5000×4000 pixels"),
        ),
        case(
            2,
            "png-12-megapixels.png",
            hostile_gen::png_black(4032, 3024),
            publish((4032, 3024), 1),
        ),
        // At the limits: the largest images that must still go out (scripts/bench measures
        // their peak memory against the 256 MB budget).
        case(
            2,
            "png-16-megapixels-16-bit-turned.png",
            hostile_gen::png_black_rgba(4000, 4000, true, 6),
            publish((4000, 4000), 1),
        ),
        case(
            2,
            "webp-animation-2x16-megapixels.webp",
            hostile_gen::webp_big_animation(4000, 4000, 2),
            publish((4000, 4000), 2),
        ),
        case(
            2,
            "jpeg-12-megapixels-turned.jpg",
            hostile_gen::jpeg_big(4000, 3000, 6),
            publish((3000, 4000), 1),
        ),
        case(
            2,
            "gif-4x16-megapixels.gif",
            hostile_gen::gif_one_colour((4000, 4000), (4000, 4000), 4),
            publish((4000, 4000), 4),
        ),
        // Row 3: containers parsed by their lengths, never by searching for bytes.
        case(
            3,
            "png-iend-in-idat.png",
            hostile_gen::png_iend_in_idat(),
            Must::Publish {
                size: (12, 2),
                frames: 1,
                absent: &[],
                same: true,
            },
        ),
        case(
            3,
            "jpeg-jfxx-jpeg-thumbnail.jpg",
            hostile_gen::jpeg_jfxx_jpeg_thumbnail(),
            Must::Publish {
                size: (32, 16),
                frames: 1,
                absent: &[b"JFXX"],
                same: false,
            },
        ),
        // Row 4: metadata removed by an allowlist per container and per frame.
        case(
            4,
            "jpeg-jfxx-rgb-thumbnail.jpg",
            hostile_gen::jpeg_jfxx_rgb_thumbnail(),
            Must::Publish {
                size: (32, 16),
                frames: 1,
                absent: &[b"JFXX"],
                same: false,
            },
        ),
        case(
            4,
            "jpeg-jfif-thumbnail.jpg",
            hostile_gen::jpeg_jfif_thumbnail(),
            publish((32, 16), 1),
        ),
        case(
            4,
            "jpeg-comment-after-scan.jpg",
            hostile_gen::jpeg_comment_after_scan(),
            publish((32, 16), 1),
        ),
        case(
            4,
            "png-critical-chunk-after-idat.png",
            hostile_gen::png_critical_after_idat(),
            Must::Publish {
                size: (16, 8),
                frames: 1,
                absent: &[b"PLAc"],
                same: false,
            },
        ),
        case(
            4,
            "webp-exif-in-frame.webp",
            hostile_gen::webp_exif_in_frame(),
            Must::Publish {
                size: (16, 8),
                frames: 2,
                absent: &[b"EXIF", b"XMP "],
                same: false,
            },
        ),
        case(
            4,
            "gif-xmp-and-plain-text.gif",
            hostile_gen::gif_with_xmp_and_text(),
            Must::Publish {
                size: (40, 20),
                frames: 2,
                absent: &[b"XMP DataXMP"],
                same: false,
            },
        ),
        // Row 5: every frame decoded.
        case(
            5,
            "webp-garbage-frame.webp",
            hostile_gen::webp_garbage_frame(),
            Must::Refuse("frame 2 "),
        ),
        case(
            5,
            "apng-garbage-frame.png",
            hostile_gen::apng_black(16, 8, 3, Some(2)),
            Must::Refuse("frame 3 of 3"),
        ),
        case(
            5,
            "gif-garbage-frame.gif",
            hostile_gen::gif_garbage_frame(),
            Must::Refuse("frame 2"),
        ),
    ]
}

/// A project with a folder target, the hostile image on line 5 of 2026-11-28 and a good post
/// with an image on 2026-11-29.
pub fn project(name: &str, bytes: &[u8]) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "timezone = \"UTC\"\n\n[targets.site]\nkind = \"folder\"\ndir = \"site\"\n",
    );
    p.file(&format!("content/images/{name}"), bytes);
    p.file(
        "content/2026-11-28.md",
        format!(
            "# Hostile\n\nSome words first.\n\n![A hostile image](images/{name})\n\nAnd after.\n"
        ),
    );
    p.file(
        "content/images/fine.jpg",
        image_gen::plain_jpeg(16, 8, [200, 10, 10]),
    );
    p.file(
        "content/2026-11-29.md",
        "# Fine\n\n![A fine red photo](images/fine.jpg)\n",
    );
    p
}

fn printed(out: &Output) -> String {
    format!("{}\n{}", out.stdout, out.stderr)
}

/// The image files the folder target wrote for `key`.
fn copies(p: &Project, key: &str) -> Vec<Vec<u8>> {
    let Ok(dir) = std::fs::read_dir(p.path("site")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{key}-")))
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| std::fs::read(p.path(&format!("site/{n}"))).unwrap())
        .collect()
}

/// Width, height and frame count, every frame decoded (panics naming the frame that fails).
pub fn decode_all(bytes: &[u8]) -> ((u32, u32), usize) {
    use image::{AnimationDecoder, ImageDecoder};
    use std::io::Cursor;
    let frames = |frames: image::Frames| {
        let mut n = 0;
        for frame in frames {
            n += 1;
            if let Err(e) = frame {
                panic!("frame {n} does not decode: {e}");
            }
        }
        n
    };
    match image::guess_format(bytes).unwrap() {
        image::ImageFormat::Gif => {
            let dec = image::codecs::gif::GifDecoder::new(Cursor::new(bytes)).unwrap();
            (dec.dimensions(), frames(dec.into_frames()))
        }
        image::ImageFormat::Png => {
            let dec = image::codecs::png::PngDecoder::new(Cursor::new(bytes)).unwrap();
            let size = dec.dimensions();
            match dec.is_apng().unwrap() {
                true => (size, frames(dec.apng().unwrap().into_frames())),
                false => {
                    image::DynamicImage::from_decoder(dec).unwrap();
                    (size, 1)
                }
            }
        }
        image::ImageFormat::WebP => {
            let dec = image::codecs::webp::WebPDecoder::new(Cursor::new(bytes)).unwrap();
            let size = dec.dimensions();
            match dec.has_animation() {
                true => (size, frames(dec.into_frames())),
                false => {
                    image::DynamicImage::from_decoder(dec).unwrap();
                    (size, 1)
                }
            }
        }
        _ => {
            let img = image::load_from_memory(bytes).unwrap();
            ((img.width(), img.height()), 1)
        }
    }
}

fn check(c: Case) {
    let p = project(c.name, &c.bytes);
    let (out, _) = run_capped(&p, &["run", "--backfill", TODAY], LIMIT, CAP_MIB);
    let all = printed(&out);
    // The good post went out whatever the hostile one did.
    assert_eq!(copies(&p, "2026-11-29").len(), 1, "the good post:\n{all}");
    match c.must {
        Must::Refuse(says) => {
            let image = format!("image `images/{}`", c.name);
            assert!(
                all.lines().any(|l| l.contains("2026-11-28.md:5")
                    && l.contains(&image)
                    && l.contains(says)),
                "no line names 2026-11-28.md:5, {image} and {says:?}:\n{all}"
            );
            assert_eq!(out.code, 1, "exit code:\n{all}");
            assert_eq!(copies(&p, "2026-11-28").len(), 0, "copies sent:\n{all}");
            let line = &p.state_lines("site")[0];
            assert!(
                line.contains(" failed ") && line.contains("class=local"),
                "{line}"
            );
        }
        Must::Publish {
            size,
            frames,
            absent,
            same,
        } => {
            assert_eq!(out.code, 0, "exit code:\n{all}");
            let sent = copies(&p, "2026-11-28");
            assert_eq!(sent.len(), 1, "copies of the image:\n{all}");
            let copy = &sent[0];
            assert_clean(c.name, copy);
            for needle in absent {
                assert!(
                    !image_gen::contains(copy, needle),
                    "{} still holds {:?}",
                    c.name,
                    String::from_utf8_lossy(needle)
                );
            }
            assert_eq!(decode_all(copy), (size, frames), "size and frames");
            if same {
                assert!(copy == &c.bytes, "the copy differs from the source");
            }
        }
    }
}

#[test]
fn every_hostile_image_has_its_outcome() {
    table(
        corpus()
            .into_iter()
            .map(|c| (format!("row {} {}", c.row, c.name), c)),
        check,
    );
}

/// Writes the corpus into `$DAYRUN_CORPUS_DIR` (one file per case, then `outcomes.tsv` with
/// `name  row  refuse|publish  text`), for `scripts/bench`. Ignored unless asked for.
#[test]
#[ignore = "writes the corpus for scripts/bench (DAYRUN_CORPUS_DIR, else target/tmp/hostile-corpus)"]
fn write_corpus() {
    let dir = std::env::var_os("DAYRUN_CORPUS_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/hostile-corpus"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    let mut outcomes = String::new();
    for c in corpus() {
        std::fs::write(dir.join(c.name), &c.bytes).unwrap();
        let must = match c.must {
            Must::Refuse(says) => format!("refuse\t{says}"),
            Must::Publish { size, frames, .. } => {
                format!("publish\t{}x{} {frames} frame(s)", size.0, size.1)
            }
        };
        outcomes.push_str(&format!("{}\t{}\t{must}\n", c.name, c.row));
    }
    std::fs::write(dir.join("outcomes.tsv"), outcomes).unwrap();
}
