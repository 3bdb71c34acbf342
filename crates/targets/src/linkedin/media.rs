//! Images through the Images API: `POST /rest/images?action=initializeUpload` answers an image
//! URN and an upload URL; the URN is recorded on the key's pending line at once, then the bytes
//! are sent (`PUT` to the upload URL), and the post names the URN (`content.media`, or
//! `content.multiImage` for two or more). A resend reuses a recorded image that LinkedIn
//! says is `AVAILABLE` or `PROCESSING`; one still waiting for its bytes is initialized again.
//! Nothing is posted before every image is uploaded, so an upload's failure is retry-safe.

use super::Linkedin;
use crate::error::{Class, Error};
use crate::images::Image;
use crate::net::encode;
use crate::post::Post;
use crate::{Keep, Media, Upload};
use serde_json::{Value, json};

/// LinkedIn's multi-image post takes at most this many images.
const MAX_IMAGES: usize = 20;

/// `body` with the post's images named by their URNs and alt texts.
pub(super) fn attach(body: &Value, post: &Post, media: &Media) -> Result<Value, Error> {
    let mut body = body.clone();
    let images = post
        .images
        .iter()
        .map(|image| match media.get(image) {
            Some(urn) => Ok(json!({ "id": urn, "altText": image.alt })),
            None => Err(Error::failure(
                Class::RetrySafe,
                format!(
                    "image {} has not been uploaded yet; nothing was sent",
                    image.sha16()
                ),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    match images.len() {
        0 => {}
        1 => body["content"] = json!({ "media": images[0] }),
        _ => body["content"] = json!({ "multiImage": { "images": images } }),
    }
    Ok(body)
}

/// An error before the post was sent cannot have published it.
fn before_post(err: Error) -> Error {
    match err.class() {
        Some(Class::Unknown) => err.reclass(Class::RetrySafe),
        _ => err,
    }
}

impl Linkedin {
    /// Whether image `urn`, recorded by an earlier attempt, holds its bytes (or is being
    /// processed from them).
    fn usable(&self, urn: &str) -> Result<bool, Error> {
        let reply = self.http.get(
            &self.url(&format!("/images/{}", encode(urn))),
            &self.headers(),
        )?;
        if reply.status == 404 {
            return Ok(false);
        }
        let reply = reply.success(|r| self.failure("look up an uploaded image", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        Ok(matches!(
            doc["status"].as_str(),
            Some("AVAILABLE" | "PROCESSING")
        ))
    }

    /// `initializeUpload`: the image's URN and where its bytes go.
    fn initialize(&self) -> Result<(String, String), Error> {
        let body = json!({ "initializeUploadRequest": { "owner": self.settings.author } });
        let reply = self.http.post(
            &self.url("/images?action=initializeUpload"),
            &self.headers(),
            &body,
        )?;
        let reply = reply.success(|r| self.failure("initialize an image upload", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let value = &doc["value"];
        match (value["image"].as_str(), value["uploadUrl"].as_str()) {
            (Some(urn), Some(url)) if urn.starts_with("urn:li:image:") => {
                Ok((urn.to_string(), url.to_string()))
            }
            _ => Err(Error::failure(
                Class::RetrySafe,
                format!(
                    "initialize an image upload: HTTP {} without an image URN and upload URL",
                    reply.status
                ),
            )),
        }
    }

    /// Send `image`'s bytes to `url`.
    fn put(&self, url: &str, image: &Image) -> Result<(), Error> {
        let auth = &self.headers()[..1];
        let reply = self.http.send_bytes(
            "PUT",
            url,
            auth,
            (image.format.content_type(), &image.bytes),
        )?;
        reply
            .success(|r| self.failure("upload an image", r))
            .map(|_| ())
    }
}

impl Upload for Linkedin {
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        self.unexpired()?;
        for image in &post.images {
            if let Some(urn) = media.get(image).map(str::to_string) {
                if self.usable(&urn).map_err(before_post)? {
                    continue;
                }
                media.remove(image);
                keep(
                    media,
                    &format!("not uploaded {} image={urn}: again", image.sha16()),
                )?;
            }
            let (urn, url) = self.initialize().map_err(before_post)?;
            media.insert(image, &urn)?;
            keep(media, &format!("initialized {} image={urn}", image.sha16()))?;
            self.put(&url, image).map_err(before_post)?;
        }
        Ok(())
    }

    fn image_limit(&mut self, _: bool) -> Option<(usize, String)> {
        Some((MAX_IMAGES, "LinkedIn".into()))
    }
}
