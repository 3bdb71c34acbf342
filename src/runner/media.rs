//! A post's images on one target: the platform's limit, the warnings, the dry-run listing, and
//! uploads and a platform's notes (`noting`) written on the key's pending line as each answer arrives.

use super::TargetRun;
use crate::error::Error;
use crate::life::Event;
use crate::life::Key;
use crate::post::Post;
use crate::targets::{Media, Noting, Target};

impl TargetRun<'_> {
    /// The post as this target sends it: no more images than the platform takes (the cover
    /// first, then the post's order); the rest are left out, and its images without alt text
    /// are warned about (`Voice::images`).
    pub(super) fn images_for(&mut self, post: &Post) -> Post {
        let ask = !self.run.plan.dry_run;
        let (sent, rest, who) = match self.target.as_upload() {
            Some(upload) => upload.within_limit(post, ask),
            None => (post.clone(), Vec::new(), String::new()),
        };
        let told = &mut self.run.told.borrow_mut();
        self.voice
            .images(post, (sent.images.len(), &rest, &who), told);
        sent
    }

    /// Upload what the target needs (`Upload::upload_before_post`), each answer recorded on
    /// the key's pending line (an `Uploaded` event) and traced before the next upload;
    /// `attached`: the recorded uploads are on the published copy (an edit).
    pub(super) fn upload(&mut self, post: &Post, attached: bool) -> Result<Media, Error> {
        let key = post.key;
        let recorded = self.book.line(key).and_then(|l| l.copies.current.media);
        let mut media = Media::parse(recorded.as_deref());
        media.attached = attached;
        if post.images.is_empty() {
            return Ok(media);
        }
        self.voice.reused(key, post, &media);
        // The book, the voice and the target are borrowed apart, so that each answer is
        // recorded from inside the target's upload loop.
        let (book, voice) = (&mut self.book, &mut self.voice);
        let mut keep = |media: &Media, line: &str| {
            let (result, detail) = line.split_once(' ').unwrap_or(("uploaded", line));
            voice.trace(key, "image", result, detail);
            book.apply(key, &Event::Uploaded(&media.encode())).map(drop)
        };
        match self.target.as_upload() {
            Some(upload) => upload.upload_before_post(post, &mut media, &mut keep),
            None => Ok(()),
        }
        .map(|()| media)
    }

    /// The uploads the key's line records that the post as sent uses; the others (an image
    /// replaced or removed) are listed in the trace and left off the line.
    pub(super) fn unattached(&mut self, key: Key, post: &Post) -> Option<String> {
        let recorded = self.book.line(key).and_then(|l| l.copies.current.media)?;
        let mut media = Media::parse(Some(&recorded));
        for (sha, value) in media.drop_unattached(post) {
            self.voice.trace(
                key,
                "image",
                "unattached",
                &format!("{sha} {value}: uploaded, but the post does not use it"),
            );
        }
        Some(media.encode()).filter(|m| !m.is_empty())
    }

    /// The target, and the key's pending line as it sees it mid-send (`Noting`): what the line
    /// keeps of the copy, and each note the target makes (a Threads container) written on it at
    /// once (`Event::Noted`, through the book; never in a dry run), before the target goes on.
    pub(super) fn noting(&mut self, key: Key) -> (&mut dyn Target, Noting<'_>) {
        let kept = self.book.line(key).map(|l| l.copies.current.native);
        let book = &mut self.book;
        let note =
            move |native: &crate::life::Native| book.apply(key, &Event::Noted(native)).map(drop);
        (
            &mut *self.target,
            Noting::new(kept.unwrap_or_default(), note),
        )
    }
}
