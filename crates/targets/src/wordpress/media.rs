//! WordPress media: each image uploaded once to `/wp/v2/media` under a name that carries its
//! hash, looked up by that name before any upload (an upload whose answer was lost is found,
//! not sent twice), and the post's content pointed at the media URLs.

use super::WordPress;
use crate::error::{Class, Error};
use crate::images::Image;
use crate::net::{encode, status_class};
use crate::post::Post;
use crate::{Keep, Media, Upload, items, placeholder};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

impl WordPress {
    /// The post's HTML with each local image pointing at its placeholder.
    pub(super) fn content(post: &Post) -> String {
        placeholder::html(post)
    }

    /// The featured image: the cover's placeholder.
    pub(super) fn featured(post: &Post) -> Option<Value> {
        let cover = post.images.iter().find(|i| i.cover)?;
        Some(json!(placeholder::of(cover)))
    }

    /// `body` with every placeholder replaced by what the uploads became (`ID@URL`).
    pub(super) fn fill(body: &Value, media: &Media) -> Result<Value, Error> {
        let mut body = body.clone();
        let upload = |sha: &str| -> Result<(u64, String), Error> {
            let value = placeholder::upload(media, sha)?;
            let (id, url) =
                (value.split_once('@')).ok_or_else(|| placeholder::not_uploaded(sha))?;
            let id = id.parse().map_err(|_| placeholder::not_uploaded(sha))?;
            Ok((id, url.to_string()))
        };
        if let Some(sha) = placeholder::sha(body["featured_media"].as_str()) {
            body["featured_media"] = json!(upload(sha)?.0);
        }
        if let Some(content) = body["content"].as_str() {
            body["content"] = json!(placeholder::fill(content, |sha| Ok(upload(sha)?.1))?);
        }
        Ok(body)
    }

    /// WordPress ignores a `featured_media` it cannot use without a word: the answer tells.
    pub(super) fn featured_note(sent: &Value, reply: &crate::net::Reply) -> Option<String> {
        let asked = sent["featured_media"].as_u64()?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match doc["featured_media"].as_u64() {
            Some(got) if got == asked => None,
            got => Some(format!(
                "WordPress did not set the featured image (asked for media {asked}, the post has {})",
                got.map_or("none".into(), |g| g.to_string())
            )),
        }
    }

    /// The media item holding `image`: its file name carries the hash. The lowest id when
    /// several do (the others are named for the trace). After an upload of this run whose
    /// answer was lost, "not there" is only believed once PHP cannot still be working on it.
    fn find_media(&mut self, image: &Image) -> Result<Option<(u64, String, Vec<String>)>, Error> {
        loop {
            let found = self.search_media(image)?;
            if let Some(first) = found.first() {
                let more = found[1..].iter().map(|(id, _)| id.to_string()).collect();
                return Ok(Some((first.0, first.1.clone(), more)));
            }
            let Some(lost) = self.lost.get(image.sha16()) else {
                return Ok(None);
            };
            let deadline = *lost + self.timeout + super::Target::settle(self);
            if Instant::now() >= deadline || !crate::signals::sleep(Duration::from_secs(2)) {
                return Ok(None);
            }
        }
    }

    fn search_media(&mut self, image: &Image) -> Result<Vec<(u64, String)>, Error> {
        let query = format!("search={}&per_page=100&context=edit", image.sha16());
        let reply = self.call("/wp/v2/media", &query, None)?;
        if status_class(reply.status).is_some() {
            // Nothing was uploaded: the attempt can go again.
            return Err(super::before_post(self.failure("look up media", &reply)));
        }
        let mut found = Vec::new();
        let walk = items::each(&reply.body, "", &mut |item| {
            let url = item["source_url"].as_str().unwrap_or_default();
            let file = url.rsplit('/').next().unwrap_or_default();
            if let (true, Some(id)) = (file.contains(image.sha16()), item["id"].as_u64()) {
                found.push((id, url.to_string()));
            }
        });
        if !matches!(walk, Ok(items::Walk::Array)) {
            return Err(Error::failure(
                Class::RetrySafe,
                "look up media: the answer is not a list; nothing was uploaded",
            ));
        }
        found.sort();
        Ok(found)
    }
}

impl Upload for WordPress {
    /// Upload each image the line does not record, looking it up by its hashed name first.
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        for image in media.missing(post) {
            if let Some((id, url, more)) = self.find_media(image)? {
                media.insert(image, &format!("{id}@{url}"))?;
                let more = match more.is_empty() {
                    true => String::new(),
                    false => format!("; also uploaded, not attached: {}", more.join(", ")),
                };
                keep(media, &format!("found {} id={id}{more}", image.sha16()))?;
                continue;
            }
            let mut query = format!("alt_text={}", encode(&image.alt));
            if image.alt.is_empty() {
                query.clear();
            }
            let name = image.hashed_name();
            let url = self.url("/wp/v2/media", &query, self.pretty.unwrap_or(true));
            let headers = [
                ("Authorization".to_string(), self.auth.clone()),
                (
                    "Content-Disposition".to_string(),
                    format!("attachment; filename=\"{name}\""),
                ),
            ];
            let sent = Instant::now();
            let reply = self
                .http
                .post_bytes(&url, &headers, image.format.content_type(), &image.bytes)
                .inspect_err(|e| {
                    if e.class() == Some(Class::Unknown) {
                        self.lost.insert(image.sha16().to_string(), sent);
                    }
                })?;
            let reply = reply.success(|r| self.failure("upload image", r))?;
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            let (Some(id), Some(url)) = (doc["id"].as_u64(), doc["source_url"].as_str()) else {
                self.lost.insert(image.sha16().to_string(), sent);
                return Err(Error::failure(
                    Class::Unknown,
                    format!(
                        "upload image: HTTP {} without a media id and URL",
                        reply.status
                    ),
                ));
            };
            media.insert(image, &format!("{id}@{url}"))?;
            keep(media, &format!("uploaded {} id={id}", image.sha16()))?;
        }
        Ok(())
    }
}
