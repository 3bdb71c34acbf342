//! A failure as the key's life reads it (`life::Failure`), owned: made from an error once,
//! with its reason redacted, so that a send, a look and a read-back hand the rules the same.

use crate::error::{Class, Error, Kind};
use crate::life;
use crate::post::Post;
use std::time::Duration;

/// A failure, owned, as the key's life reads it (`life::Failure` borrows from this).
#[derive(Debug, Clone)]
pub(crate) struct Failed {
    pub class: Class,
    reason: String,
    cred: Option<String>,
    fp: Option<String>,
    payload: Option<String>,
    setup: bool,
    wait: Option<Duration>,
    stop: bool,
    hint: Option<String>,
}

impl Failed {
    /// `reason`: the error's reason, already redacted.
    /// `payload`: the edit hash of the post it failed for (`TargetRun::edit_mark`).
    pub fn of(
        err: &Error,
        reason: String,
        post: Option<(&Post, String)>,
        cred: Option<String>,
        cap: Duration,
    ) -> Failed {
        let class = err.class().unwrap_or(Class::Unknown);
        let setup = err.kind == Kind::Config;
        let long = err.retry_after.is_some_and(|wait| wait > cap);
        Failed {
            class,
            reason,
            cred: cred.filter(|_| class == Class::Auth),
            fp: post.as_ref().map(|(p, _)| p.fingerprint.clone()),
            payload: post.map(|(_, payload)| payload),
            setup,
            wait: err.retry_after.filter(|_| !long),
            stop: setup || class == Class::Auth || long,
            hint: err.hint.clone(),
        }
    }

    pub fn borrow(&self) -> life::Failure<'_> {
        life::Failure {
            class: self.class,
            reason: &self.reason,
            cred: self.cred.as_deref(),
            fp: self.fp.as_deref(),
            payload: self.payload.as_deref(),
            setup: self.setup,
            wait: self.wait,
            stop: self.stop,
            hint: self.hint.as_deref(),
        }
    }
}
