//! The rules the fake PDS (`fake_bluesky.rs`) checks record keys and post records by, as
//! `@atproto/pds` 0.5.35 does (facts: /work/shared/harness/bluesky/README.md, "Behaviour a client
//! sees"; the limits are the `app.bsky.feed.post` lexicon's: text ≤ 3000 UTF-8 bytes and ≤ 300
//! grapheme clusters, `langs` ≤ 3), and the TID helpers the tests compare with. Written here, not
//! taken from dayrun: a fake must not trust the code it tests. One check is stricter than the
//! PDS, and says so: a facet's byte range must lie inside the text on character boundaries (the
//! PDS stores such a facet; every client then renders it wrong).

#![allow(dead_code)]

use serde_json::Value;
use sha2::{Digest, Sha256};
use unicode_segmentation::UnicodeSegmentation;

pub const POST: &str = "app.bsky.feed.post";
const S32: &[u8; 32] = b"234567abcdefghijklmnopqrstuvwxyz";
const FIRST: &[u8; 16] = b"234567abcdefghij";

/// A TID: 13 characters of base32-sortable, the first one of `234567abcdefghij`.
pub fn is_tid(s: &str) -> bool {
    s.len() == 13 && s.bytes().all(|b| S32.contains(&b)) && FIRST.contains(&s.as_bytes()[0])
}

