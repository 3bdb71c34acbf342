//! Test images for issue 14, made here with the `image` crate plus metadata written byte by byte,
//! so a test knows exactly which private bytes went in and can prove they did not come out.
//!
//! - [`jpeg_with_exif`]: a non-square JPEG (wider than tall, left half red, right half blue)
//!   whose APP1 holds EXIF with camera `Make`/`Model`, an `Orientation` and a GPS IFD
//!   (latitude/longitude), plus an XMP APP1, an IPTC APP13 and a COM comment that name the
//!   place. With orientation 6 the cleaned image is taller than wide, red on top.
//! - [`png_with_text`]: a PNG with `tEXt`, `iTXt`, `tIME`, `eXIf` (the same GPS TIFF) and an
//!   unknown private ancillary chunk.
//! - [`gif`], [`webp_with_exif`]: the other two formats (the GIF with a comment extension, the
//!   WebP extended with an `EXIF` and an `XMP ` chunk).
//! - [`truncated_jpeg`], [`not_an_image`]: bad files.
//! - [`noisy_photo`]: a ~3 MB JPEG of noise (it does not compress), with the same EXIF.
//! - [`assert_clean`] / [`private_leaks`]: bytes carry none of the above.
//!
//! Everything is deterministic: the same call gives the same bytes.

#![allow(dead_code)]

use image::ExtendedColorType;
use image::codecs::gif::{GifEncoder, Repeat};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{Frame, ImageEncoder, RgbImage, RgbaImage};

/// The camera strings written into EXIF `Make` / `Model` (and nowhere else).
pub const MAKE: &str = "SpyglassOptics";
pub const MODEL: &str = "Lighthouse Keeper 9000";
/// A place name written into the XMP, IPTC, COM, PNG text and GIF comment.
pub const PLACE: &str = "Secret Cove Lighthouse";
/// GPS latitude 52° 31' 12.34" N, longitude 13° 24' 56.78" E, as EXIF rationals.
pub const LATITUDE: [(u32, u32); 3] = [(52, 1), (31, 1), (1234, 100)];
pub const LONGITUDE: [(u32, u32); 3] = [(13, 1), (24, 1), (5678, 100)];

/// EXIF orientation values (TIFF tag 0x0112).
pub const ORIENTATION_NORMAL: u16 = 1;
/// "Rotate 90 CW to display": a stored W×H image shows as H×W.
pub const ORIENTATION_ROTATE_90_CW: u16 = 6;

// ---------------------------------------------------------------------------------------------
// EXIF: a big-endian TIFF with IFD0 (Make, Model, Orientation, GPS pointer) and a GPS IFD.

const ASCII: u16 = 2;
const SHORT: u16 = 3;
const LONG: u16 = 4;
const RATIONAL: u16 = 5;
const BYTE: u16 = 1;

struct Entry {
    tag: u16,
    kind: u16,
    count: u32,
    data: Vec<u8>,
}

fn ascii(tag: u16, s: &str) -> Entry {
    let mut data = s.as_bytes().to_vec();
    data.push(0);
    Entry {
        tag,
        kind: ASCII,
        count: data.len() as u32,
        data,
    }
}

fn rationals(tag: u16, values: &[(u32, u32)]) -> Entry {
    let mut data = Vec::new();
    for (n, d) in values {
        data.extend_from_slice(&n.to_be_bytes());
        data.extend_from_slice(&d.to_be_bytes());
    }
    Entry {
        tag,
        kind: RATIONAL,
        count: values.len() as u32,
        data,
    }
}

/// Size of an IFD with `entries` and its out-of-line data.
fn ifd_len(entries: &[Entry]) -> usize {
    2 + 12 * entries.len()
        + 4
        + entries
            .iter()
            .filter(|e| e.data.len() > 4)
            .map(|e| (e.data.len() + 1) & !1)
            .sum::<usize>()
}

