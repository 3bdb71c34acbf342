//! `long = "thread"` on short notes: the post's text split into kind-1 notes of at most
//! `PART_CHARS` characters, each part after the first a reply marked by NIP-10 `e` tags (the
//! thread's root, and the part before it as `reply`; a direct reply to the root names the
//! root only). Part 0's `created_at` is the copy's (chosen before the first send and kept on
//! the pending line); part N's is part N-1's plus one second, read from the line's part
//! (`Part::native`), so every part is one event whatever happens: a resend is the same id. A
//! part whose answer was lost is found by its text among the author's notes (`Find`), and
//! what it replies to is read from its tags (`part_of`).

use super::event::{Draft, Event, SHORT};
use super::text::clean;
use super::{Nostr, native};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use crate::thread::{Long, Piece, Turn, split::Limit};
use crate::{Attempts, Lookup, Media, Thread};
use life::{Key, Part, Receipt};
use serde_json::json;

/// The most characters one part holds (Nostr sets no limit; clients show this much whole).
pub const PART_CHARS: usize = 1000;

fn chars(text: &str) -> usize {
    text.chars().count()
}

impl Nostr {
    /// The `created_at` of part `n`: the copy's for part 0, the part before's plus one after.
    fn part_created(&self, turn: &Turn) -> Result<u64, Error> {
        let created = match turn.n {
            0 => self
                .started
                .borrow()
                .get(&(turn.key, turn.generation))
                .copied(),
            n => turn
                .landed
                .get(n - 1)
                .and_then(|p| p.native.as_deref()?.parse::<u64>().ok())
                .map(|c| c + 1),
        };
        match (turn.n, created) {
            (_, Some(created)) => Ok(created),
            // A resumed thread whose first part is sent again: the look before it proved the
            // earlier attempt is on no relay, so a new time makes no second copy.
            (0, None) => Ok(self.now()),
            (n, None) => Err(Error::failure(
                Class::Local,
                format!(
                    "part {} cannot be sent: part {n} on the line has no created_at",
                    n + 1
                ),
            )),
        }
    }

    /// The event of part `n` of the thread: its text, and its place in the thread (NIP-10).
    fn part_event(&self, turn: &Turn, created: u64) -> Result<Event, Error> {
        let mut draft = Draft::from_body(&turn.piece.body)
            .ok_or_else(|| Error::failure(Class::Local, "the part is not a Nostr event"))?;
        if turn.n > 0 {
            let (Some(root), Some(parent)) = (turn.landed.first(), turn.landed.get(turn.n - 1))
            else {
                return Err(Error::failure(
                    Class::Local,
                    format!(
                        "part {} cannot reply: the parts before it are not on the line",
                        turn.n + 1
                    ),
                ));
            };
            draft.tags.push(vec![
                "e".into(),
                root.id.clone(),
                String::new(),
                "root".into(),
            ]);
            if turn.n > 1 {
                draft.tags.push(vec![
                    "e".into(),
                    parent.id.clone(),
                    String::new(),
                    "reply".into(),
                ]);
            }
            draft.tags.push(vec!["p".into(), self.keys.public.clone()]);
        }
        Ok(draft.sign(&self.keys, created))
    }
}

/// What a note replies to (NIP-10 marked tags): its `reply`, else its `root`; `None`: no `e`.
fn parent_of(event: &Event) -> Option<String> {
    let marked = |marker: &str| {
        event
            .draft
            .tags
            .iter()
            .find(|t| t.first().is_some_and(|n| n == "e") && t.get(3).is_some_and(|m| m == marker))
            .and_then(|t| t.get(1))
            .cloned()
    };
    marked("reply").or_else(|| marked("root"))
}

