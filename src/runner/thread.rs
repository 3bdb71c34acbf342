//! Sending a thread (`long = "thread"`): the parts kept before the first one goes, then each
//! part a side effect of its own: sent, recorded on the key's line as it lands (`parts=`), and,
//! when it may already be out (a lost answer, a kill, a resumed run), looked up before it is
//! sent. Only the first part not on the line can be out unrecorded: a part is sent only once
//! the one before it is on the line.

mod look;
mod split;

use super::TargetRun;
use super::carry::{Job, Parts, What};
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, KeyLine, Part, Sending, Step, Then, Why};
use crate::post::Post;
use crate::targets::{Media, Outgoing, Thread};
use crate::tell;
use crate::thread::Turn;
use crate::voice::Told;
use std::time::{Duration, Instant};

impl TargetRun<'_> {
    /// Publish `post` as a thread, as `sending` says (copy `generation`; `before.looks()`: the
    /// first part not on the line may already be out, or a new thread's first part may be
    /// there: look before sending it). Its text may link to other targets' copies: a new
    /// thread waits for them like any post (`linked`); a resumed one sends the parts it kept.
    pub(super) fn thread(
        &mut self,
        post: Post,
        line: Option<KeyLine>,
        sending: Sending,
        why: Why,
    ) -> Result<(), Error> {
        let (key, maybe) = (post.key, sending.before.looks());
        let (generation, new_copy) = (sending.generation, sending.fresh);
        let post = match (
            self.run.plan.dry_run,
            life::started(line.as_ref(), new_copy),
        ) {
            // The preview: a stand-in for each copy still coming, as the run would have it by
            // the time this target's turn comes.
            (true, _) => {
                self.preview(key).copies(key);
                self.book.copies(key).with_stand_ins(post)
            }
            (false, true) => self.book.copies(key).put_in(post),
            (false, false) => match self.linked(post, line.as_ref())? {
                Some(post) => post,
                None => return Ok(()),
            },
        };
        let (resumed, landed, outstanding) = sending.thread_out(line.as_ref());
        let prepared =
            match self.thread_split(&post, line.as_ref(), generation, resumed, outstanding) {
                Ok(prepared) => prepared,
                Err(unsplit) => {
                    let split::Unsplit { err, settled } = *unsplit;
                    let line = settled.as_ref().or(line.as_ref());
                    return self.unsent(&post, &err, line, "failed");
                }
            };
        if self.run.plan.dry_run {
            let out = (landed.len(), maybe);
            self.preview(key).thread(&post, &prepared.pieces, out, why);
            return Ok(());
        }
        if self.skip_send_if_stopped(&post, line.as_ref(), !outstanding)? {
            return Ok(());
        }
        if why != Why::Due {
            self.voice.say(key, "retry", &tell::line::retry(why));
        }
        let before = self.book.line(key);
        let chosen = self.part_native(key, generation, 0);
        let pending = (self.book).thread_pending(key, &prepared, &chosen, new_copy)?;
        if pending.written().is_none() {
            let told = Told::new(Some(&post.title), Instant::now(), "publish");
            return self.tell(key, &pending, told);
        }
        // Each part not on the line, in turn: looked for first when it may be out, else sent
        // and on the line as it lands; the done line once every part is out.
        let parts = Parts {
            prepared,
            sent: 0,
            found: 0,
        };
        let out = Outgoing {
            generation,
            ..Outgoing::default()
        };
        let mut job = Job::new(What::Thread(Box::new(parts)), Some(post), out, before);
        self.carry_out(key, &mut job, Step::to(sending.before.first()))
    }

    /// The part the thread sends or looks for next: the first not on the line. When every
    /// part is out: the done line (told), and `None`.
    pub(super) fn next_part(&mut self, key: Key, job: &Job) -> Result<Option<usize>, Error> {
        let (landed, parts) = (self.landed_parts(key), job.parts());
        if landed.len() < parts.prepared.pieces.len() {
            return Ok(Some(landed.len()));
        }
        // Parts sent by this run, and parts it found there: none sent means every part was
        // out before this run sent anything.
        let how = life::thread_how(parts.sent, job.before.is_some());
        let note = tell::line::parts_note(landed.len(), parts.found);
        self.thread_done(job, &landed, (how, &note))?;
        Ok(None)
    }

    /// The parts of the key's thread on its line.
    pub(super) fn landed_parts(&self, key: Key) -> Vec<Part> {
        (self.book.line(key))
            .map(|l| l.copies.current.parts)
            .unwrap_or_default()
    }

    /// Send the thread's next part (`Then::Send`), on the line as it lands; the part after it
    /// goes next. A part whose outcome is unknown is looked for before anything more is sent.
    /// `None`: every part is out (told), or the failure is told and ends the run's tries.
    pub(super) fn send_part(&mut self, key: Key, job: &mut Job) -> Result<Option<Step>, Error> {
        let Some(n) = self.next_part(key, job)? else {
            return Ok(None);
        };
        let landed = self.landed_parts(key);
        (job.sends, job.looks) = (job.sends + 1, 0);
        let (post, pieces) = (job.post(), &job.parts().prepared.pieces);
        let turn = Turn {
            key: post.place(),
            generation: job.out.generation,
            n,
            piece: &pieces[n],
            landed: &landed,
        };
        let err = match self.part_request(post, &turn) {
            Ok((part, url)) => {
                // On the line before anything else happens.
                self.book.part(key, n, (&part, url.as_deref()), false)?;
                let text = tell::thread::part(n, pieces.len(), &part.id);
                self.voice.trace(key, "publish", "part", &text);
                job.sends = 0;
                job.parts_mut().sent += 1;
                // The part after one this run sent cannot be out yet: it is sent.
                return Ok(Some(Step::to(Then::Send(Duration::ZERO))));
            }
            Err(err) => err,
        };
        let detail = tell::thread::at_part(n, &tell::failure::detail(&err));
        let before = (job.before.as_ref(), job.sends);
        self.send_failed(job.post(), &err, before, ("publish", detail))
    }

    /// Send one part (part 0 with the post's images); a part whose id is not usable is an
    /// unknown outcome.
    fn part_request(&mut self, post: &Post, turn: &Turn) -> Result<(Part, Option<String>), Error> {
        let media = match turn.n {
            0 => self.upload(post, false),
            _ => Ok(Media::default()),
        };
        self.pace();
        let result = media.and_then(|media| {
            let (target, mut line) = self.noting(post.key);
            let threads = target.as_thread().expect("a thread target");
            threads.send_part_noting(post, turn, &media, &mut line)
        });
        self.pace.last_write = Some(Instant::now());
        result.and_then(|(part, url)| match part.usable() {
            true => Ok((part, url)),
            false => Err(Error::failure(
                Class::Unknown,
                tell::thread::unusable(turn.n, "sent"),
            )),
        })
    }

    /// The target's threads (a thread is sent only by a target that has them).
    fn threads(&mut self) -> &mut dyn Thread {
        self.target.as_thread().expect("a thread target")
    }

    /// What the platform chooses for part `n` before sending it (a record key), if anything.
    fn part_native(&mut self, key: Key, generation: u32, n: usize) -> life::Native {
        let place = self.book.place(key);
        self.threads().part_native(place, generation, n)
    }

    /// Every part is out: the done line (its copy is part 0), and the kept parts go.
    fn thread_done(
        &mut self,
        job: &Job,
        landed: &[Part],
        (how, note): (life::How, &str),
    ) -> Result<(), Error> {
        let line = self.book.line(job.post().key).expect("the pending line");
        let receipt = Receipt {
            url: line.copies.current.url.clone(),
            ..Receipt::id(&landed[0].id)
        };
        self.landed(job, receipt, (how, Some(note)))
    }
}