/// Write an IFD at `out.len()` (its offset in the TIFF is `out.len()`), entries sorted by tag.
fn write_ifd(out: &mut Vec<u8>, entries: &mut [Entry], next: u32) {
    entries.sort_by_key(|e| e.tag);
    let start = out.len();
    let mut data_at = start + 2 + 12 * entries.len() + 4;
    let mut data = Vec::new();
    out.extend_from_slice(&(entries.len() as u16).to_be_bytes());
    for e in entries.iter() {
        out.extend_from_slice(&e.tag.to_be_bytes());
        out.extend_from_slice(&e.kind.to_be_bytes());
        out.extend_from_slice(&e.count.to_be_bytes());
        if e.data.len() <= 4 {
            let mut inline = e.data.clone();
            inline.resize(4, 0);
            out.extend_from_slice(&inline);
        } else {
            out.extend_from_slice(&(data_at as u32).to_be_bytes());
            data.extend_from_slice(&e.data);
            if e.data.len() % 2 == 1 {
                data.push(0);
            }
            data_at = start + 2 + 12 * entries.len() + 4 + data.len();
        }
    }
    out.extend_from_slice(&next.to_be_bytes());
    out.extend_from_slice(&data);
}

/// The TIFF structure of an EXIF block (without the `Exif\0\0` prefix).
pub fn exif_tiff(orientation: u16) -> Vec<u8> {
    let mut gps = vec![
        Entry {
            tag: 0x0000, // GPSVersionID
            kind: BYTE,
            count: 4,
            data: vec![2, 3, 0, 0],
        },
        ascii(0x0001, "N"), // GPSLatitudeRef
        rationals(0x0002, &LATITUDE),
        ascii(0x0003, "E"), // GPSLongitudeRef
        rationals(0x0004, &LONGITUDE),
    ];
    let mut ifd0 = vec![
        ascii(0x010F, MAKE),
        ascii(0x0110, MODEL),
        Entry {
            tag: 0x0112,
            kind: SHORT,
            count: 1,
            data: orientation.to_be_bytes().to_vec(),
        },
        Entry {
            tag: 0x8825, // GPSInfo: offset of the GPS IFD, filled below
            kind: LONG,
            count: 1,
            data: vec![0; 4],
        },
    ];
    let gps_at = 8 + ifd_len(&ifd0);
    ifd0.iter_mut().find(|e| e.tag == 0x8825).unwrap().data =
        (gps_at as u32).to_be_bytes().to_vec();
    let mut out = b"MM\0\x2a\0\0\0\x08".to_vec();
    write_ifd(&mut out, &mut ifd0, 0);
    assert_eq!(out.len(), gps_at);
    write_ifd(&mut out, &mut gps, 0);
    out
}

/// The GPS latitude as it sits in the TIFF (24 bytes): found anywhere, the GPS IFD leaked.
pub fn gps_latitude_bytes() -> Vec<u8> {
    rationals(0x0002, &LATITUDE).data
}

pub fn xmp_packet() -> Vec<u8> {
    let mut out = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
    out.extend_from_slice(
        format!(
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\
             <rdf:Description xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" photoshop:City=\"{PLACE}\" \
             xmlns:exif=\"http://ns.adobe.com/exif/1.0/\" exif:GPSLatitude=\"52,31.2057N\"/></rdf:RDF></x:xmpmeta>"
        )
        .as_bytes(),
    );
    out
}

// ---------------------------------------------------------------------------------------------
// Pixels.

/// `width`×`height`, left half red, right half blue (orientation shows in the cleaned pixels).
pub fn two_halves(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            image::Rgb([220, 30, 30])
        } else {
            image::Rgb([30, 30, 220])
        }
    })
}

pub fn encode_jpeg(img: &RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .encode(
            img.as_raw(),
            img.width(),
            img.height(),
            ExtendedColorType::Rgb8,
        )
        .unwrap();
    out
}

/// A JPEG segment: marker, big-endian length (including itself), payload.
pub fn segment(marker: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0xFF, marker];
    out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// Insert `segments` after SOI and any APP0 (JFIF) of `jpeg`.
