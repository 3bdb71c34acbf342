//! Sending files: a raw body with its content type (WordPress media, Bluesky blobs, Matrix media
//! put to the id made for it) and a multipart form (Mastodon media). Classed like every other
//! request.

use super::{Http, Reply};
use crate::error::Error;

impl Http {
    /// POST `bytes` as the body, with `content_type` and any further headers.
    pub fn post_bytes(
        &self,
        url: &str,
        headers: &[(String, String)],
        content_type: &str,
        bytes: &[u8],
    ) -> Result<Reply, Error> {
        self.send_bytes("POST", url, headers, (content_type, bytes))
    }

    /// Send `bytes` with `method` (POST, PUT: Matrix's upload to a media id made before).
    pub fn send_bytes(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        (content_type, bytes): (&str, &[u8]),
    ) -> Result<Reply, Error> {
        let req = match method {
            "PUT" => self.agent.put(url),
            _ => self.agent.post(url),
        };
        let mut req = self
            .request(req)
            .header("Content-Type", content_type)
            .header("Accept", "application/json");
        for (name, value) in headers {
            req = req.header(name.as_str(), value.as_str());
        }
        self.reply(url, req.send(bytes))
    }

    /// POST a multipart form: text fields, then one file part named `file_field`.
    pub fn post_form(
        &self,
        url: &str,
        headers: &[(String, String)],
        fields: &[(&str, &str)],
        file: FilePart,
    ) -> Result<Reply, Error> {
        use ureq::unversioned::multipart::{Form, Part};
        let mut form = Form::new();
        for (name, value) in fields {
            form = form.text(name, value);
        }
        let part = Part::bytes(file.bytes)
            .file_name(file.name)
            .mime_str(file.content_type)
            .map_err(|e| self.transport(&e, url, ""))?;
        form = form.part(file.field, part);
        let mut req = self
            .request(self.agent.post(url))
            .header("Accept", "application/json");
        for (name, value) in headers {
            req = req.header(name.as_str(), value.as_str());
        }
        self.reply(url, req.send(form))
    }
}

/// The file of a multipart form.
pub struct FilePart<'a> {
    pub field: &'a str,
    pub name: &'a str,
    pub content_type: &'a str,
    pub bytes: &'a [u8],
}

impl<'a> FilePart<'a> {
    /// An image as the form's `file`, under `name` (its hashed name, which the caller keeps).
    pub fn image(image: &'a crate::images::Image, name: &'a str) -> FilePart<'a> {
        FilePart {
            field: "file",
            name,
            content_type: image.format.content_type(),
            bytes: &image.bytes,
        }
    }
}
