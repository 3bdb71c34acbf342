//! WebP by its RIFF chunk lengths, inside animation frames too: the chunks that make the
//! pixels are kept (an allowlist) at the top and inside each ANMF frame, EXIF, XMP and unknown
//! chunks go, the VP8X flags and every size are written again, and nothing after the RIFF
//! data is kept. The canvas and each frame's size go to the budget.

use super::budget::Budget;
use super::clean::Unfit;

/// VP8X flags: ICC profile, EXIF, XMP.
const ICC: u8 = 0x20;
const EXIF: u8 = 0x08;
const XMP: u8 = 0x04;

/// The WebP in `bytes` with only the chunks that make its pixels, each frame announced to
/// `budget`.
pub fn strip(bytes: &[u8], budget: &mut Budget) -> Result<Vec<u8>, Unfit> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WEBP" {
        return Err(Unfit::Unreadable("not a RIFF WEBP header".into()));
    }
    let riff_end = 8 + le(&bytes[4..8]) as usize;
    let body = bytes.get(12..riff_end).ok_or_else(|| {
        Unfit::Unreadable("the RIFF data ends early: the file is truncated".into())
    })?;
    let mut chunks = chunks(body);
    let mut out = Vec::with_capacity(bytes.len());
    let Some((first, data)) = chunks.next().transpose()? else {
        return Err(Unfit::Unreadable("no image chunk".into()));
    };
    match &first {
        b"VP8 " | b"VP8L" => {
            let (w, h) = bitstream_size(&first, data)?;
            budget.picture(w, h)?;
            budget.frame(w, h)?;
            put(&mut out, &first, data); // a simple file is that one chunk
        }
        b"VP8X" if data.len() >= 10 => {
            let (w, h) = (le24(&data[4..7]) + 1, le24(&data[7..10]) + 1);
            budget.picture(w, h)?;
            let mut kept = Vec::new();
            let mut icc = false;
            let mut still = false;
            for chunk in chunks {
                let (kind, data) = chunk?;
                match &kind {
                    b"ICCP" => icc = true,
                    b"ANIM" | b"ALPH" => {}
                    b"VP8 " | b"VP8L" if !still => {
                        same_size("the picture", bitstream_size(&kind, data)?, (w, h))?;
                        budget.frame(w, h)?;
                        still = true;
                    }
                    b"VP8 " | b"VP8L" => {}
                    b"ANMF" => {
                        put(&mut kept, b"ANMF", &frame(data, budget)?);
                        continue;
                    }
                    _ => continue, // EXIF, XMP, unknown
                }
                put(&mut kept, &kind, data);
            }
            let mut vp8x = data[..10].to_vec();
            vp8x[0] &= !(EXIF | XMP | ICC);
            if icc {
                vp8x[0] |= ICC;
            }
            put(&mut out, b"VP8X", &vp8x);
            out.extend(kept);
        }
        _ => {
            return Err(Unfit::Unreadable(
                "the first chunk is not VP8, VP8L or VP8X".into(),
            ));
        }
    }
    let size = u32::try_from(out.len() + 4).expect("smaller than the input");
    let mut file = Vec::with_capacity(out.len() + 12);
    file.extend_from_slice(b"RIFF");
    file.extend_from_slice(&size.to_le_bytes());
    file.extend_from_slice(b"WEBP");
    file.extend(out);
    Ok(file)
}

/// An ANMF chunk's data with only its header and its ALPH, VP8 and VP8L chunks.
fn frame(data: &[u8], budget: &mut Budget) -> Result<Vec<u8>, Unfit> {
    let head = data
        .get(..16)
        .ok_or_else(|| Unfit::Unreadable("an ANMF chunk shorter than its header".into()))?;
    let size = (le24(&head[6..9]) + 1, le24(&head[9..12]) + 1);
    budget.frame(size.0, size.1)?;
    let mut out = head.to_vec();
    let mut bitstreams = 0;
    for chunk in chunks(&data[16..]) {
        let (kind, data) = chunk?;
        if matches!(&kind, b"VP8 " | b"VP8L") {
            let frame = format!("frame {}", budget.frames());
            same_size(&frame, bitstream_size(&kind, data)?, size)?;
            bitstreams += 1;
        }
        if matches!(&kind, b"ALPH" | b"VP8 " | b"VP8L") {
            put(&mut out, &kind, data);
        }
    }
    if bitstreams != 1 {
        return Err(Unfit::Unreadable(format!(
            "an animation frame with {bitstreams} bitstreams"
        )));
    }
    Ok(out)
}

