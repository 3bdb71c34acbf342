//! What a key says when its life sends nothing and looks nothing up: a skip (done, scheduled,
//! stale, a draft, …) and the other decisions that leave the target alone.

use crate::life::Key;
use crate::life::{Rules, Skip};
use crate::tally::Count;

/// What a line that goes to the count says: the count's word, the line's word and detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub tally: Count,
    pub word: &'static str,
    pub detail: String,
}

/// What the target that skips a key is, for the words of its skip.
#[derive(Debug, Clone, Copy)]
pub struct Skipping<'a> {
    pub key: Key,
    pub target: &'a str,
    pub rules: &'a Rules,
    /// The key's copy has an id (asked only of a copy that cannot be updated).
    pub has_id: bool,
}

/// What `skip` says of the key.
pub fn skip(skip: &Skip, at: Skipping) -> Counted {
    let Skipping {
        key, target: name, ..
    } = at;
    let counted = |tally, word, detail: &str| Counted {
        tally,
        word,
        detail: detail.to_string(),
    };
    match skip {
        Skip::Done => counted(Count::Done, "skip", "done"),
        Skip::DoneAsked => counted(
            Count::Done,
            "skip",
            match at.rules.updates {
                true => DONE_IN_PLACE,
                false => "done; `dayrun retry --force --new` publishes a second copy",
            },
        ),
        Skip::CannotUpdate => counted(
            Count::Done,
            "skip",
            &match at.has_id {
                true => format!(
                    "done; {name} does not update its copies in place (`on_edit`), so `--force` has nothing to send; `dayrun retry {key} --force --new` publishes a second copy"
                ),
                false => format!(
                    "done, with no id to update; `dayrun mark {key} done --id ID` records it, or `dayrun retry {key} --force --new` publishes a second copy"
                ),
            },
        ),
        Skip::LateEdit => counted(
            Count::Done,
            "edited",
            &format!(
                "after the edit window ({} days from the first publish): not sent, and not said again until the post changes; `dayrun retry {key} --force --target {name}` sends it to the copy, or raise `edit_days`",
                at.rules.edit_days
            ),
        ),
        Skip::Scheduled => counted(Count::Scheduled, "scheduled", "not due yet"),
        Skip::Later(time) => counted(
            Count::Scheduled,
            "scheduled",
            &format!(
                "due on {} at {} (its front matter's `date`)",
                time.date(),
                time.strftime("%H:%M")
            ),
        ),
        Skip::Stale => counted(
            Count::Stale,
            "stale",
            "never published; `--backfill` would publish it",
        ),
        Skip::Draft => counted(Count::Draft, "draft", DRAFT),
        Skip::Retracted => counted(Count::Retracted, "skip", "retracted"),
        Skip::Aside => counted(
            Count::Failed,
            "waiting",
            &format!("put aside by hand; `dayrun retry {key}` publishes it"),
        ),
    }
}

/// A done key a retry names, on a target that updates its copies in place.
pub const DONE_IN_PLACE: &str = "done; `dayrun retry --force` sends it again, in place";

/// A post marked as a draft.
pub const DRAFT: &str = "`draft: true`: not published";

/// A refused edit: the copy keeps its last version.
pub fn edit_failed(why: &str) -> String {
    format!("(rejected; the copy keeps its last version): {why}")
}

/// A line that goes because its post's file is gone and nothing was ever sent.
pub const DROPPED: &str =
    "the post's file is gone and its line proves nothing was ever sent: the line goes";

/// A retract that fails for a published copy with no id.
pub fn cannot_retract(why: &str) -> String {
    format!("(rejected): {why}")
}
