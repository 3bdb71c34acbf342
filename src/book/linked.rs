//! Where the copies the target's template links to stand for a key (`known::Copies`), judged
//! from the linked targets' lines gathered for it (`runner/linked.rs`).

use super::Book;
use crate::known::Copies;
use crate::life::{self, Key};

impl Book<'_> {
    /// Where each copy the template needs stands, by target name.
    pub(crate) fn copies(&self, key: Key) -> Copies {
        // A target without a template links to no copy: no moment to judge the key in (its
        // stamp is a formatted time, and every key of a dry run asks).
        let Some(template) = self.cfg.template.as_ref() else {
            return Copies::default();
        };
        // Judged before the post is read, as `status` judges it: from the key's day, whatever
        // the post's time (`Ctx::due`), so the two never disagree on the first visit.
        let ctx = life::Ctx {
            due: None,
            ..self.ctx(key)
        };
        self.known
            .copies(Some(template), life::past_window(key, &ctx))
    }
}
