//! GIF by its block structure (descriptors, colour tables and data sub-block lengths): image
//! blocks, graphic control and the loop count are kept (an allowlist) with their bytes as they
//! are; comments, plain text and other application blocks go, and nothing after the trailer
//! is written. The screen and each frame's size go to the budget.

use super::budget::Budget;
use super::clean::Unfit;

/// The GIF in `bytes` with only the blocks that make its frames, each frame announced to
/// `budget`. A file that ends between two blocks gets its missing trailer.
pub fn strip(bytes: &[u8], budget: &mut Budget) -> Result<Vec<u8>, Unfit> {
    let truncated = || Unfit::Unreadable("the GIF data ends early: the file is truncated".into());
    if !(bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) || bytes.len() < 13 {
        return Err(Unfit::Unreadable("not a GIF header".into()));
    }
    budget.picture(le16(&bytes[6..8]), le16(&bytes[8..10]))?;
    let at = 13 + table_len(bytes[10]);
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(bytes.get(..at).ok_or_else(truncated)?);
    let mut at = at;
    loop {
        let Some(&introducer) = bytes.get(at) else {
            out.push(0x3B);
            return Ok(out);
        };
        match introducer {
            0x3B => {
                out.push(0x3B);
                return Ok(out);
            }
            0x2C => {
                let head = bytes.get(at + 1..at + 10).ok_or_else(truncated)?;
                budget.frame(le16(&head[4..6]), le16(&head[6..8]))?;
                // Descriptor, local table, LZW code size, then the data sub-blocks.
                let data = at + 10 + table_len(head[8]) + 1;
                let end = sub_blocks_end(bytes, data).ok_or_else(truncated)?;
                out.extend_from_slice(&bytes[at..end]);
                at = end;
            }
            0x21 => {
                let label = *bytes.get(at + 1).ok_or_else(truncated)?;
                let end = sub_blocks_end(bytes, at + 2).ok_or_else(truncated)?;
                let first = bytes
                    .get(at + 3..(at + 3 + 11).min(end))
                    .unwrap_or_default();
                let keep = match label {
                    0xF9 => true, // graphic control: delay, disposal, transparency
                    0xFF => first == b"NETSCAPE2.0" || first == b"ANIMEXTS1.0", // loop count
                    _ => false,   // comment, plain text, unknown
                };
                if keep {
                    out.extend_from_slice(&bytes[at..end]);
                }
                at = end;
            }
            other => {
                return Err(Unfit::Unreadable(format!(
                    "byte {at} ({other:#04x}) does not start a GIF block"
                )));
            }
        }
    }
}

/// The length of the colour table a packed field announces.
fn table_len(packed: u8) -> usize {
    match packed & 0x80 {
        0 => 0,
        _ => 3 << ((packed & 0x07) + 1),
    }
}

/// Where the data sub-blocks starting at `at` end (after their zero-length terminator).
fn sub_blocks_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let len = usize::from(*bytes.get(at)?);
        at += 1 + len;
        if len == 0 {
            return Some(at);
        }
        if at > bytes.len() {
            return None;
        }
    }
}

fn le16(b: &[u8]) -> u32 {
    u32::from(u16::from_le_bytes([b[0], b[1]]))
}
