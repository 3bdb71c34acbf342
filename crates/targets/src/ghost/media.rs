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
use crate::net::{FilePart, status_class};
use crate::outside::web_url;
use crate::post::Post;
use crate::{Keep, Media, Upload, placeholder};
use serde_json::{Value, json};

impl Ghost {
    /// The post's HTML with each local image pointing at its placeholder.
    pub(super) fn content(post: &Post) -> String {
        placeholder::html(post)
    }

    /// The cover's placeholder and its alt text.
    pub(super) fn cover(post: &Post) -> Option<(String, String)> {
        let cover = post.images.iter().find(|i| i.cover)?;
        Some((placeholder::of(cover), cover.alt.clone()))
    }

    /// `body` with every placeholder replaced by the URL its upload answered.
    pub(super) fn fill(body: &Value, media: &Media) -> Result<Value, Error> {
        let mut body = body.clone();
        let url = |sha: &str| placeholder::upload(media, sha).map(str::to_string);
        if let Some(sha) = placeholder::sha(body["feature_image"].as_str()) {
            body["feature_image"] = json!(url(sha)?);
        }
        if let Some(html) = body["html"].as_str() {
            body["html"] = json!(placeholder::fill(html, url)?);
        }
        Ok(body)
    }
}

impl Upload for Ghost {
    /// Upload each image the line does not record yet.
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        for image in media.missing(post) {
            let name = image.hashed_name();
            let file = FilePart::image(image, &name);
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
}
