//! What an edit that cannot be sent in place says: why, and every way on for a person.

use crate::error::{Class, Error};
use crate::life::Key;

/// The copy is a thread of `parts` parts, and the target now sends one post (`long = "cut"`).
pub fn thread_now_cut(key: Key, parts: usize, target: &str) -> Error {
    Error::failure(
        Class::Rejected,
        format!("the copy is a thread of {parts} parts and the target now sends one post (long = \"cut\"); nothing was changed"),
    )
    .hint(format!(
        "set long = \"thread\" again to edit the thread in place, or `dayrun retract {key} --yes --target {target}`, then `dayrun retry {key} --force --target {target}` to publish it as one post"
    ))
}

/// An edit that cannot be sent (`err`: why), as the refused edit its line records.
pub fn not_sent(err: &Error) -> Error {
    Error {
        hint: err.hint.clone(),
        ..Error::failure(
            Class::Rejected,
            format!("the edit cannot be sent: {}", err.reason()),
        )
    }
}

/// A refused edit stands until a person acts (`Decision::EditFailed`): its hint says every
/// way out, and is kept on the line with it. Other failures are left as they are.
pub fn advice(key: Key, target: &str, err: Error) -> Error {
    if err.class() != Some(Class::Rejected) {
        return err;
    }
    let fix = err.hint.clone().unwrap_or_else(|| {
        format!("save the post again once it is fixed (it is sent when it changes), or `dayrun retry {key} --force --target {target}` sends it as it is")
    });
    err.hint(format!(
        "{fix}; `dayrun mark {key} done --target {target}` accepts the copy as it is. Until then every run exits 1"
    ))
}
