//! Hostile test images for issue 21, made byte by byte so each carries exactly the trap it is
//! named after: frames larger than their screen, animations whose frames add up past the pixel
//! budget, pixel data that holds a container's own marker bytes, metadata where a list of
//! known-bad blocks does not look, and animations whose later frame is garbage. Big pictures
//! cost little: their pixels are one colour, compressed by hand (LZW for GIF, deflate for PNG).

#![allow(dead_code)]

use crate::support::image_gen::{
    PLACE, exif_tiff, insert_segments, plain_jpeg, png_chunk, riff_chunk, segment, two_halves,
    xmp_packet,
};
use image::ExtendedColorType;
use image::codecs::webp::WebPEncoder;
use image::{ImageEncoder, RgbaImage};

/// `PLACE`, repeated or cut to `len` bytes: "private" pixels a test can find.
fn private_bytes(len: usize) -> Vec<u8> {
    PLACE.bytes().cycle().take(len).collect()
}

// ---------------------------------------------------------------------------------------------
// GIF.

/// Bits written least significant first, as GIF's LZW and deflate want them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, which deflate writes most significant bit first.
    fn code(&mut self, code: u32, count: u32) {
        self.put(code.reverse_bits() >> (32 - count), count);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// LZW data (minimum code size 2) for `pixels` pixels of colour 0: each code stands for one
/// more pixel than the last until the table is full (4096 codes, no clear code after), then
/// every code for the longest run. 400 million pixels take about 150 KB.
pub fn lzw_one_colour(pixels: u64) -> Vec<u8> {
    const CLEAR: u32 = 4;
    const END: u32 = 5;
    let mut bits = Bits::default();
    let mut size = 3;
    let mut next = 6u32;
    let mut longest = 1u64;
    bits.put(CLEAR, size);
    let mut left = pixels;
    while left > 0 {
        let run = longest.min(left);
        let code = if run == 1 { 0 } else { 6 + (run - 2) as u32 };
        bits.put(code, size);
        left -= run;
        if next < 4096 {
            if next >= 1 << size && size < 12 {
                size += 1;
            }
            next += 1;
            if run == longest {
                longest += 1;
            }
        }
    }
    bits.put(END, size);
    bits.finish()
}

/// Bytes as GIF data sub-blocks (at most 255 each), then the terminator.
fn sub_blocks(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 255 + 2);
    for block in data.chunks(255) {
        out.push(block.len() as u8);
        out.extend_from_slice(block);
    }
    out.push(0);
    out
}

/// A GIF89a whose logical screen is `screen` and which holds `frames` frames of size `frame`
/// at (0, 0), every pixel black, with a 4-colour global table; no loop extension.
pub fn gif_one_colour(screen: (u16, u16), frame: (u16, u16), frames: usize) -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend(screen.0.to_le_bytes());
    out.extend(screen.1.to_le_bytes());
    out.extend([0x80 | 0x01, 0, 0]); // global table of 4 colours
    out.extend([0, 0, 0, 255, 255, 255, 200, 30, 30, 30, 30, 200]);
    let data = sub_blocks(&lzw_one_colour(u64::from(frame.0) * u64::from(frame.1)));
    for _ in 0..frames {
        out.extend([0x21, 0xF9, 4, 0x04, 10, 0, 0, 0]); // graphic control: 0.1 s
        out.push(0x2C);
        out.extend([0, 0, 0, 0]);
        out.extend(frame.0.to_le_bytes());
        out.extend(frame.1.to_le_bytes());
        out.push(0); // no local table, not interlaced
        out.push(2); // LZW minimum code size
        out.extend_from_slice(&data);
    }
    out.push(0x3B);
    out
}

