//! The dry run's account of what a run would do with a key on one target: the publish (or the
//! failure it would meet), each image, each copy its text links to, the text a template makes,
//! a thread's parts, a look, a retract. Words only: the key's life decided, and nothing is sent or recorded
//! (`run --dry-run`).

use crate::config::TargetConfig;
use crate::images::Image;
use crate::known::Copies;
use crate::life::{Key, KeyLine, Phase, Why};
use crate::post::Post;
use crate::targets::{Media, Target};
use crate::tell;
use crate::thread::Piece;
use crate::voice::Voice;

/// What the dry run of one key on one target says, and where.
pub(crate) struct Preview<'a, 'v> {
    pub voice: &'a Voice<'v>,
    pub target: &'a mut dyn Target,
    pub cfg: &'a TargetConfig,
    /// Where each copy the target's template links to stands for the key.
    pub copies: Copies,
}

impl Preview<'_, '_> {
    /// What the send of `post` would do, or the failure it would meet; `read`: the post as
    /// read (its images before the target's limit); `media`: the uploads the key's line keeps;
    /// `looks`: it would look on the target first.
    pub fn publish(
        &mut self,
        (read, post): (&Post, &Post),
        media: Option<&str>,
        looks: bool,
        why: Why,
    ) {
        let key = post.key;
        if let Some(why) = crate::targets::preview::blocked(self.cfg, post, self.copies.all()) {
            let text = tell::dry::would_fail(&why, post);
            self.voice.say(key, "would fail", &text);
            return;
        }
        let looks_on = looks.then_some(self.cfg.name.as_str());
        self.voice
            .say(key, "publish", &tell::dry::publish(why, looks_on, post));
        self.images(read, media);
        self.copies(key);
        self.text(post);
    }

    /// What would be done with each image of `post` (as read, before the limit); `media`: the
    /// uploads the key's line keeps.
    pub fn images(&mut self, post: &Post, media: Option<&str>) {
        let media = Media::parse(media);
        let (sent, rest, who) = match self.target.as_upload() {
            Some(upload) => upload.within_limit(post, false),
            None => (post.clone(), Vec::new(), String::new()),
        };
        let plans: Vec<(&Image, String)> = (sent.images.iter())
            .map(|image| (image, self.target.image_plan(&sent, image, &media)))
            .chain(
                rest.iter()
                    .map(|image| (image, format!("left out ({who})"))),
            )
            .collect();
        for (image, plan) in plans {
            let text = tell::dry::image(&image.path, &image.alt, &plan);
            self.voice.say(post.key, "image", &text);
        }
    }

    /// Where each copy the key's text links to stands.
    pub fn copies(&self, key: Key) {
        for (name, upstream) in self.copies.clone().into_all() {
            self.voice
                .say(key, "note", &tell::dry::copy(&name, upstream));
        }
    }

    /// The text the template makes for `post`, and how long it is.
    pub fn text(&self, post: &Post) {
        let post = self.copies.clone().put_in(post.clone());
        let text = match crate::targets::preview::preview(self.cfg, &post) {
            Ok(None) => return,
            Ok(Some(text)) => tell::dry::text(&text),
            Err(err) => tell::dry::cannot_render(&err.message),
        };
        self.voice.say(post.key, "text", &text);
    }

    /// A key only looked for (`line`: a pending publish whose post is gone, a copy looked for
    /// beside its own, or another runner's attempt beside a retracted one).
    pub fn look(&self, line: &KeyLine) {
        let text = match line.phase {
            Phase::Done => tell::dry::LOOK_BESIDE,
            Phase::Retracted { .. } => tell::dry::LOOK_RETRACTED,
            _ => tell::dry::LOOK_ONLY,
        };
        self.voice.say(line.key, "confirm", text);
    }

    /// A retract: the live copies of `line` it would remove (`resume`: an interrupted retract).
    pub fn retract(&self, line: &KeyLine, resume: bool) {
        let ids = line.live_ids().join(", ");
        let text = tell::retract::would(&ids, resume, &self.cfg.name);
        self.voice.say(line.key, "retract", &text);
    }

    /// A thread: every part with its length as the platform counts it (`landed`: the parts
    /// already out; `maybe`: the next may be), and the post's images.
    pub fn thread(&mut self, post: &Post, pieces: &[Piece], (out, maybe): (usize, bool), why: Why) {
        let (key, of) = (post.key, pieces.len());
        let text = tell::dry::thread(why, of, out, maybe, &post.title);
        self.voice.say(key, "publish", &text);
        for (n, piece) in pieces.iter().enumerate() {
            let text = tell::dry::part(n, of, piece.count, n < out, &piece.text);
            self.voice.say(key, "part", &text);
        }
        self.images(post, None);
    }
}
