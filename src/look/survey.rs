//! The survey before a target's pass: when it will look up two or more keys, one read of the
//! target for all of them (`Find::survey`), so that a lookup it provably covers costs no
//! request of its own. When a lookup may be answered from it is `targets::survey`'s rule, for
//! every target.

use crate::life::Key;
use crate::targets::Find;

/// Survey `find` for `wanted` (ascending: the keys the pass will look up) at `now`: the line
/// the trace keeps of it (its first key, its result, what it read), or `None` when there are
/// fewer than two or the target reads nothing. A failed survey changes nothing: every lookup
/// is then made live.
pub(crate) fn survey(
    find: &mut dyn Find,
    wanted: &[Key],
    now: jiff::Timestamp,
) -> Option<(Key, &'static str, String)> {
    let (Some(&first), Some(&last), true) = (wanted.first(), wanted.last(), wanted.len() > 1)
    else {
        return None;
    };
    let (result, said) = match find.survey(wanted, now) {
        Ok(None) => return None,
        Ok(Some(said)) => ("read", said),
        Err(err) => (
            "lookup-error",
            format!("{}; each key is looked up on its own", err.reason()),
        ),
    };
    let keys = wanted.len();
    Some((
        first,
        result,
        format!("keys={keys} {first}..{last}: {said}"),
    ))
}