/// The test GIF (two frames, a comment) with an XMP application extension and a plain text
/// extension before its first frame, both naming the place.
pub fn gif_with_xmp_and_text() -> Vec<u8> {
    let plain = crate::support::image_gen::gif();
    let packed = plain[10];
    let at = 13 + 3 * (1 << ((packed & 0x07) + 1));
    let mut xmp = vec![0x21, 0xFF, 11];
    xmp.extend_from_slice(b"XMP DataXMP");
    xmp.extend(sub_blocks(&xmp_packet()));
    let mut text = vec![0x21, 0x01, 12, 0, 0, 0, 0, 40, 0, 20, 0, 8, 8, 0, 1];
    text.extend(sub_blocks(PLACE.as_bytes()));
    let mut out = plain[..at].to_vec();
    out.extend(xmp);
    out.extend(text);
    out.extend_from_slice(&plain[at..]);
    out
}

/// The test GIF with its second frame's image data replaced by codes past the table.
pub fn gif_garbage_frame() -> Vec<u8> {
    let mut out = gif_one_colour((16, 8), (16, 8), 1);
    out.pop(); // the trailer
    out.extend([0x2C, 0, 0, 0, 0, 16, 0, 8, 0, 0, 2]);
    out.extend(sub_blocks(&[0xFF; 40]));
    out.push(0x3B);
    out
}

// ---------------------------------------------------------------------------------------------
// PNG.

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// A zlib stream of `n` zero bytes: one fixed-Huffman block, matches of 258 at distance 1.
pub fn zlib_zeros(n: u64) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // last block
    bits.put(1, 2); // fixed Huffman
    let mut left = n;
    if left > 0 {
        bits.code(0x30, 8); // literal 0
        left -= 1;
    }
    while left >= 258 {
        bits.code(0xC5, 8); // length 258
        bits.code(0, 5); // distance 1
        left -= 258;
    }
    for _ in 0..left {
        bits.code(0x30, 8);
    }
    bits.code(0, 7); // end of block
    let mut out = vec![0x78, 0x01];
    out.extend(bits.finish());
    out.extend(((((n % 65521) as u32) << 16) | 1).to_be_bytes());
    out
}

/// A zlib stream that holds `data` as it is (one stored block, at most 65535 bytes).
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let len = data.len() as u16;
    let mut out = vec![0x78, 0x01, 0x01];
    out.extend(len.to_le_bytes());
    out.extend((!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend(adler32(data).to_be_bytes());
    out
}

fn ihdr(w: u32, h: u32, colour: u8) -> Vec<u8> {
    let mut data = w.to_be_bytes().to_vec();
    data.extend(h.to_be_bytes());
    data.extend([8, colour, 0, 0, 0]);
    png_chunk(b"IHDR", &data)
}

const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A black 8-bit grey PNG of `w`×`h`: a few hundred bytes per megapixel.
pub fn png_black(w: u32, h: u32) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    out.extend(ihdr(w, h, 0));
    out.extend(png_chunk(
        b"IDAT",
        &zlib_zeros((u64::from(w) + 1) * u64::from(h)),
    ));
    out.extend(png_chunk(b"IEND", &[]));
    out
}

/// A valid 12×2 grey PNG whose IDAT (stored, not compressed) holds the bytes `00 00 00 00
/// IEND`: the first row's pixels spell them.
pub fn png_iend_in_idat() -> Vec<u8> {
    let mut rows = vec![0u8];
    rows.extend([0, 0, 0, 0, b'I', b'E', b'N', b'D', 9, 8, 7, 6]);
    rows.push(0);
    rows.extend([200u8; 12]);
    let mut out = SIGNATURE.to_vec();
    out.extend(ihdr(12, 2, 0));
    out.extend(png_chunk(b"IDAT", &zlib_stored(&rows)));
    out.extend(png_chunk(b"IEND", &[]));
    out
}

/// A black 16×8 PNG with an unknown critical chunk `PLAc` (naming the place) after its IDAT.
pub fn png_critical_after_idat() -> Vec<u8> {
    let mut out = png_black(16, 8);
    let iend = out.len() - 12;
    out.splice(iend..iend, png_chunk(b"PLAc", PLACE.as_bytes()));
    out
}