pub fn insert_segments(jpeg: &[u8], segments: &[Vec<u8>]) -> Vec<u8> {
    assert_eq!(&jpeg[..2], [0xFF, 0xD8], "not a JPEG");
    let mut at = 2;
    if jpeg[2..4] == [0xFF, 0xE0] {
        at = 4 + u16::from_be_bytes([jpeg[4], jpeg[5]]) as usize;
    }
    let mut out = jpeg[..at].to_vec();
    for s in segments {
        out.extend_from_slice(s);
    }
    out.extend_from_slice(&jpeg[at..]);
    out
}

/// The private segments every test JPEG carries: EXIF (camera, orientation, GPS), XMP, IPTC and
/// a comment.
fn private_segments(orientation: u16) -> Vec<Vec<u8>> {
    let mut exif = b"Exif\0\0".to_vec();
    exif.extend_from_slice(&exif_tiff(orientation));
    let mut iptc = b"Photoshop 3.0\08BIM\x04\x04\0\0".to_vec();
    // One IPTC dataset 2:90 (City).
    let city = PLACE.as_bytes();
    let mut record = vec![0x1C, 2, 90];
    record.extend_from_slice(&(city.len() as u16).to_be_bytes());
    record.extend_from_slice(city);
    iptc.extend_from_slice(&(record.len() as u32).to_be_bytes());
    iptc.extend_from_slice(&record);
    vec![
        segment(0xE1, &exif),
        segment(0xE1, &xmp_packet()),
        segment(0xED, &iptc),
        segment(0xFE, format!("taken at {PLACE}").as_bytes()),
    ]
}

/// A `width`×`height` JPEG (left red, right blue) with EXIF `Make`, `Model`, `Orientation` =
/// `orientation` and GPS, plus XMP, IPTC and a comment.
pub fn jpeg_with_exif(width: u32, height: u32, orientation: u16) -> Vec<u8> {
    jpeg_with_exif_of(&two_halves(width, height), orientation)
}

/// `img` as a JPEG (quality 90) with the private EXIF (`orientation`), XMP, IPTC and comment.
pub fn jpeg_with_exif_of(img: &RgbImage, orientation: u16) -> Vec<u8> {
    insert_segments(&encode_jpeg(img, 90), &private_segments(orientation))
}

/// The usual test photo: 64×32 stored, orientation 6 (shows as 32×64, red on top).
pub fn rotated_jpeg() -> Vec<u8> {
    jpeg_with_exif(64, 32, ORIENTATION_ROTATE_90_CW)
}

/// A plain JPEG with no metadata at all (JFIF only), of one colour `rgb`.
pub fn plain_jpeg(width: u32, height: u32, rgb: [u8; 3]) -> Vec<u8> {
    encode_jpeg(&RgbImage::from_pixel(width, height, image::Rgb(rgb)), 90)
}

/// The first half of a real JPEG: no EOI, most scan data missing.
pub fn truncated_jpeg() -> Vec<u8> {
    let whole = encode_jpeg(&noise(200, 150, 7), 90);
    whole[..whole.len() / 2].to_vec()
}

/// A text file (to be named `.png`).
pub fn not_an_image() -> Vec<u8> {
    b"This is not a PNG. It is a note somebody saved with the wrong name.\n".to_vec()
}

/// A seeded noise image (each channel uniform 0..=255), which JPEG cannot compress well.
pub fn noise(width: u32, height: u32, seed: u64) -> RgbImage {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut img = RgbImage::new(width, height);
    for (x, y, px) in img.enumerate_pixels_mut() {
        let r = next();
        // A faint gradient under the noise, so it is "photo-like" rather than pure static.
        let base = ((x + y) % 256) as u8 / 4;
        px.0 = [
            (r as u8).saturating_add(base),
            (r >> 8) as u8,
            ((r >> 16) as u8).saturating_sub(base),
        ];
    }
    img
}

/// A noisy 1400×1050 photo-like JPEG (quality 92) of about 3 MB, with the private EXIF
/// (orientation 1), XMP, IPTC and comment. Well over Bluesky's 1,000,000-byte blob limit.
pub const PHOTO_WIDTH: u32 = 1400;
pub const PHOTO_HEIGHT: u32 = 1050;

