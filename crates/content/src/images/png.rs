//! PNG by its chunk lengths: the chunks that make the pixels are kept (an allowlist), every
//! other one goes, and nothing after IEND is written. Frame sizes go to the budget.

use super::budget::Budget;
use super::clean::Unfit;

const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Chunks that make or describe the pixels (colour, transparency, animation). Every other
/// one goes: eXIf, tEXt, zTXt, iTXt, tIME, private chunks and unknown critical ones.
const KEPT: &[&[u8; 4]] = &[
    b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT",
    b"pHYs", b"bKGD", b"acTL", b"fcTL", b"fdAT", b"cICP",
];

/// The PNG in `bytes` with only the kept chunks, each frame announced to `budget`.
pub fn strip(bytes: &[u8], budget: &mut Budget) -> Result<Vec<u8>, Unfit> {
    if !bytes.starts_with(SIGNATURE) {
        return Err(Unfit::Unreadable("not a PNG signature".into()));
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(SIGNATURE);
    let mut at = SIGNATURE.len();
    let mut picture = None;
    let mut seen_data = false;
    let mut animated = false;
    loop {
        let (kind, data, end) = chunk(bytes, at)?;
        match &kind {
            b"IHDR" if picture.is_none() && data.len() >= 8 => {
                let (w, h) = (be32(&data[0..4]), be32(&data[4..8]));
                budget.picture(w, h)?;
                picture = Some((w, h));
            }
            b"IHDR" => return Err(Unfit::Unreadable("a second or short IHDR chunk".into())),
            _ if picture.is_none() => {
                return Err(Unfit::Unreadable("the first chunk is not IHDR".into()));
            }
            // The default image (IDAT) is decoded whether or not it is a frame of the
            // animation; each fcTL after it announces one more frame.
            b"IDAT" if !seen_data => {
                let (w, h) = picture.expect("IHDR seen");
                budget.frame(w, h)?;
                seen_data = true;
            }
            b"acTL" if !seen_data => animated = true,
            b"fcTL" if animated && seen_data && data.len() >= 12 => {
                budget.frame(be32(&data[4..8]), be32(&data[8..12]))?;
            }
            _ => {}
        }
        if KEPT.contains(&&kind) {
            out.extend_from_slice(&bytes[at..end]);
        }
        if &kind == b"IEND" {
            break;
        }
        at = end;
    }
    if !seen_data {
        return Err(Unfit::Unreadable("no image data (IDAT)".into()));
    }
    Ok(out)
}

/// The chunk at `at`: its type, its data and where it ends (after its CRC).
fn chunk(bytes: &[u8], at: usize) -> Result<([u8; 4], &[u8], usize), Unfit> {
    let truncated = || Unfit::Unreadable("the file ends inside a chunk: it is truncated".into());
    let head = bytes.get(at..at + 8).ok_or_else(truncated)?;
    let len = be32(&head[0..4]) as usize;
    let kind: [u8; 4] = head[4..8].try_into().expect("4 bytes");
    let end = (at + 12).checked_add(len).ok_or_else(truncated)?;
    let data = bytes.get(at + 8..at + 8 + len).ok_or_else(truncated)?;
    if end > bytes.len() {
        return Err(truncated());
    }
    Ok((kind, data, end))
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().expect("4 bytes"))
}
