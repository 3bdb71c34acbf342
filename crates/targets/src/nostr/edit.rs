//! Editing and retracting. A long note is edited in place: a new event with the same `d`
//! tag and a later `created_at`, which each relay keeps instead of the older one; read back,
//! every relay's newest event at that address must hold the new text. A short note cannot be
//! edited (`on_edit = "update"` is refused for it). A retract is a NIP-09 deletion (kind 5)
//! naming the note's event ids, and for a long note its address; then every relay is asked
//! again, and one that still serves the note is reported, not hidden.

use super::event::{DELETION, Draft, Event, LONG, SHORT};
use super::text::Note;
use super::{Nostr, native};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use crate::{Lookup, Outgoing, Retract, Update};
use life::Key;
use serde_json::{Value, json};

impl Nostr {
    /// A long note's `d` tag from its address; `Err` for an id that is not one of this key's.
    fn d_of_id<'a>(&self, id: &'a str) -> Result<&'a str, Error> {
        let prefix = format!("{LONG}:{}:", self.keys.public);
        id.strip_prefix(&prefix).ok_or_else(|| {
            Error::failure(
                Class::Local,
                format!(
                    "id `{}` is not the address of a long note by this key ({prefix}D)",
                    crate::outside::escape(id, 120)
                ),
            )
        })
    }

    /// The query that shows the copy `id`: by its event id (short), by its address (long).
    fn showing(&self, id: &str) -> Result<Value, Error> {
        Ok(match self.note {
            Note::Short => json!({ "ids": [id] }),
            Note::Long => {
                json!({ "authors": [self.keys.public], "kinds": [LONG], "#d": [self.d_of_id(id)?] })
            }
        })
    }
}

impl Update for Nostr {
    fn update(&mut self, id: &str, _post: &Post, out: &Outgoing) -> Result<life::Receipt, Error> {
        self.check_key()?;
        if self.note == Note::Short {
            return Err(Error::failure(
                Class::Rejected,
                "a short note (kind 1) cannot be edited",
            ));
        }
        let d = self.d_of_id(id)?.to_string();
        let mut draft = Draft::from_body(&out.body)
            .ok_or_else(|| Error::failure(Class::Local, "the body is not a Nostr event"))?;
        if let Some(tag) = draft
            .tags
            .iter_mut()
            .find(|t| t.first().is_some_and(|n| n == "d"))
        {
            *tag = vec!["d".into(), d];
        }
        // Later than the version it replaces, or relays keep that one.
        let after = native::created(&out.native).map_or(0, |c| c + 1);
        let event = draft.sign(&self.keys, self.now().max(after));
        let answers = self.everywhere(&event)?;
        Ok(self.receipt(&event, native::answers(&answers)))
    }

    /// Found when every relay's newest event at the address holds `out`'s text.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let filter = self.showing(id)?;
        let want = out.marks.first().cloned().unwrap_or_default();
        let seen = self.ask_all(&filter);
        let mut newest: Vec<Event> = Vec::new();
        for (_, found) in seen {
            // A relay down or silent: the read-back failed, and is made again next run.
            let events = found.map_err(|why| Error::failure(Class::RetrySafe, why))?;
            match events.into_iter().max_by_key(|e| e.created_at) {
                Some(event) if mark(&event.draft.content) == want => newest.push(event),
                _ => return Ok(Lookup::Absent),
            }
        }
        let event = newest.into_iter().max_by_key(|e| e.created_at);
        Ok(match event {
            Some(event) => Lookup::Found(vec![self.receipt(&event, None)]),
            None => Lookup::Absent,
        })
    }
}

impl Retract for Nostr {
    fn retract(&mut self, _key: Key, id: &str, _post: Option<&Post>) -> Result<(), Error> {
        self.check_key()?;
        let mut tags: Vec<Vec<String>> = Vec::new();
        match self.note {
            Note::Short => {
                tags.push(vec!["e".into(), id.to_string()]);
                tags.push(vec!["k".into(), SHORT.to_string()]);
            }
            Note::Long => {
                // Every version a relay serves, by id (nostr-rs-relay deletes by `e` only).
                let filter = self.showing(id)?;
                let mut ids: Vec<String> = Vec::new();
                for (_, found) in self.ask_all(&filter) {
                    for event in found.into_iter().flatten() {
                        if !ids.contains(&event.id) {
                            ids.push(event.id);
                        }
                    }
                }
                tags.extend(ids.into_iter().map(|e| vec!["e".into(), e]));
                tags.push(vec!["a".into(), id.to_string()]);
                tags.push(vec!["k".into(), LONG.to_string()]);
            }
        }
        let deletion = Draft {
            kind: DELETION,
            tags,
            content: "retracted by dayrun".into(),
        };
        let event = deletion.sign(&self.keys, self.now());
        self.everywhere(&event)?;
        // Each relay asked at once: one that keeps the note is named here, where the
        // failure's words are ours (a deletion is a request a relay may refuse in silence).
        let filter = self.showing(id)?;
        let keeping: Vec<String> = self
            .ask_all(&filter)
            .into_iter()
            .filter(|(_, found)| found.as_ref().is_ok_and(|events| !events.is_empty()))
            .map(|(url, _)| url)
            .collect();
        if keeping.is_empty() {
            return Ok(());
        }
        Err(Error::failure(
            Class::Rejected,
            format!(
                "relay {} still serves {id} after the deletion (kind 5) it accepted",
                keeping.join(", relay ")
            ),
        )
        .hint("a deletion is a request: ask that relay's operator, or take it out of `relays`"))
    }

    /// Found (naming the relays that keep it) while any relay still serves the copy; absent
    /// when every relay answered `EOSE` without it.
    fn still_there(&mut self, _key: Key, id: &str) -> Result<Lookup, Error> {
        let filter = self.showing(id)?;
        let mut keeping: Vec<String> = Vec::new();
        let mut unsure: Vec<String> = Vec::new();
        let mut kept: Option<Event> = None;
        for (url, found) in self.ask_all(&filter) {
            match found {
                Err(why) => unsure.push(why),
                Ok(events) if events.is_empty() => {}
                Ok(mut events) => {
                    keeping.push(url);
                    kept = kept.or(events.pop());
                }
            }
        }
        Ok(match (kept, unsure.is_empty()) {
            (Some(event), _) => {
                let mut receipt = self.receipt(&event, None);
                receipt.id = id.to_string();
                receipt.note = Some(format!("still served by {}", keeping.join(", ")));
                Lookup::Found(vec![receipt])
            }
            (None, true) => Lookup::Absent,
            (None, false) => return Err(Error::failure(Class::RetrySafe, unsure.join("; "))),
        })
    }
}
