//! Bluesky's own data on a key's line: the record key dayrun chooses for a copy before its
//! first send (`rkey=`), and each thread part's CID (the half after `;` in `parts=`), which
//! the replies after it name. The shared types carry both as opaque values (`life::Native`,
//! `Part::native`); only this folder reads them.

use life::{Native, Part};

/// The record key's field on the line (one 0.5 wrote without a namespace), chosen before a
/// copy's first send.
const RKEY: &str = "rkey";

/// What dayrun chose for a copy: its record key.
pub(super) fn chosen(rkey: String) -> Native {
    Native::one(RKEY, rkey)
}

/// The record key chosen for a copy, if any.
pub(super) fn rkey(native: &Native) -> Option<&str> {
    native.get(RKEY)
}

/// A thread's part as the line keeps it: its `at://` URI and its CID.
pub(super) fn part(uri: String, cid: String) -> Part {
    Part {
        id: uri,
        native: Some(cid),
    }
}

/// A part's CID, if the line has it.
pub(super) fn cid(part: &Part) -> Option<&str> {
    part.native.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_key_is_chosen_and_read_back() {
        assert_eq!(rkey(&chosen("3k2a".into())), Some("3k2a"));
        assert_eq!(rkey(&Native::default()), None);
        assert!(life::native::is_field(RKEY));
        let part = part("at://x".into(), "bafyrei".into());
        assert_eq!(cid(&part), Some("bafyrei"));
    }
}
