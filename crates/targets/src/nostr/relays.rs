//! The per-relay rule. A post is out when every relay named holds its event. A send goes to
//! every relay, and each answers for itself: stored or already held (`OK`), refused, or no
//! answer. When all hold it, the copy landed and the line keeps each relay's answer. When
//! none may hold it, the failure is the relays' own (down: retry-safe; refused: rejected; a
//! refused key: auth). When some hold it and others do not, or an answer was lost, the
//! outcome is unknown: the next look asks every relay for the event by its id and sends the
//! very event one relay holds to each relay that answered it has none (the same event: a
//! relay that got it meanwhile holds it once), and the copy is out only when all hold it. A
//! relay that is down meanwhile is a lookup that cannot tell, which escalates as any does.

use super::event::{Draft, Event};
use super::wire::Said;
use super::{Nostr, text};
use crate::Outgoing;
use crate::error::{Class, Error};
use life::Key;
use serde_json::Value;

/// What one relay answered to a query: its events that are the author's and whose id and
/// signature check, or why it cannot tell (down, `CLOSED`, no `EOSE`).
pub(super) type Seen = (String, Result<Vec<Event>, String>);

impl Nostr {
    /// The event copy `generation` of `key` is: its draft, with the copy's `d` tag, signed at
    /// the `created_at` the line keeps.
    pub(super) fn event_for(&self, key: Key, out: &Outgoing, created: u64) -> Result<Event, Error> {
        let draft = Draft::from_body(&out.body)
            .ok_or_else(|| Error::failure(Class::Local, "the body is not a Nostr event"))?;
        Ok(text::for_copy(draft, key, out.generation).sign(&self.keys, created))
    }

    /// Send `event` to every relay. `Ok`: each relay's URL and whether it held it already;
    /// `Err`: not every relay holds it, classed by the rule above, naming each relay's answer.
    pub(super) fn everywhere(&mut self, event: &Event) -> Result<Vec<(String, bool)>, Error> {
        let json = event.to_json();
        let mut held = Vec::new();
        let mut failed: Vec<(Class, String)> = Vec::new();
        for relay in &mut self.relays {
            match relay.publish(&json) {
                Ok(Said::Holds(why)) => {
                    held.push((relay.url.clone(), why.starts_with("duplicate")))
                }
                Ok(Said::Refused(class, why)) => {
                    failed.push((class, format!("relay {} refused it: {why}", relay.url)));
                }
                Err(err) => failed.push((err.class().unwrap_or(Class::Unknown), err.message)),
            }
        }
        if failed.is_empty() {
            return Ok(held);
        }
        Err(self.not_everywhere(event, &held, failed))
    }

    /// Not every relay holds `event`: the error, classed by the per-relay rule.
    fn not_everywhere(
        &self,
        event: &Event,
        held: &[(String, bool)],
        failed: Vec<(Class, String)>,
    ) -> Error {
        let classes: Vec<Class> = failed.iter().map(|(c, _)| *c).collect();
        let mut words: Vec<String> = held
            .iter()
            .map(|(url, _)| format!("relay {url} holds it"))
            .collect();
        words.extend(failed.into_iter().map(|(_, w)| w));
        let message = format!("event {}: {}", event.id, words.join("; "));
        let class = class_of(!held.is_empty(), &classes);
        let hint = match class {
            Class::Unknown => format!(
                "the next run asks every relay for event {} and sends that same event to each one without it; a relay gone for good: take it out of `relays` in [targets.{}]",
                event.id, self.name
            ),
            Class::Auth => format!(
                "a relay refuses this key ({}): renew it, or take that relay out of `relays`",
                self.keys.file().display()
            ),
            _ => format!(
                "a relay that stays down or refuses: take it out of `relays` in [targets.{}]",
                self.name
            ),
        };
        Error::failure(class, message).hint(hint)
    }