/// The TID of `micros` (since the epoch) and a 10-bit clock id.
pub fn tid(micros: u64, clock: u16) -> String {
    let mut v = (micros << 10) | u64::from(clock & 0x3ff);
    let mut out = [b'2'; 13];
    for slot in out.iter_mut().rev() {
        *slot = S32[(v & 31) as usize];
        v >>= 5;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

/// Microseconds and clock id of a TID.
pub fn tid_parts(s: &str) -> Option<(u64, u16)> {
    if !is_tid(s) {
        return None;
    }
    let v = s.bytes().fold(0u64, |acc, b| {
        acc << 5 | S32.iter().position(|c| *c == b).unwrap() as u64
    });
    Some((v >> 10, (v & 0x3ff) as u16))
}

/// Midnight UTC of a `YYYY-MM-DD` key, in microseconds since the epoch.
pub fn midnight_micros(key: &str) -> u64 {
    let day: jiff::civil::Date = key.parse().unwrap();
    let at = day
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .unwrap()
        .timestamp();
    at.as_microsecond() as u64
}

/// The record key the contract derives (issue 12, "Record key"): sha256 of
/// `dayrun bluesky rkey\n{target}\n{key}\n{generation}`; microseconds = the key's midnight UTC +
/// (first 8 bytes, big-endian, mod one hour); clock id = next 2 bytes & 0x3ff.
pub fn derived_rkey(target: &str, key: &str, generation: u32) -> String {
    let d = Sha256::digest(format!(
        "dayrun bluesky rkey\n{target}\n{key}\n{generation}"
    ));
    let first = u64::from_be_bytes(d[..8].try_into().unwrap());
    let clock = u16::from_be_bytes([d[8], d[9]]) & 0x3ff;
    tid(midnight_micros(key) + first % 3_600_000_000, clock)
}

/// Grapheme clusters, as the lexicon counts `maxGraphemes`.
pub fn graphemes(text: &str) -> usize {
    text.graphemes(true).count()
}

/// The 400 `InvalidRequest` message for an rkey that is not a TID.
pub fn bad_rkey(rkey: &str) -> Option<String> {
    (!is_tid(rkey))
        .then(|| format!("Invalid record key for {POST}: Invalid TID string (got {rkey:?}) at $"))
}

/// Check a post record as the PDS validates it against the lexicon: `Err` is the 400
/// `InvalidRequest` message.
pub fn check_post(record: &Value) -> Result<(), String> {
    let bad = |what: String| Err(format!("Invalid {POST} record: {what}"));
    let Some(fields) = record.as_object() else {
        return bad("object expected at $.record".into());
    };
    if record["$type"] != POST {
        return Err(format!(
            "Invalid $type: expected {POST}, got {}",
            record["$type"]
        ));
    }
    let Some(text) = fields.get("text").and_then(Value::as_str) else {
        return bad("required property missing or not a string at $.record.text".into());
    };
    if text.len() > 3000 {
        return bad(format!(
            "string too big (maximum 3000, got {}) at $.record.text",
            text.len()
        ));
    }
    let count = graphemes(text);
    if count > 300 {
        return bad(format!(
            "grapheme too big (maximum 300, got {count}) at $.record.text"
        ));
    }
    let created = fields.get("createdAt").and_then(Value::as_str);
    if created.is_none_or(|c| c.parse::<jiff::Timestamp>().is_err()) {
        return bad("invalid datetime at $.record.createdAt".into());
    }
    if let Some(langs) = fields.get("langs") {
        let Some(langs) = langs.as_array() else {
            return bad("array expected at $.record.langs".into());
        };
        if langs.len() > 3 {
            return bad(format!(
                "array too big (maximum 3, got {}) at $.record.langs",
                langs.len()
            ));
        }
        for (i, lang) in langs.iter().enumerate() {
            if !lang.as_str().is_some_and(language) {
                return bad(format!("invalid language at $.record.langs[{i}]"));
            }
        }
    }
    if let Some(facets) = fields.get("facets") {
        let Some(facets) = facets.as_array() else {
            return bad("array expected at $.record.facets".into());
        };
        for (i, facet) in facets.iter().enumerate() {
            check_facet(text, facet)
                .or_else(|why| bad(format!("{why} at $.record.facets[{i}]")))?;
        }
    }
    if let Some(embed) = fields.get("embed") {
        check_embed(embed).or_else(|why| bad(format!("{why} at $.record.embed")))?;
    }
    if let Some(reply) = fields.get("reply") {
        for side in ["root", "parent"] {
            let strong = &reply[side];
            let uri = strong["uri"].as_str().unwrap_or("");
            if !uri.starts_with("at://") || uri.split('/').count() != 5 {
                return bad(format!("invalid at-uri at $.record.reply.{side}.uri"));
            }
            if !strong["cid"]
                .as_str()
                .is_some_and(|c| c.starts_with("bafy"))
            {
                return bad(format!("invalid cid at $.record.reply.{side}.cid"));
            }
        }
    }
    Ok(())
}

/// A BCP-47 tag as the lexicon's `language` format takes it (near enough: letters, then
/// `-`-separated subtags of letters and digits).
fn language(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

fn check_facet(text: &str, facet: &Value) -> Result<(), String> {
    let index = &facet["index"];
    let (Some(start), Some(end)) = (index["byteStart"].as_u64(), index["byteEnd"].as_u64()) else {
        return Err("index.byteStart and index.byteEnd must be integers ≥ 0".into());
    };
    let Some(features) = facet["features"].as_array().filter(|f| !f.is_empty()) else {
        return Err("features must be a non-empty array".into());
    };
    for feature in features {
        match feature["$type"].as_str() {
            Some("app.bsky.richtext.facet#link") => {
                let uri = feature["uri"].as_str().unwrap_or("");
                if !uri.contains(':') {
                    return Err(format!("invalid uri {uri:?} in a link feature"));
                }
            }
            Some("app.bsky.richtext.facet#tag") => {
                let tag = feature["tag"].as_str().unwrap_or("");
                if tag.is_empty() || tag.len() > 640 || graphemes(tag) > 64 {
                    return Err(format!("invalid tag {tag:?} in a tag feature"));
                }
            }
            Some("app.bsky.richtext.facet#mention") => {}
            other => return Err(format!("unknown facet feature {other:?}")),
        }
    }
    // Stricter than the PDS (see the module doc).
    let (s, e) = (start as usize, end as usize);
    if s >= e || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return Err(format!(
            "fake PDS: facet byte range [{s}, {e}) is not inside the {}-byte text on character boundaries",
            text.len()
        ));
    }
    Ok(())
}

fn check_embed(embed: &Value) -> Result<(), String> {
    if embed["$type"] != "app.bsky.embed.external" {
        return Ok(());
    }
    let external = &embed["external"];
    for field in ["uri", "title", "description"] {
        if !external[field].is_string() {
            return Err(format!("external.{field} must be a string"));
        }
    }
    Ok(())
}

/// A CID-like name for a record's content (`bafyrei` + base32 of its sha256).
pub fn cid(value: &Value) -> String {
    let digest = Sha256::digest(value.to_string().as_bytes());
    let alphabet = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::from("bafyrei");
    let (mut acc, mut bits) = (0u32, 0);
    for b in digest {
        acc = acc << 8 | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(alphabet[(acc >> bits & 31) as usize] as char);
        }
    }
    out
}

#[test]
fn tids_round_trip_and_sort_by_time() {
    let a = tid(1_700_000_000_000_000, 5);
    assert!(is_tid(&a), "{a}");
    assert_eq!(tid_parts(&a), Some((1_700_000_000_000_000, 5)));
    assert!(tid(1_700_000_000_000_001, 0) > a);
    // The README's example rkey is not a TID; a 1970 and a 2099 one are.
    assert!(!is_tid("hello-world"));
    assert!(is_tid(&tid(0, 0)) && is_tid(&tid(midnight_micros("2099-12-31"), 1023)));
    let key = derived_rkey("sky", "2026-11-29", 0);
    let (micros, _) = tid_parts(&key).unwrap();
    let midnight = midnight_micros("2026-11-29");
    assert!((midnight..midnight + 3_600_000_000).contains(&micros));
    assert_ne!(key, derived_rkey("sky", "2026-11-29", 1));
}
