//! The token's 60 days. A long-lived Threads token lasts 60 days from when it was made or last
//! refreshed (the Long-Lived Access Tokens page); dayrun does not refresh it or rewrite the
//! token file (a secret file may be read-only, shared by runners, or kept by a secret
//! manager), it tells the person: the end is estimated as the file's last change plus 60 days,
//! and each command that builds the target warns from `token_warn_days` before it, with the
//! documented refresh request to run.

use jiff::{SignedDuration, Timestamp};
use std::path::Path;

/// How long a long-lived token lasts.
const LIFETIME: SignedDuration = SignedDuration::from_hours(60 * 24);

/// When the token is estimated to end, and whether that is soon.
#[derive(Debug, Clone, Copy)]
pub struct Expiry {
    /// The file's last change plus 60 days; `None` when the file has no time.
    pub ends: Option<Timestamp>,
    now: Timestamp,
    warn_days: u32,
}

impl Expiry {
    pub fn of(file: &Path, now: Timestamp, warn_days: u32) -> Expiry {
        let written = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| Timestamp::try_from(t).ok());
        Expiry {
            ends: written.map(|t| t + LIFETIME),
            now,
            warn_days,
        }
    }

    /// The warning for the person, when the end is within `warn_days` (or past).
    pub fn warning(&self, target: &str, file: &Path) -> Option<String> {
        let ends = self.ends?;
        let soon = SignedDuration::from_hours(i64::from(self.warn_days) * 24);
        if self.now + soon < ends {
            return None;
        }
        let when = ends.strftime("%Y-%m-%d");
        let state = match self.now >= ends {
            true => format!("has probably expired ({when})"),
            false => format!("expires about {when}"),
        };
        Some(format!(
            "dayrun: warning: [targets.{target}]: the Threads token in {} {state}: 60 days after the file was written; refresh it with `curl -s \"https://graph.threads.net/refresh_access_token?grant_type=th_refresh_token&access_token=$(cat {0})\"` and put the new access_token in the file",
            file.display()
        ))
    }

    pub fn warn(&self, target: &str, file: &Path) {
        if let Some(text) = self.warning(target, file) {
            crate::say::err(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_warns_only_within_the_days_before_the_end() {
        let ends: Timestamp = "2027-01-31T00:00:00Z".parse().unwrap();
        let at = |now: &str| Expiry {
            ends: Some(ends),
            now: now.parse().unwrap(),
            warn_days: 10,
        };
        let file = Path::new("secrets/threads.token");
        assert!(at("2027-01-20T00:00:00Z").warning("t", file).is_none());
        let soon = at("2027-01-22T00:00:00Z").warning("t", file).unwrap();
        assert!(soon.contains("expires about 2027-01-31"), "{soon}");
        let past = at("2027-02-01T00:00:00Z").warning("t", file).unwrap();
        assert!(past.contains("has probably expired"), "{past}");
    }
}
