//! Finding a copy on the relays. After an attempt (the line keeps its `created_at`) the
//! lookup is exact: the attempt's draft signed at that time is one event id, asked of every
//! relay by `ids`. Found when every relay holds it (a relay without it is sent the very
//! event another holds: `relays.rs`); absent only when every relay answered `EOSE` to a query
//! that would have shown it; otherwise it cannot tell. With no attempt behind it (pre-submit
//! dedup, a lost state file) it asks for the author's notes since the key's day (a long
//! note: by the `d` tags of its first generations) and matches their text.

use super::event::{Draft, Event, LONG, SHORT};
use super::relays::Seen;
use super::text::{Note, d_of, d_tag, for_copy};
use super::{Nostr, PROBE_GENERATIONS, native};
use crate::error::{Class, Error};
use crate::text::mark;
use crate::{Attempts, Lookup};
use life::Receipt;
use serde_json::{Value, json};

/// Which events a query finds are this post's (`Some(true)`), another's at its place
/// (`Some(false)`), or beside the point (`None`).
type Ours = Box<dyn Fn(&Event) -> Option<bool>>;

impl Nostr {
    /// `Find::find`.
    pub(super) fn look(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        // Before a first attempt (`since` is none) the copy's chosen `created_at` names no
        // event yet: the lookup is the broad one.
        let created = attempts.since.and(native::created(attempts.native));
        let exact = created.and_then(|created| {
            let draft = Draft::from_body(attempts.sent)?;
            let draft = for_copy(draft, attempts.key, attempts.generation);
            Some(draft.sign(&self.keys, created))
        });
        let (filter, ours): (Value, Ours) = match &exact {
            Some(event) => {
                let id = event.id.clone();
                (
                    json!({ "ids": [id] }),
                    Box::new(move |e: &Event| (e.id == id).then_some(true)),
                )
            }
            None => self.broad(attempts),
        };
        let listed = exact.is_none().then(|| self.listed(attempts)).flatten();
        let seen = match listed {
            Some(seen) => seen,
            None => self.ask_all(&filter),
        };
        // Each event found: this post's (an attempt sent its text) or another at its place.
        let mut mine: Vec<Event> = Vec::new();
        let mut foreign: Vec<Event> = Vec::new();
        for (_, found) in &seen {
            for event in found.iter().flatten() {
                let list = match ours(event) {
                    Some(true) => &mut mine,
                    Some(false) => &mut foreign,
                    None => continue,
                };
                if !list.iter().any(|e| e.id == event.id) {
                    list.push(event.clone());
                }
            }
        }
        let unsure: Vec<&str> = seen
            .iter()
            .filter_map(|(_, f)| f.as_ref().err())
            .map(String::as_str)
            .collect();
        if mine.is_empty() {
            return Ok(match (unsure.is_empty(), foreign.is_empty()) {
                // A relay down or silent: the lookup failed, and is made again next run.
                (false, _) => return Err(Error::failure(Class::RetrySafe, unsure.join("; "))),
                (true, false) => {
                    Lookup::Foreign(foreign.iter().map(|e| self.receipt(e, None)).collect())
                }
                (true, true) => Lookup::Absent,
            });
        }
        self.found(mine, &seen)
    }

    /// The copies found: each made whole on every relay (`complete`). Found when every one
    /// is everywhere now; else the lookup failed while a relay is down (it is made again next
    /// run, and escalates as a failed lookup does), or cannot tell when a relay refuses it.
    fn found(&mut self, mine: Vec<Event>, seen: &[Seen]) -> Result<Lookup, Error> {
        let mut receipts: Vec<Receipt> = Vec::new();
        for event in mine {
            match self.complete(&event, seen) {
                Ok(answers) => receipts.push(self.receipt(&event, native::answers(&answers))),
                Err((Class::RetrySafe, why)) => return Err(Error::failure(Class::RetrySafe, why)),
                Err((_, why)) => return Ok(Lookup::CannotTell(why)),
            }
        }
        Ok(Lookup::Found(receipts))
    }

    /// The query with no attempt behind it, and which events it finds are this post's.
    fn broad(&self, attempts: &Attempts) -> (Value, Ours) {
        let marks = attempts.marks.to_vec();
        let sent = move |e: &Event| marks.contains(&mark(&e.draft.content));
        match self.note {
            Note::Short => {
                let since = attempts.reach_back().as_second().max(0);
                let filter =
                    json!({ "authors": [self.keys.public], "kinds": [SHORT], "since": since });
                // A reply (a thread's part) is not the post; another note is not at its place.
                let ours = move |e: &Event| {
                    let reply = e
                        .draft
                        .tags
                        .iter()
                        .any(|t| t.first().is_some_and(|n| n == "e"));
                    (!reply && sent(e)).then_some(true)
                };
                (filter, Box::new(ours))
            }
            Note::Long => {
                let ds: Vec<String> = (0..PROBE_GENERATIONS)
                    .map(|g| d_tag(attempts.key, g))
                    .collect();
                let filter = json!({ "authors": [self.keys.public], "kinds": [LONG], "#d": ds });
                let ours = move |e: &Event| {
                    d_of(&e.draft)
                        .is_some_and(|d| ds.iter().any(|x| x == d))
                        .then(|| sent(e))
                };
                (filter, Box::new(ours))
            }
        }
    }
}
