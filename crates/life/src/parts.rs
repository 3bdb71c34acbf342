//! The parts of a thread on the key's line (`parts=`): each part that landed, in order, as its
//! id and what only its platform reads of it (Bluesky: the record's CID, as a reply names its
//! root and parent by both). Part 0 is the copy itself (`id=` names it too). Written as a list:
//! parts by `,`, id and platform half by `;` (`URI;CID`), with `%`, `,` and `;` inside a value
//! written `%25`, `%2C` and `%3B`.

use super::list::unescape;
use super::{Change, Ctx, Exit, How, KeyLine, Op, Phase, Step};
use crate::Word;

/// The most parts a thread may have, whatever `max_parts` says: with parts of at most
/// `MAX_PART` bytes the field stays near 5 KiB, and the line under the state file's limit.
pub const MAX_PARTS: usize = 20;
/// The longest part (id and platform half) kept from a server.
pub const MAX_PART: usize = 256;

/// One part of a thread that landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The status id, or the record's `at://` URI.
    pub id: String,
    /// What only its platform reads of the part (Bluesky's CID, which the replies after it
    /// name), opaque to the rest.
    pub native: Option<String>,
}

impl Part {
    /// Whether a part from outside may be kept on a line: bounded, no control characters or
    /// whitespace (the line is space-separated).
    pub fn usable(&self) -> bool {
        let ok = |s: &str| !s.is_empty() && !s.chars().any(|c| c.is_control() || c.is_whitespace());
        ok(&self.id)
            && self.native.as_deref().is_none_or(ok)
            && self.id.len() + self.native.as_deref().map_or(0, str::len) <= MAX_PART
    }
}

impl super::Copy {
    /// The parts of a published copy: its `parts=`, or, for a copy published as one post
    /// before the target had `long = "thread"`, that post as a thread of one part.
    pub fn published_parts(&self) -> Vec<Part> {
        match (&self.parts[..], &self.id) {
            ([], Some(id)) => vec![Part {
                id: id.clone(),
                native: None,
            }],
            (parts, _) => parts.to_vec(),
        }
    }
}

/// How a thread whose every part is out came to be known: published when this run sent any
/// of its parts (`sent`); else found, before the first send when the run began with no line
/// for it (`had_line`), or confirmed.
pub fn thread_how(sent: usize, had_line: bool) -> How {
    match (sent, had_line) {
        (0, false) => How::AlreadyThere,
        (0, true) => How::Confirmed,
        _ => How::Published,
    }
}

/// The field's value for `parts` (empty for none).
pub fn encode(parts: &[Part]) -> String {
    let item = |part: &Part| match &part.native {
        Some(native) => format!("{};{}", escape(&part.id), escape(native)),
        None => escape(&part.id),
    };
    parts.iter().map(item).collect::<Vec<_>>().join(",")
}

/// The parts a field holds.
pub fn decode(value: &str) -> Vec<Part> {
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(|item| match item.split_once(';') {
            Some((id, native)) => Part {
                id: unescape(id),
                native: Some(unescape(native)),
            },
            None => Part {
                id: unescape(item),
                native: None,
            },
        })
        .collect()
}

/// Whether `value` is a `parts=` field dayrun would write.
pub fn check(value: &str) -> Result<(), String> {
    let parts = decode(value);
    if parts.len() > MAX_PARTS {
        return Err(format!(
            "field `parts`: {} parts, more than {MAX_PARTS}",
            parts.len()
        ));
    }
    match parts.iter().find(|p| !p.usable()) {
        Some(part) => Err(format!(
            "field `parts`: `{}` is not a part id",
            crate::outside::escape(&part.id, 60)
        )),
        None => Ok(()),
    }
}

fn escape(value: &str) -> String {
    value
        .replace('%', "%25")
        .replace(',', "%2C")
        .replace(';', "%3B")
}

/// Part `n` of the thread landed: on the pending line at once, before the next part goes.
/// Part 0 is the copy (`id=`, `url=`). A part out of turn, or past `MAX_PARTS`, leaves the line
/// as it is (the runner sends parts in order; the cap is checked before the first). A part
/// found after its run was cut off (`cut_off`) is the last one out: nothing of the attempt is
/// out unrecorded any more, so the line no longer says `sent=maybe`.
pub(super) fn landed(
    line: Option<&KeyLine>,
    (n, part, url): (usize, &Part, Option<&str>),
    cut_off: bool,
    ctx: &Ctx,
) -> Step {
    let Some(line) = line.filter(|l| matches!(l.phase, Phase::Pending(Op::Publish))) else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    let mut next = line.clone();
    if n != next.copies.current.parts.len() || n >= MAX_PARTS {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    }
    next.copies.current.parts.push(part.clone());
    if n == 0 {
        next.copies.current.id = Some(part.id.clone());
        next.copies.current.url = url.map(str::to_string);
    }
    if cut_off {
        next.tried = super::Tried::default();
    }
    next.at = ctx.stamp.clone();
    Step::write(next, Exit::Ok, Word::Nothing)
}

/// The split a thread is sent as (`split=`), on its pending line before the first part goes.
pub(super) fn split(line: Option<&KeyLine>, hash: &str, ctx: &Ctx) -> Step {
    let Some(line) = line.filter(|l| matches!(l.phase, Phase::Pending(Op::Publish))) else {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    };
    if line.copies.current.split.as_deref() == Some(hash) {
        return Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
    }
    let mut next = line.clone();
    next.copies.current.split = Some(hash.to_string());
    next.at = ctx.stamp.clone();
    Step::write(next, Exit::Ok, Word::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_bluesky_thread_reads_back_as_written() {
        let parts = vec![
            Part {
                id: "at://did:plc:x/app.bsky.feed.post/3k2a".into(),
                native: Some("bafyreia".into()),
            },
            Part {
                id: "at://did:plc:x/app.bsky.feed.post/3k2b".into(),
                native: Some("bafyreib".into()),
            },
        ];
        let text = encode(&parts);
        assert_eq!(
            text,
            "at://did:plc:x/app.bsky.feed.post/3k2a;bafyreia,at://did:plc:x/app.bsky.feed.post/3k2b;bafyreib"
        );
        assert_eq!(decode(&text), parts);
        assert!(check(&text).is_ok());
        assert!(check(&vec!["1"; MAX_PARTS + 1].join(",")).is_err());
    }

    #[test]
    fn a_copy_sent_as_one_post_is_a_thread_of_one_part() {
        let one = crate::Copy {
            id: Some("110".into()),
            ..Default::default()
        };
        let part = |id: &str| Part {
            id: id.into(),
            native: None,
        };
        assert_eq!(one.published_parts(), vec![part("110")]);
        let two = crate::Copy {
            parts: vec![part("110"), part("111")],
            ..one
        };
        assert_eq!(two.published_parts(), two.parts);
        assert!(crate::Copy::default().published_parts().is_empty());
    }

    #[test]
    fn a_thread_is_published_when_this_run_sent_a_part_of_it() {
        assert_eq!(thread_how(1, false), How::Published);
        assert_eq!(thread_how(0, true), How::Confirmed);
        assert_eq!(thread_how(0, false), How::AlreadyThere);
    }

    proptest! {
        #[test]
        fn any_parts_come_back_as_they_went_in(
            parts in proptest::collection::vec(("[^\\s]{1,12}", proptest::option::of("[^\\s]{1,12}")), 0..6)
        ) {
            let parts: Vec<Part> = parts.into_iter().map(|(id, native)| Part { id, native }).collect();
            prop_assert_eq!(decode(&encode(&parts)), parts);
        }
    }
}
