//! The drill's cleanup, with the faults off: every late request landed first, then the target's
//! own lookups count each drill post's copies, each copy is removed and proved gone (a delete is
//! checked, never assumed: the report's cleanup lesson), and the lookups look again, so a copy a
//! lagging listing showed only now is counted and removed too.

use super::folder::Folder;
use super::round::Round;
use crate::clock::Clock;
use crate::error::Error;
use crate::life::Key;
use crate::post::Post;
use crate::targets::net::fault;
use crate::targets::{self, Attempts, Built, Context, Lookup, Outgoing};
use std::collections::BTreeSet;
use std::time::Duration;

/// Looks over the target after the removals: a copy a lagging listing hid may show later.
const PASSES: usize = 3;
/// The least the cleanup waits before a pass, whatever the target's settle time: a listing
/// may lag longer than the target's settle time says (the drill is there to show it).
const MIN_SETTLE: Duration = Duration::from_secs(3);
/// The longest the cleanup waits for the target to settle before a pass.
const MAX_SETTLE: Duration = Duration::from_secs(120);
/// How often a removed copy is looked at before it is said to be still there.
const PROOFS: u32 = 5;

/// What the cleanup found and did.
#[derive(Default)]
pub struct Swept {
    /// Each drill post's copies found on the target (ids), in the order found.
    pub copies: Vec<(Key, Vec<String>)>,
    /// Copies removed and proved gone.
    pub removed: usize,
    /// What is left on the target: the key, the copy (or why it could not be counted), and
    /// where a person finds it.
    pub left: Vec<Left>,
}

/// A copy the drill could not remove, or a post whose copies it could not count.
pub struct Left {
    pub key: Key,
    pub what: String,
    pub where_to_look: String,
}

/// Count, remove and prove gone every drill copy of `rounds`: a pass over every key after the
/// target's settle time (3 s at least: what may still land has landed, a listing that lags
/// shows it), again until a pass finds no copy it had not removed.
pub fn run(folder: &Folder, clock: &Clock, rounds: &[Round]) -> Result<Swept, Error> {
    fault::disarm();
    fault::land_late();
    let cfg = &folder.config.targets[0];
    let ctx = Context {
        config: &folder.config,
        target: cfg,
        clock,
    };
    let mut built = targets::build(&ctx)?;
    let settle = cfg.policy.settle.unwrap_or_else(|| built.target.settle());
    let catalog = crate::content::Catalog::scan(&folder.config.sources())?;
    let mut posts = Vec::new();
    for round in rounds {
        let post = catalog.post(round.key)?;
        let out = built.target.prepare(&post)?;
        posts.push((round, post, out, BTreeSet::new()));
    }
    let mut swept = Swept::default();
    let mut uncounted = BTreeSet::new();
    for _ in 0..PASSES {
        crate::signals::sleep(settle.clamp(MIN_SETTLE, MAX_SETTLE));
        let mut more = false;
        for (round, post, out, gone) in posts.iter_mut() {
            if uncounted.contains(&round.key) {
                continue;
            }
            let found = match count(&mut built, round.key, out) {
                Ok(found) => found,
                Err(why) => {
                    // Said once per post: a copy it could not remove is said already.
                    if swept.left.iter().all(|l| l.key != round.key) {
                        swept.left.push(left(&built, round.key, why));
                    }
                    uncounted.insert(round.key);
                    continue;
                }
            };
            let known = round.id.iter().filter(|_| gone.is_empty());
            let new: BTreeSet<String> = (known.chain(&found))
                .filter(|id| !gone.contains(*id))
                .cloned()
                .collect();
            for id in new {
                more = true;
                match remove(&mut built, round.key, &id, post, cfg.policy.confirm_delay) {
                    Ok(()) => swept.removed += 1,
                    Err(why) => swept
                        .left
                        .push(left(&built, round.key, format!("{id}: {why}"))),
                }
                gone.insert(id);
            }
        }
        if !more {
            break;
        }
    }
    swept.copies = (posts.into_iter())
        .map(|(round, _, _, gone)| (round.key, gone.into_iter().collect()))
        .collect();
    Ok(swept)
}

/// The ids of the key's copies the target's lookup finds (its own or foreign at a drill's
/// place: only the drill makes copies there); `Err`: the lookup cannot tell.
fn count(built: &mut Built, key: Key, out: &Outgoing) -> Result<Vec<String>, String> {
    let finder = built.finder().ok_or("the target has no lookup")?;
    let attempts = Attempts::none_yet(key, &out.marks, &out.body);
    match finder.find(&attempts) {
        Ok(Lookup::Found(copies) | Lookup::Foreign(copies)) => {
            Ok(copies.into_iter().map(|c| c.id).collect())
        }
        Ok(Lookup::Absent) => Ok(Vec::new()),
        Ok(Lookup::CannotTell(why)) => Err(format!("cannot count its copies: {why}")),
        Err(err) => Err(format!("cannot count its copies: {err}")),
    }
}

/// Remove the copy `id` and prove it gone; `Err`: why it is still there, or may be.
fn remove(
    built: &mut Built,
    key: Key,
    id: &str,
    post: &Post,
    delay: Duration,
) -> Result<(), String> {
    let retract = built.target.as_retract().map_err(|e| e.to_string())?;
    retract
        .retract(key, id, Some(post))
        .map_err(|e| format!("the delete failed: {e}"))?;
    let mut last = String::new();
    for proof in 0..PROOFS {
        if proof > 0 {
            crate::signals::sleep(delay.max(Duration::from_millis(200)));
        }
        match retract.still_there(key, id) {
            Ok(Lookup::Absent) => return Ok(()),
            Ok(Lookup::Found(_) | Lookup::Foreign(_)) => {
                last = "the delete was answered, but the copy is still there".into();
            }
            Ok(Lookup::CannotTell(why)) => last = format!("cannot tell it is gone: {why}"),
            Err(err) => last = format!("cannot tell it is gone: {err}"),
        }
    }
    Err(last)
}

fn left(built: &Built, key: Key, what: String) -> Left {
    Left {
        key,
        what,
        where_to_look: built.target.where_to_look(key),
    }
}
