//! A renamed post is never a second copy in silence (issue 32): with slugged keys, a key with
//! no line whose post has the text of a key whose file is gone and whose copy is out is not
//! sent by a run; it fails (rejected, exit 1) naming both keys, and a person says which it is.
//! A retry is that person's word: it sends. The run, its dry run and `status` ask `renamed`.

use super::TargetRun;
use crate::error::{Class, Error};
use crate::life::{Key, KeyLine, Mode};
use crate::post::Post;
use store::gone::Gone;

/// Why `post` (its key's line: `line`) is not sent as a new copy on `target`, by the rule
/// above; `gone`: the target's lines whose post is gone (`None`: the catalog has no slugged
/// keys, and the rule does not apply).
pub(crate) fn renamed(
    gone: Option<&Gone>,
    mode: &Mode,
    post: &Post,
    line: Option<&KeyLine>,
    target: &str,
) -> Option<Error> {
    let run = matches!(mode, Mode::Run { .. });
    let old = gone?
        .renamed_from(&post.fingerprint)
        .filter(|_| run && line.is_none())?;
    let (why, hint) = crate::tell::line::renamed(post.key, old, target);
    Some(Error::failure(Class::Rejected, why).hint(hint))
}

impl TargetRun<'_> {
    /// The lines of this target whose post is gone, read the first time a key with no line
    /// (`key`) may be sent, with slugged keys only.
    pub(super) fn read_gone(&mut self, key: Key) {
        let catalog = self.run.catalog;
        let wanted =
            catalog.slugged() && self.known.gone.is_none() && self.state.get(key).is_none();
        if wanted {
            let has_post = |k: Key| catalog.files.contains_key(&k);
            self.known.gone = Some(Gone::read(self.state, has_post));
        }
    }

    /// `renamed`, on this pass.
    pub(super) fn renamed(&self, post: &Post, line: Option<&KeyLine>) -> Option<Error> {
        let gone = self.known.gone.as_ref();
        renamed(gone, &self.run.plan.mode, post, line, &self.cfg.name)
    }
}
