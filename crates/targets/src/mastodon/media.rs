//! Mastodon media: each image uploaded to `/api/v2/media` with its alt text as description,
//! waited for while the instance processes it, and attached by id (cover first).

use super::Mastodon;
use crate::error::{Class, Error};
use crate::images::Image;
use crate::net::{FilePart, encode};
use crate::post::Post;
use crate::{Keep, Media, Upload};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

impl Mastodon {
    /// Whether media `id`, uploaded by an earlier attempt and not attached, can still be
    /// attached for `image`: the instance still has it (it deletes unattached media after a
    /// while), it holds the alt text the post has now, and it is processed (waited for).
    fn still_usable(&mut self, id: &str, image: &Image) -> Result<bool, Error> {
        let url = self.url(&format!("/api/v1/media/{}", encode(id)));
        let reply = self.http.get(&url, &self.headers())?;
        if reply.status == 404 {
            return Ok(false);
        }
        if ![200, 206].contains(&reply.status) {
            return Err(self.failure("look up an uploaded image", &reply));
        }
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        if doc["description"].as_str().unwrap_or_default() != image.alt {
            return Ok(false); // the alt text was edited since: a fresh upload carries it
        }
        if reply.status == 206 || doc["url"].is_null() {
            self.processed(id)?;
        }
        Ok(true)
    }

    /// Wait while the instance processes media `id` (206 from `GET /api/v1/media/:id`).
    fn processed(&mut self, id: &str) -> Result<(), Error> {
        let deadline = Instant::now() + self.timeout;
        let url = self.url(&format!("/api/v1/media/{}", encode(id)));
        loop {
            let reply = self.http.get(&url, &self.headers())?;
            if reply.status == 200 {
                return Ok(());
            }
            if reply.status != 206 {
                return Err(self.failure("wait for an image to be processed", &reply));
            }
            if Instant::now() >= deadline || !crate::signals::sleep(Duration::from_secs(1)) {
                return Err(Error::failure(
                    Class::RetrySafe,
                    format!(
                        "image {id} is still being processed by the instance; the post was not sent"
                    ),
                ));
            }
        }
    }

    /// `body` with the uploaded media's ids, in the post's order (the cover first).
    pub(super) fn attach(
        body: &serde_json::Value,
        post: &Post,
        media: &Media,
    ) -> Result<Value, Error> {
        let mut body = body.clone();
        if post.images.is_empty() {
            // An edit that removed every image takes them off the status.
            if media.attached {
                body["media_ids"] = json!([]);
            }
            return Ok(body);
        }
        let ids = post
            .images
            .iter()
            .map(|image| {
                media.get(image).map(str::to_string).ok_or_else(|| {
                    Error::failure(
                        Class::RetrySafe,
                        format!(
                            "image {} has not been uploaded yet; nothing was sent",
                            image.sha16()
                        ),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        body["media_ids"] = json!(ids);
        // An edit sets the alt text of media already on the status (Mastodon 4.1+).
        if media.attached {
            let attributes: Vec<Value> = post
                .images
                .iter()
                .zip(&ids)
                .map(|(image, id)| json!({ "id": id, "description": image.alt }))
                .collect();
            body["media_attributes"] = json!(attributes);
        }
        Ok(body)
    }
}

impl Upload for Mastodon {
    /// Upload each image the line does not record; its id is recorded the moment it arrives,
    /// before the wait for processing.
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        for image in &post.images {
            if let Some(id) = media.get(image).map(str::to_string) {
                if media.attached || self.still_usable(&id, image)? {
                    continue;
                }
                media.remove(image);
                keep(
                    media,
                    &format!("gone {} id={id}: uploading it again", image.sha16()),
                )?;
            }
            let mut fields = Vec::new();
            if !image.alt.is_empty() {
                fields.push(("description", image.alt.as_str()));
            }
            let name = image.hashed_name();
            let file = FilePart::image(image, &name);
            let reply =
                self.http
                    .post_form(&self.url("/api/v2/media"), &self.headers(), &fields, file)?;
            let reply = reply.success(|r| self.failure("upload image", r))?;
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            let Some(id) = id_of(&doc) else {
                return Err(Error::failure(
                    Class::Unknown,
                    format!("upload image: HTTP {} without a media id", reply.status),
                ));
            };
            media.insert(image, &id)?;
            keep(media, &format!("uploaded {} id={id}", image.sha16()))?;
            if reply.status == 202 || doc["url"].is_null() {
                self.processed(&id)?;
            }
        }
        Ok(())
    }

    fn image_limit(&mut self, ask: bool) -> Option<(usize, String)> {
        match (ask, self.limits) {
            (false, None) => Some((
                super::Limits::default().max_media,
                "a Mastodon instance usually".into(),
            )),
            _ => Some((self.limits().max_media, "the instance".into())),
        }
    }
}

/// Mastodon's ids are strings (a number from another server is taken too).
fn id_of(doc: &Value) -> Option<String> {
    match &doc["id"] {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}
