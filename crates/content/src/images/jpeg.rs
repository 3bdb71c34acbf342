//! JPEG by its segment lengths: the segments that make the pixels are kept (an allowlist), the
//! entropy-coded data of each scan is copied as it is up to the next marker, and nothing after
//! the end of image is written. The frame's size goes to the budget.

use super::budget::Budget;
use super::clean::Unfit;

/// The JPEG in `bytes` with only the segments that make its pixels: frame and scan headers,
/// tables, restart intervals, JFIF (without its thumbnail), an ICC profile and Adobe's colour
/// transform. EXIF, XMP, IPTC, MPF, JFXX thumbnails, comments and unknown segments go.
pub fn strip(bytes: &[u8], budget: &mut Budget) -> Result<Vec<u8>, Unfit> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err(Unfit::Unreadable("not a JPEG start of image".into()));
    }
    let truncated = || Unfit::Unreadable("the JPEG data ends early: the file is truncated".into());
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&[0xFF, 0xD8]);
    let mut at = 2;
    let mut frames = 0;
    let mut scans = 0;
    loop {
        if *bytes.get(at).ok_or_else(truncated)? != 0xFF {
            return Err(Unfit::Unreadable(format!("byte {at} is not a JPEG marker")));
        }
        while bytes.get(at) == Some(&0xFF) {
            at += 1; // fill bytes
        }
        let marker = *bytes.get(at).ok_or_else(truncated)?;
        at += 1;
        match marker {
            0xD9 if scans == 0 => return Err(Unfit::Unreadable("the JPEG has no scan".into())),
            0xD9 => {
                out.extend_from_slice(&[0xFF, 0xD9]);
                return Ok(out);
            }
            0xD0..=0xD7 | 0x01 => continue, // no length, nothing to keep
            0x00 | 0xD8 => {
                return Err(Unfit::Unreadable(format!(
                    "marker FF{marker:02X} at byte {at} where a segment should be"
                )));
            }
            _ => {}
        }
        let len = bytes.get(at..at + 2).ok_or_else(truncated)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        if len < 2 {
            return Err(Unfit::Unreadable(format!("a segment of length {len}")));
        }
        let end = at + len;
        let payload = bytes.get(at + 2..end).ok_or_else(truncated)?;
        let segment = &bytes[at - 2..end];
        match marker {
            0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => {
                frames += 1;
                if frames > 1 || payload.len() < 5 {
                    return Err(Unfit::Unreadable("more than one frame header".into()));
                }
                let h = u16::from_be_bytes([payload[1], payload[2]]);
                let w = u16::from_be_bytes([payload[3], payload[4]]);
                budget.picture(w.into(), h.into())?;
                budget.frame(w.into(), h.into())?;
                out.extend_from_slice(segment);
            }
            0xC4 | 0xCC | 0xDB | 0xDC | 0xDD => out.extend_from_slice(segment),
            0xDA => {
                if frames == 0 {
                    return Err(Unfit::Unreadable("a scan before the frame header".into()));
                }
                scans += 1;
                let data_end = entropy_end(bytes, end).ok_or_else(truncated)?;
                out.extend_from_slice(&bytes[at - 2..data_end]);
                at = data_end;
                continue;
            }
            0xE0 if payload.starts_with(b"JFIF\0") && payload.len() >= 14 => {
                // Version, units and density; the thumbnail's size set to 0×0 and its pixels
                // left out.
                let mut jfif = payload[..14].to_vec();
                jfif[12] = 0;
                jfif[13] = 0;
                out.extend_from_slice(&[0xFF, 0xE0, 0, 16]);
                out.extend_from_slice(&jfif);
            }
            0xE2 if payload.starts_with(b"ICC_PROFILE\0") => out.extend_from_slice(segment),
            0xEE if payload.starts_with(b"Adobe") => out.extend_from_slice(segment),
            _ => {} // APPn, COM, JPG extensions and anything unknown
        }
        at = end;
    }
}

/// Where the entropy-coded data that starts at `from` ends: at the first marker, a 0xFF that
/// is not followed by a stuffed 0x00 or a restart marker. `None` when the file ends first.
fn entropy_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        at += bytes.get(at..)?.iter().position(|&b| b == 0xFF)?;
        match *bytes.get(at + 1)? {
            0x00 | 0xD0..=0xD7 => at += 2,
            _ => return Some(at),
        }
    }
}
