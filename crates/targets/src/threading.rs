//! Threads: the capability of a target that sends a long post as a thread of self-replies
//! (`Thread`), and what every thread platform does alike with it, as its provided methods:
//! which post found is part `n`, every part edited in place, an edit's read-back over all parts.

use super::{Attempts, Lookup, Media, Noting};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::thread::{Piece, Turn};
use life::Key;
use life::{Part, Receipt};

/// A long post as a thread of self-replies, one part at a time: the runner records each part
/// on the key's line as it lands, and looks a part up (with `Find`, its mark and record key)
/// before it sends one that may already be out.
pub trait Thread {
    /// The parts of the post now, each within the platform's limits; fails (rejected) before
    /// anything is sent when it needs more than `max_parts`.
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error>;

    /// Send one part, replying to the one before it; images (`media`) go with part 0. Its id
    /// (and CID) and, for part 0, its link.
    fn send_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
    ) -> Result<(Part, Option<String>), Error>;

    /// `send_part`, with the key's pending line at hand (`Noting`, as for
    /// `Target::publish_noting`): what the platform makes for the part mid-send that a resend
    /// must reuse is noted there first. The runner sends through this; the default is
    /// `send_part`, which notes nothing.
    fn send_part_noting(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
        line: &mut Noting,
    ) -> Result<(Part, Option<String>), Error> {
        let _ = line;
        self.send_part(post, turn, media)
    }

    /// What the platform chooses for part `n` before sending it (a record key; part 0's is
    /// the copy's, `Names::choose`); empty where it chooses nothing. Only it reads it.
    fn part_native(&self, key: Key, generation: u32, n: usize) -> life::Native;

    /// A part a lookup found, as replies name it (Bluesky reads its CID back), and the id of
    /// the post it replies to as the server has it (`None`: it replies to nothing). A found
    /// part is this thread's only if it replies to the part before it: another thread (another
    /// key's, another site's on the same account) may end in the same words.
    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error>;

    /// The posts made since the attempt that may be part `attempts` is about, found by what
    /// they reply to (`parent`), whatever their text: for a thread cut off whose next part's
    /// text is not known any more. `cut_off_part` keeps only one that replies to `parent`.
    fn replies_to(&mut self, attempts: &Attempts, parent: &Part) -> Result<Lookup, Error>;

    /// Replace one published part's text in place (an edit with the same number of parts);
    /// `media`: the post's images as uploaded, which part 0 keeps (or takes on).
    fn update_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        part: &Part,
        media: &Media,
    ) -> Result<(), Error>;

    /// Whether the published part holds `turn`'s text (an update's read-back).
    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error>;

    /// The parts of the post now (`pieces`), refused before anything is sent when there are
    /// none.
    fn pieces_to_send(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let pieces = self.pieces(post)?;
        match pieces.is_empty() {
            true => {
                Err(Error::failure(Class::Local, "the post has no text to send").at(&post.path))
            }
            false => Ok(pieces),
        }
    }

    /// Which of the posts a lookup found with part `n`'s text is part `n`: one not among
    /// `landed` already (a thread may say the same thing twice) that replies to the part
    /// before it (part 0: to nothing), as read from the target (`part_of`).
    fn own_part(&mut self, n: usize, found: &[Receipt], landed: &[Part]) -> Owned {
        let before = n.checked_sub(1).and_then(|p| landed.get(p));
        let mut others = Vec::new();
        for receipt in found
            .iter()
            .filter(|r| !landed.iter().any(|p| p.id == r.id))
        {
            let (part, parent) = match self.part_of(receipt) {
                Ok(read) => read,
                Err(err) => return Owned::of(others, Err(err)),
            };
            if parent.as_deref() == before.map(|p| p.id.as_str()) {
                return Owned::of(others, Ok(Some((part, receipt.url.clone()))));
            }
            others.push((receipt.id.clone(), parent));
        }
        Owned::of(others, Ok(None))
    }

    /// The part after `landed`, the last one listed, of a thread cut off (a kill, a lost
    /// answer) whose text is not known any more: the one post that replies to that part
    /// (`replies_to`), when it is the part (`own_part`). `None`: no reply, or two (a person
    /// went on by hand: it cannot be told which). `Err`: the lookup failed.
    fn cut_off_part(
        &mut self,
        attempts: &Attempts,
        landed: &[Part],
    ) -> Result<Option<Owned>, Error> {
        let Some(last) = landed.last() else {
            return Ok(None);
        };
        Ok(match self.replies_to(attempts, last)? {
            Lookup::Found(found) if found.len() == 1 => {
                Some(self.own_part(landed.len(), &found, landed))
            }
            _ => None,
        })
    }

    /// The first of the published `parts` that does not hold its piece of `pieces`, as the
    /// platform reads it back (`holds`); `key`: the place of the thread.
    fn first_not_holding(
        &mut self,
        key: Key,
        generation: u32,
        pieces: &[Piece],
        parts: &[Part],
    ) -> Result<Option<usize>, Error> {
        for (n, (piece, part)) in pieces.iter().zip(parts).enumerate() {
            let turn = Turn {
                key,
                generation,
                n,
                piece,
                landed: &parts[..n],
            };
            if !self.holds(&turn, part)? {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    /// An edit of the published thread (`copy`: its parts): every part in place when
    /// the post still splits into as many parts; otherwise nothing is changed, since a thread
    /// half old and half new, or with parts missing or added, is not an edit dayrun makes.
    /// `media`: the post's images as uploaded, for part 0; `updated` is told each part `n`
    /// as soon as it holds the edit (the runner traces it then, so a run killed half way has
    /// said which parts it changed).
    fn update_parts(
        &mut self,
        (post, media): (&Post, &Media),
        copy: &life::Copy,
        updated: &mut dyn FnMut(usize),
    ) -> Result<Edited, Error> {
        let (parts, generation) = (&copy.published_parts()[..], copy.generation);
        let pieces = self.pieces_to_send(post)?;
        if pieces.len() != parts.len() {
            return Ok(Edited::Splits(pieces.len()));
        }
        for (n, (piece, part)) in pieces.iter().zip(parts).enumerate() {
            let turn = Turn {
                key: post.place(),
                generation,
                n,
                piece,
                landed: &parts[..n],
            };
            if let Err(err) = self.update_part(post, &turn, part, media) {
                let half = match n {
                    0 => String::new(),
                    n => format!(
                        " (parts 1 to {n} of {} hold the edit, the rest the text before it)",
                        parts.len()
                    ),
                };
                let message = format!("part {}: {}{half}", n + 1, err.reason());
                return Ok(Edited::Updated(Err(Error { message, ..err })));
            }
            updated(n);
        }
        Ok(Edited::Updated(Ok(Receipt {
            url: copy.url.clone(),
            ..Receipt::id(&parts[0].id)
        })))
    }

    /// Whether every part of the published thread holds the post's text now (an update's
    /// read-back): `Found` when all do, `Absent` when one does not (the update is sent again).
    fn read_back_parts(
        &mut self,
        post: &Post,
        parts: &[Part],
        generation: u32,
    ) -> Result<Lookup, Error> {
        let pieces = self.pieces_to_send(post)?;
        if pieces.len() != parts.len() {
            return Ok(Lookup::Absent);
        }
        Ok(
            match self.first_not_holding(post.place(), generation, &pieces, parts)? {
                Some(_) => Lookup::Absent,
                None => Lookup::Found(vec![Receipt::id(&parts[0].id)]),
            },
        )
    }
}

/// Which post found is part `n` (`Thread::own_part`), and the ones passed over.
pub struct Owned {
    /// Part `n` and its link; `None`: none of the posts is (another key's thread, another
    /// site's on the same account, may end in the same words); `Err`: reading one failed.
    pub part: Result<Option<(Part, Option<String>)>, Error>,
    /// The posts passed over before it, each as its id and what it replies to instead
    /// (`None`: nothing).
    pub others: Vec<(String, Option<String>)>,
}

impl Owned {
    fn of(
        others: Vec<(String, Option<String>)>,
        part: Result<Option<(Part, Option<String>)>, Error>,
    ) -> Owned {
        Owned { part, others }
    }
}

/// How far an edit went (`Target::edit_copy`, `Thread::update_parts`).
pub enum Edited {
    /// The post now splits into this many parts, not as many as the thread has: nothing was
    /// changed.
    Splits(usize),
    /// The copy holds the edit (its receipt); `Err`: a part failed (the error says which, and
    /// how many hold the edit: those told to `updated`), and it and the rest hold the text
    /// before it.
    Updated(Result<Receipt, Error>),
}
