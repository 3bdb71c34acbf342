//! What a target answered for a copy it holds: the id a key's line records, and what comes with it.

/// What the target answered: the id to record (and a link, where it gives one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receipt {
    pub id: String,
    pub url: Option<String>,
    /// Anything the human should know about how it was sent (e.g. tags that were cleaned).
    pub note: Option<String>,
    /// What only the platform reads of the copy (Ghost's version): replaces the line's
    /// (`Native::answered`), and goes back to the platform in `Outgoing::native`.
    pub native: crate::Native,
}

impl Receipt {
    pub fn id(id: impl Into<String>) -> Receipt {
        Receipt {
            id: id.into(),
            ..Receipt::default()
        }
    }
}
