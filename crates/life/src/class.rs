//! How a failure is classed, and the exit codes the classes map to.

use std::fmt;

/// How a failure of one key on one target is classed; decides retry, state line and exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Provably nothing happened (DNS, refused, connect timeout, 429): safe to send again.
    RetrySafe,
    /// The target refused the post (4xx): a human must look; resend only when content changed.
    Rejected,
    /// The post itself is bad (no title, not UTF-8, …): fix the file.
    Local,
    /// Credentials were refused (401/403): stop the target, renew the named credential.
    Auth,
    /// The request may or may not have been applied: confirm on the target, never resend blind.
    Unknown,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::RetrySafe,
        Class::Rejected,
        Class::Local,
        Class::Auth,
        Class::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Class::RetrySafe => "retry-safe",
            Class::Rejected => "rejected",
            Class::Local => "local",
            Class::Auth => "auth",
            Class::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exit codes, documented in the README.
pub mod code {
    pub const OK: i32 = 0;
    pub const NEEDS_HUMAN: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const AUTH: i32 = 3;
    pub const TEMPFAIL: i32 = 75;
}
