//! What a person is asked to do about a key on a target, and why now, since when, where and
//! what: the line under a failure, a wait, or a key dayrun cannot confirm.

use crate::error::{Class, Server};
use crate::life::Key;
use crate::life::{KeyLine, Looked, Phase};
use std::path::PathBuf;
use std::time::Duration;

/// What the hints for one key on one target name.
#[derive(Debug, Clone)]
pub struct Hints<'a> {
    pub key: Key,
    /// The target's name.
    pub target: &'a str,
    /// Where a person looks for the key's copy (`Target::where_to_look`).
    pub look: String,
    /// Where the target's credential lives (`Secrets::file`), if in a file.
    pub credential: Option<PathBuf>,
    /// How long a failure the next run retries by itself may last before a person acts.
    pub escalate_after: Duration,
}

impl Hints<'_> {
    /// What a person does next about a failed line; `given`: the hint the failure came with.
    pub fn hint(&self, line: Option<&KeyLine>, given: Option<String>) -> Option<String> {
        let (key, name) = (self.key, self.target);
        match line.map(|l| l.phase) {
            Some(Phase::Failed(Class::Unknown, Looked::Nothing))
                if line.is_some_and(|l| l.reason.as_deref().is_some_and(|r| r.contains("is not this post"))) =>
            {
                Some(format!(
                    "look at that copy on {name}: if it is this post, `dayrun mark {key} done --id ID --target {name}`; if it is not, `dayrun retry {key} --not-ours ID --target {name}` publishes beside it (and remembers it is not ours)"
                ))
            }
            Some(Phase::Failed(Class::Unknown, Looked::Nothing)) => Some(self.advice()),
            Some(Phase::Failed(Class::Auth, _)) => given.or_else(|| {
                Some(match &self.credential {
                    Some(file) => format!(
                        "renew the credential in {}; the next run retries by itself once it changes",
                        file.display()
                    ),
                    None => "renew the credential where the script reads it".into(),
                })
            }),
            Some(Phase::Failed(Class::Rejected, _)) => given.or_else(|| {
                Some(format!(
                    "fix and save the post (it is sent again once it changes), or `dayrun retry {key}` sends it as it is"
                ))
            }),
            _ => given,
        }
    }

    /// Why a failure the next run retries by itself now needs a person (it has lasted past
    /// `escalate_after`), where it fails (`server`), and what to do.
    pub fn escalation(&self, line: &KeyLine, server: Option<&Server>) -> String {
        let (key, name) = (line.key, self.target);
        let since = line.first_failure.as_deref().unwrap_or(&line.at);
        let after = crate::clock::span(self.escalate_after.as_secs() as i64);
        let check = match server {
            Some(server) => format!(
                "check that the server at {} is up and reachable from here",
                server.host
            ),
            None => format!("find out why {name} keeps failing (the reason above) and fix it"),
        };
        format!(
            "failing since {since}, past `escalate_after` ({after}): {check}; every run retries the key by itself, and `dayrun retry {key} --target {name}` sends it at once after the fix"
        )
    }

    /// What a person does with a key dayrun cannot confirm.
    pub fn advice(&self) -> String {
        let (key, name) = (self.key, self.target);
        format!(
            "look for {}; if it is there: `dayrun mark {key} done --id ID --target {name}`; if it is not: `dayrun retry {key} --absent --target {name}`",
            self.look
        )
    }
}