pub fn noisy_photo() -> Vec<u8> {
    let plain = encode_jpeg(&noise(PHOTO_WIDTH, PHOTO_HEIGHT, 42), 92);
    insert_segments(&plain, &private_segments(ORIENTATION_NORMAL))
}

// ---------------------------------------------------------------------------------------------
// PNG.

pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

pub fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    out
}

/// A 48×24 PNG (left red, right blue) with `tEXt` (Comment), `iTXt` (XMP), `tIME`, `eXIf`
/// (camera and GPS, orientation 1) and a private ancillary chunk `dyRn`, after IHDR.
pub fn png_with_text() -> Vec<u8> {
    let img = two_halves(48, 24);
    let mut plain = Vec::new();
    PngEncoder::new(&mut plain)
        .write_image(img.as_raw(), 48, 24, ExtendedColorType::Rgb8)
        .unwrap();
    // Signature (8) + IHDR chunk (4 + 4 + 13 + 4).
    let at = 8 + 25;
    assert_eq!(&plain[12..16], b"IHDR");
    let mut out = plain[..at].to_vec();
    out.extend(png_chunk(
        b"tEXt",
        format!("Comment\0taken at {PLACE} by a {MAKE} {MODEL}").as_bytes(),
    ));
    let mut itxt = b"XML:com.adobe.xmp\0\0\0\0\0".to_vec();
    itxt.extend_from_slice(&xmp_packet()[29..]);
    out.extend(png_chunk(b"iTXt", &itxt));
    out.extend(png_chunk(b"tIME", &[0x07, 0xEA, 11, 29, 7, 0, 0]));
    out.extend(png_chunk(b"eXIf", &exif_tiff(ORIENTATION_NORMAL)));
    out.extend(png_chunk(
        b"dyRn",
        format!("private note: {PLACE}").as_bytes(),
    ));
    out.extend_from_slice(&plain[at..]);
    out
}

/// The chunk types of a PNG, in order (panics on a broken chunk list).
pub fn png_chunks(png: &[u8]) -> Vec<String> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let mut out = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        out.push(String::from_utf8_lossy(&png[at + 4..at + 8]).into_owned());
        at += 12 + len;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// GIF and WebP.

/// A 2-frame 40×20 looping GIF (red, then blue) with a comment extension naming the place.
pub fn gif() -> Vec<u8> {
    let mut plain = Vec::new();
    {
        let mut enc = GifEncoder::new(&mut plain);
        enc.set_repeat(Repeat::Infinite).unwrap();
        for rgb in [[220, 30, 30, 255], [30, 30, 220, 255]] {
            let frame = Frame::new(RgbaImage::from_pixel(40, 20, image::Rgba(rgb)));
            enc.encode_frame(frame).unwrap();
        }
    }
    assert_eq!(&plain[..3], b"GIF");
    // Header (6) + logical screen descriptor (7) + global colour table if flagged.
    let packed = plain[10];
    let mut at = 13;
    if packed & 0x80 != 0 {
        at += 3 * (1 << ((packed & 0x07) + 1));
    }
    let text = format!("taken at {PLACE}");
    let mut comment = vec![0x21, 0xFE, text.len() as u8];
    comment.extend_from_slice(text.as_bytes());
    comment.push(0);
    let mut out = plain[..at].to_vec();
    out.extend(comment);
    out.extend_from_slice(&plain[at..]);
    out
}

pub fn riff_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = kind.to_vec();
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(0);
    }
    out
}

