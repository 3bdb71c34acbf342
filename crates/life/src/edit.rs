//! Edits after publishing: an update's answer, its read-back, and the edit hash of a copy that
//! needs no update. An update is never turned into a create.

use super::send::{Answer, Failure, Landed, Verdict};
use super::{Change, Ctx, Exit, KeyLine, MAX_REASON, Phase, Step, Then, cut, escalated, reason};
use crate::Class;
use crate::Word;
use std::time::Duration;

/// An update answered (or could not be prepared: `line` is then the done line itself).
pub(super) fn answered(line: Option<&KeyLine>, answer: &Answer, sends: u32, ctx: &Ctx) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    match answer {
        Answer::Landed(landed) => updated(line, landed, ctx),
        Answer::Failed(failure) if failure.class == Class::Unknown && !failure.setup => {
            let _ = sends;
            Step::stop(Change::Keep, Exit::Ok, Word::Nothing).then(Then::ReadBack(Duration::ZERO))
        }
        Answer::Failed(failure) => {
            // Nothing changed on the target: the copy keeps its last version. A refused edit
            // is not sent again until the post changes again, and stands until then (`visit`).
            let mut next = line.clone();
            next.phase = Phase::Done;
            next.reason = None;
            next.first_failure = None;
            if failure.class == Class::Rejected {
                next.edits.edit_failed = failure.payload.map(str::to_string);
                next.reason = Some(refusal(failure));
            }
            let exit = match failure.class {
                _ if failure.setup => Exit::Usage,
                Class::Auth => Exit::Auth,
                Class::RetrySafe => Exit::RetryLater,
                _ => Exit::NeedsHuman,
            };
            Step::write(next, exit, Word::Failed)
        }
    }
}

/// What a refused edit leaves on its done line: what was refused, then what to do. The advice
/// is kept whole; the refusal is cut to make room for it within `MAX_REASON`.
fn refusal(failure: &Failure) -> String {
    let Some(hint) = failure.hint else {
        return reason(failure.reason);
    };
    let hint = reason(hint);
    // The refusal, its `…` and "; " go before the advice.
    let room = MAX_REASON.saturating_sub(hint.chars().count() + 3);
    let why = cut(reason(failure.reason), room);
    reason(&format!("{why}; {hint}"))
}

/// The update is on the copy: the done line, with the new edit hash.
fn updated(line: &KeyLine, landed: &Landed, ctx: &Ctx) -> Step {
    let mut next = line.clone();
    next.phase = Phase::Done;
    next.at = ctx.stamp.clone();
    next.fp = Some(landed.fp.to_string());
    next.edits.payload = Some(landed.payload.to_string());
    next.edits.updated += 1;
    next.edits.edit_failed = None;
    next.copies.current.holds = None;
    if let Some(first) = landed.receipts.first() {
        if let Some(url) = &first.url {
            next.copies.current.url = Some(url.clone());
        }
        next.copies.current.native.answered(&first.native);
    }
    next.copies.current.media = landed.media.map(str::to_string).filter(|m| !m.is_empty());
    next.reason = None;
    next.first_failure = None;
    Step::write(next, Exit::Ok, Word::Updated)
}

/// The copy read back after an update whose answer was lost (or from an earlier run).
pub(super) fn read_back(line: Option<&KeyLine>, verdict: &Verdict, sends: u32, ctx: &Ctx) -> Step {
    let Some(line) = line else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let unsure = |why: &str| {
        let mut next = line.clone();
        next.first_failure.get_or_insert_with(|| ctx.stamp.clone());
        next.reason = Some(reason(&format!(
            "the edit's outcome is unknown ({why}); the next run reads the copy back and sends it again if needed"
        )));
        let exit = match escalated(&next, ctx) {
            true => Exit::NeedsHuman,
            false => Exit::RetryLater,
        };
        let text = next.reason.clone().unwrap_or_default();
        Step::write(next, exit, Word::Unconfirmed).say(text)
    };
    match verdict {
        Verdict::Found(landed) => updated(line, landed, ctx),
        // Resending an update is harmless; it is never turned into a create.
        Verdict::Absent if sends <= ctx.rules.retries => {
            Step::stop(Change::Keep, Exit::Ok, Word::Nothing).then(Then::Send(Duration::ZERO))
        }
        Verdict::Absent | Verdict::NotYet(_) => unsure("the copy does not hold the edit yet"),
        Verdict::CannotTell(why) | Verdict::Transient(why) | Verdict::Whose(why) => unsure(why),
        Verdict::Foreign(_) => unsure("the copy holds something else"),
        Verdict::Refused(failure) => {
            let mut next = line.clone();
            next.reason = Some(reason(failure.reason));
            let exit = match failure.class {
                Class::Auth => Exit::Auth,
                _ if failure.setup => Exit::Usage,
                _ => Exit::NeedsHuman,
            };
            Step::write(next, exit, Word::Failed)
        }
    }
}