/// A bitstream must be the size its frame header or canvas announced (and the budget passed).
fn same_size(what: &str, bitstream: (u32, u32), announced: (u32, u32)) -> Result<(), Unfit> {
    match bitstream == announced {
        true => Ok(()),
        false => Err(Unfit::Unreadable(format!(
            "{what} is announced as {}×{} but its bitstream is {}×{}",
            announced.0, announced.1, bitstream.0, bitstream.1
        ))),
    }
}

/// Each frame of an animated WebP that `strip` wrote, as a still WebP file of its own: its
/// bitstream (and alpha) under a header of the frame's size.
pub fn frames(stripped: &[u8]) -> impl Iterator<Item = Result<Vec<u8>, Unfit>> + '_ {
    chunks(&stripped[12..]).filter_map(|chunk| {
        let (kind, data) = match chunk {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        if &kind != b"ANMF" {
            return None;
        }
        let mut body = Vec::with_capacity(data.len() + 32);
        body.extend_from_slice(b"WEBP");
        let inner: Vec<_> = chunks(&data[16..]).filter_map(Result::ok).collect();
        if inner.iter().any(|(kind, _)| kind == b"ALPH") {
            let mut vp8x = vec![0x10, 0, 0, 0];
            vp8x.extend_from_slice(&data[6..12]);
            put(&mut body, b"VP8X", &vp8x);
        }
        for (kind, data) in inner {
            put(&mut body, &kind, data);
        }
        let mut file = Vec::with_capacity(body.len() + 8);
        file.extend_from_slice(b"RIFF");
        file.extend_from_slice(&(body.len() as u32).to_le_bytes());
        file.extend(body);
        Some(Ok(file))
    })
}

/// The chunks of `body`, in order, by their lengths (a chunk with an odd length is followed by
/// a padding byte).
fn chunks(body: &[u8]) -> impl Iterator<Item = Result<([u8; 4], &[u8]), Unfit>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= body.len() {
            return None;
        }
        let truncated = || Unfit::Unreadable("a chunk runs past its container: truncated".into());
        let Some(head) = body.get(at..at + 8) else {
            at = body.len();
            return Some(Err(truncated()));
        };
        let kind: [u8; 4] = head[0..4].try_into().expect("4 bytes");
        let len = le(&head[4..8]) as usize;
        let Some(data) = body.get(at + 8..at + 8 + len) else {
            at = body.len();
            return Some(Err(truncated()));
        };
        at += 8 + len + len % 2;
        Some(Ok((kind, data)))
    })
}

/// Width and height a VP8 or VP8L bitstream's header announces.
fn bitstream_size(kind: &[u8; 4], data: &[u8]) -> Result<(u32, u32), Unfit> {
    let short = || Unfit::Unreadable("a bitstream header that is too short".into());
    match kind {
        b"VP8L" => {
            let head = data.get(..5).ok_or_else(short)?;
            let bits = le(&head[1..5]);
            Ok(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        _ => {
            let head = data.get(..10).ok_or_else(short)?;
            let w = u32::from(u16::from_le_bytes([head[6], head[7]]) & 0x3FFF);
            let h = u32::from(u16::from_le_bytes([head[8], head[9]]) & 0x3FFF);
            Ok((w, h))
        }
    }
}

/// A chunk: its type, length, data and padding byte when the length is odd.
fn put(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(kind);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(0);
    }
}

fn le(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

fn le24(b: &[u8]) -> u32 {
    u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16
}
