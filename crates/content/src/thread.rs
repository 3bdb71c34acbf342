//! Long posts as threads (`long = "thread"` on Bluesky and Mastodon): the text to send (title,
//! link, the body as plain text, hashtags) split into parts that each fit, every part a side
//! effect of its own, recorded on the key's line as it lands (`life::Part`).

pub mod split;

use crate::error::{Class, Error};
use crate::post::Post;
use life::Key;
use life::{MAX_PARTS, Part};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The parts a thread has at most unless `max_parts` says otherwise.
pub const DEFAULT_MAX_PARTS: usize = 10;

/// What a target does with a text longer than one post (`long =`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Long {
    /// Title, summary, hashtags and link, the summary cut to fit (the default).
    Cut,
    /// The whole body as a thread of self-replies.
    Thread(Shape),
}

/// How a thread is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Each part ends in `n/N` (counted in the limit).
    pub numbered: bool,
    /// A text that needs more parts is refused (rejected) before anything is sent.
    pub max_parts: usize,
}

/// The settings a Bluesky or Mastodon table takes for it.
#[derive(Debug, Default)]
pub struct Settings {
    /// `"cut"` (default) or `"thread"`.
    pub long: Option<String>,
    /// `true` (default): number the parts.
    pub numbering: Option<bool>,
    /// At most this many parts (default 10, at most `MAX_PARTS`).
    pub max_parts: Option<usize>,
}

impl Settings {
    /// The checked choice; `Err`: what is wrong, for a config error naming the table.
    pub fn long(&self) -> Result<Long, String> {
        let shape = Shape {
            numbered: self.numbering.unwrap_or(true),
            max_parts: self.max_parts.unwrap_or(DEFAULT_MAX_PARTS),
        };
        if !(1..=MAX_PARTS).contains(&shape.max_parts) {
            return Err(format!(
                "max_parts = {}: write a number from 1 to {MAX_PARTS}",
                shape.max_parts
            ));
        }
        match self.long.as_deref() {
            None | Some("cut") if self.numbering.is_some() || self.max_parts.is_some() => {
                Err("numbering and max_parts need long = \"thread\"".into())
            }
            None | Some("cut") => Ok(Long::Cut),
            Some("thread") => Ok(Long::Thread(shape)),
            Some(other) => Err(format!(
                "long = `{}`: write \"cut\" or \"thread\"",
                crate::outside::escape(other, 40)
            )),
        }
    }
}

/// One part as it will be sent: its text, the document that carries it (a record, a status),
/// the mark a lookup compares, and its length as the platform counts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    pub text: String,
    pub body: Value,
    pub mark: String,
    pub count: usize,
}

/// A thread as prepared for one copy: kept in `state/<target>.sent/` before its first part
/// goes, so that a resumed thread sends these parts, never a fresh split of an edited file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prepared {
    pub generation: u32,
    pub pieces: Vec<Piece>,
    /// The post's fingerprint and edit mark when it was split: what the parts hold, recorded
    /// when the last one lands, so an edit made while the thread was going out is still an
    /// edit afterwards. (Empty in a file from before they were kept: the post's, then.)
    #[serde(default)]
    pub fp: String,
    #[serde(default)]
    pub payload: String,
}

/// A short hash of a split (`split=` on the key's line): its parts' marks, in order. A resumed
/// thread sends only parts that hash the same, so a fresh split of an edited post is never
/// sent after parts of the old one.
pub fn hash(pieces: &[Piece]) -> String {
    let marks: Vec<&str> = pieces.iter().map(|p| p.mark.as_str()).collect();
    crate::text::mark(&marks.join("\n"))
}

/// The part being sent or looked for: which copy of which key, its number, what it says, and
/// the parts before it (all of them, in order).
pub struct Turn<'a> {
    /// The key whose place holds the thread (`Post::place`).
    pub key: Key,
    pub generation: u32,
    pub n: usize,
    pub piece: &'a Piece,
    pub landed: &'a [Part],
}

/// The text of a thread: the title (with the link on its own line), the body as plain text,
/// then the hashtags; and how many bytes at its start (title and link) stay in the first part.
pub fn text(post: &Post, link: Option<&str>, tags: &[String]) -> (String, usize) {
    let mut text = post.title.clone();
    if let Some(link) = link {
        text.push('\n');
        text.push_str(link);
    }
    let head = text.len();
    let body = crate::post::plain::plain(&post.markdown);
    if !body.is_empty() {
        text.push_str("\n\n");
        text.push_str(&body);
    }
    if !tags.is_empty() {
        text.push_str("\n\n");
        text.push_str(&tags.join(" "));
    }
    (text, head)
}

/// The text a thread is cut from and the length of its head that no cut may enter: the
/// target's template rendered whole (nothing in it is protected but URLs, hashtags and
/// mentions), or else `text`.
pub fn source(
    template: Option<&crate::template::Template>,
    post: &Post,
    link: Option<&str>,
    tags: &[String],
) -> Result<(String, usize), Error> {
    match template {
        Some(template) => Ok((template.render(&crate::template::Vars::new(post, link))?, 0)),
        None => Ok(text(post, link, tags)),
    }
}

/// Split `text` for a target, or the error that rejects the post before anything is sent.
pub fn cut(
    post: &Post,
    text: &str,
    head: usize,
    limit: &split::Limit,
    shape: Shape,
) -> Result<Vec<String>, Error> {
    split::split(text, head, limit, shape.numbered, shape.max_parts).map_err(|why| {
        Error::failure(
            Class::Rejected,
            format!("cannot be sent as a thread: {why}"),
        )
        .at(&post.path)
        .hint(match why {
            split::Refused::TooManyParts { .. } => {
                "shorten the post, or raise max_parts for this target"
            }
            split::Refused::Unbreakable(_) => "shorten the title, link or that word",
        })
    })
}
