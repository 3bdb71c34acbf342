//! The JSON document http and command targets get (schema in docs/targets/http.md), and where
//! it says a post's images are.

use super::{Context, Outgoing};
use crate::error::Error;
use crate::images::Image;
use crate::post::Post;
use crate::text::mark;

/// The JSON document that describes a post to http and command targets (schema in
/// docs/targets/http.md). `images` says where each image can be found (`ImageLinks`).
pub fn payload(post: &Post, images: &ImageLinks) -> serde_json::Value {
    let images: Vec<serde_json::Value> = post
        .images
        .iter()
        .map(|i| {
            let mut entry = serde_json::json!({
                "path": i.path.to_string_lossy(),
                "alt": i.alt,
                "sha256": i.sha256,
                "content_type": i.format.content_type(),
                "url": images.url(i),
                "cover": i.cover,
            });
            if let Some(dir) = &images.files {
                entry["file"] = dir.join(copy_name(i)).to_string_lossy().into();
            }
            entry
        })
        .collect();
    serde_json::json!({
        "key": post.place().to_string(),
        "title": post.title,
        "tags": post.tags,
        "summary": post.summary,
        "markdown": post.markdown,
        "html": post.html,
        "fingerprint": post.fingerprint,
        "images": images,
    })
}

/// What http and command targets send: the payload, marked by the post's fingerprint.
pub fn outgoing(post: &Post, images: &ImageLinks) -> Outgoing {
    Outgoing {
        body: payload(post, images),
        marks: outgoing_marks(post),
        ..Outgoing::default()
    }
}

/// The marks `outgoing` gives a post: its fingerprint's (the one thing a lookup compares).
pub fn outgoing_marks(post: &Post) -> Vec<String> {
    vec![mark(&post.fingerprint)]
}

/// The title sent for `post`: the target's template rendered (`template`), or the post's own.
pub fn title(template: Option<&crate::template::Template>, post: &Post) -> Result<String, Error> {
    match template {
        Some(template) => template.title(post),
        None => Ok(post.title.clone()),
    }
}

/// The payload with `text`, the target's template rendered for the post, when it has one
/// (the rest of the payload, which lookups compare, is as without it).
pub fn with_text(
    mut out: Outgoing,
    post: &Post,
    template: Option<&crate::template::Template>,
) -> Result<Outgoing, Error> {
    if let Some(template) = template {
        let text = template.render(&crate::template::Vars::new(post, None))?;
        out.body["text"] = text.into();
    }
    Ok(out)
}

/// Where a target's payload says images are: at `image_base_url` + their path on the site (in
/// the content folder, or in the static folder they came from: the user publishes them there), and for a script, as cleaned copies in `files`.
#[derive(Debug, Clone, Default)]
pub struct ImageLinks {
    pub base: Option<String>,
    pub files: Option<std::path::PathBuf>,
}

impl ImageLinks {
    /// `image_base_url` from a target's table, checked: http(s), ending in `/`.
    pub fn new(ctx: &Context, base: Option<String>) -> Result<ImageLinks, Error> {
        if let Some(base) = &base {
            let web = base.starts_with("https://") || base.starts_with("http://");
            if !web || !base.ends_with('/') || base.contains(char::is_whitespace) {
                return Err(Error::config(format!(
                    "[targets.{}]: `image_base_url` must be an http(s) URL ending in `/`, like \"https://blog.example.com/\"",
                    ctx.target.name
                ))
                .at(ctx.config.show(&ctx.target.source))
                .at_line(ctx.target.line_of("image_base_url")));
            }
        }
        Ok(ImageLinks { base, files: None })
    }

    /// The public URL of `image`, when the target has a base: its path on the site
    /// (`Image::rel`), each part percent-encoded.
    pub fn url(&self, image: &Image) -> Option<String> {
        let base = self.base.as_ref()?;
        let path: Vec<String> = image.rel.split('/').map(super::net::encode).collect();
        Some(format!("{base}{}", path.join("/")))
    }
}

/// The name of an image's cleaned copy: the same bytes, the same name.
pub fn copy_name(image: &Image) -> String {
    format!("{}.{}", image.sha16(), image.format.ext())
}

/// The key a payload (see `payload`) is for.
pub fn payload_key(body: &serde_json::Value) -> Result<life::Key, Error> {
    body["key"]
        .as_str()
        .and_then(life::Key::parse)
        .ok_or_else(|| Error::failure(crate::error::Class::Unknown, "no key in the payload"))
}
