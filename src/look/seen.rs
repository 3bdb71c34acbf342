//! What one look found (`Seen`), before the rules judge it, and what the key's life is told of
//! it (`life::Verdict`).

use crate::error::{Error, Kind};
use crate::life::{self, Receipt};
use crate::targets::Lookup;
use jiff::Timestamp;

/// What one look found, before the rules judge it.
#[derive(Debug)]
pub(crate) enum Seen {
    Found(Vec<Receipt>),
    Absent,
    NotYet(Timestamp),
    CannotTell(String),
    /// A copy on no line, and another key of the same text (`copies::Sifted::Whose`).
    Whose(String),
    Transient(String),
    Foreign(Vec<Receipt>),
    /// Refused for good: auth, or a broken setup.
    Refused(Error),
}

impl Seen {
    /// The failure of a refused look, as the key's life reads it (`made` makes it).
    pub(crate) fn failure<F>(&self, made: impl FnOnce(&Error) -> F) -> Option<F> {
        match self {
            Seen::Refused(err) => Some(made(err)),
            _ => None,
        }
    }

    /// What the key's life is told of a look that found no copy of its own; `failure`: the
    /// refused look's (`Seen::failure`).
    pub(crate) fn verdict<'s>(&'s self, failure: Option<life::Failure<'s>>) -> life::Verdict<'s> {
        match self {
            Seen::Found(_) => unreachable!("a copy found is judged by the one who looked"),
            Seen::Absent => life::Verdict::Absent,
            Seen::NotYet(until) => life::Verdict::NotYet(*until),
            Seen::CannotTell(why) => life::Verdict::CannotTell(why),
            Seen::Whose(why) => life::Verdict::Whose(why),
            Seen::Transient(why) => life::Verdict::Transient(why),
            Seen::Foreign(receipts) => life::Verdict::Foreign(receipts),
            Seen::Refused(_) => life::Verdict::Refused(failure.expect("a refusal's failure")),
        }
    }
}

impl Seen {
    /// An update's read-back of its copy (known by its id): a failed one is refused for good
    /// only for its credential or setup (`life::read_back_failed`), else read back again.
    pub(crate) fn read_back(answer: &Result<Lookup, Error>) -> Seen {
        match answer.clone() {
            Ok(Lookup::Found(found)) => Seen::Found(found),
            Ok(Lookup::Absent) => Seen::Absent,
            Ok(Lookup::CannotTell(why)) => Seen::CannotTell(why),
            Ok(Lookup::Foreign(list)) => Seen::Foreign(list),
            Err(err) => match life::read_back_failed(err.kind == Kind::Config, err.class()) {
                life::LookFailed::Refused => Seen::Refused(err),
                _ => Seen::Transient(err.reason()),
            },
        }
    }
}

/// A failed lookup, as its class makes it (`life::look_failed`).
pub(super) fn classify(err: Error) -> Seen {
    match life::look_failed(err.kind == Kind::Config, err.class()) {
        life::LookFailed::Refused => Seen::Refused(err),
        life::LookFailed::Transient => Seen::Transient(err.reason()),
        life::LookFailed::CannotTell => Seen::CannotTell(err.reason()),
    }
}
