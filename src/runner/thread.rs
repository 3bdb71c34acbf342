//! Sending a thread (`long = "thread"`): the parts kept before the first one goes, then each
//! part a side effect of its own: sent, recorded on the key's line as it lands (`parts=`), and,
//! when it may already be out (a lost answer, a kill, a resumed run), looked up before it is
//! sent. Only the first part not on the line can be out unrecorded: a part is sent only once
//! the one before it is on the line.

mod edit;
mod look;
mod split;

use super::TargetRun;
use super::carry::{Job, Parts, What};
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, Event, KeyLine, Op, Part, Step, Then, Why};
use crate::post::Post;
use crate::signals;
use crate::targets::{Media, Outgoing, Thread};
use crate::tell;
use crate::thread::{Prepared, Turn};
use crate::voice::Told;
use std::time::{Duration, Instant};
use store::sent::Kept;

impl TargetRun<'_> {
    /// Publish `post` as a thread: copy `generation`; `maybe`: the first part not on the line
    /// may already be out (look before sending it).
    pub(super) fn thread(
        &mut self,
        post: Post,
        line: Option<KeyLine>,
        (generation, new_copy): (u32, bool),
        maybe: bool,
        why: Why,
    ) -> Result<(), Error> {
        let key = post.key;
        let resumed = life::resumes(line.as_ref(), generation, new_copy);
        let landed = line
            .as_ref()
            .filter(|_| resumed)
            .map(|l| l.copies.current.parts.clone())
            .unwrap_or_default();
        // Something of this copy may be out: parts on the line, or the first part not on it.
        let outstanding = resumed && (maybe || !landed.is_empty());
        let prepared =
            match self.thread_split(&post, line.as_ref(), generation, resumed, outstanding) {
                Ok(prepared) => prepared,
                Err(unsplit) => {
                    let split::Unsplit { err, settled } = *unsplit;
                    return self.not_sent(&post, &err, settled.as_ref().or(line.as_ref()));
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
        if !self.thread_pending(&post, &prepared, generation, new_copy)? {
            return Ok(());
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
        let first = match maybe {
            true => Then::Look(Duration::ZERO),
            false => Then::Send(Duration::ZERO),
        };
        self.carry_out(key, &mut job, Step::to(first))
    }

    /// The pending line, durable before the first part goes, then the split on it and the
    /// parts a resumed run sends. `false`: the rules refused the attempt (told).
    fn thread_pending(
        &mut self,
        post: &Post,
        prepared: &Prepared,
        generation: u32,
        new_copy: bool,
    ) -> Result<bool, Error> {
        let key = post.key;
        let first = [prepared.pieces[0].mark.clone()];
        let chosen = self.part_native(key, generation, 0);
        let pending = self.book.apply(
            key,
            &Event::Attempt {
                op: Op::Publish,
                fp: &prepared.fp,
                marks: &first,
                payload: Some(&prepared.payload),
                new_copy,
                native: &chosen,
            },
        )?;
        if pending.written().is_none() {
            self.tell(
                key,
                &pending,
                Told::new(Some(&post.title), Instant::now(), "publish"),
            )?;
            return Ok(false);
        }
        self.book
            .apply(key, &Event::Split(&crate::thread::hash(&prepared.pieces)))?;
        self.keep_thread(key, prepared)?;
        Ok(true)
    }

    /// The part the thread sends or looks for next: the first not on the line. When every
    /// part is out: the done line (told), and `None`.
    pub(super) fn next_part(&mut self, key: Key, job: &Job) -> Result<Option<usize>, Error> {
        let landed = self.landed_parts(key);
        let What::Thread(parts) = &job.what else {
            unreachable!("a thread's parts")
        };
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
        let What::Thread(parts) = &job.what else {
            unreachable!("a thread's parts")
        };
        let (post, pieces) = (job.post(), &parts.prepared.pieces);
        let turn = Turn {
            key: post.place(),
            generation: job.out.generation,
            n,
            piece: &pieces[n],
            landed: &landed,
        };
        let err = match self.part_request(post, &turn) {
            Ok((part, url)) => {
                self.part_landed(key, n, &part, url.as_deref(), pieces.len())?;
                job.sends = 0;
                if let What::Thread(parts) = &mut job.what {
                    parts.sent += 1;
                }
                return Ok(Some(Step::to(Then::Send(Duration::ZERO))));
            }
            Err(err) => err,
        };
        let detail = tell::thread::at_part(n, &tell::failure::detail(&err));
        let before = (job.before.as_ref(), job.sends);
        let failed = self.send_failed(job.post(), &err, before, ("publish", detail))?;
        Ok(match failed {
            Some(step) if matches!(step.then, Then::Look(_)) => Some(step),
            Some(Step {
                then: Then::Send(wait),
                ..
            }) if signals::sleep(wait) => Some(Step::to(Then::Send(Duration::ZERO))),
            _ => None,
        })
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

    /// Part `n` landed: on the line before anything else happens.
    fn part_landed(
        &mut self,
        key: Key,
        n: usize,
        part: &Part,
        url: Option<&str>,
        of: usize,
    ) -> Result<(), Error> {
        self.put_part(key, n, (part, url), false)?;
        let text = tell::thread::part(n, of, &part.id);
        self.voice.trace(key, "publish", "part", &text);
        Ok(())
    }

    /// Part `n` (with its link, for part 0) on the line: sent, or found by a lookup (`cut_off`:
    /// after its thread was cut off, by what it replies to; `Event::PartLanded`).
    fn put_part(
        &mut self,
        key: Key,
        n: usize,
        (part, url): (&Part, Option<&str>),
        cut_off: bool,
    ) -> Result<life::Step, Error> {
        let landed = Event::PartLanded {
            n,
            part,
            url,
            cut_off,
        };
        self.book.apply(key, &landed)
    }

    /// Every part is out: the done line (its copy is part 0), and the kept parts go.
    fn thread_done(
        &mut self,
        job: &Job,
        landed: &[Part],
        (how, note): (life::How, &str),
    ) -> Result<(), Error> {
        let (post, What::Thread(parts)) = (job.post(), &job.what) else {
            unreachable!("a thread's parts")
        };
        let key = post.key;
        let line = self.book.line(key).expect("the pending line");
        let receipts = [Receipt {
            url: line.copies.current.url.clone(),
            ..Receipt::id(&landed[0].id)
        }];
        let keeps = life::Keeps {
            fp: parts.prepared.fp.clone(),
            payload: parts.prepared.payload.clone(),
            media: self.unattached(key, post),
            copy: None,
        };
        let step = self.book.land(key, (&keeps, &receipts), how, None, 0)?;
        self.sent().remove(key, Kept::Thread);
        let told = Told::new(Some(&post.title), job.started, "publish").note(Some(note));
        self.tell(key, &step, told)
    }

    /// The parts of the key's thread as kept before its first send (`store::sent`); kept
    /// again only when they changed.
    fn keep_thread(&self, key: Key, prepared: &Prepared) -> Result<(), Error> {
        if self.kept_thread(key).as_ref() == Some(prepared) {
            return Ok(());
        }
        let bytes = serde_json::to_vec(prepared).expect("a thread serialises");
        self.sent().keep(key, Kept::Thread, &bytes)
    }

    fn kept_thread(&self, key: Key) -> Option<Prepared> {
        let bytes = self.sent().kept(key, Kept::Thread)?;
        serde_json::from_slice(&bytes).ok()
    }
}
