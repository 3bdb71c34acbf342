//! Sending a thread (`long = "thread"`): the parts kept before the first one goes, then each
//! part a side effect of its own: sent, recorded on the key's line as it lands (`parts=`), and,
//! when it may already be out (a lost answer, a kill, a resumed run), looked up before it is
//! sent. Only the first part not on the line can be out unrecorded: a part is sent only once
//! the one before it is on the line.

mod edit;
mod look;
mod split;

use super::TargetRun;
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::Receipt;
use crate::life::{self, Event, KeyLine, Op, Part, Then, Why};
use crate::post::Post;
use crate::signals;
use crate::targets::{Media, Thread};
use crate::tell;
use crate::thread::{Prepared, Turn};
use crate::voice::Told;
use look::Next;
use std::time::Instant;
use store::sent::Kept;

impl TargetRun<'_> {
    /// Publish `post` as a thread: copy `generation`; `maybe`: the first part not on the line
    /// may already be out (look before sending it).
    pub(super) fn thread(
        &mut self,
        post: &Post,
        line: Option<KeyLine>,
        generation: u32,
        new_copy: bool,
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
            match self.thread_split(post, line.as_ref(), generation, resumed, outstanding) {
                Ok(prepared) => prepared,
                Err(unsplit) => {
                    let split::Unsplit { err, settled } = *unsplit;
                    return self.not_sent(post, &err, settled.as_ref().or(line.as_ref()));
                }
            };
        if self.run.plan.dry_run {
            let out = (landed.len(), maybe);
            self.preview(key).thread(post, &prepared.pieces, out, why);
            return Ok(());
        }
        if self.skip_send_if_stopped(post, line.as_ref(), !outstanding)? {
            return Ok(());
        }
        if why != Why::Due {
            self.voice.say(key, "retry", &tell::line::retry(why));
        }
        let before = self.book.line(key);
        if !self.thread_pending(post, &prepared, generation, new_copy)? {
            return Ok(());
        }
        self.send_parts(post, &prepared, generation, before.as_ref(), maybe)
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

    /// Each part not on the line, in turn: looked for first when it may be out, else sent
    /// and on the line as it lands; the done line once every part is out.
    fn send_parts(
        &mut self,
        post: &Post,
        prepared: &Prepared,
        generation: u32,
        before: Option<&KeyLine>,
        mut maybe: bool,
    ) -> Result<(), Error> {
        let key = post.key;
        let pieces = &prepared.pieces;
        let started = Instant::now();
        let mut failures = 0;
        // Parts sent by this run, and parts it found there: none sent means every part was
        // out before this run sent anything.
        let (mut sent, mut found) = (0, 0);
        loop {
            let landed = self
                .book
                .line(key)
                .map(|l| l.copies.current.parts)
                .unwrap_or_default();
            let n = landed.len();
            let Some(piece) = pieces.get(n) else {
                let how = life::thread_how(sent, before.is_some());
                let note = tell::line::parts_note(landed.len(), found);
                return self.thread_done(post, prepared, &landed, (how, &note), started);
            };
            if maybe {
                // With no line before this run, nothing of this run can be in flight: the
                // look (dedup) need not wait for a late landing.
                let wait = before.is_some();
                match self.look_part(key, generation, n, piece, failures, wait)? {
                    Next::Landed => {
                        found += 1;
                        continue;
                    }
                    Next::Send => maybe = false,
                    Next::Stop => return Ok(()),
                }
            }
            failures += 1;
            let turn = Turn {
                key: post.place(),
                generation,
                n,
                piece,
                landed: &landed,
            };
            let err = match self.send_part(post, &turn) {
                Ok((part, url)) => {
                    self.part_landed(key, n, &part, url.as_deref(), pieces.len())?;
                    failures = 0;
                    sent += 1;
                    continue;
                }
                Err(err) => err,
            };
            let detail = tell::thread::at_part(n, &tell::failure::detail(&err));
            let failed = self.send_failed(post, &err, (before, failures), ("publish", detail))?;
            match failed.map(|step| step.then) {
                Some(Then::Send(wait)) if signals::sleep(wait) => maybe = false,
                Some(Then::Look(_)) => maybe = true,
                _ => return Ok(()),
            }
        }
    }

    /// Send one part (part 0 with the post's images); a part whose id is not usable is an
    /// unknown outcome.
    fn send_part(&mut self, post: &Post, turn: &Turn) -> Result<(Part, Option<String>), Error> {
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
        post: &Post,
        prepared: &Prepared,
        landed: &[Part],
        (how, note): (life::How, &str),
        started: Instant,
    ) -> Result<(), Error> {
        let key = post.key;
        let line = self.book.line(key).expect("the pending line");
        let receipts = [Receipt {
            url: line.copies.current.url.clone(),
            ..Receipt::id(&landed[0].id)
        }];
        let parts = life::Keeps {
            fp: prepared.fp.clone(),
            payload: prepared.payload.clone(),
            media: self.unattached(key, post),
            copy: None,
        };
        let step = self.book.land(key, (&parts, &receipts), how, None, 0)?;
        self.sent().remove(key, Kept::Thread);
        self.tell(
            key,
            &step,
            Told::new(Some(&post.title), started, "publish").note(Some(note)),
        )
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
