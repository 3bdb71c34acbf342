//! Looking a key up in the room. Within the homeserver's transaction window, with the token
//! the copy was sent with, the same send again is the lookup: the server answers the event the
//! first send made (or makes it now, when that one never arrived). Past the window, the room's
//! messages from this account, newest first (`/messages?dir=b`), read back to the first
//! attempt (or, before any, the key's eve): found when one carries the key, copy and part in
//! `app.dayrun.key` and holds a text an attempt sent; absent only when the pages reach back
//! before the attempt. Or answered from the run's survey: one such read for a pass.

use super::Matrix;
use super::content::{IMAGES, KEY_FIELD, Part, mark_of};
use crate::error::Error;
use crate::net::encode;
use crate::net::pages::{Flow, Walked, walk};
use crate::survey::Survey;
use crate::{Attempts, Lookup};
use jiff::{SignedDuration, Timestamp};
use life::{Key, Receipt};
use serde_json::{Value, json};

/// How long after an attempt a resend with its transaction id is answered with the event it
/// made. Synapse 1.163 remembers a transaction id in two places, both per device: in memory
/// for 30 to 60 minutes (`rest/client/transactions.py`, `CLEANUP_PERIOD`), and, for an event
/// it stored, in `event_txn_id_device_id` for 24 hours (deleted every 5 minutes once older,
/// `events_worker.py`, `_cleanup_old_transaction_ids`). Other homeservers may keep it less
/// long: 20 minutes stays inside the shortest of Synapse's.
pub(super) const WINDOW: SignedDuration = SignedDuration::from_mins(20);
/// Events this long before the attempt still count (the server's clock and ours differ).
const SKEW: SignedDuration = SignedDuration::from_mins(5);
/// Messages asked for per page, and pages read before the lookup cannot tell.
const PAGE: usize = 100;
const MAX_PAGES: u32 = 20;

/// One of this account's messages as `/messages` lists it.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    id: String,
    at: Timestamp,
    /// Its key field (`Null`: none) and the mark of its text.
    field: Value,
    mark: String,
    /// The message it replies to (a thread's part: the part before it).
    reply_to: Option<String>,
}

/// What the run's survey read: this account's messages since `reach`, newest first.
#[derive(Debug)]
pub(super) struct Room {
    reach: Timestamp,
    messages: Vec<Listed>,
}

impl Matrix {
    /// The copy `attempts` is about: resent within the window, else read from the room.
    pub(super) fn look(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        if let Some(receipt) = self.resend(attempts)? {
            return Ok(Lookup::Found(vec![receipt]));
        }
        let reach = attempts.reach_back() - SKEW;
        if let Some(room) = (self.survey.as_ref())
            .and_then(|s| s.for_lookup(attempts))
            .filter(|r| r.reach <= reach)
        {
            let newer: Vec<Listed> = (room.messages.iter())
                .filter(|m| m.at >= reach)
                .cloned()
                .collect();
            self.note_images(&newer, attempts);
            return Ok(self.judge(newer.iter(), attempts, None));
        }
        let (listed, cut) = self.walk_back(reach)?;
        self.note_images(&listed, attempts);
        Ok(self.judge(listed.iter(), attempts, cut))
    }

    /// The `m.image` events of the copy among `messages`: a resend after this lookup sends
    /// only the others (`send_images`).
    fn note_images(&mut self, messages: &[Listed], attempts: &Attempts) {
        let (key, generation) = (attempts.key, attempts.generation);
        for message in messages {
            let Some(label) = message.field["part"].as_str() else {
                continue;
            };
            let Some(sha) = label.strip_prefix("image ") else {
                continue;
            };
            let part = Part::Image(sha.to_string());
            let content = json!({ KEY_FIELD: message.field });
            if self.carries(&content, key, generation, &part) {
                self.seen.insert((key, generation, part));
            }
        }
    }

    /// The send of `attempts`' copy again, with its transaction id, when the server still
    /// knows that id: the latest attempt began within `WINDOW`, with the token in use now.
    /// `None`: not within it (a lookup reads the room instead).
    fn resend(&mut self, attempts: &Attempts) -> Result<Option<Receipt>, Error> {
        let now = self.clock.instant();
        let Some(last) = attempts.last else {
            return Ok(None);
        };
        let within = last <= now && now.duration_since(last) <= WINDOW;
        if !within || !super::native::sent_with(attempts.native, &self.token) {
            return Ok(None);
        }
        // A later part of a thread replies to the parts before it, which a lookup does not
        // know: it reads the room.
        if super::thread::looked_for(attempts) != Part::Message(0) {
            return Ok(None);
        }
        let sent = attempts.sent;
        // A post with images sends them first: a lookup cannot, so it reads the room.
        if sent["body"].as_str().is_none() || !sent[IMAGES].is_null() {
            return Ok(None);
        }
        let part = Part::Message(0);
        let body = self.with_key(attempts.key, attempts.generation, &part, sent);
        let txn = self.txn(attempts.key, attempts.generation, &part);
        self.send_event(&txn, &body).map(Some)
    }

    /// This account's messages since the first attempt that reply to `parent`, whatever
    /// their text (`Thread::replies_to`).
    pub(super) fn replies(&mut self, attempts: &Attempts, parent: &str) -> Result<Lookup, Error> {
        let reach = attempts.reach_back() - SKEW;
        let (listed, cut) = self.walk_back(reach)?;
        let room = self.room_id.clone().unwrap_or_default();
        let found: Vec<Receipt> = (listed.iter().rev())
            .filter(|m| m.at >= reach && m.reply_to.as_deref() == Some(parent))
            .map(|m| Receipt {
                id: m.id.clone(),
                url: Some(self.link(&room, &m.id)),
                ..Receipt::default()
            })
            .collect();
        Ok(answer(found, Vec::new(), cut))
    }

