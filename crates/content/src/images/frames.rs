//! Decode every frame of an image, one at a time, so a damaged frame anywhere is refused here
//! and not by a server or a reader's browser. Run only after the budget passed its headers.

use super::budget::{MAX_PIXELS, MAX_SIDE};
use super::clean::{Format, Unfit};
use super::webp;
use image::{DynamicImage, GrayAlphaImage, GrayImage, ImageReader, Limits, RgbImage, RgbaImage};
use std::io::Cursor;

/// The limits every decoder gets: one frame of the largest size, in the widest colour type
/// (16-bit RGBA), and room for the decoder's own tables.
pub fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 8 + 16 * 1024 * 1024);
    limits
}

/// Decode every one of the `frames` frames of `bytes`.
pub fn check(bytes: &[u8], format: Format, frames: u32) -> Result<(), Unfit> {
    let failed = |i: u32, e: &dyn std::fmt::Display| match frames {
        1 => Unfit::Unreadable(e.to_string()),
        n => Unfit::Unreadable(format!("frame {i} of {n} cannot be decoded: {e}")),
    };
    match format {
        Format::Gif => gif(bytes, failed),
        Format::Png => png(bytes, frames, failed),
        // Each frame's bitstream decoded as a still of its own size: the frames' pixels are
        // all checked without a decoder's canvas, its copy and a frame buffer at once.
        Format::WebP if is_animated_webp(bytes) => {
            let mut i = 0;
            for still in webp::frames(bytes) {
                i += 1;
                decode(&still?, Format::WebP).map_err(|e| failed(i, &e))?;
            }
            match i {
                0 => Err(Unfit::Unreadable("an animation without frames".into())),
                _ => Ok(()),
            }
        }
        Format::WebP | Format::Jpeg => decode(bytes, format).map(drop),
    }
}

/// The first frame as pixels, within the limits. A PNG is read at 8 bits a sample (4 bytes a
/// pixel at most, not 8): what is encoded again from it is 8 bits a sample too.
pub fn decode(bytes: &[u8], format: Format) -> Result<DynamicImage, Unfit> {
    let unreadable = |e: &dyn std::fmt::Display| Unfit::Unreadable(e.to_string());
    if format == Format::Png {
        let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png_limits());
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(|e| unreadable(&e))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| unreadable(&"too large"))?;
        let mut buf = vec![0; size];
        let frame = reader.next_frame(&mut buf).map_err(|e| unreadable(&e))?;
        buf.truncate(frame.buffer_size());
        let (w, h) = (frame.width, frame.height);
        let image = match frame.color_type {
            png::ColorType::Grayscale => GrayImage::from_raw(w, h, buf).map(DynamicImage::from),
            png::ColorType::GrayscaleAlpha => {
                GrayAlphaImage::from_raw(w, h, buf).map(DynamicImage::from)
            }
            png::ColorType::Rgb => RgbImage::from_raw(w, h, buf).map(DynamicImage::from),
            _ => RgbaImage::from_raw(w, h, buf).map(DynamicImage::from),
        };
        return image.ok_or_else(|| unreadable(&"a frame smaller than its header says"));
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format.image());
    reader.limits(limits());
    let decoder = reader.into_decoder().map_err(|e| unreadable(&e))?;
    DynamicImage::from_decoder(decoder).map_err(|e| unreadable(&e))
}

fn png_limits() -> png::Limits {
    png::Limits {
        bytes: (MAX_PIXELS * 8) as usize,
    }
}

/// The VP8X animation flag.
fn is_animated_webp(bytes: &[u8]) -> bool {
    bytes.get(12..16) == Some(b"VP8X") && bytes.get(20).is_some_and(|f| f & 0x02 != 0)
}

/// Each GIF frame's LZW data decoded to palette indices, one frame's buffer at a time.
fn gif(bytes: &[u8], failed: impl Fn(u32, &dyn std::fmt::Display) -> Unfit) -> Result<(), Unfit> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    options.set_memory_limit(gif::MemoryLimit::Bytes(
        std::num::NonZeroU64::new(MAX_PIXELS).expect("non-zero"),
    ));
    let mut decoder = options.read_info(bytes).map_err(|e| failed(1, &e))?;
    let mut i = 1;
    while decoder
        .read_next_frame()
        .map_err(|e| failed(i, &e))?
        .is_some()
    {
        i += 1;
    }
    Ok(())
}

/// Each PNG frame (the default image, then every APNG frame) decoded row by row.
fn png(
    bytes: &[u8],
    frames: u32,
    failed: impl Fn(u32, &dyn std::fmt::Display) -> Unfit,
) -> Result<(), Unfit> {
    let decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png_limits());
    let mut reader = decoder.read_info().map_err(|e| failed(1, &e))?;
    for i in 1..=frames {
        if i > 1 {
            reader.next_frame_info().map_err(|e| failed(i, &e))?;
        }
        while reader.next_row().map_err(|e| failed(i, &e))?.is_some() {}
    }
    reader.finish().map_err(|e| failed(frames, &e))
}
