//! Credentials read from files: regular files (links to one are fine), one header-safe line
//! where they go in a header, never shown, and every form they can come back in known for
//! redaction.

use super::Context;
use crate::error::Error;
use crate::redact::Redactor;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A credential read from a file. Its `Debug` never shows it; it is only ever put in a header.
#[derive(Clone)]
pub struct Secret {
    value: String,
    /// The file it came from, as the user wrote it: what to renew.
    pub file: PathBuf,
    /// sha256 of target name and secret, cut short: tells a renewed credential from the old one.
    pub fingerprint: String,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret({})", self.file.display())
    }
}

impl Secret {
    /// Read `file` (relative to the config file's folder): a regular file (a symbolic link to one
    /// is fine: Kubernetes and Docker mount secrets that way), read without blocking, at most
    /// 64 KiB. Missing, empty or unreadable is a config error before any side effect; a file
    /// others can read gets a warning.
    pub fn read(ctx: &Context, file: &Path, what: &str) -> Result<Secret, Error> {
        let path = ctx.config.from_file(file);
        let shown = ctx.config.show(&path);
        let name = &ctx.target.name;
        let bad = |why: String| {
            Error::config(format!(
                "[targets.{name}]: cannot read the {what} file {}: {why}",
                shown.display()
            ))
            .hint(format!(
                "put the {what} in {} (only you should be able to read it: chmod 600)",
                shown.display()
            ))
        };
        let bytes =
            crate::fsutil::read_regular(&path, 64 * 1024, true).map_err(|e| bad(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
        let value = text.trim().to_string();
        if value.is_empty() {
            return Err(Error::config(format!(
                "[targets.{name}]: the {what} file {} is empty",
                shown.display()
            ))
            .hint(format!("put the {what} in {}", shown.display())));
        }
        warn_if_shared(&path, &shown);
        // Every target masks it from now on, not only the one it belongs to.
        let mut run = Redactor::default();
        run.add(&value);
        run.register();
        let digest = Sha256::digest(format!("dayrun-credential\n{name}\n{value}").as_bytes());
        Ok(Secret {
            value,
            file: shown,
            fingerprint: crate::text::hex(&digest[..8]),
        })
    }

    /// The secret as one header value: one line, no control characters. Checked when the
    /// target is built (and by `dayrun check`), so a bad file never reaches a request.
    pub fn one_line(self, ctx: &Context, what: &str) -> Result<Secret, Error> {
        if let Some((line, _)) = self
            .value
            .lines()
            .enumerate()
            .find(|(i, l)| *i > 0 || l.chars().any(char::is_control))
        {
            let why = match line {
                0 => "it holds a control character".to_string(),
                _ => format!("it has {} lines", self.value.lines().count()),
            };
            return Err(Error::config(format!(
                "[targets.{}]: the {what} file {} cannot be sent in a header: {why}",
                ctx.target.name,
                self.file.display()
            ))
            .at(&self.file)
            .line(line + 1)
            .hint(format!("the {what} is one line of text")));
        }
        Ok(self)
    }

    /// Every form this secret can come back in, for redaction.
    pub fn redactor(&self) -> Redactor {
        let mut redactor = Redactor::default();
        redactor.add(&self.value);
        redactor
    }

    pub fn expose(&self) -> &str {
        &self.value
    }
}

/// A warning when others can read a secret's file (`shown`: as the user wrote it).
#[cfg(unix)]
pub fn warn_if_shared(path: &Path, shown: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        let shown = crate::outside::escape(&shown.display().to_string(), 4000);
        crate::say::err(&format!(
            "dayrun: warning: {shown} can be read by other users; run `chmod 600 {shown}`"
        ));
    }
}

#[cfg(not(unix))]
pub fn warn_if_shared(_: &Path, _: &Path) {}
