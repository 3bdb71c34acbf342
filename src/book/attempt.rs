//! An attempt starts (`Event::Attempt`): the pending line its key's life writes, durable before
//! the request goes: a post's publish (a batch's, every key's with one sync), a thread's (with
//! the split it is sent as, and its parts kept beside the line), an edit's update.

use super::Book;
use crate::error::Error;
use crate::life::{self, Event, Key, KeyLine, Native, Op, Step};
use crate::post::Post;
use crate::targets::Outgoing;
use crate::thread::Prepared;

impl Book<'_> {
    /// A publish of `post` as `out` starts (`new_copy`: as the key's next copy): its pending
    /// line, recorded. A step that wrote nothing: the rules refused it (too many copies).
    pub(crate) fn publishing(
        &mut self,
        post: &Post,
        out: &Outgoing,
        new_copy: bool,
    ) -> Result<Step, Error> {
        let payload = self.edit_mark(post);
        self.apply(post.key, &publish(post, out, &payload, new_copy))
    }

    /// The pending lines of publishes that start together (a batch: `post` sent as `out`,
    /// `new_copy`: as the key's next copy), written with one sync.
    pub(crate) fn pending_all<'p>(
        &mut self,
        sends: impl Iterator<Item = (&'p Post, &'p Outgoing, bool)>,
    ) -> Result<(), Error> {
        let mut pending = Vec::new();
        for (post, out, new_copy) in sends {
            let (key, payload) = (post.key, self.edit_mark(post));
            let attempt = publish(post, out, &payload, new_copy);
            let step = life::next(self.line(key).as_ref(), &attempt, &self.ctx(key));
            if let Some(line) = step.written() {
                pending.push(line.record());
            }
        }
        self.state.set_all(pending)
    }

    /// A thread's send starts: its pending line (its first part's mark, and what the platform
    /// chose for it: `chosen`), durable before the first part goes; then the split on it
    /// (`split=`) and its parts kept beside it. The attempt's step (a refused one, past the
    /// copies a line keeps, wrote nothing, and nothing more is).
    pub(crate) fn thread_pending(
        &mut self,
        key: Key,
        prepared: &Prepared,
        chosen: &Native,
        new_copy: bool,
    ) -> Result<Step, Error> {
        let first = [prepared.pieces[0].mark.clone()];
        let pending = self.apply(
            key,
            &Event::Attempt {
                op: Op::Publish,
                fp: &prepared.fp,
                marks: &first,
                payload: Some(&prepared.payload),
                new_copy,
                native: chosen,
            },
        )?;
        if pending.written().is_some() {
            self.apply(key, &Event::Split(&crate::thread::hash(&prepared.pieces)))?;
            self.keep_thread(key, prepared)?;
        }
        Ok(pending)
    }

    /// An edit of `post` starts: its pending update line (`op=update`), recorded. The line as
    /// it was, which names the copy and what only its platform reads of it.
    pub(crate) fn updating(&mut self, post: &Post) -> Result<Option<KeyLine>, Error> {
        let before = self.line(post.key);
        let attempt = Event::Attempt {
            op: Op::Update,
            fp: &post.fingerprint,
            marks: &[],
            payload: None,
            new_copy: false,
            native: &Native::new(),
        };
        self.apply(post.key, &attempt)?;
        Ok(before)
    }
}

/// A publish of `post` as `out` starting, with its edit hash (`payload`).
fn publish<'e>(post: &'e Post, out: &'e Outgoing, payload: &'e str, new_copy: bool) -> Event<'e> {
    Event::Attempt {
        op: Op::Publish,
        fp: &post.fingerprint,
        marks: &out.marks,
        payload: Some(payload),
        new_copy,
        native: &out.native,
    }
}
