//! What a retract says: what a dry run would remove, what was removed, what is left unsure,
//! and a key no selected target removed anything of.

use crate::error::{Class, Error};
use crate::life::Key;

/// `--dry-run`: the ids it would remove from `target`; `resume`: an interrupted retract.
pub fn would(ids: &str, resume: bool, target: &str) -> String {
    let what = match resume {
        true => "an interrupted retract: would look, and remove what is still there",
        false => "would remove it",
    };
    format!("id={ids} ({what} from {target})")
}

/// Every copy is removed: the copy's id, whether a lookup showed it gone (`verified`), and
/// what else went this time (`more`: `life::removed_note`).
pub fn removed(id: &str, verified: bool, target: &str, more: &str) -> String {
    let note = match verified {
        true => String::new(),
        false => format!(" (the removal was accepted, but {target} cannot show that it is gone)"),
    };
    format!("id={id}{note}{more}")
}

/// A copy `target`'s lookup still shows after its removal.
pub fn still_there(key: Key, target: &str) -> Error {
    let why = format!("{target} still shows the post after the removal");
    Error::failure(Class::Unknown, why).hint(format!(
        "look at it on {target}; `dayrun retract {key} --yes` tries again"
    ))
}

/// A removal whose outcome is unknown (`why`), and what finishes it.
pub fn unsure(key: Key, why: &str) -> String {
    format!("{why}; the next `dayrun run` or `dayrun retract {key} --yes` finishes the retract")
}

/// A key no selected target removed a copy of; `known`: some target knows of a live copy.
pub fn nothing_retracted(key: Key, known: bool) -> String {
    let why = match known {
        true => "the copies dayrun knows of are still there (the lines above say why)",
        false => "no selected target holds a copy dayrun knows of",
    };
    format!("dayrun: {key}: nothing was retracted: {why}")
}
