//! What the fakes need to look at uploaded images as the platforms do, written here on purpose
//! rather than taken from dayrun (a fake must not trust the code it tests): the type sniffed from
//! the bytes (never the name or the header), the pixel size, the metadata a cleaned image must
//! not carry, a raw-codec CID as the PDS computes for a blob, and multipart/form-data parts.

#![allow(dead_code)]

use crate::fakes::fake_server::Request;
use sha2::{Digest, Sha256};

/// The type the bytes are, as `file-type`, `wp_get_image_mime` and Paperclip detect it:
/// (MIME type, usual extension). `None` for anything that is not JPEG, PNG, GIF or WebP.
pub fn sniff(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(("image/jpeg", "jpg"))
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(("image/png", "png"))
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(("image/gif", "gif"))
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(("image/webp", "webp"))
    } else {
        None
    }
}

/// Width and height in pixels, read from the header (`None` when it cannot be read).
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be16 = |i: usize| {
        Some(u32::from(u16::from_be_bytes([
            *bytes.get(i)?,
            *bytes.get(i + 1)?,
        ])))
    };
    let le16 = |i: usize| {
        Some(u32::from(u16::from_le_bytes([
            *bytes.get(i)?,
            *bytes.get(i + 1)?,
        ])))
    };
    let be32 = |i: usize| Some(u32::from_be_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
    match sniff(bytes)?.0 {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/jpeg" => {
            let mut i = 2;
            while i + 4 <= bytes.len() {
                if bytes[i] != 0xFF {
                    return None;
                }
                let marker = bytes[i + 1];
                if marker == 0xFF {
                    i += 1;
                    continue;
                }
                let len = be16(i + 2)? as usize;
                // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC).
                if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
                    return Some((be16(i + 7)?, be16(i + 5)?));
                }
                i += 2 + len;
            }
            None
        }
        _ => {
            // WebP: VP8 (lossy), VP8L (lossless) or VP8X (extended) first chunk.
            let chunk = bytes.get(12..16)?;
            let at = |i: usize| u32::from(*bytes.get(i).unwrap_or(&0));
            match chunk {
                b"VP8 " => Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF)),
                b"VP8L" => {
                    let b = [at(21), at(22), at(23), at(24)];
                    let w = 1 + (b[0] | (b[1] & 0x3F) << 8);
                    let h = 1 + (b[1] >> 6 | b[2] << 2 | (b[3] & 0x0F) << 10);
                    Some((w, h))
                }
                b"VP8X" => Some((
                    1 + (at(24) | at(25) << 8 | at(26) << 16),
                    1 + (at(27) | at(28) << 8 | at(29) << 16),
                )),
                _ => None,
            }
        }
    }
}

