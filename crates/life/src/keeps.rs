//! What a copy's done line keeps besides its receipts, held by the runner while it sends or
//! looks, and how the copy came to be known once the receipts are in.

use crate::{How, Landed, Receipt};

/// What the done line of a copy that landed (or was found) keeps, besides its receipts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keeps {
    /// The post's fingerprint now.
    pub fp: String,
    /// The post's edit hash now.
    pub payload: String,
    /// The uploads the copy uses.
    pub media: Option<String>,
    /// The copy the target recognises in the id (its generation and what its platform chose
    /// for it).
    pub copy: Option<(u32, crate::Native)>,
}

impl Keeps {
    /// What the done line of a copy found for a key whose post is not read (a look only)
    /// keeps: what `line` says the attempt held, its fingerprint and uploads.
    pub fn of_line(line: &crate::KeyLine) -> Keeps {
        Keeps {
            fp: line.fp.clone().unwrap_or_default(),
            payload: String::new(),
            media: line.copies.current.media.clone(),
            copy: None,
        }
    }

    /// The copy of `receipts`, learnt `how`; a copy found by the look before the first send
    /// (`first`: pre-submit dedup) was already there, whatever the look was.
    pub fn landed<'a>(&'a self, receipts: &'a [Receipt], how: How, first: bool) -> Landed<'a> {
        Landed {
            receipts,
            how: match first {
                true => How::AlreadyThere,
                false => how,
            },
            fp: &self.fp,
            payload: &self.payload,
            media: self.media.as_deref(),
            copy: self.copy.as_ref().map(|(g, n)| (*g, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_found_before_the_first_send_was_already_there() {
        let keeps = Keeps {
            fp: "f".into(),
            payload: "p".into(),
            media: Some("m".into()),
            copy: Some((1, crate::Native::one("rkey", "r"))),
        };
        let receipts = [Receipt::id("9")];
        let dedup = keeps.landed(&receipts, How::Confirmed, true);
        assert_eq!(dedup.how, How::AlreadyThere);
        let confirmed = keeps.landed(&receipts, How::Confirmed, false);
        assert_eq!(confirmed.how, How::Confirmed);
        assert_eq!(confirmed.fp, "f");
        assert_eq!(confirmed.payload, "p");
        assert_eq!(confirmed.media, Some("m"));
        assert_eq!(confirmed.copy, Some((1, &crate::Native::one("rkey", "r"))));
        assert_eq!(confirmed.receipts[0].id, "9");
    }

    #[test]
    fn a_copy_found_for_a_key_whose_post_is_not_read_keeps_what_its_line_says() {
        let record = crate::Record::parse(
            "2026-11-29 pending 2026-11-29T07:00:00Z fp=f media=a1b2c3d4e5f60718:9 attempt=1",
        );
        let line = crate::KeyLine::of(&record.unwrap().unwrap());
        let keeps = Keeps::of_line(&line);
        assert_eq!((keeps.fp.as_str(), keeps.payload.as_str()), ("f", ""));
        assert_eq!(keeps.media.as_deref(), Some("a1b2c3d4e5f60718:9"));
        assert_eq!(keeps.copy, None);
    }
}
