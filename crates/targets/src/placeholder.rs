//! Where an image's upload goes before it is made: a post's HTML and its cover name each local
//! image by a placeholder `prepare` writes, and a publish fills in what the upload became (the
//! platforms that upload images before the post: WordPress, Ghost).

use crate::error::{Class, Error};
use crate::images::Image;
use crate::media::Media;
use crate::post::Post;

/// What `prepare` writes where an image's URL goes, before the image's hash.
const PLACEHOLDER: &str = "dayrun-media:";

/// The placeholder of `image`.
pub fn of(image: &Image) -> String {
    format!("{PLACEHOLDER}{}", image.sha16())
}

/// The post's HTML with each local image pointing at its placeholder.
pub fn html(post: &Post) -> String {
    if post.images.is_empty() {
        return post.html.clone();
    }
    crate::images::rewrite::html(&post.markdown, |dest| {
        let image = post.images.iter().find(|i| i.named_by(dest))?;
        Some(of(image))
    })
}

/// The hash a placeholder names, when `value` is one.
pub fn sha(value: Option<&str>) -> Option<&str> {
    value?.strip_prefix(PLACEHOLDER)
}

/// What the upload of image `sha` became; not recorded, nothing can be sent (retry-safe).
pub fn upload<'m>(media: &'m Media, sha: &str) -> Result<&'m str, Error> {
    media.get_sha(sha).ok_or_else(|| not_uploaded(sha))
}

/// Image `sha`'s upload is not (or not usably) recorded: nothing was sent.
pub fn not_uploaded(sha: &str) -> Error {
    Error::failure(
        Class::RetrySafe,
        format!("image {sha} has not been uploaded yet; nothing was sent"),
    )
}

/// `html` with each image whose whole `src` is a placeholder pointing at `url(sha)`. Only
/// there: a post's own words cannot make that (their `<` is escaped), so they are never
/// replaced.
pub fn fill(
    html: &str,
    mut url: impl FnMut(&str) -> Result<String, Error>,
) -> Result<String, Error> {
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
    Ok(out)
}

/// A URL as the value of an HTML attribute.
fn attribute(url: &str) -> String {
    url.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}
