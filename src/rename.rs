//! The rename rule as the run, its dry run and `status` ask it (issue 32): with slugged keys, a
//! key with no line whose post has the text of exactly one key whose file is gone and whose
//! copy is out takes that line over, its copies staying where they are (`place=`); one that
//! may be a rename but cannot be told (several such keys, or one of its day or slug with other words)
//! is not sent: it fails (rejected, exit 1) naming the keys, until a person says which it is
//! (`dayrun mv`, or `retry` to publish it as a new post). `store::gone` holds the rule; this
//! reads it for a post, and the book writes the carry a visit finds (`book/renamed.rs`).

use crate::content::Catalog;
use crate::error::{Class, Error};
use crate::life::{self, Key, KeyLine, Mode, Status};
use crate::post::Post;
use crate::state::StateFile;
use store::gone::{Gone, Rename};

/// What the rename rule says of a post with no line: the line it takes over, or why it waits
/// for a person. Neither: a new post.
#[derive(Default)]
pub(crate) struct Renamed {
    pub carry: Option<Box<KeyLine>>,
    pub ask: Option<Error>,
    /// The gone keys `ask` names.
    pub asked: Vec<Key>,
}

/// The rule above for `post` (its key's line: `line`) on `target`; `gone`: the target's lines
/// whose post is gone (`None`: the catalog has no slugged keys, and the rule does not apply).
/// Only a plain run asks it: a retry is a person's word. A key whose line proves nothing of it
/// was ever sent (held back once, and edited since; a failure before anything landed) is asked
/// about as a key with no line is, and where it would take a line over it is asked too.
pub(crate) fn renamed(
    gone: Option<&Gone>,
    mode: &Mode,
    post: &Post,
    line: Option<&KeyLine>,
    target: &str,
) -> Renamed {
    let (Some(gone), Mode::Run { .. }, true) = (gone, mode, unsent(line)) else {
        return Renamed::default();
    };
    match gone.rename(post.key, &post.fingerprint) {
        Rename::New => Renamed::default(),
        Rename::Carry(from) if line.is_some() => ask(post.key, vec![from.key], true, target),
        Rename::Carry(line) => Renamed {
            carry: Some(line),
            ..Renamed::default()
        },
        Rename::Ask { keys, same_text } => ask(post.key, keys, same_text, target),
    }
}

/// A key that may be a rename of `keys`: not sent until a person says (`tell::line::renamed`).
fn ask(key: Key, keys: Vec<Key>, same_text: bool, target: &str) -> Renamed {
    let (why, hint) = crate::tell::line::renamed(key, &keys, same_text, target);
    Renamed {
        carry: None,
        ask: Some(Error::failure(Class::Rejected, why).hint(hint)),
        asked: keys,
    }
}

/// Whether the rule asks about a key with this line: none, or one that proves nothing of it
/// was ever sent.
fn unsent(line: Option<&KeyLine>) -> bool {
    line.is_none_or(KeyLine::proves_nothing_sent)
}

/// The lines of `state` whose post is gone, with the keys of `catalog` that may take them over
/// (`store::gone`), when the catalog has slugged keys (else the rule does not apply).
pub(crate) fn gone(state: &StateFile, catalog: &Catalog) -> Option<Gone> {
    if !catalog.slugged() {
        return None;
    }
    let has_post = |k: Key| catalog.files.contains_key(&k);
    let candidates = || {
        (catalog.files.keys().copied())
            .filter(|k| match state.get(*k) {
                None => true,
                Some(r) => r.status == Status::Failed && unsent(Some(&KeyLine::of(r))),
            })
            .filter_map(|k| catalog.text(k).ok().filter(|p| !p.draft))
            .map(|post| (post.key, post.fingerprint))
    };
    Some(Gone::read(state, has_post, candidates))
}

impl Renamed {
    /// The facts a visit judges `post` by: `facts` as read, with this rule's finding, after
    /// what else keeps it from going (`blocked`).
    pub(crate) fn facts(self, blocked: Option<String>, facts: life::Facts) -> life::Facts {
        life::Facts {
            blocked: blocked.or_else(|| self.ask.map(|e| e.message)),
            carry: self.carry,
            ..facts
        }
    }
}
