//! Bluesky images: each one made to fit the lexicon's 1,000,000 bytes (encoded again when it
//! is larger), uploaded with `uploadBlob`, and embedded as `app.bsky.embed.images` with its alt
//! text and aspect ratio. Blobs are stored by content hash: uploading the same bytes twice
//! gives the same blob, so a lost answer costs nothing but the second upload, and a resend
//! uploads again rather than trust a blob the PDS may have dropped.

use super::Bluesky;
use crate::error::{Class, Error};
use crate::images::{Image, fit, megabytes};
use crate::post::Post;
use crate::{Keep, Media, Upload};
use serde_json::{Value, json};

/// `app.bsky.embed.images`: at most this many images…
pub const MAX_IMAGES: usize = 4;
/// …each blob at most this many bytes.
pub const MAX_BLOB: usize = 1_000_000;

impl Bluesky {
    /// The record with its images embedded (in place of a link card), from the recorded blobs.
    pub(super) fn embed(record: &Value, post: &Post, media: &Media) -> Result<Value, Error> {
        let mut record = record.clone();
        if post.images.is_empty() {
            return Ok(record);
        }
        let images = post
            .images
            .iter()
            .map(|image| {
                let missing = || {
                    Error::failure(
                        Class::RetrySafe,
                        format!(
                            "image {} has not been uploaded yet; nothing was sent",
                            image.sha16()
                        ),
                    )
                };
                let value = media.get(image).ok_or_else(missing)?;
                let parts: Vec<&str> = value.split('@').collect();
                let [cid, mime, size, w, h] = parts[..] else {
                    return Err(missing());
                };
                let num = |s: &str| s.parse::<u64>().map_err(|_| missing());
                Ok(json!({
                    "alt": image.alt,
                    "image": {
                        "$type": "blob",
                        "ref": { "$link": cid },
                        "mimeType": mime,
                        "size": num(size)?,
                    },
                    "aspectRatio": { "width": num(w)?, "height": num(h)? },
                }))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        record["embed"] = json!({ "$type": "app.bsky.embed.images", "images": images });
        Ok(record)
    }

    pub(super) fn plan(image: &Image, _: &Media) -> String {
        let size = image.bytes.len();
        if size <= MAX_BLOB {
            return format!("upload {}", megabytes(size as u64));
        }
        match fit::fit(image, MAX_BLOB) {
            Ok(fitted) => format!(
                "re-encode {} to {} ({}×{}), upload",
                megabytes(size as u64),
                megabytes(fitted.bytes.len() as u64),
                fitted.width,
                fitted.height
            ),
            Err(why) => format!("cannot be sent: {why}"),
        }
    }
}

impl Upload for Bluesky {
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        // Every attempt uploads its images again, even those a line records: the PDS drops a
        // blob no record uses within minutes, and the same bytes give the same blob, so this
        // costs an upload, never a second image.
        for image in &post.images {
            let fitted = fit::fit(image, MAX_BLOB).map_err(|why| {
                Error::failure(Class::Local, format!("image `{}`: {why}", image.srcs[0]))
                    .at(&post.path)
                    .line(image.line)
            })?;
            let reply = self.client.post_bytes(
                "com.atproto.repo.uploadBlob",
                fitted.format.content_type(),
                &fitted.bytes,
            )?;
            let reply = reply.success(|r| self.failure("uploadBlob", r))?;
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            let blob = &doc["blob"];
            let cid = blob["ref"]["$link"].as_str().unwrap_or_default();
            let mime = blob["mimeType"].as_str().unwrap_or_default();
            let size = blob["size"].as_u64();
            let plain = |s: &str| {
                !s.is_empty()
                    && s.len() <= 200
                    && s.bytes().all(|b| b.is_ascii_graphic() && b != b'@')
            };
            let (true, true, Some(size)) = (plain(cid), plain(mime), size) else {
                return Err(Error::failure(
                    Class::Unknown,
                    format!("uploadBlob: HTTP {} without a blob reference", reply.status),
                ));
            };
            let value = format!("{cid}@{mime}@{size}@{}@{}", fitted.width, fitted.height);
            media.insert(image, &value)?;
            keep(
                media,
                &format!("uploaded {} blob={cid} bytes={size}", image.sha16()),
            )?;
        }
        Ok(())
    }

    fn image_limit(&mut self, _: bool) -> Option<(usize, String)> {
        Some((MAX_IMAGES, "Bluesky".into()))
    }
}
