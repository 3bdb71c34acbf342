//! Ghost images: each uploaded once to `/images/upload/` (a multipart form), its URL recorded
//! on the key's line the moment it arrives, and the post's HTML and cover pointed at it.
//!
//! Ghost's image endpoint takes no alt text and cannot be looked up: it answers the stored
//! file's URL and nothing lists uploads. An upload whose answer was lost is sent again (the
//! runner treats it as retry-safe: no post was sent), which can leave one unused copy of that
//! image in the site's `content/images/` per lost answer. The alt text travels in the HTML
//! (`<img alt>`) and, for the cover, in the post's `feature_image_alt`.

use super::{Ghost, before_post};
use crate::error::{Class, Error};
use crate::images::Image;
use crate::net::{FilePart, status_class};
use crate::outside::web_url;
use crate::post::Post;
use crate::{Keep, Media};
use serde_json::{Value, json};

/// What `prepare` writes where an image URL goes; `fill` puts the upload's answer there.
const PLACEHOLDER: &str = "dayrun-media:";

impl Ghost {
    /// The post's HTML with each local image pointing at its placeholder.
    pub(super) fn content(post: &Post) -> String {
        if post.images.is_empty() {
            return post.html.clone();
        }
        crate::images::rewrite::html(&post.markdown, |dest| {
            let image = post.images.iter().find(|i| i.named_by(dest))?;
            Some(format!("{PLACEHOLDER}{}", image.sha16()))
        })
    }

    /// The cover's placeholder and its alt text.
    pub(super) fn cover(post: &Post) -> Option<(String, String)> {
        let cover = post.images.iter().find(|i| i.cover)?;
        Some((format!("{PLACEHOLDER}{}", cover.sha16()), cover.alt.clone()))
    }

    /// `body` with every placeholder replaced by the URL its upload answered.
    pub(super) fn fill(body: &Value, media: &Media) -> Result<Value, Error> {
        let mut body = body.clone();
        let url = |sha: &str| -> Result<String, Error> {
            media.get_sha(sha).map(str::to_string).ok_or_else(|| {
                Error::failure(
                    Class::RetrySafe,
                    format!("image {sha} has not been uploaded yet; nothing was sent"),
                )
            })
        };
        if let Some(sha) = body["feature_image"]
            .as_str()
            .and_then(|f| f.strip_prefix(PLACEHOLDER))
        {
            body["feature_image"] = json!(url(sha)?);
        }
        if let Some(html) = body["html"].as_str() {
            // Only where `content` put a placeholder: as an image's whole `src`. A post's own
            // words cannot make that (their `<` is escaped), so they are never replaced.
            let open = format!("<img src=\"{PLACEHOLDER}");
            let mut out = String::with_capacity(html.len());
            let mut rest = html;
            while let Some(at) = rest.find(&open) {
                let after = &rest[at + open.len()..];
                let sha = after
                    .get(..16)
                    .filter(|s| s.bytes().all(|b| b.is_ascii_hexdigit()))
                    .filter(|_| after.as_bytes().get(16) == Some(&b'"'));
                out.push_str(&rest[..at]);
                match sha {
                    Some(sha) => {
                        out.push_str(&format!("<img src=\"{}", attribute(&url(sha)?)));
                        rest = &after[16..];
                    }
                    None => {
                        out.push_str(&open);
                        rest = after;
                    }
                }
            }
            out.push_str(rest);
            body["html"] = json!(out);
        }
        Ok(body)
    }

    /// Upload each image the line does not record yet.
    pub(super) fn upload_images(
        &mut self,
        post: &Post,
        media: &mut Media,
        keep: &mut Keep,
    ) -> Result<(), Error> {
        for image in &post.images {
            if media.get(image).is_some() {
                continue;
            }
            let name = image.hashed_name();
            let file = FilePart {
                field: "file",
                name: &name,
                content_type: image.format.content_type(),
                bytes: &image.bytes,
            };
            let mut reply = self.http.post_form(
                &self.url("/images/upload/", ""),
                &self.headers(),
                &[("ref", image.sha16())],
                file,
            )?;
            reply.body = self.masked(reply.body);
            if status_class(reply.status).is_some() {
                return Err(before_post(self.failure("upload image", &reply)));
            }
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or_default();
            let Some(url) = web_url(doc["images"][0]["url"].as_str()) else {
                return Err(Error::failure(
                    Class::Unknown,
                    format!(
                        "upload image: HTTP {} without an image URL{}",
                        reply.status,
                        self.http.excerpt(&reply.body)
                    ),
                ));
            };
            media.insert(image, &url)?;
            keep(media, &format!("uploaded {} url={url}", image.sha16()))?;
        }
        Ok(())
    }

    /// What publishing does with an image (`--dry-run`).
    pub(super) fn plan(image: &Image, media: &Media) -> String {
        match media.get(image) {
            Some(url) => format!("reuse {url} (uploaded earlier)"),
            None => format!(
                "upload {} as {}",
                crate::images::megabytes(image.bytes.len() as u64),
                image.hashed_name()
            ),
        }
    }
}

/// A URL as the value of an HTML attribute.
fn attribute(url: &str) -> String {
    url.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}
