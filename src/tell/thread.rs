//! A thread's words: the traced line of each part sent, found, passed over or stopped at, and
//! why a thread's parts are not sent or not edited. Parts are counted from 0 here and from 1
//! in what is said.

use crate::error::{Class, Error};
use crate::life::{Key, KeyLine};

/// Part `n` of `of`, which is out (sent or edited): the trace's detail.
pub fn part(n: usize, of: usize, id: &str) -> String {
    format!("part={}/{of} id={id}", n + 1)
}

/// What happened at part `n` (a failure's detail, why the rules stop): the trace's detail.
pub fn at_part(n: usize, what: &str) -> String {
    format!("part={} {what}", n + 1)
}

/// Part `n` found by a lookup (`cut_off`: after the part before it, in a thread cut off, by
/// what it replies to), put on the line and not sent again.
pub fn found(n: usize, id: &str, cut_off: bool) -> String {
    let how = match cut_off {
        true => "found: a thread cut off",
        false => "found: not sent again",
    };
    format!("part={} id={id} ({how})", n + 1)
}

/// A post found with part `n`'s text that replies to `parent`, not to the part before `n`
/// (`before`); `None`: nothing.
pub fn not_this_part(n: usize, id: &str, parent: Option<&str>, before: Option<&str>) -> String {
    format!(
        "part={} id={id} replies to {}, not to {}: not this part",
        n + 1,
        parent.unwrap_or("nothing"),
        before.unwrap_or("nothing"),
    )
}

/// Part `n`, sent or found (`how`), came with an id no line can keep.
pub fn unusable(n: usize, how: &str) -> String {
    format!("part {} was {how}, but its id is not usable", n + 1)
}

/// A post at part `n`'s place whose text is not that part's.
pub fn foreign(n: usize) -> String {
    format!(
        "a post at part {}'s place is not that part: not sent over it",
        n + 1
    )
}

/// An edit of a thread of `has` parts that splits into `now`: refused, nothing changed.
pub fn splits_other(now: usize, has: usize) -> String {
    format!(
        "the edit splits into {now} parts and the thread has {has}: a thread is updated in place only part for part; nothing was changed"
    )
}

/// What to do with an edit of a thread that cannot go in place.
pub fn as_new_thread(key: Key, target: &str) -> String {
    format!(
        "to publish the new text as a new thread: `dayrun retract {key} --yes --target {target}`, then `dayrun retry {key} --force --target {target}`"
    )
}

/// A resumed thread whose parts cannot be known (its `line`): its kept parts gone (or not the
/// split its line names: `file`), the post split now not what the parts out were cut from
/// (`differs`). Sending the rest would make one thread of two texts, so nothing is sent and a
/// person decides how it goes on (rejected: the next run tries again once the post changes).
pub fn split_lost(line: &KeyLine, target: &str, file: &str, differs: &str) -> Error {
    let (key, out) = (line.key, line.copies.current.parts.len());
    let out = match out {
        0 => "its first part may be out".to_string(),
        n => format!("{n} of its parts are out"),
    };
    let why = format!(
        "a thread cut off: {out}, the parts kept for the rest ({target}.sent/{key}.thread.json in the state folder) {file}, and {differs}: nothing sent (the thread would hold two texts); to go on, restore the post's text as it was (the rest then goes out by itself), or `dayrun retract {key} --yes --target {target}` then `dayrun retry {key} --force --target {target}` (a new thread), or publish the rest by hand and `dayrun mark {key} done --target {target}`"
    );
    Error::failure(Class::Rejected, why).hint(KEPT)
}

/// The hint under `split_lost`: where a thread's parts are kept, and for how long.
pub const KEPT: &str = "`state/*.sent/` holds a thread's parts until its last part is out; committed with the state, a thread cut off goes on as it was split (docs/scheduling.md)";
