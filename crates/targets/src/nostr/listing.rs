//! The run's survey on Nostr: one `REQ` per relay for the author's notes since the earliest
//! key's day, read before a pass over several keys, which answers their lookups before a first
//! attempt (pre-submit dedup) instead of a `REQ` per key per relay. A relay may cut a listing
//! short (nostr-relay answers at most 6000 events unless asked for fewer), so dayrun asks for
//! at most `LIMIT` and a listing that comes back full reaches only as far back as its oldest
//! event. A key is answered from it only when every relay's listing reaches its day.

use super::Nostr;
use super::event::{Event, LONG, SHORT};
use super::relays::Seen;
use super::text::Note;
use crate::Attempts;
use crate::error::Error;
use crate::survey::Survey;
use jiff::Timestamp;
use life::Key;
use serde_json::json;

/// The most events one relay's listing asks for.
const LIMIT: usize = 500;

/// One relay's listing: its events, and the earliest `created_at` it provably reaches.
type Listed = Result<(Vec<Event>, u64), String>;

/// Each relay's events by this key since `since`, or why it could not be read.
#[derive(Debug)]
pub struct Listing {
    relays: Vec<(String, Listed)>,
}

impl Nostr {
    /// `Find::survey`: one listing per relay.
    pub(super) fn read_listing(
        &mut self,
        keys: &[Key],
        now: Timestamp,
    ) -> Result<Option<String>, Error> {
        let Some(first) = keys.first() else {
            return Ok(None);
        };
        let since = crate::Attempts::none_yet(*first, &[], &serde_json::Value::Null).reach_back();
        let since = u64::try_from(since.as_second()).unwrap_or(0);
        let kind = match self.note {
            Note::Short => SHORT,
            Note::Long => LONG,
        };
        let filter = json!({ "authors": [self.keys.public], "kinds": [kind], "since": since, "limit": LIMIT });
        let relays = self
            .ask_all(&filter)
            .into_iter()
            .map(|(url, seen)| {
                let seen = seen.map(|events| {
                    // A full listing may be cut short: it reaches back to its oldest event.
                    let reaches = match events.len() >= LIMIT {
                        true => events
                            .iter()
                            .map(|e| e.created_at + 1)
                            .min()
                            .unwrap_or(since),
                        false => since,
                    };
                    (events, reaches)
                });
                (url, seen)
            })
            .collect::<Vec<_>>();
        let said: Vec<String> = relays
            .iter()
            .map(|(url, seen)| match seen {
                Ok((events, _)) => format!("{url}: {} events", events.len()),
                Err(why) => format!("{url}: {why}"),
            })
            .collect();
        self.survey = Some(Survey::new(now, Listing { relays }));
        Ok(Some(format!("listing since {since}: {}", said.join("; "))))
    }

    /// What each relay's listing holds for a lookup before a first attempt, when every relay's
    /// reaches the key's day; `None`: look it up live.
    pub(super) fn listed(&self, attempts: &Attempts) -> Option<Vec<Seen>> {
        let listing = self.survey.as_ref()?.for_lookup(attempts)?;
        let from = u64::try_from(attempts.reach_back().as_second()).ok()?;
        listing
            .relays
            .iter()
            .map(|(url, seen)| match seen {
                Ok((events, reaches)) if *reaches <= from => {
                    let events = events
                        .iter()
                        .filter(|e| e.created_at >= from)
                        .cloned()
                        .collect();
                    Some((url.clone(), Ok(events)))
                }
                _ => None,
            })
            .collect()
    }
}
