//! Whether a thread resumes, and which parts a resumed thread sends, judged from values: the
//! split it started with (`split=` on its line, the parts kept beside the state file), the post
//! split now, and the parts out. Sending the rest of a thread from another split would make one
//! thread of two texts.

use crate::{KeyLine, Phase};

/// Whether something of a thread's copy may be out: parts on its line, or an attempt that
/// may have landed.
fn may_be_out(line: &KeyLine) -> bool {
    line.tried.maybe || !line.copies.current.parts.is_empty()
}

/// Whether a thread about to be sent was started before: not a fresh copy, and something of it
/// may be out. A new thread waits for the copies its text links to; a started one goes on
/// with them as they are.
pub fn started(line: Option<&KeyLine>, fresh: bool) -> bool {
    !fresh && line.is_some_and(may_be_out)
}

/// Whether a thread send goes on with the copy on `line` (copy `generation`; `fresh`: a new
/// copy asked for): the same copy, something of it may be out, and it is neither done nor
/// retracted. Only a resumed thread sends the parts it was split into before.
pub fn resumes(line: Option<&KeyLine>, generation: u32, fresh: bool) -> bool {
    line.is_some_and(|l| {
        l.copies.current.generation == generation
            && !fresh
            && may_be_out(l)
            && !matches!(l.phase, Phase::Done | Phase::Retracted { .. })
    })
}

impl crate::Sending {
    /// What of a thread's copy may be out as this send goes on from `line`: whether it resumes
    /// that copy (`resumes`), the parts on the line it goes on from (none unless it resumes),
    /// and whether anything of the copy may be out already (those parts, or the first part
    /// not on the line: `Before::looks`).
    pub fn thread_out(&self, line: Option<&KeyLine>) -> (bool, Vec<crate::Part>, bool) {
        let resumed = resumes(line, self.generation, self.fresh);
        let landed = (line.filter(|_| resumed))
            .map(|l| l.copies.current.parts.clone())
            .unwrap_or_default();
        let outstanding = resumed && (self.before.looks() || !landed.is_empty());
        (resumed, landed, outstanding)
    }
}

/// What the post split now is to a thread whose parts may be out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// It splits as the parts out were split: the rest goes out from the split now.
    Same,
    /// It does not (why): nothing is sent, a person decides.
    Differs(String),
    /// The line names no split (a line from before `split=`): whether the parts out are the
    /// first parts of the split now is told by reading them back (`first_parts`).
    Compare,
}

/// Whether the parts kept for a thread are what a resumed thread sends: kept for the copy's
/// `generation`, and the split its line records (`recorded`; a line from before `split=`
/// names none). `kept`: the kept parts' generation and split hash.
pub fn kept_fits(kept: (u32, &str), generation: u32, recorded: Option<&str>) -> bool {
    let (kept_generation, kept_split) = kept;
    kept_generation == generation && recorded.is_none_or(|s| s == kept_split)
}

/// The post split now (`now`: its hash, `parts`: how many) against the split the thread's line
/// records, if any.
pub fn resume(recorded: Option<&str>, now: &str, parts: usize) -> Resume {
    match recorded {
        Some(split) if split == now => Resume::Same,
        Some(split) => Resume::Differs(format!(
            "the post now splits into {parts} parts that are not that split ({split} on the line, {now} now)"
        )),
        None => Resume::Compare,
    }
}

/// On a line from before `split=`: where the parts out cannot be the first parts of a split of
/// `now` parts, told without reading them back (`landed`: parts on the line; `last_mark`: the
/// mark of what the latest attempt sent; `first_mark`: part 1's mark now, if any). `None`: each part
/// out is then read back and compared (`part_differs` names the first that is not).
pub fn first_parts(
    landed: usize,
    now: usize,
    last_mark: Option<&str>,
    first_mark: Option<&str>,
) -> Option<String> {
    if landed > now {
        return Some(format!(
            "{landed} parts are out, and the post now splits into {now}"
        ));
    }
    // Nothing on the line, part 1 may be out: the latest attempt sent it (none kept: it
    // cannot be told, so it differs).
    if landed == 0 && last_mark != first_mark {
        return Some(part_differs(1, now));
    }
    None
}

