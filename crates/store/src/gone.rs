//! The lines of one target whose post file is gone, by the fingerprint of the post they were
//! sent from: a key with no line whose post has one of these fingerprints is most likely that
//! post renamed (a slug fixed, a post moved into a bundle, a date changed), and sending it
//! would make a second copy of what is already out. Read once a pass, the first time a key
//! with no line may be sent.

use crate::state::StateFile;
use life::{Key, KeyLine, Status};
use std::collections::HashMap;

/// Fingerprints of gone posts whose copy is (or may be) out, and the key of each.
#[derive(Debug, Default)]
pub struct Gone {
    by_fp: HashMap<String, Key>,
}

impl Gone {
    /// Every line of `state` that holds a copy, or an attempt that may have made one, whose
    /// key has no post now (`has_post`).
    pub fn read(state: &StateFile, has_post: impl Fn(Key) -> bool) -> Gone {
        let mut by_fp = HashMap::new();
        for record in state.records() {
            if has_post(record.key) || record.status == Status::Retracted {
                continue;
            }
            let line = KeyLine::of(record);
            let out = !line.live_ids().is_empty() || line.tried.maybe;
            if let Some(fp) = line.fp.filter(|fp| out && !fp.is_empty()) {
                by_fp.entry(fp).or_insert(record.key);
            }
        }
        Gone { by_fp }
    }

    /// The gone key whose post had the fingerprint `fp`, if any.
    pub fn renamed_from(&self, fp: &str) -> Option<Key> {
        self.by_fp.get(fp).copied()
    }
}