fn fctl(seq: u32, w: u32, h: u32) -> Vec<u8> {
    let mut data = seq.to_be_bytes().to_vec();
    for v in [w, h, 0, 0] {
        data.extend(v.to_be_bytes());
    }
    data.extend([0, 1, 0, 10, 0, 0]); // 1/10 s, no dispose, no blend
    png_chunk(b"fcTL", &data)
}

/// A black grey APNG of `frames` full-size frames of `w`×`h` (the first one the IDAT); frame
/// `garbage` (counted from 0, never 0) holds a deflate stream with an invalid block type.
pub fn apng_black(w: u32, h: u32, frames: u32, garbage: Option<u32>) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    out.extend(ihdr(w, h, 0));
    let mut actl = frames.to_be_bytes().to_vec();
    actl.extend(0u32.to_be_bytes());
    out.extend(png_chunk(b"acTL", &actl));
    let zeros = zlib_zeros((u64::from(w) + 1) * u64::from(h));
    let mut seq = 0;
    for frame in 0..frames {
        out.extend(fctl(seq, w, h));
        seq += 1;
        if frame == 0 {
            out.extend(png_chunk(b"IDAT", &zeros));
            continue;
        }
        let mut data = seq.to_be_bytes().to_vec();
        seq += 1;
        match garbage == Some(frame) {
            true => data.extend([0x78, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]),
            false => data.extend_from_slice(&zeros),
        }
        out.extend(png_chunk(b"fdAT", &data));
    }
    out.extend(png_chunk(b"IEND", &[]));
    out
}

// ---------------------------------------------------------------------------------------------
// JPEG.

/// A 32×16 JPEG with a JFXX APP0 after its JFIF one, holding an RGB thumbnail (extension code
/// 0x13) whose "pixels" name the place.
pub fn jpeg_jfxx_rgb_thumbnail() -> Vec<u8> {
    let mut jfxx = b"JFXX\0\x13".to_vec();
    jfxx.extend([4, 2]);
    jfxx.extend(private_bytes(4 * 2 * 3));
    insert_segments(&plain_jpeg(32, 16, [90, 140, 40]), &[segment(0xE0, &jfxx)])
}

/// A 32×16 JPEG with a JFXX APP0 holding a whole JPEG thumbnail (extension code 0x10), whose
/// own scan and end markers sit inside the APP0 segment.
pub fn jpeg_jfxx_jpeg_thumbnail() -> Vec<u8> {
    let mut jfxx = b"JFXX\0\x10".to_vec();
    jfxx.extend(plain_jpeg(8, 8, [250, 250, 0]));
    insert_segments(&plain_jpeg(32, 16, [90, 140, 40]), &[segment(0xE0, &jfxx)])
}

/// A 32×16 JPEG whose JFIF APP0 carries a 4×2 RGB thumbnail naming the place.
pub fn jpeg_jfif_thumbnail() -> Vec<u8> {
    let plain = plain_jpeg(32, 16, [90, 140, 40]);
    assert_eq!(plain[2..4], [0xFF, 0xE0], "the encoder writes JFIF first");
    let end = 4 + u16::from_be_bytes([plain[4], plain[5]]) as usize;
    let mut jfif = b"JFIF\0\x01\x02\0\0\x01\0\x01".to_vec();
    jfif.extend([4, 2]);
    jfif.extend(private_bytes(4 * 2 * 3));
    let mut out = plain[..2].to_vec();
    out.extend(segment(0xE0, &jfif));
    out.extend_from_slice(&plain[end..]);
    out
}

/// A 32×16 JPEG with a comment naming the place after its scan, before the end marker.
pub fn jpeg_comment_after_scan() -> Vec<u8> {
    let mut out = plain_jpeg(32, 16, [90, 140, 40]);
    let end = out.len() - 2;
    assert_eq!(out[end..], [0xFF, 0xD9]);
    out.splice(
        end..end,
        segment(0xFE, format!("taken at {PLACE}").as_bytes()),
    );
    out
}