    /// The `m.image` events of copy `generation` of `key` sent in the minutes before `at`
    /// (its message's time), by their key field.
    pub(super) fn images_before(
        &mut self,
        key: Key,
        generation: u32,
        at: Timestamp,
    ) -> Result<Vec<String>, Error> {
        let (listed, _) = self.walk_back(at - SKEW - SKEW)?;
        Ok(listed
            .into_iter()
            .filter(|m| m.at <= at + SKEW)
            .filter(|m| {
                m.field["part"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("image "))
            })
            .filter(|m| {
                let content = json!({ KEY_FIELD: m.field });
                let sha =
                    m.field["part"].as_str().unwrap_or_default()["image ".len()..].to_string();
                self.carries(&content, key, generation, &Part::Image(sha))
            })
            .map(|m| m.id)
            .collect())
    }

    /// The run's survey: one read back to the first key's eve. A read cut short proves
    /// nothing, and is not kept.
    pub(super) fn survey_room(&mut self, keys: &[Key], now: Timestamp) -> Result<String, Error> {
        let Some(first) = keys.first() else {
            return Ok("no keys".into());
        };
        let reach = Attempts::none_yet(*first, &[], &Value::Null).reach_back() - SKEW;
        let (messages, cut) = self.walk_back(reach)?;
        if let Some(why) = cut {
            return Ok(format!("none ({why})"));
        }
        let said = format!("messages since {reach}: {}", messages.len());
        self.survey = Some(Survey::new(now, Room { reach, messages }));
        Ok(said)
    }

    /// This account's messages, newest first, until a page reaches one sent before `reach`
    /// or the room's start. `Some(why)` beside them: the pages stopped short of `reach`.
    fn walk_back(&mut self, reach: Timestamp) -> Result<(Vec<Listed>, Option<String>), Error> {
        let room = self.room_id()?;
        let filter = json!({"types": ["m.room.message"], "senders": [self.me()?]}).to_string();
        let mut listed = Vec::new();
        let walked = walk(None::<String>, MAX_PAGES, "messages", |from| {
            let mut path = format!(
                "/rooms/{}/messages?dir=b&limit={PAGE}&filter={}",
                encode(&room),
                encode(&filter)
            );
            if let Some(from) = &from {
                path.push_str(&format!("&from={}", encode(from)));
            }
            let reply = self.get(&path, "read the room's messages")?;
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            let Some(chunk) = doc["chunk"].as_array().filter(|c| c.len() <= PAGE) else {
                return Ok(Flow::Cannot("a page of messages is not a list".into()));
            };
            let page: Vec<Listed> = chunk.iter().filter_map(listed_event).collect();
            let older = page.iter().any(|m| m.at < reach);
            listed.extend(page);
            Ok(match (older, doc["end"].as_str(), chunk.is_empty()) {
                (true, _, _) | (_, None, _) | (_, _, true) => Flow::End,
                (false, Some(end), false) => Flow::Next(Some(end.to_string())),
            })
        })?;
        let cut = match walked {
            Walked::Cannot(why) => Some(why),
            Walked::End | Walked::Stopped => None,
        };
        Ok((listed, cut))
    }

    /// The answer from the messages a lookup reaches (newest first): found when one carries
    /// the copy's key field and a text an attempt sent (oldest first: the one to keep); one
    /// that carries the key field with another text is not ours.
    fn judge<'a>(
        &self,
        messages: impl Iterator<Item = &'a Listed>,
        attempts: &Attempts,
        cut: Option<String>,
    ) -> Lookup {
        let (mut found, mut foreign) = (Vec::new(), Vec::new());
        let part = super::thread::looked_for(attempts);
        for message in messages {
            let content = json!({ KEY_FIELD: message.field });
            if !self.carries(&content, attempts.key, attempts.generation, &part) {
                continue;
            }
            let receipt = Receipt {
                id: message.id.clone(),
                url: self
                    .room_id
                    .as_ref()
                    .map(|room| self.link(room, &message.id)),
                ..Receipt::default()
            };
            match attempts.marks.contains(&message.mark) {
                true => found.push(receipt),
                false => foreign.push(receipt),
            }
        }
        found.reverse();
        foreign.reverse();
        answer(found, foreign, cut)
    }
}

/// What a read of the room says: the copies found (oldest first), else the ones at the key's
/// place that hold another text, else that it cannot tell (the pages stopped short: `cut`),
/// else absent.
fn answer(found: Vec<Receipt>, foreign: Vec<Receipt>, cut: Option<String>) -> Lookup {
    if !found.is_empty() {
        return Lookup::Found(found);
    }
    if !foreign.is_empty() {
        return Lookup::Foreign(foreign);
    }
    cut.map_or(Lookup::Absent, Lookup::CannotTell)
}

/// A listed event with an id and a time; a redacted one (its content emptied) has no key
/// field and is no copy.
fn listed_event(event: &Value) -> Option<Listed> {
    let id = event["event_id"]
        .as_str()
        .filter(|id| id.starts_with('$'))?;
    let at = Timestamp::from_millisecond(event["origin_server_ts"].as_i64()?).ok()?;
    Some(Listed {
        id: id.to_string(),
        at,
        field: event["content"][KEY_FIELD].clone(),
        mark: mark_of(&event["content"]),
        reply_to: super::thread::reply_to(&event["content"]),
    })
}
