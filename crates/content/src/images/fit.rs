//! Make an image fit a platform's byte limit: encode it again as JPEG, keeping its aspect
//! ratio and never making it larger, with lower quality and then fewer pixels until it fits.

use super::Image;
use super::clean::Format;
use super::frames::decode;
use image::imageops::FilterType;
use image::{DynamicImage, GenericImageView, Rgba};

/// The longest side a re-encoded image starts from (what the Bluesky app itself sends).
const START_SIDE: u32 = 2000;
/// Qualities tried at each size before the size steps down.
const QUALITIES: [u8; 3] = [85, 75, 65];

/// Bytes to send and their size in pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub bytes: Vec<u8>,
    pub format: Format,
    pub width: u32,
    pub height: u32,
}

/// `image` as it is when it fits in `limit` bytes, else encoded again until it does.
pub fn fit(image: &Image, limit: usize) -> Result<Fitted, String> {
    if image.bytes.len() <= limit {
        return Ok(Fitted {
            bytes: image.bytes.to_vec(),
            format: image.format,
            width: image.width,
            height: image.height,
        });
    }
    let pixels = decode(&image.bytes, image.format).map_err(|e| e.to_string())?;
    let pixels = flatten(pixels);
    let (w, h) = pixels.dimensions();
    let mut side = w.max(h).min(START_SIDE);
    while side >= 16 {
        let scaled = match side < w.max(h) {
            true => pixels.resize(side, side, FilterType::Triangle),
            false => pixels.clone(),
        };
        for quality in QUALITIES {
            let mut out = Vec::new();
            scaled
                .to_rgb8()
                .write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
                    &mut out, quality,
                ))
                .map_err(|e| e.to_string())?;
            if out.len() <= limit {
                return Ok(Fitted {
                    bytes: out,
                    format: Format::Jpeg,
                    width: scaled.width(),
                    height: scaled.height(),
                });
            }
        }
        side = side * 3 / 4;
    }
    Err(format!("cannot make it fit in {limit} bytes"))
}

/// Transparent pixels over white (JPEG has no transparency; black would show instead).
fn flatten(image: DynamicImage) -> DynamicImage {
    if !image.color().has_alpha() {
        return image;
    }
    let mut rgba = image.into_rgba8();
    for Rgba([r, g, b, a]) in rgba.pixels_mut() {
        let alpha = u16::from(*a);
        let over = |c: &mut u8| *c = ((u16::from(*c) * alpha + 255 * (255 - alpha)) / 255) as u8;
        over(r);
        over(g);
        over(b);
        *a = 255;
    }
    DynamicImage::ImageRgba8(rgba)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb};

    fn noisy(w: u32, h: u32) -> Image {
        let mut seed = 7u32;
        let img = DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |_, _| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            Rgb([(seed >> 16) as u8, (seed >> 8) as u8, (seed >> 24) as u8])
        }));
        let bytes = super::super::clean::encode(&img, Format::Png).unwrap();
        Image {
            srcs: vec!["a.png".into()],
            path: "content/a.png".into(),
            rel: "a.png".into(),
            alt: String::new(),
            line: 1,
            cover: false,
            sha256: "0".repeat(64),
            format: Format::Png,
            width: w,
            height: h,
            bytes: bytes.into(),
        }
    }

    #[test]
    fn too_big_is_made_to_fit_keeping_the_aspect() {
        let image = noisy(900, 600);
        assert!(image.bytes.len() > 200_000);
        let fitted = fit(&image, 200_000).unwrap();
        assert!(fitted.bytes.len() <= 200_000);
        assert_eq!(fitted.format, Format::Jpeg);
        assert!(fitted.width <= 900);
        let ratio = fitted.width as f64 / fitted.height as f64;
        assert!((ratio - 1.5).abs() < 0.02, "{ratio}");
        assert_eq!(fit(&image, 200_000).unwrap(), fitted, "deterministic");
    }

    #[test]
    fn small_enough_is_sent_as_it_is() {
        let image = noisy(20, 10);
        let fitted = fit(&image, 1_000_000).unwrap();
        assert_eq!(&fitted.bytes[..], &image.bytes[..]);
        assert_eq!(fitted.format, Format::Png);
    }
}
