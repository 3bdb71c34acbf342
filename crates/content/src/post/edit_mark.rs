//! A post's edit hash (`payload=` on a done line): what it says, its images and the target's
//! template, so that a later hash that differs is an edit; and the facts the rules of a key's
//! life compare of a readable post (`life::Facts`).

use super::Post;
use crate::text::mark;
use std::fmt::Write as _;

impl Post {
    /// A hash of what the post says (title, body, summary, tags, and each image's bytes, alt
    /// text and place, left out by a limit or not), and of the target's template if it has
    /// one: a later one that differs is an edit. Taken from the post, not from a target's
    /// request (which holds things that vary, such as WordPress's term ids), so an unchanged
    /// post costs no request at all. A post without images (and no template) hashes as dayrun
    /// 0.3 hashed it.
    pub fn edit_mark(&self, template: Option<&str>) -> String {
        let mut text = self.words();
        if !self.images.is_empty() {
            text.push_str("\nimages");
            // Those a target's limit left out count too: the mark is the post's, whatever the
            // target takes, so a post over the limit is not an edit at every run.
            for image in self.images.iter().chain(&self.left_out) {
                let _ = write!(
                    text,
                    "\n{} {} {}",
                    image.sha256,
                    u8::from(image.cover),
                    image.alt
                );
            }
        }
        if let Some(template) = template {
            let _ = write!(text, "\ntemplate {template}");
        }
        mark(&text)
    }

    /// The mark dayrun 0.3 recorded, which knew nothing of images: a done line that holds it
    /// for a post with images was published before images were sent, and is not an edit by
    /// itself.
    pub fn edit_mark_before_images(&self) -> String {
        mark(&self.words())
    }

    /// What the rules compare of this post (`life::Facts`) on a target whose template has this
    /// mark: the run and `status` judge a key from the same facts. The edit hash is made only
    /// for a line that holds a refused edit (`refused`): it needs the post's images, and
    /// nothing else in `life` compares it (an update compares its own).
    pub fn facts(&self, template: Option<&str>, refused: bool) -> life::Facts {
        life::Facts {
            fp: self.fingerprint.clone(),
            payload: refused.then(|| self.edit_mark(template)),
            blocked: None,
            carry: None,
            due: self.due,
        }
    }

    fn words(&self) -> String {
        format!(
            "{}\n{}\n{}\n{}",
            self.fingerprint,
            self.summary,
            self.tags.join("\n"),
            self.title
        )
    }
}
