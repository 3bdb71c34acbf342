//! Uploads of a post's images, recorded on the key's state line (`media=`) as each answer
//! arrives, so that a resend reuses them instead of uploading the same image twice.

use crate::error::{Class, Error};
use crate::images::Image;
use crate::post::Post;
use std::collections::BTreeMap;

/// The longest value kept for one upload (a URL, an id, a blob reference).
const MAX_VALUE: usize = 1000;
/// The most a line's `media=` field holds, so that a line stays far below the state file's
/// 64 KiB limit whatever the servers answer.
const MAX_FIELD: usize = 16 * 1024;

/// What each uploaded image became on the target, by the first 16 hex digits of its hash:
/// `sha16=VALUE`, space-separated on the line. The value is the target's own (an id, a URL,
/// a blob reference) and holds no spaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Media {
    uploads: BTreeMap<String, String>,
    /// The uploads are on the published copy (an edit): a platform that checks whether an
    /// upload still waits to be attached must not take "attached" for "gone".
    pub attached: bool,
}

impl Media {
    /// Read a `media` field; entries that are not `sha16=VALUE` are left out.
    pub fn parse(field: Option<&str>) -> Media {
        Media {
            uploads: field
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|entry| entry.split_once('='))
                .filter(|(sha, value)| sha.len() == 16 && !value.is_empty())
                .map(|(sha, value)| (sha.to_string(), value.to_string()))
                .collect(),
            attached: false,
        }
    }

    /// A `media` field of a published copy's line (see `attached`).
    pub fn on_copy(field: Option<&str>) -> Media {
        Media {
            attached: true,
            ..Media::parse(field)
        }
    }

    /// The field's value (empty when nothing was uploaded).
    pub fn encode(&self) -> String {
        let entries: Vec<String> = self
            .uploads
            .iter()
            .map(|(s, v)| format!("{s}={v}"))
            .collect();
        entries.join(" ")
    }

    pub fn get(&self, image: &Image) -> Option<&str> {
        self.get_sha(image.sha16())
    }

    /// The post's images not uploaded yet, in the post's order: what an upload sends.
    pub fn missing<'p>(&self, post: &'p Post) -> Vec<&'p Image> {
        (post.images.iter())
            .filter(|image| self.get(image).is_none())
            .collect()
    }

    /// What publishing does with `image` (`--dry-run`): reuse what its upload became (as
    /// `shown` words it), or upload it (`how`, after its size).
    pub fn plan(&self, image: &Image, shown: fn(&str) -> String, how: &str) -> String {
        match self.get(image) {
            Some(value) => format!("reuse {} (uploaded earlier)", shown(value)),
            None => format!(
                "upload {}{how}",
                crate::images::megabytes(image.bytes.len() as u64)
            ),
        }
    }

    /// What the image whose hash starts with `sha16` became.
    pub fn get_sha(&self, sha16: &str) -> Option<&str> {
        self.uploads.get(sha16).map(String::as_str)
    }

    /// Record what `image` became. `value` holds what a server answered: it must be plain
    /// text (no spaces or control characters, at most 1000 bytes) to be kept on a state line.
    /// Anything else is an upload whose outcome cannot be recorded: unknown.
    pub fn insert(&mut self, image: &Image, value: &str) -> Result<(), Error> {
        if value.is_empty()
            || value.len() > MAX_VALUE
            || value.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(Error::failure(
                Class::Unknown,
                format!(
                    "the server's answer for image {} is not a plain id or URL",
                    image.sha16()
                ),
            ));
        }
        let total: usize = self.uploads.values().map(|v| v.len() + 18).sum();
        if total + value.len() + 18 > MAX_FIELD {
            return Err(Error::failure(
                Class::Rejected,
                format!(
                    "the post has more uploads than one state line can record ({} KiB of answers): send fewer images in one post",
                    MAX_FIELD / 1024
                ),
            ));
        }
        self.uploads
            .insert(image.sha16().to_string(), value.to_string());
        Ok(())
    }

    /// Forget what `image` became (the platform no longer has it).
    pub fn remove(&mut self, image: &Image) {
        self.uploads.remove(image.sha16());
    }

    pub fn is_empty(&self) -> bool {
        self.uploads.is_empty()
    }

    /// Take out the uploads that `post` no longer sends (an image replaced or removed, or left
    /// out by the platform's limit): `(sha16, value)` of each, for the trace.
    pub fn drop_unattached(&mut self, post: &Post) -> Vec<(String, String)> {
        let (kept, gone) = std::mem::take(&mut self.uploads)
            .into_iter()
            .partition(|(sha, _)| post.images.iter().any(|i| i.sha16() == sha));
        self.uploads = kept;
        gone.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_round_trips_and_junk_is_left_out() {
        let media = Media::parse(Some("0123456789abcdef=12@https://x/a.jpg?s=1 junk short=1"));
        assert_eq!(media.encode(), "0123456789abcdef=12@https://x/a.jpg?s=1");
        assert_eq!(Media::parse(Some(&media.encode())), media);
        assert!(Media::parse(None).is_empty());
    }
}