/// A published copy whose edit hash is recorded without sending anything.
pub(super) fn baseline(line: Option<&KeyLine>, payload: &str) -> Step {
    match line {
        Some(line) if line.phase == Phase::Done => {
            let mut next = line.clone();
            next.edits.payload = Some(payload.to_string());
            Step::write(next, Exit::Ok, Word::Done)
        }
        _ => Step::stop(Change::Keep, Exit::Ok, Word::Done),
    }
}

/// What a done copy's recorded edit hash makes of the post now, before anything is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditCheck {
    /// No hash on the line, or one from before the hash covered all it covers now: the post's
    /// hash now is recorded as the copy's baseline (`Event::Baseline`), and nothing is sent.
    Baseline,
    /// The copy holds the post as it is: nothing to send.
    Unchanged,
    /// The post changed (or `retry --force` asked): the edit goes to the copy.
    Send,
}

/// The edit hashes the post would have had under the rules of an older dayrun.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Earlier<'a> {
    /// Before images were sent (dayrun 0.3).
    pub before_images: &'a str,
    /// Before the target had a template, when it has one now (its hash with no template).
    pub before_template: Option<&'a str>,
}

/// Whether the done copy whose line records the edit hash `old` needs the post's edit hash
/// `new` sent (`forced`: `retry --force`, sent even if nothing changed). A hash from before
/// the hash covered images (a copy published by dayrun 0.3, which sent none: README,
/// Upgrading) or the target's template (docs/templates.md) is the copy's baseline: the images
/// or the template appearing is not an edit by itself; a later change of the post is.
pub fn check_edit(old: Option<&str>, new: &str, earlier: Earlier, forced: bool) -> EditCheck {
    let predates = |old: &str| old == earlier.before_images || Some(old) == earlier.before_template;
    match old {
        _ if forced => EditCheck::Send,
        None => EditCheck::Baseline,
        Some(old) if predates(old) => EditCheck::Baseline,
        Some(old) if old == new => EditCheck::Unchanged,
        Some(_) => EditCheck::Send,
    }
}

/// Whether an edit can go to a copy of `parts` parts in place on a target that sends threads
/// (`threads`) or one post: not a thread of several parts on a target that now sends one post
/// (`long = "cut"`): one post cannot replace it without leaving the thread half old, half new.
pub fn edits_in_place(parts: usize, threads: bool) -> bool {
    parts <= 1 || threads
}

#[cfg(test)]
mod tests {
    use super::*;

    const EARLIER: Earlier = Earlier {
        before_images: "words",
        before_template: Some("plain"),
    };

    #[test]
    fn a_copy_whose_post_changed_gets_the_edit_and_one_that_did_not_gets_nothing() {
        assert_eq!(
            check_edit(Some("old"), "new", EARLIER, false),
            EditCheck::Send
        );
        assert_eq!(
            check_edit(Some("new"), "new", EARLIER, false),
            EditCheck::Unchanged
        );
    }

    #[test]
    fn retry_force_sends_the_edit_whatever_the_line_holds() {
        for old in [None, Some("new"), Some("words"), Some("plain")] {
            assert_eq!(check_edit(old, "new", EARLIER, true), EditCheck::Send);
        }
    }

    #[test]
    fn a_line_with_no_edit_hash_or_one_from_before_images_or_the_template_is_a_baseline() {
        assert_eq!(check_edit(None, "new", EARLIER, false), EditCheck::Baseline);
        assert_eq!(
            check_edit(Some("words"), "new", EARLIER, false),
            EditCheck::Baseline
        );
        assert_eq!(
            check_edit(Some("plain"), "new", EARLIER, false),
            EditCheck::Baseline
        );
        // With no template now, a hash with no template is an edit like any other.
        let untemplated = Earlier {
            before_template: None,
            ..EARLIER
        };
        assert_eq!(
            check_edit(Some("plain"), "new", untemplated, false),
            EditCheck::Send
        );
    }

    #[test]
    fn a_thread_of_several_parts_takes_no_edit_in_place_on_a_target_that_sends_one_post() {
        assert!(!edits_in_place(3, false));
        assert!(edits_in_place(3, true));
        assert!(edits_in_place(1, false));
        assert!(edits_in_place(0, false));
    }
}
