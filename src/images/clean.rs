//! Make an image fit to leave the machine: read it whole (a truncated file is refused), apply
//! its EXIF orientation, and drop location, camera and text metadata, without re-encoding
//! when the orientation is already upright.

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, metadata::Orientation};
use img_parts::{Bytes, ImageEXIF};
use std::io::Cursor;

/// Images wider or taller than this are refused.
pub const MAX_SIDE: u32 = 20_000;
/// Images with more pixels than this are refused (a decompression bomb is not a photo).
pub const MAX_PIXELS: u64 = 100_000_000;
/// JPEG quality when an image must be encoded again (its orientation applied).
const JPEG_QUALITY: u8 = 90;

/// The formats dayrun reads and sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jpeg,
    Png,
    Gif,
    WebP,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Jpeg => "image/jpeg",
            Format::Png => "image/png",
            Format::Gif => "image/gif",
            Format::WebP => "image/webp",
        }
    }

    pub fn ext(self) -> &'static str {
        match self {
            Format::Jpeg => "jpg",
            Format::Png => "png",
            Format::Gif => "gif",
            Format::WebP => "webp",
        }
    }

    fn of(format: ImageFormat) -> Option<Format> {
        match format {
            ImageFormat::Jpeg => Some(Format::Jpeg),
            ImageFormat::Png => Some(Format::Png),
            ImageFormat::Gif => Some(Format::Gif),
            ImageFormat::WebP => Some(Format::WebP),
            _ => None,
        }
    }

    fn image(self) -> ImageFormat {
        match self {
            Format::Jpeg => ImageFormat::Jpeg,
            Format::Png => ImageFormat::Png,
            Format::Gif => ImageFormat::Gif,
            Format::WebP => ImageFormat::WebP,
        }
    }
}

/// An image as it may leave the machine.
#[derive(Debug)]
pub struct Cleaned {
    pub bytes: Vec<u8>,
    pub format: Format,
    pub width: u32,
    pub height: u32,
}

/// Read `bytes` whole and return them cleaned. The format comes from the bytes, never from a
/// file name. `Err` says why the bytes are not an image dayrun can send.
pub fn clean(bytes: &[u8]) -> Result<Cleaned, String> {
    let format = image::guess_format(bytes)
        .ok()
        .and_then(Format::of)
        .ok_or("not one of these formats")?;
    if format == Format::Jpeg && !jpeg_is_whole(bytes) {
        return Err("the JPEG data ends early: the file is truncated".into());
    }
    let (image, orientation) = decode(bytes, format)?;
    let (width, height) = (image.width(), image.height());
    if orientation != Orientation::NoTransforms {
        let mut image = image;
        image.apply_orientation(orientation);
        return Ok(Cleaned {
            width: image.width(),
            height: image.height(),
            bytes: encode(&image, format)?,
            format,
        });
    }
    let bytes = strip(bytes, format).map_err(|e| format!("cannot remove its metadata: {e}"))?;
    Ok(Cleaned {
        bytes,
        format,
        width,
        height,
    })
}

/// Decode every pixel (so a damaged file is refused here, not by a server), within limits.
pub fn decode(bytes: &[u8], format: Format) -> Result<(DynamicImage, Orientation), String> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.image());
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4 + 64 * 1024 * 1024);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let (w, h) = decoder.dimensions();
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!(
            "{w}×{h} pixels; at most {} megapixels are allowed",
            MAX_PIXELS / 1_000_000
        ));
    }
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let image = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    Ok((image, orientation))
}

/// Encode `image` in `format`; what comes out carries no metadata at all.
pub fn encode(image: &DynamicImage, format: Format) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let result =
        match format {
            Format::Jpeg => image.to_rgb8().write_with_encoder(
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY),
            ),
            Format::Png => image.write_with_encoder(image::codecs::png::PngEncoder::new(&mut out)),
            Format::WebP => image
                .to_rgba8()
                .write_with_encoder(image::codecs::webp::WebPEncoder::new_lossless(&mut out)),
            Format::Gif => image
                .to_rgba8()
                .write_with_encoder(image::codecs::gif::GifEncoder::new(&mut out)),
        };
    result.map_err(|e| e.to_string())?;
    Ok(out)
}

