//! Matrix images: a media id made first (`POST /_matrix/media/v1/create`) and written on the
//! key's line, then the bytes uploaded to it (`PUT /_matrix/media/v3/upload/{server}/{id}`),
//! so a resend uploads to the same id and the server refuses a second upload
//! (409 `M_CANNOT_OVERWRITE_MEDIA`): each image's bytes go up once. Each image is then an
//! `m.image` event with its alt text as `body`, sent before the message (`publish`).
//!
//! On the line (`media=`), an image is `c|mxc://server/id` once its id is made, and
//! `mxc://server/id` once its bytes are there.

use super::Matrix;
use super::content::Part;
use crate::error::{Class, Error};
use crate::images::Image;
use crate::net::{encode, status_class};
use crate::post::Post;
use crate::{Keep, Media, Upload};
use life::{Key, Receipt};
use serde_json::{Value, json};

/// What a media id made and not yet known to hold its bytes is written as.
const CREATED: &str = "c|";

/// The `mxc://` URI of an image whose bytes are uploaded.
pub(super) fn mxc(value: &str) -> Option<String> {
    value.starts_with("mxc://").then(|| value.to_string())
}

/// How a dry run names an upload kept on the line.
pub(super) fn shown(value: &str) -> String {
    value.strip_prefix(CREATED).unwrap_or(value).to_string()
}

impl Matrix {
    fn media_url(&self, path: &str) -> String {
        format!("{}/_matrix/media{path}", self.homeserver)
    }

    /// A new media id (`mxc://server/id`), made before any byte is sent: nothing is out yet.
    fn create(&self) -> Result<String, Error> {
        let reply = self
            .http
            .post(&self.media_url("/v1/create"), &self.headers(), &json!({}))?;
        let reply = reply.success(|r| self.failure("make a media id", r))?;
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match doc["content_uri"]
            .as_str()
            .and_then(|u| split(u).map(|_| u))
        {
            Some(uri) => Ok(uri.to_string()),
            None => Err(Error::failure(
                Class::RetrySafe,
                format!(
                    "make a media id: HTTP {} without a content_uri{}",
                    reply.status,
                    self.http.excerpt(&reply.body)
                ),
            )),
        }
    }

    /// The bytes of `image` to the media id `uri`. `Ok(false)`: the server no longer knows
    /// the id (an unused one expires), so a new one is made.
    fn put_bytes(&self, uri: &str, image: &Image) -> Result<bool, Error> {
        let (server, id) = split(uri).expect("a checked mxc URI");
        let url = self.media_url(&format!(
            "/v3/upload/{}/{}?filename={}",
            encode(server),
            encode(id),
            encode(&image.hashed_name())
        ));
        let bytes = (image.format.content_type(), &image.bytes[..]);
        let reply = self.http.send_bytes("PUT", &url, &self.headers(), bytes)?;
        let (code, _) = super::errcode(&reply);
        match (reply.status, code.as_deref()) {
            (409, Some("M_CANNOT_OVERWRITE_MEDIA")) => Ok(true), // an earlier attempt's bytes
            (404, Some("M_NOT_FOUND")) => Ok(false),
            (status, _) if status_class(status).is_none() => Ok(true),
            _ => Err(self.failure("upload an image", &reply)),
        }
    }

    /// The `m.image` event of `image` (uploaded as `uri`) for copy `generation` of `key`.
    pub(super) fn image_event(
        &self,
        (key, generation): (Key, u32),
        image: &Image,
        uri: &str,
    ) -> Value {
        let body = match image.alt.trim().is_empty() {
            true => image.hashed_name(),
            false => image.alt.trim().to_string(),
        };
        let content = json!({
            "msgtype": "m.image",
            "body": body,
            "filename": image.hashed_name(),
            "url": uri,
            "info": {
                "mimetype": image.format.content_type(),
                "size": image.bytes.len(),
                "w": image.width,
                "h": image.height,
            },
            "m.mentions": {},
        });
        let part = Part::Image(image.sha16().to_string());
        self.with_key(key, generation, &part, &content)
    }

    /// Each image of `post` as an `m.image` event, cover first, before the message: one a
    /// lookup of this run saw in the room already is not sent again (`self.seen`).
    pub(super) fn send_images(
        &mut self,
        post: &Post,
        generation: u32,
        media: &Media,
    ) -> Result<(), Error> {
        let key = post.place();
        for image in &post.images {
            let part = Part::Image(image.sha16().to_string());
            if self.seen.contains(&(key, generation, part.clone())) {
                continue;
            }
            let uri = (media.get(image).and_then(mxc))
                .ok_or_else(|| crate::placeholder::not_uploaded(image.sha16()))?;
            let body = self.image_event((key, generation), image, &uri);
            let txn = self.txn(key, generation, &part);
            let _: Receipt = self.send_event(&txn, &body)?;
            self.seen.insert((key, generation, part));
        }
        Ok(())
    }
}

/// `mxc://server/id` as its server and id, when both are plain.
fn split(uri: &str) -> Option<(&str, &str)> {
    let (server, id) = uri.strip_prefix("mxc://")?.split_once('/')?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:[]".contains(&b))
    };
    (plain(server) && plain(id) && !id.contains(':')).then_some((server, id))
}

impl Upload for Matrix {
    /// Each image not uploaded yet: its media id made and written on the line, then its
    /// bytes put there (again, after a lost answer: the server keeps the first).
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        for image in &post.images {
            let kept = media.get(image).map(str::to_string);
            if kept.as_deref().and_then(mxc).is_some() {
                continue;
            }
            let uri = match kept.as_deref().and_then(|v| v.strip_prefix(CREATED)) {
                Some(uri) if split(uri).is_some() => uri.to_string(),
                _ => {
                    let uri = self.create()?;
                    media.insert(image, &format!("{CREATED}{uri}"))?;
                    keep(media, &format!("media id {} {uri}", image.sha16()))?;
                    uri
                }
            };
            if !self.put_bytes(&uri, image)? {
                media.remove(image);
                keep(media, &format!("media id {uri} expired; a new one next"))?;
                return Err(Error::failure(
                    Class::RetrySafe,
                    format!("the homeserver no longer knows media id {uri}"),
                ));
            }
            media.insert(image, &uri)?;
            keep(media, &format!("uploaded {} {uri}", image.sha16()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_mxc_uris_are_used() {
        assert_eq!(
            split("mxc://localhost/AbC_d-1"),
            Some(("localhost", "AbC_d-1"))
        );
        for bad in [
            "mxc://localhost/",
            "mxc:///x",
            "https://x/y",
            "mxc://a/b/c",
            "mxc://a b/c",
        ] {
            assert_eq!(split(bad), None, "{bad}");
        }
        assert_eq!(shown("c|mxc://a/b"), "mxc://a/b");
        assert_eq!(mxc("c|mxc://a/b"), None);
    }
}