impl Thread for Nostr {
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let hashtags = super::text::hashtags(post);
        let words: Vec<String> = hashtags.iter().map(|t| format!("#{t}")).collect();
        let link = self.link(post);
        let (whole, head) =
            crate::thread::source(self.template.as_ref(), post, link.as_deref(), &words)?;
        let shape = match self.long {
            Long::Thread(shape) => shape,
            Long::Cut => {
                return Err(Error::failure(
                    Class::Local,
                    "a note sent whole has no parts",
                ));
            }
        };
        let limit = Limit {
            max: PART_CHARS,
            max_bytes: None,
            count: &chars,
        };
        let parts = crate::thread::cut(post, &clean(&whole), head, &limit, shape)?;
        Ok(parts
            .into_iter()
            .enumerate()
            .map(|(n, part)| {
                let tags = match n {
                    0 => hashtags
                        .iter()
                        .map(|t| vec!["t".into(), t.to_lowercase()])
                        .collect(),
                    _ => Vec::new(),
                };
                let draft = Draft {
                    kind: SHORT,
                    tags,
                    content: clean(&part),
                };
                Piece {
                    mark: mark(&draft.content),
                    count: chars(&part),
                    body: draft.to_body(),
                    text: part,
                }
            })
            .collect())
    }

    fn send_part(
        &mut self,
        _post: &Post,
        turn: &Turn,
        _media: &Media,
    ) -> Result<(Part, Option<String>), Error> {
        self.check_key()?;
        let created = self.part_created(turn)?;
        let event = self.part_event(turn, created)?;
        self.everywhere(&event)?;
        Ok((
            Part {
                id: event.id,
                native: Some(created.to_string()),
            },
            None,
        ))
    }

    /// Part 0's: the copy's `created_at`, chosen now (and kept for its send this run).
    fn part_native(&self, key: Key, generation: u32, n: usize) -> life::Native {
        match n {
            0 => {
                let now = self.now();
                self.started.borrow_mut().insert((key, generation), now);
                native::chosen(now)
            }
            _ => life::Native::default(),
        }
    }

    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error> {
        let seen = self.ask_all(&json!({ "ids": [found.id] }));
        let event = seen
            .into_iter()
            .find_map(|(_, f)| f.ok()?.into_iter().find(|e| e.id == found.id));
        let Some(event) = event else {
            return Err(Error::failure(
                Class::Unknown,
                format!("note {} was found, then not", found.id),
            ));
        };
        let parent = parent_of(&event);
        Ok((
            Part {
                id: event.id,
                native: Some(event.created_at.to_string()),
            },
            parent,
        ))
    }

    /// The author's notes that reply to `parent` (NIP-10), whatever their text.
    fn replies_to(&mut self, _attempts: &Attempts, parent: &Part) -> Result<Lookup, Error> {
        let filter = json!({ "authors": [self.keys.public], "kinds": [SHORT], "#e": [parent.id] });
        let seen = self.ask_all(&filter);
        let mut found: Vec<Receipt> = Vec::new();
        for (_, events) in &seen {
            let Ok(events) = events else {
                let why: Vec<&str> = seen
                    .iter()
                    .filter_map(|(_, f)| f.as_ref().err())
                    .map(String::as_str)
                    .collect();
                return Err(Error::failure(Class::RetrySafe, why.join("; ")));
            };
            for event in events
                .iter()
                .filter(|e| parent_of(e).as_deref() == Some(parent.id.as_str()))
            {
                if !found.iter().any(|r| r.id == event.id) {
                    found.push(self.receipt(event, None));
                }
            }
        }
        Ok(match found.is_empty() {
            true => Lookup::Absent,
            false => Lookup::Found(found),
        })
    }

    fn update_part(
        &mut self,
        _post: &Post,
        _turn: &Turn,
        _part: &Part,
        _media: &Media,
    ) -> Result<(), Error> {
        Err(Error::failure(
            Class::Rejected,
            "a short note (kind 1) cannot be edited",
        ))
    }

    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error> {
        let seen = self.ask_all(&json!({ "ids": [part.id] }));
        Ok(seen.into_iter().any(|(_, f)| {
            f.is_ok_and(|events| {
                events
                    .iter()
                    .any(|e| mark(&e.draft.content) == turn.piece.mark)
            })
        }))
    }
}