/// A 30×20 lossless WebP (left red, right blue) in the extended format (VP8X) with an `EXIF`
/// chunk (camera, GPS, orientation 1) and an `XMP ` chunk.
pub fn webp_with_exif() -> Vec<u8> {
    let (w, h) = (30u32, 20u32);
    let img = two_halves(w, h);
    let mut simple = Vec::new();
    WebPEncoder::new_lossless(&mut simple)
        .encode(img.as_raw(), w, h, ExtendedColorType::Rgb8)
        .unwrap();
    assert_eq!(&simple[..4], b"RIFF");
    assert_eq!(&simple[8..12], b"WEBP");
    // The simple file is RIFF + one image chunk (VP8L); keep that chunk as it is.
    let image_chunk = simple[12..].to_vec();
    let mut vp8x = vec![0x08 | 0x04, 0, 0, 0]; // EXIF and XMP flags
    vp8x.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
    vp8x.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
    let mut body = b"WEBP".to_vec();
    body.extend(riff_chunk(b"VP8X", &vp8x));
    body.extend(image_chunk);
    body.extend(riff_chunk(b"EXIF", &exif_tiff(ORIENTATION_NORMAL)));
    body.extend(riff_chunk(b"XMP ", &xmp_packet()[29..]));
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

/// The chunk FourCCs of a WebP file, in order.
pub fn webp_chunks(webp: &[u8]) -> Vec<String> {
    assert_eq!(&webp[..4], b"RIFF");
    assert_eq!(&webp[8..12], b"WEBP");
    let mut out = Vec::new();
    let mut at = 12;
    while at + 8 <= webp.len() {
        let len = u32::from_le_bytes(webp[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push(String::from_utf8_lossy(&webp[at..at + 4]).into_owned());
        at += 8 + len + len % 2;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// The markers of a JPEG's segments before the scan (`0xE0` APP0, `0xE1` APP1, `0xFE` COM, …).
pub fn jpeg_markers(jpeg: &[u8]) -> Vec<u8> {
    assert_eq!(&jpeg[..2], [0xFF, 0xD8], "not a JPEG");
    let mut out = Vec::new();
    let mut at = 2;
    while at + 4 <= jpeg.len() && jpeg[at] == 0xFF {
        let marker = jpeg[at + 1];
        out.push(marker);
        if marker == 0xDA {
            break;
        }
        at += 2 + u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]) as usize;
    }
    out
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Every private thing found in `bytes`, as words (empty when clean): the EXIF header, the GPS
/// latitude, the camera strings, the place name, XMP, and per format the segments or chunks
/// that carry metadata.
pub fn private_leaks(bytes: &[u8]) -> Vec<String> {
    let mut leaks = Vec::new();
    let mut look = |what: &str, needle: &[u8]| {
        if contains(bytes, needle) {
            leaks.push(what.to_string());
        }
    };
    look("Exif header", b"Exif\0\0");
    look("GPS latitude", &gps_latitude_bytes());
    look("TIFF header", b"MM\0\x2a\0\0\0\x08");
    look("camera Make", MAKE.as_bytes());
    look("camera Model", MODEL.as_bytes());
    look("place name", PLACE.as_bytes());
    look("XMP", b"ns.adobe.com/xap");
    look("XMP", b"x:xmpmeta");
    look("IPTC", b"8BIM");
    if bytes.starts_with(&[0xFF, 0xD8]) {
        for m in jpeg_markers(bytes) {
            if matches!(m, 0xE1 | 0xE3..=0xED | 0xEF | 0xFE) {
                leaks.push(format!("JPEG segment FF{m:02X}"));
            }
        }
    } else if bytes.starts_with(b"\x89PNG") {
        for c in png_chunks(bytes) {
            let critical = c.as_bytes()[0].is_ascii_uppercase();
            let allowed = matches!(
                c.as_str(),
                "PLTE"
                    | "tRNS"
                    | "gAMA"
                    | "cHRM"
                    | "sRGB"
                    | "iCCP"
                    | "sBIT"
                    | "bKGD"
                    | "pHYs"
                    | "acTL"
                    | "fcTL"
                    | "fdAT"
            );
            if !critical && !allowed {
                leaks.push(format!("PNG chunk {c}"));
            }
        }
    } else if bytes.starts_with(b"RIFF") {
        for c in webp_chunks(bytes) {
            if c == "EXIF" || c == "XMP " {
                leaks.push(format!("WebP chunk {c}"));
            }
        }
    } else if bytes.starts_with(b"GIF") && contains(bytes, &[0x21, 0xFE]) {
        // A comment extension introducer; a false hit inside LZW data is possible but rare
        // enough for these tiny images (the place name check above is the sure one).
        leaks.push("GIF comment extension (21 FE)".to_string());
    }
    leaks
}

/// Panic, naming `what` and the leaks, unless `bytes` are free of every private item.
#[track_caller]
pub fn assert_clean(what: &str, bytes: &[u8]) {
    let leaks = private_leaks(bytes);
    assert!(
        leaks.is_empty(),
        "{what} ({} bytes) still carries private metadata: {}",
        bytes.len(),
        leaks.join(", ")
    );
}

/// Width and height of an image (decoded by the `image` crate), with its format.
pub fn dimensions(bytes: &[u8]) -> (u32, u32) {
    let img = image::load_from_memory(bytes)
        .unwrap_or_else(|e| panic!("{} bytes do not decode: {e}", bytes.len()));
    (img.width(), img.height())
}

/// Whether the decoded image is red at the top and blue at the bottom (a [`rotated_jpeg`] after
/// its orientation 6 was applied), allowing for JPEG's colour error.
pub fn red_on_top(bytes: &[u8]) -> bool {
    let img = image::load_from_memory(bytes).unwrap().to_rgb8();
    let (w, h) = img.dimensions();
    let top = img.get_pixel(w / 2, h / 4).0;
    let bottom = img.get_pixel(w / 2, 3 * h / 4).0;
    top[0] > 150 && top[2] < 100 && bottom[2] > 150 && bottom[0] < 100
}

/// sha256 hex of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_image_decodes_and_carries_what_it_should() {
        let jpeg = rotated_jpeg();
        assert_eq!(
            dimensions(&jpeg),
            (64, 32),
            "stored size; orientation is metadata"
        );
        let leaks = private_leaks(&jpeg);
        for want in [
            "Exif header",
            "GPS latitude",
            "camera Make",
            "camera Model",
            "place name",
            "XMP",
            "IPTC",
        ] {
            assert!(
                leaks.iter().any(|l| l == want),
                "{want} missing from {leaks:?}"
            );
        }
        assert_eq!(jpeg_markers(&jpeg)[..5], [0xE0, 0xE1, 0xE1, 0xED, 0xFE]);
        // The image crate reads our EXIF: orientation 6.
        use image::ImageDecoder;
        let mut dec = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(&jpeg)).unwrap();
        assert_eq!(
            dec.orientation().unwrap(),
            image::metadata::Orientation::Rotate90
        );

        let png = png_with_text();
        assert_eq!(dimensions(&png), (48, 24));
        let chunks = png_chunks(&png);
        for want in ["tEXt", "iTXt", "tIME", "eXIf", "dyRn"] {
            assert!(
                chunks.iter().any(|c| c == want),
                "{want} missing from {chunks:?}"
            );
        }
        assert!(!private_leaks(&png).is_empty());

        let gif = gif();
        assert_eq!(dimensions(&gif), (40, 20));
        assert!(private_leaks(&gif).iter().any(|l| l == "place name"));

        let webp = webp_with_exif();
        assert_eq!(dimensions(&webp), (30, 20));
        assert_eq!(webp_chunks(&webp), ["VP8X", "VP8L", "EXIF", "XMP "]);

        let truncated = truncated_jpeg();
        assert!(!truncated.ends_with(&[0xFF, 0xD9]), "no EOI");
        println!(
            "the image crate on a truncated JPEG: {:?}",
            image::load_from_memory(&truncated).map(|i| (i.width(), i.height()))
        );
        assert!(image::load_from_memory(&not_an_image()).is_err());

        let plain = plain_jpeg(10, 10, [1, 2, 3]);
        assert_clean("a plain JPEG", &plain);
        assert_eq!(rotated_jpeg(), jpeg, "deterministic");
    }

    #[test]
    fn the_noisy_photo_is_about_three_megabytes() {
        let photo = noisy_photo();
        println!("the noisy photo: {} bytes", photo.len());
        assert!(
            (2_500_000..3_500_000).contains(&photo.len()),
            "{} bytes",
            photo.len()
        );
        assert_eq!(dimensions(&photo), (PHOTO_WIDTH, PHOTO_HEIGHT));
        assert!(!private_leaks(&photo).is_empty());
    }
}