/// Part `n` (from 1) out is not part `n` of the post split now into `now` parts.
pub fn part_differs(n: usize, now: usize) -> String {
    format!("part {n} out is not part {n} of the post as it splits now ({now} parts)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_parts_are_sent_only_for_the_same_copy_and_the_split_on_the_line() {
        assert!(kept_fits((1, "s"), 1, Some("s")));
        assert!(kept_fits((1, "s"), 1, None));
        assert!(!kept_fits((0, "s"), 1, Some("s")));
        assert!(!kept_fits((1, "s"), 1, Some("t")));
    }

    #[test]
    fn a_resumed_thread_goes_on_only_from_the_split_its_line_names() {
        assert_eq!(resume(Some("s"), "s", 3), Resume::Same);
        assert_eq!(
            resume(Some("s"), "t", 3),
            Resume::Differs(
                "the post now splits into 3 parts that are not that split (s on the line, t now)"
                    .into()
            )
        );
        assert_eq!(resume(None, "t", 3), Resume::Compare);
    }

    #[test]
    fn more_parts_out_than_the_post_splits_into_now_are_not_its_first_parts() {
        assert_eq!(
            first_parts(4, 3, Some("a"), Some("a")).as_deref(),
            Some("4 parts are out, and the post now splits into 3")
        );
        assert_eq!(first_parts(3, 3, None, Some("a")), None);
    }

    #[test]
    fn a_first_part_that_may_be_out_unrecorded_is_told_by_the_mark_of_the_latest_attempt() {
        assert_eq!(first_parts(0, 3, Some("a"), Some("a")), None);
        assert_eq!(
            first_parts(0, 3, Some("b"), Some("a")).as_deref(),
            Some("part 1 out is not part 1 of the post as it splits now (3 parts)")
        );
        // No mark kept: it cannot be told, so it differs.
        assert!(first_parts(0, 3, None, Some("a")).is_some());
    }

    fn line(text: &str) -> KeyLine {
        KeyLine::of(&crate::Record::parse(text).unwrap().unwrap())
    }

    #[test]
    fn a_thread_resumes_only_the_same_copy_with_something_of_it_out_and_not_finished() {
        let two_out = line("2026-11-20 pending 2026-11-20T07:00:00Z id=a parts=a,b");
        assert!(resumes(Some(&two_out), 0, false));
        assert!(started(Some(&two_out), false));
        // A new copy, or another generation's line, starts a new thread.
        assert!(!resumes(Some(&two_out), 0, true));
        assert!(!started(Some(&two_out), true));
        assert!(!resumes(Some(&two_out), 1, false));
        // Nothing of it out: nothing to resume.
        let nothing = line("2026-11-20 failed 2026-11-20T07:00:00Z class=retry-safe");
        assert!(!resumes(Some(&nothing), 0, false));
        assert!(!started(Some(&nothing), false));
        assert!(!resumes(None, 0, false));
        // A finished thread is edited or sent anew, never resumed.
        let done = line("2026-11-20 done 2026-11-20T07:00:00Z id=a parts=a,b");
        assert!(!resumes(Some(&done), 0, false));
    }

    #[test]
    fn a_resumed_thread_goes_on_from_the_parts_on_its_line_and_a_new_one_from_none() {
        use crate::{Before, Sending};
        let sending = |before, fresh| Sending {
            before,
            fresh,
            generation: 0,
        };
        let two_out = line("2026-11-20 pending 2026-11-20T07:00:00Z id=a parts=a,b");
        let (resumed, landed, outstanding) =
            sending(Before::Send, false).thread_out(Some(&two_out));
        assert!(resumed && outstanding);
        assert_eq!(
            landed.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        // A new copy: nothing of it is out, whatever the line holds.
        let (resumed, landed, outstanding) = sending(Before::Look, true).thread_out(Some(&two_out));
        assert!(!resumed && landed.is_empty() && !outstanding);
        // No part on the line, but the first may be out (its answer was lost): it is looked for.
        let maybe = line("2026-11-20 pending 2026-11-20T07:00:00Z sent=maybe");
        let (resumed, landed, outstanding) = sending(Before::Look, false).thread_out(Some(&maybe));
        assert!(resumed && landed.is_empty() && outstanding);
    }
}
