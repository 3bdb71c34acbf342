//! The lines of one target whose post file is gone and whose copy is (or may be) out, and the
//! rename rule that reads them (issue 32), for the keys with a post and no line (the
//! candidates): a candidate whose post has the text (fingerprint) of exactly one gone line, and
//! is the only candidate with it, is that post renamed (a slug fixed, a post moved, a date
//! changed) and takes its line over. A candidate that shares a text with gone lines otherwise
//! (several either side), or shares no text with any but a day or a slug with a gone line no
//! candidate takes over, or comes in the run that first sees a line's file gone (a rename with
//! an edit, whatever it changed, or a new post beside a deleted one: dayrun cannot tell), waits
//! for a person. Sending either would make a second copy of what is already out. The rule reads
//! the whole state and catalog, so the order keys are visited in never changes its answer; the
//! run, its dry run and `status` ask `rename`. Also every line whose key has no post
//! (`without_post`), of which a run looks at those its key's life says (`life::looks_at`).

use crate::state::StateFile;
use jiff::civil::Date;
use life::{Key, KeyLine, Status};
use std::collections::HashMap;

/// The gone lines whose copy is (or may be) out, by their post's fingerprint, by day and by
/// slug, and the candidates that have each fingerprint.
#[derive(Debug, Default)]
pub struct Gone {
    lines: HashMap<Key, KeyLine>,
    by_fp: HashMap<String, Vec<Key>>,
    by_day: HashMap<Date, Vec<Key>>,
    by_slug: HashMap<&'static str, Vec<Key>>,
    /// The lines whose file went since the last run that saw them (no `gone=` yet).
    newly: Vec<Key>,
    /// For each fingerprint of a gone line, the candidates whose post has it.
    successors: HashMap<String, Vec<Key>>,
}

/// What the rename rule says of a candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rename {
    /// Not a rename that dayrun knows of: a new post.
    New,
    /// The post is this line's, renamed: the key takes the line over.
    Carry(Box<KeyLine>),
    /// It may be a rename of these keys, and dayrun cannot tell which or whether: a person
    /// says. `same_text`: the post has their text (else they only share its day or slug).
    Ask { keys: Vec<Key>, same_text: bool },
}

impl Gone {
    /// Every line of `state` that holds a copy, or an attempt that may have made one, whose
    /// key has no post now (`has_post`); `candidates`: the keys with a post and no line, each
    /// with its post's fingerprint (read only when there is a gone line at all).
    pub fn read<I>(
        state: &StateFile,
        has_post: impl Fn(Key) -> bool,
        candidates: impl FnOnce() -> I,
    ) -> Gone
    where
        I: Iterator<Item = (Key, String)>,
    {
        let mut gone = Gone::default();
        for record in state.records() {
            if has_post(record.key) || record.status == Status::Retracted {
                continue;
            }
            let line = KeyLine::of(record);
            if line.live_ids().is_empty() && !line.tried.maybe {
                continue;
            }
            if let Some(fp) = line.fp.clone().filter(|fp| !fp.is_empty()) {
                gone.by_fp.entry(fp).or_default().push(record.key);
            }
            gone.by_day
                .entry(record.key.day())
                .or_default()
                .push(record.key);
            if let Some(slug) = record.key.slug() {
                gone.by_slug.entry(slug).or_default().push(record.key);
            }
            if line.gone.is_none() {
                gone.newly.push(record.key);
            }
            gone.lines.insert(record.key, line);
        }
        if !gone.lines.is_empty() {
            for (key, fp) in candidates() {
                if gone.by_fp.contains_key(&fp) {
                    gone.successors.entry(fp).or_default().push(key);
                }
            }
        }
        gone
    }

    /// The rule above, for the candidate `key`, whose post has the fingerprint `fp`.
    pub fn rename(&self, key: Key, fp: &str) -> Rename {
        if let Some(same_text) = self.by_fp.get(fp) {
            let successors = self.successors.get(fp).map_or(0, Vec::len);
            return match (&same_text[..], successors) {
                ([only], 1) => Rename::Carry(Box::new(self.lines[only].clone())),
                _ => Rename::Ask {
                    keys: same_text.clone(),
                    same_text: true,
                },
            };
        }
        // No line has its text: a rename with an edit is told by the day it kept, or the slug
        // (a date changed too), or by coming as another post's file goes (all changed). A
        // post with none of these is new.
        let day = self.by_day.get(&key.day()).into_iter().flatten();
        let slug = key.slug().and_then(|s| self.by_slug.get(s));
        let near = day.chain(slug.into_iter().flatten()).chain(&self.newly);
        let mut left: Vec<Key> = (near.copied())
            .filter(|k| self.successor(*k).is_none())
            .collect();
        left.sort();
        left.dedup();
        match left.is_empty() {
            true => Rename::New,
            false => Rename::Ask {
                keys: left,
                same_text: false,
            },
        }
    }

    /// The candidate that takes the gone line of `key` over, if one does.
    pub fn successor(&self, key: Key) -> Option<Key> {
        let fp = self.lines.get(&key)?.fp.as_deref()?;
        match (
            self.by_fp.get(fp)?.as_slice(),
            self.successors.get(fp)?.as_slice(),
        ) {
            ([_], [only]) => Some(*only),
            _ => None,
        }
    }
}

/// The lines of a state file whose key has no post (`without_post`).
#[derive(Debug, Default)]
pub struct WithoutPost {
    /// Published, and the post's file is gone: never retracted by themselves, but said.
    pub deleted: Vec<Key>,
    /// Every key with a line and no post: which of them a run looks at is the key's life's to
    /// say (`life::looks_at`), not the status alone (a done line that says `sent=maybe` is
    /// looked beside, its post there or not).
    pub lines: Vec<Key>,
    /// Not retracted and not yet noted gone (`gone=`), with slugged keys: what a run may note
    /// (the rename rule above).
    pub unstamped: Vec<Key>,
}

/// The lines of `state` whose key is not among `posts` (ascending, as the catalog holds
/// them): both are walked side by side, with no lookup per key.
pub fn without_post(
    state: &StateFile,
    posts: impl Iterator<Item = Key>,
    slugged: bool,
) -> WithoutPost {
    let mut posts = posts.peekable();
    let mut lines = WithoutPost::default();
    for record in state.records() {
        while posts.next_if(|k| *k < record.key).is_some() {}
        if posts.peek() == Some(&record.key) {
            continue;
        }
        if slugged && record.status != Status::Retracted && !record.has("gone") {
            lines.unstamped.push(record.key);
        }
        if record.status == Status::Done {
            lines.deleted.push(record.key);
        }
        lines.lines.push(record.key);
    }
    lines
}
