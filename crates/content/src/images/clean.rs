//! Make an image fit to leave the machine: read its container by structure (every frame's
//! size checked against the budget before a pixel is decoded), keep only the blocks that make
//! its pixels, decode every frame, and apply its EXIF orientation, encoding it again only when
//! the orientation is not upright.

use super::budget::Budget;
use super::{frames, gif, jpeg, png, webp};
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, metadata::Orientation};
use std::fmt;
use std::io::Cursor;

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

    pub(super) fn image(self) -> ImageFormat {
        match self {
            Format::Jpeg => ImageFormat::Jpeg,
            Format::Png => ImageFormat::Png,
            Format::Gif => ImageFormat::Gif,
            Format::WebP => ImageFormat::WebP,
        }
    }
}

/// Why bytes cannot leave as an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    /// Not an image of these formats, or damaged somewhere (a frame, a chunk, the end).
    Unreadable(String),
    /// Its headers announce more pixels than the budget allows: nothing was decoded.
    TooLarge(String),
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfit::Unreadable(why) | Unfit::TooLarge(why) => f.write_str(why),
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
/// file name. What is checked and decoded is what leaves: the stripped bytes (`bytes` is
/// dropped before any pixel is decoded).
pub fn clean(bytes: Vec<u8>) -> Result<Cleaned, Unfit> {
    let format = image::guess_format(&bytes)
        .ok()
        .and_then(Format::of)
        .ok_or_else(|| Unfit::Unreadable("not one of these formats".into()))?;
    let mut budget = Budget::default();
    let stripped = match format {
        Format::Jpeg => jpeg::strip(&bytes, &mut budget)?,
        Format::Png => png::strip(&bytes, &mut budget)?,
        Format::Gif => gif::strip(&bytes, &mut budget)?,
        Format::WebP => webp::strip(&bytes, &mut budget)?,
    };
    let orientation = orientation(&bytes, format);
    drop(bytes);
    frames::check(&stripped, format, budget.frames())?;
    if orientation == Orientation::NoTransforms {
        let (width, height) = budget.picture_size();
        return Ok(Cleaned {
            bytes: stripped,
            format,
            width,
            height,
        });
    }
    let mut image = frames::decode(&stripped, format)?;
    drop(stripped);
    image.apply_orientation(orientation);
    Ok(Cleaned {
        width: image.width(),
        height: image.height(),
        bytes: encode(&image, format).map_err(Unfit::Unreadable)?,
        format,
    })
}

/// The orientation the metadata of `bytes` asks for (read from the headers, no pixels).
fn orientation(bytes: &[u8], format: Format) -> Orientation {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.image());
    reader.limits(frames::limits());
    reader
        .into_decoder()
        .ok()
        .and_then(|mut d| d.orientation().ok())
        .unwrap_or(Orientation::NoTransforms)
}

/// Encode `image` in `format`; what comes out carries no metadata at all.
pub fn encode(image: &DynamicImage, format: Format) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let result =
        match (format, image) {
            (Format::Jpeg, DynamicImage::ImageRgb8(rgb)) => rgb.write_with_encoder(
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY),
            ),
            (Format::Jpeg, _) => image.to_rgb8().write_with_encoder(
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY),
            ),
            (Format::Png, _) => {
                image.write_with_encoder(image::codecs::png::PngEncoder::new(&mut out))
            }
            (Format::WebP, _) => image
                .to_rgba8()
                .write_with_encoder(image::codecs::webp::WebPEncoder::new_lossless(&mut out)),
            (Format::Gif, _) => image
                .to_rgba8()
                .write_with_encoder(image::codecs::gif::GifEncoder::new(&mut out)),
        };
    result.map_err(|e| e.to_string())?;
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
        let cleaned = clean(tagged.clone()).unwrap();
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!((cleaned.width, cleaned.height), (40, 20));
        // Only the APP1 went: the scan data is the same bytes.
        let scan = |b: &[u8]| b[b.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap()..].to_vec();
        assert_eq!(scan(&cleaned.bytes), scan(&plain));
    }

    #[test]
    fn orientation_is_applied_and_exif_goes() {
        let tagged = with_exif(&jpeg(40, 20), 6);
        let cleaned = clean(tagged.clone()).unwrap();
        assert_eq!((cleaned.width, cleaned.height), (20, 40));
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!(
            clean(tagged.clone()).unwrap().bytes,
            cleaned.bytes,
            "deterministic"
        );
    }

    #[test]
    fn a_second_picture_after_the_image_goes_with_its_exif() {
        let main = jpeg(40, 20);
        let mut tagged = main.clone();
        tagged.extend(with_exif(&jpeg(8, 8), 1)); // what an MPF trailer looks like
        let cleaned = clean(tagged.clone()).unwrap();
        assert!(!cleaned.bytes.windows(6).any(|w| w == b"Exif\0\0"));
        assert_eq!(cleaned.bytes, main);
    }

    #[test]
    fn truncated_and_foreign_bytes_are_refused() {
        let whole = jpeg(64, 64);
        assert!(clean(whole[..whole.len() / 2].to_vec()).is_err());
        assert!(clean(b"hello, I am text with a .png name".to_vec()).is_err());
    }

    #[test]
    fn png_text_chunks_go() {
        let img = DynamicImage::ImageRgb8(ImageBuffer::from_pixel(3, 3, Rgb([1, 2, 3])));
        let mut tagged = encode(&img, Format::Png).unwrap();
        // A tEXt chunk before IEND (its CRC is not checked: the chunk goes unread).
        let text = b"\0\0\0\x0etEXtGPS\x0048.85,2.35\0\0\0\0";
        let at = tagged.len() - 12;
        tagged.splice(at..at, text.iter().copied());
        let cleaned = clean(tagged.clone()).unwrap();
        assert!(!cleaned.bytes.windows(4).any(|w| w == b"tEXt"));
        assert_eq!(cleaned.format, Format::Png);
    }
}
