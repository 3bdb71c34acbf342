//! The rules of a key's life on a target (`life::Rules`), from its config: the run, the dry
//! run and `status` judge by these. What the target's kind can do (look a key up, update a
//! copy in place) is the registry of kinds' to say (`targets::capabilities`), which sits above
//! config: it comes in as a value.

use crate::{Config, Dedup, TargetConfig};
use life::Rules;

/// What a target's kind can do, as the rules of its keys' lives need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// The target can look a key up at all (an http target without `list_url` cannot).
    pub can_find: bool,
    /// Edits go to the published copy (`on_edit`, or the kind's default).
    pub updates: bool,
}

impl Config {
    /// The rules of a key's life on `target`, whose kind can do `can`.
    pub fn rules(&self, target: &TargetConfig, can: Capabilities) -> Rules {
        let policy = &target.policy;
        Rules {
            catchup_days: self.catchup_days,
            escalate_after: policy.escalate_after,
            edit_days: policy.edit_days,
            retries: policy.retries,
            backoff: policy.backoff,
            updates: can.updates,
            can_find: can.can_find,
            dedup: policy.dedup != Dedup::Off,
            strict: policy.dedup == Dedup::Strict,
        }
    }
}
