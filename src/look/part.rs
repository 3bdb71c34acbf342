//! A thread's part looked for (`PartLooker`), made into what the key's life reads: which post a
//! look found is part `n` (`Thread::own_part`), the part after the last one listed of a thread
//! cut off (`Thread::cut_off_part`), and, on a line from before `split=`, whether the parts out
//! are the first parts of the split now. Each post passed over is traced (`trace`: the result
//! and detail of a `confirm` line); a part found is the runner's to put on the line.

use super::Seen;
use crate::error::Error;
use crate::life::{self, KeyLine, Part};
use crate::targets::{Attempts, Owned, Thread};
use crate::tell;
use crate::thread::Piece;

/// One target's lookups of one key's thread parts, and where their trace lines go.
pub(crate) struct PartLooker<'a> {
    pub thread: &'a mut dyn Thread,
    pub trace: Box<Trace<'a>>,
}

/// Where a part lookup's trace line goes: its result and its detail.
pub(crate) type Trace<'a> = dyn FnMut(&str, &str) + 'a;

/// What a look for a part says: the part itself (its link), or what the key's life is told.
pub(crate) enum PartSeen {
    Part(Part, Option<String>),
    Seen(Seen),
}

impl PartLooker<'_> {
    /// What a look for part `n` that found posts with its text (`Found`), or a post at its
    /// place that is not it (`Foreign`), says (`landed`: the parts on the line); any other
    /// look is told as it is.
    pub fn seen(&mut self, n: usize, seen: Seen, landed: &[Part]) -> PartSeen {
        let receipts = match seen {
            Seen::Found(receipts) => receipts,
            Seen::Foreign(_) => return PartSeen::Seen(Seen::CannotTell(tell::thread::foreign(n))),
            seen => return PartSeen::Seen(seen),
        };
        let owned = self.thread.own_part(n, &receipts, landed);
        PartSeen::Seen(match self.told(n, owned, landed) {
            Ok(Some((part, url))) if part.usable() => return self.found(n, (part, url), false),
            Ok(Some(_)) => Seen::CannotTell(tell::thread::unusable(n, "found")),
            Ok(None) => Seen::Absent,
            Err(err) => Seen::Transient(err.reason()),
        })
    }

    /// A thread cut off while a part was on its way (a kill, a lost answer), whose parts cannot
    /// be known any more (`line`): the part after the last one listed, the one that may be out
    /// unrecorded, looked for by what it replies to (its text is not known) as `attempts` says.
    /// The part, when it is there; a failed lookup is traced and finds nothing.
    pub fn cut_off(&mut self, line: &KeyLine, attempts: &Attempts) -> Option<PartSeen> {
        let parts = &line.copies.current.parts;
        let owned = match self.thread.cut_off_part(attempts, parts) {
            Ok(owned) => owned?,
            Err(err) => {
                (self.trace)("failed", &tell::failure::detail(&err));
                return None;
            }
        };
        match self.told(parts.len(), owned, parts) {
            Ok(Some(found)) if found.0.usable() => Some(self.found(parts.len(), found, true)),
            _ => None,
        }
    }

    /// On a line from before `split=` (dayrun 0.5.0): where the parts out are not the first
    /// parts of `pieces`, if anywhere. The parts on the line are compared as the target reads
    /// them back (`Thread::first_not_holding`); a first part that may be out unrecorded, by the
    /// mark the line keeps of what the latest attempt sent (none kept: it cannot be told, so it
    /// differs).
    pub fn first_parts_differ(
        &mut self,
        line: &KeyLine,
        pieces: &[Piece],
    ) -> Result<Option<String>, Error> {
        let landed = &line.copies.current.parts;
        let now = pieces.len();
        let last_mark = line.tried.marks.last().map(String::as_str);
        let first_mark = pieces.first().map(|p| p.mark.as_str());
        if let Some(why) = life::first_parts(landed.len(), now, last_mark, first_mark) {
            return Ok(Some(why));
        }
        let (key, generation) = (line.place_key(), line.copies.current.generation);
        let differs = (self.thread).first_not_holding(key, generation, pieces, landed)?;
        Ok(differs.map(|n| life::part_differs(n + 1, now)))
    }

    /// Part `n` found (`cut_off`: of a thread cut off), traced.
    fn found(&mut self, n: usize, (part, url): (Part, Option<String>), cut_off: bool) -> PartSeen {
        let text = tell::thread::found(n, &part.id, cut_off);
        (self.trace)("part", &text);
        PartSeen::Part(part, url)
    }

    /// Part `n` as the thread told it from the posts found (`Thread::own_part`), each post
    /// passed over traced with what it replies to (`landed`: the parts on the line).
    fn told(
        &mut self,
        n: usize,
        owned: Owned,
        landed: &[Part],
    ) -> Result<Option<(Part, Option<String>)>, Error> {
        let before = n.checked_sub(1).and_then(|p| landed.get(p));
        let before = before.map(|p| p.id.as_str());
        for (id, parent) in &owned.others {
            let text = tell::thread::not_this_part(n, id, parent.as_deref(), before);
            (self.trace)("other", &text);
        }
        owned.part
    }
}