    /// Ask every relay `filter`: each one's checked events by this key, or why it cannot tell.
    pub(super) fn ask_all(&mut self, filter: &Value) -> Vec<Seen> {
        let public = self.keys.public.clone();
        self.relays
            .iter_mut()
            .map(|relay| {
                let seen = match relay.query(filter) {
                    Err(err) => Err(err.message),
                    Ok(answer) if answer.closed.is_some() => Err(format!(
                        "relay {} closed the query: {}",
                        relay.url,
                        answer.closed.unwrap_or_default()
                    )),
                    Ok(answer) if !answer.complete => {
                        Err(format!("relay {} did not say EOSE", relay.url))
                    }
                    Ok(answer) => Ok(answer
                        .events
                        .iter()
                        .filter_map(Event::checked)
                        .filter(|e| e.pubkey == public)
                        .collect()),
                };
                (relay.url.clone(), seen)
            })
            .collect()
    }

    /// `event`, which some relays hold, sent to each relay of `seen` that did not answer
    /// that it holds it. `Ok`: every relay holds it now, with each one's answer (`true`: it
    /// held it already); `Err`: why one does not, and whether that passes (a relay down, no
    /// answer: retry-safe) or needs a person (a relay that refuses the event: rejected).
    pub(super) fn complete(
        &mut self,
        event: &Event,
        seen: &[Seen],
    ) -> Result<Vec<(String, bool)>, (Class, String)> {
        let json = event.to_json();
        let mut answers = Vec::new();
        let mut missing = Vec::new();
        let mut class = Class::RetrySafe;
        for (relay, (url, found)) in self.relays.iter_mut().zip(seen) {
            // A relay that could not be asked is sent the event all the same: if it is back,
            // it holds it once whether it had it or not.
            let holds = found
                .as_ref()
                .is_ok_and(|events| events.iter().any(|e| e.id == event.id));
            if holds {
                answers.push((url.clone(), true));
                continue;
            }
            match relay.publish(&json) {
                Ok(Said::Holds(why)) => answers.push((url.clone(), why.starts_with("duplicate"))),
                Ok(Said::Refused(refused, why)) => {
                    if refused != Class::RetrySafe {
                        class = Class::Rejected;
                    }
                    missing.push(format!("relay {url} refuses it: {why}"));
                }
                Err(err) => missing.push(err.message),
            }
        }
        match missing.is_empty() {
            true => Ok(answers),
            false => Err((
                class,
                format!(
                    "event {} is on {} of {} relays; {}",
                    event.id,
                    answers.len(),
                    self.relays.len(),
                    missing.join("; ")
                ),
            )),
        }
    }
}

/// The class of a send that not every relay holds: unknown when one holds it or may (its
/// answer was lost); else the gravest of the relays' refusals (a refused key, a refused
/// event, a relay down or slowing dayrun down).
fn class_of(one_holds: bool, failures: &[Class]) -> Class {
    let any = |class| failures.contains(&class);
    if one_holds || any(Class::Unknown) {
        Class::Unknown
    } else if any(Class::Auth) {
        Class::Auth
    } else if any(Class::Rejected) {
        Class::Rejected
    } else {
        Class::RetrySafe
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::{Auth, Rejected, RetrySafe, Unknown};

    #[test]
    fn a_send_not_every_relay_holds_is_classed_by_the_per_relay_rule() {
        let table: [(bool, &[Class], Class); 7] = [
            (true, &[RetrySafe], Unknown),
            (true, &[Rejected], Unknown),
            (false, &[Unknown, RetrySafe], Unknown),
            (false, &[RetrySafe, RetrySafe], RetrySafe),
            (false, &[RetrySafe, Rejected], Rejected),
            (false, &[Rejected, Auth], Auth),
            (false, &[Auth], Auth),
        ];
        for (one_holds, failures, want) in table {
            assert_eq!(
                class_of(one_holds, failures),
                want,
                "{one_holds} {failures:?}"
            );
        }
    }
}
