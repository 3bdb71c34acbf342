//! Invariants 6 and 7 (issue 28): whose copy each id on a line is. The fake knows each post's
//! key, its generation (by its idempotency key) and what it holds: a key's line never holds
//! another key's copy, nor another generation's but as `older=`; and a `done` line's `fp=` is
//! what its copy holds (a copy found after an edit keeps the attempt's fingerprint, row 6).

use super::world::{Obs, TARGET};
use crate::fakes::fake_posts::PostsApi;
use std::collections::{BTreeMap, BTreeSet};

/// What the fake says of one post, live or removed.
pub struct Owner {
    pub key: String,
    /// `None`: an idempotency key of no generation of its key.
    pub generation: Option<u32>,
    pub fingerprint: String,
    pub live: bool,
}

/// Every post the fake ever committed, by id.
pub fn owners(api: &PostsApi) -> BTreeMap<String, Owner> {
    let s = api.state.lock().unwrap();
    let live = s.posts.iter().map(|p| (p, true));
    let removed = s.removed.iter().map(|p| (p, false));
    live.chain(removed)
        .map(|(p, live)| {
            let owner = Owner {
                key: p.key.clone(),
                generation: generation(&p.key, &p.idempotency_key),
                fingerprint: p.body["fingerprint"].as_str().unwrap_or("").into(),
                live,
            };
            (p.id.clone(), owner)
        })
        .collect()
}

fn generation(key: &str, idem: &str) -> Option<u32> {
    let date = key.parse().ok()?;
    (0..=64).find(|g| dayrun::targets::idempotency_key(TARGET, date, *g) == idem)
}

/// An id on a key's line that is not the key's, and why.
pub struct Stranger {
    pub why: String,
}

/// Invariant 6: the first id on `key`'s line that the fake says is another key's copy, or
/// another generation's than the line says (`older=`: an earlier one's). Ids a human named
/// (`mark --id`) are the human's word.
pub fn stranger(
    key: &str,
    obs: &Obs,
    owners: &BTreeMap<String, Owner>,
    by_hand: &BTreeSet<String>,
) -> Option<Stranger> {
    let generation = obs.generation();
    let said = |why: String| Stranger { why };
    for (field, older) in [("id", false), ("copies", false), ("older", true)] {
        for id in obs.list(field).iter().filter(|id| !by_hand.contains(*id)) {
            let Some(o) = owners.get(id) else {
                return Some(said(format!(
                    "{field}={id}: the fake never held a post {id}"
                )));
            };
            if o.key != key {
                return Some(Stranger {
                    why: format!("{field}={id} is {}'s copy", o.key),
                });
            }
            let fits = match o.generation {
                Some(g) if older => g < generation,
                Some(g) => g == generation,
                None => false,
            };
            if !fits {
                return Some(said(format!(
                    "{field}={id} is generation {:?}'s copy; the line is generation {generation}",
                    o.generation
                )));
            }
        }
    }
    None
}

/// Invariant 7: a `done` line's `fp=` is the fingerprint its live copy (`id=`) holds, unless a
/// human named that copy.
pub fn untrue(
    obs: &Obs,
    owners: &BTreeMap<String, Owner>,
    by_hand: &BTreeSet<String>,
) -> Option<String> {
    let (id, fp) = (obs.get("id")?, obs.get("fp")?);
    let copy = owners.get(id).filter(|o| o.live)?;
    if obs.status != "done" || by_hand.contains(id) || copy.fingerprint == fp {
        return None;
    }
    Some(format!(
        "the line says fp={fp} is published; its copy {id} holds {}",
        copy.fingerprint
    ))
}
