//! The one loop of a key's pass: what the key's life says next (`Then`) carried out, each
//! answer handed back to it as the next event, until it says to stop: send (a post, a thread's
//! next part, an edit), look (`judge.rs`), read an edited copy back (`update.rs`), remove a
//! copy (`retract.rs`). What is being done for the key (`Job`) says how each action is made.

use super::TargetRun;
use crate::error::Error;
use crate::life::{Key, KeyLine, Looking, Step, Then, Word};
use crate::post::Post;
use crate::signals;
use crate::targets::Outgoing;
use crate::thread::Prepared;
use crate::voice::Told;
use std::time::Instant;

/// What a key's pass is carrying out for it, and how far it got.
pub(super) struct Job {
    pub what: What,
    /// The post as it is sent (none: only looked for, or retracted without its file).
    pub post: Option<Post>,
    /// What a send carries and a look looks for (its marks, its body, the copy's generation
    /// and what the platform chose for it).
    pub out: Outgoing,
    /// The key's line before this run's first attempt (a failure that provably sent nothing
    /// leaves what may have landed as it was then).
    pub before: Option<KeyLine>,
    /// Sends made for the key this run (a thread's: since its last part landed), and failed
    /// looks since the last send.
    pub sends: u32,
    pub looks: u32,
    /// How the next look is made.
    pub looking: Looking,
    /// When the action a told line times began.
    pub started: Instant,
}

/// What is being done for the key.
pub(super) enum What {
    /// Its post sent as one copy (`new_copy`: as the key's next copy; `alone`: never queued
    /// for a batch).
    Post { new_copy: bool, alone: bool },
    /// Its copy looked for only: nothing is ever sent for it.
    Look,
    /// Its post sent as a thread, part by part (`thread.rs`).
    Thread(Box<Parts>),
    /// Its edit sent to its copy in place, and read back when the answer is lost.
    Update,
    /// Its copies removed (`retract.rs`).
    Retract(Box<Removing>),
}

/// A thread going out: its parts, and what this run did with them.
pub(super) struct Parts {
    pub prepared: Prepared,
    /// Parts this run sent, and parts its lookups found out already.
    pub sent: usize,
    pub found: usize,
}

/// A retract going on: the line as it began, and the copies removed so far.
pub(super) struct Removing {
    /// A retract an earlier run left half way.
    pub resume: bool,
    pub line: KeyLine,
    pub removed: Vec<String>,
}

impl Job {
    /// A job that has done nothing yet; `before`: the key's line now.
    pub fn new(what: What, post: Option<Post>, out: Outgoing, before: Option<KeyLine>) -> Job {
        Job {
            what,
            post,
            out,
            before,
            sends: 0,
            looks: 0,
            looking: Looking::Dedup,
            started: Instant::now(),
        }
    }

    /// The post being sent.
    pub fn post(&self) -> &Post {
        self.post.as_ref().expect("a post to send")
    }

    /// The thread going out (a job that sends one).
    pub fn parts(&self) -> &Parts {
        match &self.what {
            What::Thread(parts) => parts,
            _ => unreachable!("a thread's parts"),
        }
    }

    /// `parts`, to count what this run did with them.
    pub fn parts_mut(&mut self) -> &mut Parts {
        match &mut self.what {
            What::Thread(parts) => parts,
            _ => unreachable!("a thread's parts"),
        }
    }
}

impl TargetRun<'_> {
    /// Carry out what `step` says next, and what each answer's step says after it, until the
    /// key's life says to stop; then tell how it ended. A wait cut short by a signal stops
    /// there: the line says what the last attempt did.
    pub(super) fn carry_out(
        &mut self,
        key: Key,
        job: &mut Job,
        mut step: Step,
    ) -> Result<(), Error> {
        loop {
            let next = match (step.then.clone(), &job.what) {
                (Then::Send(wait), _) if !wait.is_zero() && !signals::sleep(wait) => {
                    return Ok(());
                }
                (Then::Send(_), What::Post { .. }) => self.send(key, job)?,
                (Then::Send(_), What::Thread(_)) => self.send_part(key, job)?,
                (Then::Send(_), What::Update) => self.send_update(key, job)?,
                (Then::Look(wait), _) if !wait.is_zero() && !signals::sleep(wait) => {
                    return self.ended(key, job, &step);
                }
                (Then::Look(_), What::Post { .. } | What::Look) => self.look(key, job)?,
                (Then::Look(_), What::Thread(_)) => self.look_part(key, job)?,
                (Then::ReadBack(wait), What::Update) => {
                    // Read back after the wait, whatever cut it short: reading changes nothing.
                    signals::sleep(wait);
                    self.read_back(key, job)?
                }
                (Then::Remove(id), What::Retract(_)) => self.remove(key, job, &id)?,
                _ => return self.ended(key, job, &step),
            };
            match next {
                Some(next) => step = next,
                None => return Ok(()),
            }
        }
    }

    /// The step the key's life stopped at (or a look a signal cut short), told as what was
    /// being done calls for. (A send's own end, and a read-back's, are told where they end.)
    fn ended(&mut self, key: Key, job: &Job, step: &Step) -> Result<(), Error> {
        match &job.what {
            What::Post { .. } | What::Look => {
                let title = job.post.as_ref().map(|p| p.title.as_str());
                let action = crate::tell::look::action(job.looking == Looking::Dedup);
                self.tell(key, step, Told::new(title, job.started, action))
            }
            What::Thread(_) => {
                let said = step.say.as_deref().unwrap_or_default();
                let detail = crate::tell::thread::at_part(self.landed_parts(key).len(), said);
                self.voice.trace(key, "confirm", "stopped", &detail);
                self.tell(key, step, Told::new(None, Instant::now(), "confirm"))
            }
            What::Retract(removing) if step.word == Word::Retracted => {
                let now = step.written();
                (self.voice).retracted(key, &removing.line, now, &removing.removed);
                Ok(())
            }
            What::Retract(_) | What::Update => Ok(()),
        }
    }
}
