//! What a target answered for a copy it holds: the id a key's line records, and what comes with it.

/// What the target answered: the id to record (and a link, where it gives one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receipt {
    pub id: String,
    pub url: Option<String>,
    /// Anything the human should know about how it was sent (e.g. tags that were cleaned).
    pub note: Option<String>,
    /// The copy's version as written (Ghost's `updated_at`), for targets that refuse an update
    /// made against another version; kept on the line and handed back in `Outgoing::version`.
    pub version: Option<String>,
}

impl Receipt {
    pub fn id(id: impl Into<String>) -> Receipt {
        Receipt {
            id: id.into(),
            ..Receipt::default()
        }
    }
}
