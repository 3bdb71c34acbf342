//! A target whose template links to other targets' copies, the runner's side: the linked
//! targets' lines gathered for the key (`known::Known::gather`) from the passes before it in the
//! run or from the state of those not in it, and the key's wait while a copy is not there.
//! Whether a copy is there, coming or never coming is `template::judge`'s to say.

use super::TargetRun;
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::KeyLine;
use crate::post::Post;
use crate::state::StateFile;
use std::collections::BTreeMap;

impl TargetRun<'_> {
    /// Before the key is visited: the lines of the targets this one's template links to,
    /// from the runs before it in this run (`before`), or from `others`.
    pub(crate) fn gather(
        &mut self,
        key: Key,
        before: &mut [TargetRun],
        others: &BTreeMap<String, StateFile>,
    ) -> Result<(), Error> {
        let template = (self.cfg.template.as_ref())
            .filter(|t| !t.uses().copies.is_empty() && !self.book.quick_done(key));
        self.book.known.gather(template, |name| {
            Ok(match before.iter_mut().find(|run| run.cfg.name == name) {
                Some(run) => {
                    // Its queued keys go out now, so that this one sees their lines.
                    run.flush()?;
                    run.book.line(key)
                }
                None => others.get(name).and_then(|s| s.get(key)).map(KeyLine::of),
            })
        })
    }

    /// The post with every copy its text links to, or `None` when one is missing
    /// (`Copies::missing`): then the key waits or fails, and nothing is sent either way.
    /// `line`: the key's line before this attempt.
    pub(super) fn linked(
        &mut self,
        post: Post,
        line: Option<&KeyLine>,
    ) -> Result<Option<Post>, Error> {
        let (key, copies) = (post.key, self.book.copies(post.key));
        let Some(err) = copies.missing(key, &self.cfg.name) else {
            return Ok(Some(copies.put_in(post)));
        };
        let step = self.book.fail(&err, &post, (line, u32::MAX))?;
        self.voice.trace_failure(key, "wait", "failed", &err);
        match err.class() {
            Some(Class::RetrySafe) => self.voice.waiting(key, step.written(), &err),
            _ => self.report(key, &step, Some(&err))?,
        }
        Ok(None)
    }
}
