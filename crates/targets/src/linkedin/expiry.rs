//! What runs out: the access token (LinkedIn's last 60 days) and the `LinkedIn-Version`
//! (supported for at least a year, then sunset). The token's expiry is what the person wrote
//! beside it, in `<token_file>.expires`: a date (`2027-02-01`) or a time
//! (`2027-02-01T10:00:00Z`). LinkedIn's introspection needs the app's client secret, which
//! dayrun does not hold, so it is not asked.

use super::Linkedin;
use crate::Context;
use crate::error::{Class, Error};
use jiff::Timestamp;
use jiff::civil::Date;
use std::path::{Path, PathBuf};

/// Warn this long before the token expires.
const WARN_DAYS: i64 = 7;
/// LinkedIn keeps a version at least this many months.
const SUPPORTED_MONTHS: i32 = 12;

/// The sidecar file that holds the token's expiry.
pub fn sidecar(token_file: &Path) -> PathBuf {
    let mut name = token_file.as_os_str().to_owned();
    name.push(".expires");
    PathBuf::from(name)
}

/// The expiry written beside `token_file` (resolved as the token is), if any.
pub fn read(ctx: &Context, token_file: &Path) -> Result<Option<Timestamp>, Error> {
    let path = sidecar(&ctx.config.from_file(token_file));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    parse(text.trim()).map(Some).ok_or_else(|| {
        Error::config(format!(
            "[targets.{}]: {} holds `{}`: write the token's expiry as a date (2027-02-01) or a time (2027-02-01T10:00:00Z)",
            ctx.target.name,
            ctx.config.show(&path).display(),
            crate::outside::escape(text.trim(), 80)
        ))
    })
}

/// A date (its end, UTC) or an RFC 3339 time.
fn parse(text: &str) -> Option<Timestamp> {
    if let Ok(at) = text.parse::<Timestamp>() {
        return Some(at);
    }
    let day: Date = text.parse().ok()?;
    let end = day.tomorrow().ok()?;
    end.to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp())
}

/// Whether `version` is a version at all (YYYYMM, or YYYYMM.RR), and, when it is older than
/// LinkedIn keeps one, the warning.
pub fn version_ok(version: &str, today: Date) -> Result<Option<String>, String> {
    let bad = || {
        format!(
            "version = `{}`: write the LinkedIn-Version as YYYYMM, e.g. {}",
            crate::outside::escape(version, 40),
            super::VERSION
        )
    };
    let main = version.split('.').next().unwrap_or_default();
    if main.len() != 6 || !main.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let (year, month): (i32, i32) = (
        main[..4].parse().map_err(|_| bad())?,
        main[4..].parse().map_err(|_| bad())?,
    );
    if !(1..=12).contains(&month) {
        return Err(bad());
    }
    let age = (i32::from(today.year()) - year) * 12 + i32::from(today.month()) - month;
    Ok((age > SUPPORTED_MONTHS).then(|| format!(
        "LinkedIn-Version {version} is {age} months old; LinkedIn supports a version for at least {SUPPORTED_MONTHS} months, then sunsets it (HTTP 426): set `version = \"{}\"` or newer and check the docs' changes",
        super::VERSION
    )))
}

impl Linkedin {
    /// Say what runs out soon: the token within 7 days, a version past its year.
    pub(super) fn warn(&self, name: &str, shown: PathBuf) {
        let say =
            |text: String| crate::say::err(&format!("dayrun: warning: [targets.{name}]: {text}"));
        if let Ok(Some(old)) = version_ok(&self.settings.version, self.clock.today()) {
            say(old);
        }
        let Some(at) = self.expires else { return };
        let left = at.as_second() - self.clock.now().timestamp().as_second();
        if left <= 0 {
            say(format!(
                "the LinkedIn token in {} expired at {at}: renew it",
                shown.display()
            ));
        } else if left <= WARN_DAYS * 86_400 {
            say(format!(
                "the LinkedIn token in {} expires at {at} (in {} day(s)): renew it before then",
                shown.display(),
                (left + 86_399) / 86_400
            ));
        }
    }

    /// An expired token is refused before anything is sent: exit 3, naming the file.
    pub(super) fn unexpired(&self) -> Result<(), Error> {
        match self.expires {
            Some(at) if at <= self.clock.now().timestamp() => Err(Error::failure(
                Class::Auth,
                format!("the LinkedIn token expired at {at}; nothing was sent"),
            )
            .hint(format!(
                "create a new token, put it in {} and its expiry in {}",
                self.token.file.display(),
                sidecar(&self.token.file).display()
            ))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_past_its_year_is_warned_and_a_bad_one_refused() {
        let today: Date = "2026-12-05".parse().unwrap();
        assert_eq!(version_ok("202601", today), Ok(None));
        assert_eq!(version_ok("202512.01", today), Ok(None));
        assert!(
            version_ok("202411", today)
                .unwrap()
                .unwrap()
                .contains("25 months old")
        );
        assert!(version_ok("2024-11", today).is_err());
        assert!(version_ok("202413", today).is_err());
    }

    #[test]
    fn an_expiry_is_a_date_or_a_time() {
        assert_eq!(parse("2027-02-01"), "2027-02-02T00:00:00Z".parse().ok());
        assert_eq!(
            parse("2027-02-01T10:00:00Z"),
            "2027-02-01T10:00:00Z".parse().ok()
        );
        assert_eq!(parse("in 60 days"), None);
    }
}
