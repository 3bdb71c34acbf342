//! Editing a published thread: every part in place when the post still splits into as many
//! parts (else refused, nothing changed), and the read-back of each part after an update
//! (`Thread::update_parts`, `Thread::read_back_parts`).

use crate::error::{Class, Error};
use crate::life::Receipt;
use crate::post::Post;
use crate::runner::TargetRun;
use crate::targets::{Edited, Lookup, Media};
use crate::tell;

impl TargetRun<'_> {
    /// An edit of a published thread, each part traced as soon as it holds the edit; refused
    /// (rejected) with nothing changed when the post no longer splits into as many parts.
    /// `media`: the post's images as uploaded, for part 0.
    pub(in crate::runner) fn update_thread(
        &mut self,
        post: &Post,
        media: &Media,
    ) -> Result<Receipt, Error> {
        let key = post.key;
        let line = self.book.line(key).expect("the pending update");
        let parts = line.copies.current.published_parts();
        let generation = line.copies.current.generation;
        let (voice, total) = (&mut self.voice, parts.len());
        let mut traced = |n: usize| {
            let text = tell::thread::part(n, total, &parts[n].id);
            voice.trace(key, "update", "part", &text);
        };
        let thread = self.target.as_thread().expect("a thread target");
        let edited = thread.update_parts((post, media), &parts, generation, &mut traced)?;
        let result = match edited {
            Edited::Updated(result) => result,
            Edited::Splits(now) => {
                let why = tell::thread::splits_other(now, parts.len());
                let hint = tell::thread::as_new_thread(key, &self.cfg.name);
                return Err(Error::failure(Class::Rejected, why).hint(hint));
            }
        };
        result.map(|()| Receipt {
            url: line.copies.current.url.clone(),
            ..Receipt::id(&parts[0].id)
        })
    }

    /// Whether every part of the published thread holds the post's text now (an update's
    /// read-back): `Found` when all do, `Absent` when one does not (the update is sent again).
    pub(in crate::runner) fn thread_holds(&mut self, post: &Post) -> Result<Lookup, Error> {
        let line = self.book.line(post.key).expect("a line");
        let parts = line.copies.current.published_parts();
        let generation = line.copies.current.generation;
        self.threads().read_back_parts(post, &parts, generation)
    }
}
