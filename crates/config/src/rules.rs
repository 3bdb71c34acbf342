//! The rules of a key's life on a target (`life::Rules`), from its config: the run, the dry
//! run and `status` judge by these. What the target can do (look a key up, update a copy in
//! place) its kind derives from its settings (`targets::capabilities`), which sit above config:
//! it comes in as a value, and `on_edit` is laid over it here.

use crate::{Config, Dedup, TargetConfig};
use life::Rules;

/// What a configured target can do, as its kind derives it once from its settings; the rules
/// of its keys' lives, `status` and the runner read this one value. The default: `NONE`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// The target can look a key up at all (an http target without `list_url` cannot); the
    /// runner uses its lookup exactly then.
    pub can_find: bool,
    /// Edits go to the published copy unless `on_edit` says otherwise: kinds that edit in
    /// place without telling anyone (a folder, a blog) do; a timeline does not.
    pub updates: bool,
}

impl Capabilities {
    /// Nothing: no lookup, and edits go out only when `on_edit` asks.
    pub const NONE: Capabilities = Capabilities {
        can_find: false,
        updates: false,
    };
    /// A place whose copies are looked up and edited in place (a folder, a blog).
    pub const IN_PLACE: Capabilities = Capabilities {
        can_find: true,
        updates: true,
    };
    /// A timeline: its copies are looked up, but followers have seen a post, so an edit is
    /// sent only when `on_edit` asks.
    pub const TIMELINE: Capabilities = Capabilities {
        can_find: true,
        updates: false,
    };
}

impl Config {
    /// The rules of a key's life on `target`, which can do `can`; `on_edit` is laid over
    /// `can.updates`.
    pub fn rules(&self, target: &TargetConfig, can: Capabilities) -> Rules {
        let policy = &target.policy;
        Rules {
            catchup_days: self.catchup_days,
            escalate_after: policy.escalate_after,
            edit_days: policy.edit_days,
            retries: policy.retries,
            backoff: policy.backoff,
            updates: policy.on_edit.unwrap_or(can.updates),
            can_find: can.can_find,
            dedup: policy.dedup != Dedup::Off,
            strict: policy.dedup == Dedup::Strict,
        }
    }
}
