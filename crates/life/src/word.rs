//! The word a step is counted under (the run's summary, `status`): typed, so that the runner
//! matches what happened, never a spelling.

/// What a step did, in the summary's words (`text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// Nothing to count (a visit that only decides, a step that leads to another).
    Nothing,
    Published,
    Confirmed,
    AlreadyThere,
    Unconfirmed,
    Updated,
    Failed,
    EditFailed,
    HeldBack,
    Forgotten,
    Retracted,
    NotPublished,
    MarkedDone,
    MarkedFailed,
    MarkedRetracted,
    Adopted,
    NotOurs,
    Done,
    /// Copies found beside the line's own (a merge kept the other side's attempt): recorded,
    /// nothing sent; an alert.
    Duplicate,
    Scheduled,
    Stale,
    Draft,
    PutAside,
}

impl Word {
    /// The word as the summary and `status` print it.
    pub fn text(self) -> &'static str {
        match self {
            Word::Nothing => "",
            Word::Published => "published",
            Word::Confirmed => "confirmed",
            Word::AlreadyThere => "already there",
            Word::Unconfirmed => "unconfirmed",
            Word::Updated => "updated",
            Word::Failed => "failed",
            Word::EditFailed => "edit failed",
            Word::HeldBack => "held back",
            Word::Forgotten => "forgotten",
            Word::Retracted => "retracted",
            Word::NotPublished => "not published",
            Word::MarkedDone => "marked done",
            Word::MarkedFailed => "marked failed",
            Word::MarkedRetracted => "marked retracted",
            Word::Adopted => "adopted",
            Word::NotOurs => "not ours",
            Word::Done => "done",
            Word::Duplicate => "duplicate",
            Word::Scheduled => "scheduled",
            Word::Stale => "stale",
            Word::Draft => "draft",
            Word::PutAside => "put aside",
        }
    }
}
