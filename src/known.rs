//! What a target's pass knows of other lines than the key's own: the linked targets' lines for
//! the key at hand (`linked.rs`, where their copies stand: `copies.rs`), the keys whose lines
//! hold each id here (`owners.rs`), the marks the catalog's other posts would be sent with
//! (`alike.rs`), and the lines whose post is gone (`crate::rename`). Each is read the first
//! time a pass needs it, from what its caller hands in; the runner carries out what it says.

use crate::life::KeyLine;
use std::collections::BTreeMap;

mod alike;
mod copies;
mod linked;
mod owners;
pub(crate) use copies::Copies;
pub(crate) use linked::linked_states;
pub(crate) use linked::others;
pub(crate) use owners::Found;

/// What a target's pass knows of other lines.
#[derive(Default)]
pub(crate) struct Known {
    /// The lines, for the key at hand, of the targets this one's template links to
    /// (`linked.rs`).
    upstream: BTreeMap<String, Option<KeyLine>>,
    /// Which key's line holds each id here, read at the first lookup (`owners.rs`); a line
    /// carried over to a renamed post's key moves in it there (`book/renamed.rs`).
    pub(crate) owners: Option<store::owners::Owners>,
    /// The marks each post of the catalog would be sent with here, read the first time a
    /// lookup finds a copy no line holds (`alike.rs`).
    alike: Option<alike::Alike>,
    /// This target's lines whose post is gone, read the first time a key with no line may be
    /// sent (`book/renamed.rs`).
    pub(crate) gone: Option<store::gone::Gone>,
    /// The lines whose post file this run is the first to see gone (no `gone=`), and the keys
    /// new posts were asked about by the rename rule (`book/renamed.rs`).
    pub(crate) unstamped: Vec<crate::life::Key>,
    pub(crate) asked: std::collections::BTreeSet<crate::life::Key>,
    /// The instant each post read this pass with a time is due (`times`): the key's moment
    /// carries it (`life::Ctx::due`).
    pub(crate) due: BTreeMap<crate::life::Key, jiff::Timestamp>,
}