/// Where the main image of a JPEG ends: after the first EOI marker that follows its first
/// scan (inside entropy-coded data a 0xFF is always followed by 0x00 or a restart marker).
fn jpeg_end(bytes: &[u8]) -> Option<usize> {
    let sos = bytes.windows(2).position(|w| w == [0xFF, 0xDA])?;
    let eoi = bytes[sos..].windows(2).position(|w| w == [0xFF, 0xD9])?;
    Some(sos + eoi + 2)
}

/// A JPEG ends with its EOI marker after its first scan (a decoder may fill the missing rest
/// of a truncated file with grey and call it fine). Padding after EOI is allowed.
fn jpeg_is_whole(bytes: &[u8]) -> bool {
    jpeg_end(bytes).is_some()
}

/// Drop metadata without touching the pixels' bytes.
fn strip(bytes: &[u8], format: Format) -> Result<Vec<u8>, String> {
    let data = Bytes::copy_from_slice(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    let written = match format {
        Format::Jpeg => {
            let mut jpeg = img_parts::jpeg::Jpeg::from_bytes(data).map_err(|e| e.to_string())?;
            jpeg.segments_mut().retain(|s| match s.marker() {
                0xE0 | 0xEE => true,                                // JFIF, Adobe (colours)
                0xE2 => s.contents().starts_with(b"ICC_PROFILE\0"), // colour profile only
                0xE1 | 0xE3..=0xED | 0xEF | 0xFE => false,          // EXIF, XMP, IPTC, comments
                _ => true,
            });
            jpeg.encoder()
                .write_to(&mut out)
                .map_err(|e| e.to_string())?;
            // Phones append a second picture (MPF) or a video after the image, with EXIF
            // and GPS of its own: nothing after the main image's end marker goes.
            let end = jpeg_end(&out).ok_or("the JPEG has no end marker")?;
            out.truncate(end);
            return Ok(out);
        }
        Format::Png => {
            let mut png = img_parts::png::Png::from_bytes(data).map_err(|e| e.to_string())?;
            png.chunks_mut().retain(|c| {
                let kind = c.kind();
                kind[0].is_ascii_uppercase() || PNG_KEPT.contains(&&kind)
            });
            png.encoder()
                .write_to(&mut out)
                .map_err(|e| e.to_string())?;
            // Nothing after IEND (its 4-byte type, then its CRC).
            if let Some(at) = out.windows(8).position(|w| w == b"\0\0\0\0IEND") {
                out.truncate(at + 12);
            }
            return Ok(out);
        }
        Format::WebP => {
            let mut webp = img_parts::webp::WebP::from_bytes(data).map_err(|e| e.to_string())?;
            webp.chunks_mut().retain(|c| WEBP_KEPT.contains(&&c.id()));
            webp.set_exif(None); // also sets the VP8X flags to the chunks that are left
            webp.encoder().write_to(&mut out)
        }
        Format::Gif => return gif_frames(bytes),
    };
    written.map_err(|e| e.to_string())?;
    Ok(out)
}

/// Ancillary PNG chunks that describe pixels (colour, transparency, animation); every other
/// one (eXIf, tEXt, zTXt, iTXt, tIME, private ones) is dropped.
const PNG_KEPT: &[&[u8; 4]] = &[
    b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"pHYs", b"bKGD", b"acTL", b"fcTL",
    b"fdAT", b"cICP",
];

/// WebP chunks that hold the picture; EXIF, XMP and unknown chunks are dropped.
const WEBP_KEPT: &[&[u8; 4]] = &[
    b"VP8 ", b"VP8L", b"VP8X", b"ALPH", b"ANIM", b"ANMF", b"ICCP",
];

/// A GIF written again frame by frame with the same palettes (no pixel changes), without its
/// comment, XMP and other application blocks; the loop count is kept.
fn gif_frames(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    options.set_memory_limit(gif::MemoryLimit::Bytes(
        std::num::NonZeroU64::new(MAX_PIXELS * 4).expect("non-zero"),
    ));
    let mut decoder = options.read_info(bytes).map_err(|e| e.to_string())?;
    let palette = decoder
        .global_palette()
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let mut out = Vec::with_capacity(bytes.len());
    {
        let mut encoder = gif::Encoder::new(&mut out, decoder.width(), decoder.height(), &palette)
            .map_err(|e| e.to_string())?;
        encoder
            .set_repeat(decoder.repeat())
            .map_err(|e| e.to_string())?;
        while let Some(frame) = decoder.read_next_frame().map_err(|e| e.to_string())? {
            encoder.write_frame(frame).map_err(|e| e.to_string())?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb};

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
            Rgb([(x * 7) as u8, (y * 3) as u8, 90])
        }));
        encode(&img, Format::Jpeg).unwrap()
    }

    /// An APP1 EXIF segment with an orientation tag and a GPS IFD pointer, little-endian.
    fn exif_app1(orientation: u16) -> Vec<u8> {
        let mut tiff = b"II*\0\x08\0\0\0".to_vec();
        tiff.extend([2, 0]); // two entries
        tiff.extend([0x12, 0x01, 3, 0, 1, 0, 0, 0]); // Orientation, SHORT, 1
        tiff.extend(orientation.to_le_bytes());
        tiff.extend([0, 0]);
        tiff.extend([0x25, 0x88, 4, 0, 1, 0, 0, 0, 0x26, 0, 0, 0]); // GPSInfo -> 38
        tiff.extend([0, 0, 0, 0]); // no next IFD
        tiff.extend([1, 0]); // GPS IFD: one entry
        tiff.extend([0x01, 0, 2, 0, 2, 0, 0, 0, b'N', 0, 0, 0]); // GPSLatitudeRef "N"
        tiff.extend([0, 0, 0, 0]);
        let mut seg = vec![0xFF, 0xE1];
        let len = (2 + 6 + tiff.len()) as u16;
        seg.extend(len.to_be_bytes());
        seg.extend(b"Exif\0\0");
        seg.extend(tiff);
        seg
    }

    fn with_exif(jpeg: &[u8], orientation: u16) -> Vec<u8> {
        let mut out = jpeg[..2].to_vec();
        out.extend(exif_app1(orientation));
        out.extend(&jpeg[2..]);
        out
    }

    #[test]
    fn exif_goes_and_upright_pixels_are_not_touched() {
        let plain = jpeg(40, 20);
        let tagged = with_exif(&plain, 1);
        let cleaned = clean(&tagged).unwrap();
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!((cleaned.width, cleaned.height), (40, 20));
        // Only the APP1 went: the scan data is the same bytes.
        let scan = |b: &[u8]| b[b.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap()..].to_vec();
        assert_eq!(scan(&cleaned.bytes), scan(&plain));
    }

    #[test]
    fn orientation_is_applied_and_exif_goes() {
        let tagged = with_exif(&jpeg(40, 20), 6);
        let cleaned = clean(&tagged).unwrap();
        assert_eq!((cleaned.width, cleaned.height), (20, 40));
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!(
            clean(&tagged).unwrap().bytes,
            cleaned.bytes,
            "deterministic"
        );
    }

    #[test]
    fn a_second_picture_after_the_image_goes_with_its_exif() {
        let main = jpeg(40, 20);
        let mut tagged = main.clone();
        tagged.extend(with_exif(&jpeg(8, 8), 1)); // what an MPF trailer looks like
        let cleaned = clean(&tagged).unwrap();
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!(cleaned.bytes, main);
    }

    #[test]
    fn truncated_and_foreign_bytes_are_refused() {
        let whole = jpeg(64, 64);
        assert!(clean(&whole[..whole.len() / 2]).is_err());
        assert!(clean(b"hello, I am text with a .png name").is_err());
    }

    #[test]
    fn png_text_chunks_go() {
        let img = DynamicImage::ImageRgb8(ImageBuffer::from_pixel(3, 3, Rgb([1, 2, 3])));
        let png = encode(&img, Format::Png).unwrap();
        let mut parsed = img_parts::png::Png::from_bytes(Bytes::from(png)).unwrap();
        let text =
            img_parts::png::PngChunk::new(*b"tEXt", Bytes::from_static(b"GPS\x0048.85,2.35"));
        let at = parsed.chunks().len() - 1;
        parsed.chunks_mut().insert(at, text);
        let mut tagged = Vec::new();
        parsed.encoder().write_to(&mut tagged).unwrap();
        let cleaned = clean(&tagged).unwrap();
        assert!(!cleaned.bytes.windows(4).any(|w| w == b"tEXt"));
        assert_eq!(cleaned.format, Format::Png);
    }
}
