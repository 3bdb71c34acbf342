//! The fake PDS's blobs (issue 14), as `@atproto/pds` handles them: `uploadBlob` takes the raw
//! body, sniffs the type from the bytes (falling back to the Content-Type, as `file-type` with
//! the request's encoding does), and answers `{blob: {$type: "blob", ref: {$link: CID}, mimeType,
//! size}}` with the raw-codec CID of the bytes (`bafkrei…`): the same bytes are the same blob.
//! A record's `app.bsky.embed.images` embed is checked against the lexicon (`images` required,
//! at most 4; each `image` a blob ref and `alt` a string, both required; `aspectRatio`, when
//! present, integers ≥ 1) and each blob as `verifyBlob` does: not uploaded → 400 `BlobNotFound`
//! "Could not find blob: CID"; over `maxSize` 1,000,000 bytes → 400 `BlobTooLarge` "This file
//! is too large. It is 1.2MB but the maximum size is 976.56KB."; a `mimeType` or `size` other
//! than the stored one → 400 `InvalidMimeType` / `InvalidSize`; not `image/*` → 400
//! `InvalidMimeType` "Wrong type of file…". `com.atproto.sync.getBlob` returns the bytes.

use super::Pds;
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request};
use crate::fakes::media::{raw_cid, sniff};
use serde_json::{Value, json};

/// A blob the PDS holds.
#[derive(Debug, Clone)]
pub struct Blob {
    pub cid: String,
    pub mime: String,
    pub bytes: Vec<u8>,
    /// Records that reference it (a blob becomes permanent with its first record).
    pub used_by: Vec<String>,
}