// ---------------------------------------------------------------------------------------------
// WebP.

/// The VP8L chunk (header included) of a lossless WebP of `img`.
pub fn vp8l_chunk(img: &RgbaImage) -> Vec<u8> {
    let mut simple = Vec::new();
    WebPEncoder::new_lossless(&mut simple)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            ExtendedColorType::Rgba8,
        )
        .unwrap();
    assert_eq!(&simple[12..16], b"VP8L");
    simple[12..].to_vec()
}

/// An ANMF chunk: a `w`×`h` frame at (0, 0), 0.1 s, then its data chunks as they are.
pub fn anmf(w: u32, h: u32, data: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    for v in [0, 0, w - 1, h - 1, 100] {
        payload.extend_from_slice(&v.to_le_bytes()[..3]);
    }
    payload.push(0);
    payload.extend_from_slice(data);
    riff_chunk(b"ANMF", &payload)
}

/// An animated WebP of canvas `w`×`h` with these ANMF chunks (and `extra` top-level chunks
/// after them).
pub fn webp_animation(w: u32, h: u32, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut vp8x = vec![0x10 | 0x02, 0, 0, 0]; // alpha, animation
    vp8x.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
    vp8x.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
    let mut body = b"WEBP".to_vec();
    body.extend(riff_chunk(b"VP8X", &vp8x));
    body.extend(riff_chunk(b"ANIM", &[255, 255, 255, 255, 0, 0]));
    for frame in frames {
        body.extend_from_slice(frame);
    }
    let mut out = b"RIFF".to_vec();
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

fn halves_rgba(w: u32, h: u32) -> RgbaImage {
    let rgb = two_halves(w, h);
    RgbaImage::from_fn(w, h, |x, y| {
        let [r, g, b] = rgb.get_pixel(x, y).0;
        image::Rgba([r, g, b, 255])
    })
}

/// A two-frame 16×8 animated WebP whose first frame carries an EXIF chunk (camera, GPS) and
/// an XMP chunk after its bitstream, inside the ANMF.
pub fn webp_exif_in_frame() -> Vec<u8> {
    let mut first = vp8l_chunk(&halves_rgba(16, 8));
    first.extend(riff_chunk(b"EXIF", &exif_tiff(1)));
    first.extend(riff_chunk(b"XMP ", &xmp_packet()[29..]));
    let second = vp8l_chunk(&RgbaImage::from_pixel(16, 8, image::Rgba([0, 0, 0, 255])));
    webp_animation(16, 8, &[anmf(16, 8, &first), anmf(16, 8, &second)])
}

/// A two-frame 16×8 animated WebP whose second frame's VP8L bitstream is garbage.
pub fn webp_garbage_frame() -> Vec<u8> {
    let first = vp8l_chunk(&halves_rgba(16, 8));
    let second = riff_chunk(b"VP8L", &[0xA5; 64]);
    webp_animation(16, 8, &[anmf(16, 8, &first), anmf(16, 8, &second)])
}

/// An animated WebP of canvas `w`×`h` with `frames` 1×1 frames: every frame is decoded onto
/// the whole canvas.
pub fn webp_tiny_frames(w: u32, h: u32, frames: usize) -> Vec<u8> {
    let dot = vp8l_chunk(&RgbaImage::from_pixel(1, 1, image::Rgba([9, 9, 9, 255])));
    let anmfs = vec![anmf(1, 1, &dot); frames];
    webp_animation(w, h, &anmfs)
}

// ---------------------------------------------------------------------------------------------
// At the limits: the largest images that must still go out, for the memory budget.

/// A black 8-bit-per-sample RGBA or 16-bit RGBA PNG of `w`×`h` (`wide`: 16 bits a sample,
/// 8 bytes a pixel decoded) with an `eXIf` chunk asking for `orientation`.
pub fn png_black_rgba(w: u32, h: u32, wide: bool, orientation: u16) -> Vec<u8> {
    let (depth, bytes_per_px) = if wide { (16, 8) } else { (8, 4) };
    let mut head = w.to_be_bytes().to_vec();
    head.extend(h.to_be_bytes());
    head.extend([depth, 6, 0, 0, 0]);
    let mut out = SIGNATURE.to_vec();
    out.extend(png_chunk(b"IHDR", &head));
    out.extend(png_chunk(b"eXIf", &exif_tiff(orientation)));
    out.extend(png_chunk(
        b"IDAT",
        &zlib_zeros((u64::from(w) * bytes_per_px + 1) * u64::from(h)),
    ));
    out.extend(png_chunk(b"IEND", &[]));
    out
}

/// A `w`×`h` JPEG (one colour, quality 90) with the private EXIF asking for `orientation`.
pub fn jpeg_big(w: u32, h: u32, orientation: u16) -> Vec<u8> {
    crate::support::image_gen::jpeg_with_exif_of(
        &image::RgbImage::from_pixel(w, h, image::Rgb([90, 140, 40])),
        orientation,
    )
}

/// An animated WebP of canvas `w`×`h` with `frames` full-size lossless frames.
pub fn webp_big_animation(w: u32, h: u32, frames: usize) -> Vec<u8> {
    let frame = anmf(
        w,
        h,
        &vp8l_chunk(&RgbaImage::from_pixel(w, h, image::Rgba([9, 90, 9, 255]))),
    );
    webp_animation(w, h, &vec![frame; frames])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_colour_lzw_decodes_to_the_pixels_it_claims() {
        // Past the point where the table is full (about 8.4 million pixels).
        for (w, h) in [(1, 1), (3, 1), (40, 20), (3000, 3000)] {
            let gif = gif_one_colour((w, h), (w, h), 2);
            let mut options = gif::DecodeOptions::new();
            options.set_color_output(gif::ColorOutput::Indexed);
            let mut dec = options.read_info(&gif[..]).unwrap();
            let mut frames = 0;
            while let Some(frame) = dec.read_next_frame().unwrap() {
                assert_eq!(frame.buffer.len(), usize::from(w) * usize::from(h));
                assert!(frame.buffer.iter().all(|&p| p == 0), "{w}×{h}");
                frames += 1;
            }
            assert_eq!(frames, 2);
        }
        let big = lzw_one_colour(20_000 * 20_000);
        assert!((100_000..200_000).contains(&big.len()), "{}", big.len());
    }

    #[test]
    fn the_hand_made_pngs_and_webps_decode() {
        use image::AnimationDecoder;
        let img = image::load_from_memory(&png_black(300, 200)).unwrap();
        assert_eq!((img.width(), img.height()), (300, 200));
        assert!(img.to_luma8().pixels().all(|p| p.0 == [0]));
        let iend = image::load_from_memory(&png_iend_in_idat())
            .unwrap()
            .to_luma8();
        assert_eq!(iend.get_pixel(4, 0).0, [b'I']);
        let apng = apng_black(20, 10, 3, None);
        let dec = image::codecs::png::PngDecoder::new(std::io::Cursor::new(&apng)).unwrap();
        assert_eq!(dec.apng().unwrap().into_frames().count(), 3);
        let webp = webp_exif_in_frame();
        let dec = image::codecs::webp::WebPDecoder::new(std::io::Cursor::new(&webp)).unwrap();
        let frames = dec.into_frames().collect_frames().unwrap();
        assert_eq!(frames.len(), 2);
        for jpeg in [
            jpeg_jfxx_rgb_thumbnail(),
            jpeg_jfxx_jpeg_thumbnail(),
            jpeg_jfif_thumbnail(),
            jpeg_comment_after_scan(),
        ] {
            assert_eq!(image::load_from_memory(&jpeg).unwrap().width(), 32);
        }
    }
}
