//! Which parts a thread sends: a new thread's, the post split now; a resumed thread's, the
//! split it started with (`split=` on its line, the parts kept in `state/<target>.sent/`), or
//! nothing, for a person, when those parts cannot be known.

use crate::error::Error;
use crate::life::{self, KeyLine, Op, Phase, Resume};
use crate::look::PartSeen;
use crate::post::Post;
use crate::runner::TargetRun;
use crate::targets::Attempts;
use crate::tell;
use crate::thread::Prepared;

/// Why a thread's parts cannot be sent, and, when a part found on the way settled what may be
/// out, the line as it was then (`life` says what may be out; the state file's pending line
/// would say it may all be).
pub(super) struct Unsplit {
    pub err: Error,
    pub settled: Option<KeyLine>,
}

impl From<Error> for Box<Unsplit> {
    fn from(err: Error) -> Box<Unsplit> {
        Box::new(Unsplit { err, settled: None })
    }
}

impl TargetRun<'_> {
    /// The parts this run sends. A new thread's: the post split now. A resumed thread's: the
    /// parts it was split into before its first part went (`split=` on its line names them by
    /// their hash), kept in `state/<target>.sent/`; without that file, the post split now only
    /// when it splits the same (on a line from before `split=`: when the parts out are the
    /// first parts of the split now). `outstanding`: parts may be out. `Err`: nothing is sent,
    /// the key fails as the error says (the post cannot be split, or a resumed thread's parts
    /// cannot be known: a person decides).
    pub(super) fn thread_split(
        &mut self,
        post: &Post,
        line: Option<&KeyLine>,
        generation: u32,
        resumed: bool,
        outstanding: bool,
    ) -> Result<Prepared, Box<Unsplit>> {
        let key = post.key;
        let recorded = line
            .filter(|_| resumed)
            .and_then(|l| l.copies.current.split.clone());
        if resumed && let Some(kept) = self.book.kept_split(post, generation, recorded.as_deref()) {
            return Ok(kept);
        }
        let fresh = Prepared {
            generation,
            pieces: self.threads().pieces_to_send(post)?,
            fp: post.fingerprint.clone(),
            payload: self.book.edit_mark(post),
        };
        let Some(line) = line.filter(|_| outstanding) else {
            return Ok(fresh);
        };
        let hash = crate::thread::hash(&fresh.pieces);
        let differs = match life::resume(recorded.as_deref(), &hash, fresh.pieces.len()) {
            Resume::Same => return Ok(fresh),
            Resume::Differs(why) => why,
            Resume::Compare if self.run.plan.dry_run => {
                self.voice.say(key, "part", tell::dry::NO_SPLIT);
                return Ok(fresh);
            }
            Resume::Compare => match self
                .part_looker(key)
                .first_parts_differ(line, &fresh.pieces)?
            {
                None => return Ok(fresh),
                Some(why) => why,
            },
        };
        let file = match self.book.kept_thread(key) {
            Some(_) => "are not the split on the line",
            None => "are gone",
        };
        let settled = self.keep_cut_off_part(line)?;
        let lost = settled.as_ref().unwrap_or(line);
        let err = tell::thread::split_lost(lost, &self.cfg.name, file, &differs);
        Err(Box::new(Unsplit { err, settled }))
    }

    /// A thread cut off while a part was on its way (a kill, a lost answer), whose parts
    /// cannot be known any more: before a person is asked, the part that may be out
    /// unrecorded is looked for (`PartLooker::cut_off`) and put on the line when it is there,
    /// so that no part of the thread is left on no line. The line as it is then, when the part
    /// was found.
    fn keep_cut_off_part(&mut self, line: &KeyLine) -> Result<Option<KeyLine>, Error> {
        let (key, n) = (line.key, line.copies.current.parts.len());
        let pending = matches!(line.phase, Phase::Pending(Op::Publish));
        if n == 0 || !pending || !line.tried.maybe || self.run.plan.dry_run {
            return Ok(None);
        }
        let generation = line.copies.current.generation;
        let chosen = self.part_native(key, generation, n);
        let sought = line.sought(&[]);
        let attempts = Attempts {
            since: sought.since,
            last: sought.last,
            native: &chosen,
            generation,
            ..Attempts::none_yet(line.place_key(), &[], &serde_json::Value::Null)
        };
        let Some(PartSeen::Part(part, url)) = self.part_looker(key).cut_off(line, &attempts) else {
            return Ok(None);
        };
        let step = self.book.part(key, n, (&part, url.as_deref()), true)?;
        Ok(step.written().cloned())
    }
}
