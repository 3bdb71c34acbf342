//! The printed line and the trace detail of a step of a key's life on one target.

use crate::life::Key;
use crate::life::{Why, Word};
use crate::post::Post;
use crate::tally::Count;
use std::fmt::Write as _;

/// The trace of a send on a person's word that the post is not there (`retry --absent`).
pub const ABSENT: &str =
    "retry --absent: sending on the human's word that the post is not on the target";

/// What a key's line looks like before a cause is known: a held-back key the rules gave no
/// words for.
pub const HELD_BACK: &str =
    "looked up: not on the target; held back (its date is past the catch-up window)";

/// Who tells, and how much: the target's name and what the run was asked.
#[derive(Debug, Clone, Copy)]
pub struct Teller<'a> {
    /// The target's name, on every line.
    pub target: &'a str,
    /// A dry run says every decision.
    pub dry_run: bool,
    /// A retry says every decision about the keys it names.
    pub retry: bool,
}

impl Teller<'_> {
    /// `KEY TARGET WORD DETAIL`; `detail`: as it may be shown, `None` when there is none.
    pub fn line(&self, key: Key, word: &str, detail: Option<&str>) -> String {
        match detail {
            None => format!("{key} {} {word}", self.target),
            Some(detail) => format!("{key} {} {word} {detail}", self.target),
        }
    }

    /// Whether a count is said as a line: a plain run is quiet about keys that stand as they
    /// should (done, stale, scheduled, draft, failed, retracted). A retract's own line is said
    /// whatever the run, and does not ask.
    pub fn says(&self, count: Count) -> bool {
        let quiet = matches!(
            count,
            Count::Done
                | Count::Stale
                | Count::Scheduled
                | Count::Draft
                | Count::Failed
                | Count::Retracted
        ) && !self.dry_run
            && !self.retry;
        !quiet
    }

    /// The line on stderr of a key's copy found twice (`text`: as it may be shown).
    pub fn duplicate(&self, key: Key, text: &str) -> String {
        format!("dayrun: {key} {}: {text}", self.target)
    }
}

/// A hint, or any line that follows the one it explains: indented under it.
pub fn under(text: &str) -> String {
    format!("  {text}")
}

/// What a step that leaves the key done traces and says: its action (`dedup` for a copy found
/// before sending, `confirm` for one found after, else the attempt's `action`) and its detail.
pub fn done(
    word: Word,
    action: &'static str,
    id: &str,
    millis: u128,
    note: Option<&str>,
) -> (&'static str, String) {
    let mut detail = format!("id={id} duration_ms={millis}");
    if let Some(note) = note {
        let _ = write!(detail, " note={note:?}");
    }
    let action = match word {
        Word::AlreadyThere => {
            detail.push_str(" (found before sending: recorded as done, not sent again)");
            "dedup"
        }
        Word::Confirmed => "confirm",
        _ => action,
    };
    (action, detail)
}

/// `detail`, with the post's title after it when the post is there.
pub fn titled(detail: &str, title: Option<&str>) -> String {
    let title = title.map(|t| format!(" {t:?}")).unwrap_or_default();
    format!("{detail}{title}")
}

/// The line before a retry's attempt: why it is sent again.
pub fn retry(why: Why) -> String {
    format!("({})", why.text())
}

/// A duplicate's words, with where a person looks for the copies.
pub fn duplicate(text: &str, look: &str) -> String {
    format!("{text} ({look})")
}

/// A post's error: in full for the first target that meets it this run (`first`), then in
/// short.
pub fn local(located: &str, first: bool) -> String {
    match first {
        true => format!("(local): {located}"),
        false => "(local): the post's error above".into(),
    }
}

/// "3 parts", "1 part", "3 parts, 2 found before sending": the note of a thread's done line.
pub fn parts_note(parts: usize, found: usize) -> String {
    let plural = if parts == 1 { "" } else { "s" };
    match found {
        0 => format!("{parts} part{plural}"),
        _ => format!("{parts} part{plural}, {found} found before sending"),
    }
}

/// A post as a line names it: its title, tags and summary.
pub fn describe(post: &Post) -> String {
    format!(
        "{:?} tags={} summary={:?}",
        post.title,
        post.tags.join(","),
        post.summary
    )
}

/// A renamed post's key took `old`'s line over (`would`: a dry run's word for it).
pub fn carried(old: Key, would: bool) -> String {
    let carries = match would {
        true => "would carry its line over",
        false => "its line carried over",
    };
    format!("from {old}: {carries}; its copies stay where they are, nothing is sent again")
}

/// Why a key with no line is not sent by the rename rule (`rename.rs`), and what a
/// person does: `old` are the keys whose file is gone and whose copy is out here, which have
/// the post's text (`same_text`) or share its day.
pub fn renamed(new: Key, old: &[Key], same_text: bool, target: &str) -> (String, String) {
    let names: Vec<String> = old.iter().map(Key::to_string).collect();
    let first = &names[0];
    let why = match same_text {
        true => format!(
            "not sent: its text is that of {}, whose files are gone and whose copies are out here: renamed from which? Sending it would make a second copy",
            names.join(" and ")
        ),
        false => match &names[..] {
            [one] => format!(
                "not sent: {one}'s file is gone and its copy is out here (a key of its day or slug, or gone since the last run): renamed (and edited) from it? Sending it would make a second copy"
            ),
            _ => format!(
                "not sent: the files of {} are gone and their copies are out here (keys of its day or slug, or gone since the last run): renamed (and edited) from one? Sending it would make a second copy",
                names.join(" and ")
            ),
        },
    };
    let hint = format!(
        "if it is {first} renamed: `dayrun mv {first} {new}` carries that line over (the next run sends the edit, if any); if it is a new post, `dayrun retry {new} --target {target}` publishes it"
    );
    (why, hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_run_is_quiet_about_keys_that_stand_as_they_should() {
        let plain = Teller {
            target: "blog",
            dry_run: false,
            retry: false,
        };
        assert!(!plain.says(Count::Done));
        assert!(!plain.says(Count::Retracted));
        assert!(plain.says(Count::Published));
        let dry = Teller {
            dry_run: true,
            ..plain
        };
        assert!(dry.says(Count::Done));
        let key: Key = "2026-01-02".parse().expect("a date");
        assert_eq!(plain.line(key, "skip", None), "2026-01-02 blog skip");
        assert_eq!(
            plain.line(key, "skip", Some("done")),
            "2026-01-02 blog skip done"
        );
    }
}