/// `bytes.format` of the `bytes` package (1024-based, two decimals, trailing zeros dropped).
fn pretty(n: usize) -> String {
    let units = [(1u64 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")];
    for (size, unit) in units {
        if n as u64 >= size {
            let v = format!("{:.2}", n as f64 / size as f64);
            let v = v.trim_end_matches('0').trim_end_matches('.');
            return format!("{v}{unit}");
        }
    }
    format!("{n}B")
}

pub(super) fn upload_blob(s: &mut Pds, req: &Request) -> Reply {
    let fault = s.upload_faults.pop_front().unwrap_or(Fault::Normal);
    match fault {
        Fault::Reject(status) => {
            return s.error(req, status, "InternalServerError", "Internal Server Error");
        }
        Fault::Hang => return Reply::Hang(s.hang),
        _ => {}
    }
    let header = req
        .header("content-type")
        .unwrap_or("application/octet-stream");
    let mime = sniff(&req.body).map_or(header.to_string(), |(m, _)| m.to_string());
    let cid = raw_cid(&req.body);
    s.uploads.push(cid.clone());
    s.blobs.entry(cid.clone()).or_insert_with(|| Blob {
        cid: cid.clone(),
        mime: mime.clone(),
        bytes: req.body.clone(),
        used_by: Vec::new(),
    });
    let answer = json!({"blob": {"$type": "blob", "ref": {"$link": cid}, "mimeType": mime, "size": req.body.len()}});
    match fault {
        Fault::CommitHang => Reply::Hang(s.hang),
        Fault::CommitClose => Reply::Close,
        Fault::CommitStatus(status) => {
            s.error(req, status, "InternalServerError", "Internal Server Error")
        }
        _ => Reply::json(200, answer),
    }
}

pub(super) fn get_blob(s: &Pds, req: &Request) -> Reply {
    let cid = req.query("cid").unwrap_or_default();
    match s.blobs.get(&cid) {
        Some(blob) => Reply::raw(200, &blob.mime, blob.bytes.clone()),
        None => s.error(req, 400, "BlobNotFound", "Blob not found"),
    }
}

/// The lexicon's `app.bsky.embed.images` rules; `Err` is the 400 InvalidRequest message.
fn check_lexicon(embed: &Value) -> Result<(), String> {
    let at = "$.record.embed";
    let bad = |what: String| Err(format!("Invalid app.bsky.feed.post record: {what}"));
    let Some(images) = embed.get("images").and_then(Value::as_array) else {
        return bad(format!(
            "required property missing or not an array at {at}.images"
        ));
    };
    if images.len() > 4 {
        return bad(format!(
            "array too big (maximum 4, got {}) at {at}.images",
            images.len()
        ));
    }
    for (i, image) in images.iter().enumerate() {
        let here = format!("{at}.images[{i}]");
        if !image["alt"].is_string() {
            return bad(format!(
                "required property missing or not a string at {here}.alt"
            ));
        }
        let blob = &image["image"];
        let ok = blob["$type"] == "blob"
            && blob["ref"]["$link"].is_string()
            && blob["mimeType"].is_string()
            && blob["size"].is_u64();
        if !ok {
            return bad(format!("blob expected at {here}.image"));
        }
        if let Some(ratio) = image.get("aspectRatio") {
            for side in ["width", "height"] {
                if ratio[side].as_u64().is_none_or(|n| n < 1) {
                    return bad(format!("integer ≥ 1 required at {here}.aspectRatio.{side}"));
                }
            }
        }
    }
    Ok(())
}

/// Check a record's images embed (if it has one) and make its blobs permanent. `Err` is the
/// reply the PDS gives.
pub(super) fn check_record(
    s: &mut Pds,
    req: &Request,
    record: &Value,
    uri: &str,
) -> Result<(), Reply> {
    let embed = &record["embed"];
    if embed["$type"] != "app.bsky.embed.images" {
        return Ok(());
    }
    check_lexicon(embed).map_err(|msg| s.error(req, 400, "InvalidRequest", &msg))?;
    let images = embed["images"].as_array().unwrap();
    for image in images {
        let blob = &image["image"];
        let cid = blob["ref"]["$link"].as_str().unwrap();
        let Some(found) = s.blobs.get(cid) else {
            let msg = format!("Could not find blob: {cid}");
            return Err(s.error(req, 400, "BlobNotFound", &msg));
        };
        let (size, mime) = (found.bytes.len(), found.mime.clone());
        if found.used_by.is_empty() {
            if size > 1_000_000 {
                let msg = format!(
                    "This file is too large. It is {} but the maximum size is {}.",
                    pretty(size),
                    pretty(1_000_000)
                );
                return Err(s.error(req, 400, "BlobTooLarge", &msg));
            }
            if blob["mimeType"] != mime.as_str() {
                let msg = format!(
                    "Referenced Mimetype does not match stored blob. Expected: {mime}, Got: {}",
                    blob["mimeType"].as_str().unwrap_or("")
                );
                return Err(s.error(req, 400, "InvalidMimeType", &msg));
            }
            if blob["size"] != size {
                let msg = format!(
                    "Referenced Size does not match stored blob. Expected: {size}, Got: {}",
                    blob["size"]
                );
                return Err(s.error(req, 400, "InvalidSize", &msg));
            }
            if !mime.starts_with("image/") {
                let msg = format!("Wrong type of file. It is {mime} but it must match image/*.");
                return Err(s.error(req, 400, "InvalidMimeType", &msg));
            }
        }
    }
    for image in images {
        let cid = image["image"]["ref"]["$link"].as_str().unwrap();
        let blob = s.blobs.get_mut(cid).unwrap();
        if !blob.used_by.iter().any(|u| u == uri) {
            blob.used_by.push(uri.to_string());
        }
    }
    Ok(())
}

#[test]
fn sizes_print_as_the_pds_prints_them() {
    assert_eq!(pretty(1_000_000), "976.56KB");
    assert_eq!(pretty(1_258_291), "1.2MB");
    assert_eq!(pretty(3 * 1024 * 1024), "3MB");
    assert_eq!(pretty(512), "512B");
}
