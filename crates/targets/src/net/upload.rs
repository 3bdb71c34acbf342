//! Sending files: a raw body with its content type (WordPress media, Bluesky blobs, Matrix media
//! put to the id made for it) and a multipart form (Mastodon media). Classed like every other
//! request.

use super::{Http, Reply, with};
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
        let (limits, to, headers) = (self.limits(), url.to_string(), headers.to_vec());
        let (verb, content_type, bytes) =
            (method.to_string(), content_type.to_string(), bytes.to_vec());
        self.exchange(
            method,
            url,
            Box::new(move |agent| {
                let req = match verb.as_str() {
                    "PUT" => agent.put(&to),
                    _ => agent.post(&to),
                };
                let req = limits
                    .on(req)
                    .header("Content-Type", content_type.as_str())
                    .header("Accept", "application/json");
                with(req, &headers).send(&bytes[..])
            }),
        )
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
        let (limits, to, headers) = (self.limits(), url.to_string(), headers.to_vec());
        let fields: Vec<(String, String)> = (fields.iter())
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        let (field, name, content_type) = (
            file.field.to_string(),
            file.name.to_string(),
            file.content_type.to_string(),
        );
        let bytes = file.bytes.to_vec();
        self.exchange(
            "POST",
            url,
            Box::new(move |agent| {
                let mut form = Form::new();
                for (name, value) in &fields {
                    form = form.text(name, value);
                }
                let part = Part::bytes(&bytes)
                    .file_name(&name)
                    .mime_str(&content_type)?;
                form = form.part(&field, part);
                let req = limits
                    .on(agent.post(&to))
                    .header("Accept", "application/json");
                with(req, &headers).send(form)
            }),
        )
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
