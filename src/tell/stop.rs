//! Why nothing more goes to a target in this run, and how a key it skips for that says so.

use crate::error::{Class, Error, Kind, Server};
use crate::life::{Key, KeyLine, Phase};
use std::time::Duration;

/// Why nothing more goes to a target in this run.
#[derive(Debug, Clone)]
pub enum Stop {
    /// Its setup is broken (a refused certificate, …): the message.
    Setup(String),
    /// Its credentials were refused: the message.
    Auth(String),
    /// The server asked to wait longer than `retry_after_cap`.
    RateLimited(Duration),
    /// The server cannot be reached: met by `key`, with its reason (naming the host).
    Unreachable {
        key: Key,
        reason: String,
        server: Server,
    },
}

impl Stop {
    /// Whether `err`, met by `key`, stops its target for the rest of the run, and why: a
    /// broken setup, refused credentials, a wait past `cap`, or a server that cannot be
    /// reached (`reason`: the error's, redacted). `None`: the target goes on.
    pub fn of(key: Key, err: &Error, cap: Duration, reason: String) -> Option<Stop> {
        match (err.kind, err.class(), err.retry_after) {
            (Kind::Config, _, _) => Some(Stop::Setup(err.message.clone())),
            (_, Some(Class::Auth), _) => Some(Stop::Auth(err.message.clone())),
            (_, Some(Class::RetrySafe), Some(wait)) if wait > cap => Some(Stop::RateLimited(wait)),
            _ => err.unreachable().map(|server| Stop::Unreachable {
                key,
                reason,
                server: server.clone(),
            }),
        }
    }

    /// What stopped the target, in a few words.
    pub fn why(&self) -> String {
        match self {
            Stop::Setup(message) => format!("its setup is broken: {message}"),
            Stop::Auth(message) => format!("credentials rejected: {message}"),
            Stop::RateLimited(wait) => format!("rate limited for {} s", wait.as_secs()),
            Stop::Unreachable { key, reason, .. } => {
                format!("the server could not be reached for {key} ({reason})")
            }
        }
    }

    /// The detail of a key skipped for it.
    pub fn skipped(&self) -> String {
        format!("target stopped for this run: {}", self.why())
    }

    /// The reason recorded for a key that was not tried for it.
    pub fn not_tried(&self) -> String {
        format!("not tried this run: {}", self.why())
    }

    /// What a post about to be sent records when the target stopped: when the server cannot
    /// be reached and nothing of the post may be out (`unsent`), a retry-safe failure of this
    /// run, not tried, with no request and no wait, so that the next run sends it and its
    /// failure lasts, escalates and is held back like one that was tried. `None`: the key is
    /// only told (another stop, or a line published or retracted: not a failure).
    pub fn unsent(&self, line: Option<&KeyLine>, unsent: bool) -> Option<Error> {
        let Stop::Unreachable { server, .. } = self else {
            return None;
        };
        let failed_or_none = line.is_none_or(|l| matches!(l.phase, Phase::Failed(..)));
        let err = Error::failure(Class::RetrySafe, self.not_tried()).server(server.clone());
        (unsent && failed_or_none).then_some(err)
    }
}