/// Metadata a cleaned image must not carry (contract: "What leaves the machine"): the JPEG
/// APPn segments other than APP0/APP2/APP14 and COM; the PNG chunks eXIf, tEXt, zTXt, iTXt,
/// tIME; WebP EXIF and XMP chunks. Each finding names what it is.
pub fn metadata(bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    match sniff(bytes).map(|s| s.0) {
        Some("image/jpeg") => {
            let mut i = 2;
            while i + 4 <= bytes.len() && bytes[i] == 0xFF {
                let marker = bytes[i + 1];
                if marker == 0xDA || marker == 0xD9 {
                    break;
                }
                let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
                let keep = [0xE0, 0xE2, 0xEE];
                if ((0xE0..=0xEF).contains(&marker) && !keep.contains(&marker)) || marker == 0xFE {
                    let body = &bytes[(i + 4).min(bytes.len())..(i + 2 + len).min(bytes.len())];
                    let what = if body.starts_with(b"Exif\0") {
                        "Exif"
                    } else if body.starts_with(b"http://ns.adobe.com/xap") {
                        "XMP"
                    } else {
                        "segment"
                    };
                    found.push(format!("JPEG {what} (marker {marker:02X})"));
                }
                i += 2 + len;
            }
        }
        Some("image/png") => {
            let mut i = 8;
            while i + 8 <= bytes.len() {
                let len = u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
                let kind = String::from_utf8_lossy(&bytes[i + 4..i + 8]).into_owned();
                if ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"].contains(&kind.as_str()) {
                    found.push(format!("PNG {kind} chunk"));
                }
                i += 12 + len;
            }
        }
        Some("image/webp") => {
            let mut i = 12;
            while i + 8 <= bytes.len() {
                let kind = String::from_utf8_lossy(&bytes[i..i + 4]).into_owned();
                let len = u32::from_le_bytes(bytes[i + 4..i + 8].try_into().unwrap()) as usize;
                if kind == "EXIF" || kind == "XMP " {
                    found.push(format!("WebP {kind} chunk"));
                }
                i += 8 + len + (len & 1);
            }
        }
        _ => {}
    }
    // Whatever the format: a GPS tag's text or an Exif header anywhere is a leak.
    if find(bytes, b"Exif\0\0").is_some() && found.is_empty() {
        found.push("an Exif header".into());
    }
    found
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The CID the PDS gives a blob: CIDv1, raw codec (0x55), sha2-256, base32 lower with the `b`
/// multibase prefix (`cidForRawHash`): always `bafkrei…`.
pub fn raw_cid(bytes: &[u8]) -> String {
    let mut raw = vec![0x01, 0x55, 0x12, 0x20];
    raw.extend_from_slice(&Sha256::digest(bytes));
    let alphabet = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::from("b");
    let (mut acc, mut bits) = (0u32, 0);
    for b in raw {
        acc = acc << 8 | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(alphabet[(acc >> bits & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(alphabet[(acc << (5 - bits) & 31) as usize] as char);
    }
    out
}

/// One part of a multipart/form-data body.
#[derive(Debug, Clone)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub data: Vec<u8>,
}

impl Part {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

/// The parts of a `multipart/form-data` request (RFC 7578), or `Err` saying why it is not one.
pub fn multipart(req: &Request) -> Result<Vec<Part>, String> {
    let content_type = req.header("content-type").unwrap_or("");
    if !content_type
        .to_ascii_lowercase()
        .starts_with("multipart/form-data")
    {
        return Err(format!(
            "Content-Type is {content_type:?}, not multipart/form-data"
        ));
    }
    let boundary = content_type
        .split(';')
        .find_map(|p| p.trim().strip_prefix("boundary="))
        .map(|b| b.trim_matches('"').to_string())
        .ok_or("no boundary in the Content-Type")?;
    let delimiter = format!("--{boundary}");
    let body = &req.body;
    let mut parts = Vec::new();
    let mut at = find(body, delimiter.as_bytes()).ok_or("no first boundary")?;
    loop {
        at += delimiter.len();
        if body[at..].starts_with(b"--") {
            return Ok(parts);
        }
        if !body[at..].starts_with(b"\r\n") {
            return Err("a boundary is not followed by CRLF".into());
        }
        at += 2;
        let head_end = find(&body[at..], b"\r\n\r\n").ok_or("a part without a blank line")? + at;
        let head = String::from_utf8_lossy(&body[at..head_end]).into_owned();
        let data_start = head_end + 4;
        let closing = format!("\r\n{delimiter}");
        let data_end = find(&body[data_start..], closing.as_bytes())
            .ok_or("a part that is never closed (truncated body?)")?
            + data_start;
        let (mut name, mut filename, mut part_type) = (None, None, None);
        for line in head.split("\r\n") {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            match key.trim().to_ascii_lowercase().as_str() {
                "content-disposition" => {
                    for param in value.split(';').skip(1) {
                        if let Some((k, v)) = param.split_once('=') {
                            let v = v.trim().trim_matches('"').to_string();
                            match k.trim() {
                                "name" => name = Some(v),
                                "filename" => filename = Some(v),
                                _ => {}
                            }
                        }
                    }
                }
                "content-type" => part_type = Some(value.trim().to_string()),
                _ => {}
            }
        }
        parts.push(Part {
            name: name.ok_or("a part without a name")?,
            filename,
            content_type: part_type,
            data: body[data_start..data_end].to_vec(),
        });
        at = data_end + 2;
    }
}

#[test]
fn raw_cids_look_like_the_pds_ones() {
    let cid = raw_cid(b"hello");
    assert!(cid.starts_with("bafkrei"), "{cid}");
    assert_eq!(cid.len(), 59, "{cid}");
    assert_eq!(
        raw_cid(b"hello"),
        "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"
    );
}

#[test]
fn sniffing_reads_bytes_not_names() {
    assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), Some(("image/png", "png")));
    assert_eq!(sniff(b"hello, I am a text file"), None);
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend_from_slice(&640u32.to_be_bytes());
    png.extend_from_slice(&480u32.to_be_bytes());
    assert_eq!(dimensions(&png), Some((640, 480)));
}
