//! The plain `Config`: command-line flags merged over `dayrun.toml` merged over defaults.

use crate::error::Error;
use jiff::tz::TimeZone;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything a command needs to know, resolved to absolute paths and typed values.
#[derive(Debug, Clone)]
pub struct Config {
    /// The project folder (`-C DIR`, else the current folder); relative paths start here.
    pub root: PathBuf,
    /// Where the dated posts live (`content`, default `content/`).
    pub content: PathBuf,
    /// Where state files, journals, trace logs and the lock live (`state`, default `state/`).
    pub state: PathBuf,
    /// The zone that decides "today" and the offsets of timestamps (`timezone`, default system).
    pub timezone: TimeZone,
    /// Due keys older than this many days are stale unless backfilled (`catchup_days`, default 3).
    pub catchup_days: i64,
    /// Configured targets, by name (default: one folder target `outbox` writing to `outbox/`).
    pub targets: Vec<TargetConfig>,
}

/// One `[targets.NAME]` table: its kind, the shared delivery policy, and kind-specific settings.
#[derive(Debug, Clone)]
pub struct TargetConfig {
    /// The table name; also the state file name, `state/<name>.state`.
    pub name: String,
    /// `folder`, `http`, `command`, `wordpress`, `devto` or `mastodon`.
    pub kind: String,
    /// Retries, backoff, confirmation and pacing, shared by every kind.
    pub policy: Policy,
    /// The remaining keys, read by the target's own settings type.
    pub settings: toml::Table,
    /// The config file the table came from, for error messages.
    pub source: PathBuf,
}

/// How hard to try and how long to wait, per target.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Extra attempts after a retry-safe failure within one run (`retries`, default 2).
    pub retries: u32,
    /// First backoff; it doubles per retry (`backoff_secs`, default 2).
    pub backoff: Duration,
    /// Longest Retry-After we wait for; longer stops the target for this run
    /// (`retry_after_cap_secs`, default 60).
    pub retry_after_cap: Duration,
    /// Looks at the target after an unknown outcome (`confirm_polls`, default 3).
    pub confirm_polls: u32,
    /// Wait before each look (`confirm_delay_secs`, default 5).
    pub confirm_delay: Duration,
    /// Least time between two writes to this target (`min_interval_secs`, default 0).
    pub min_interval: Duration,
    /// Look for the post on the target before its first attempt (`dedup`, default true).
    pub dedup: Dedup,
    /// How long after dayrun gave up on a request the target may still show it
    /// (`settle_secs`; default per kind, see `Target::settle`).
    pub settle: Option<Duration>,
}

/// Pre-submit dedup: whether to look for a copy before the first attempt, and what a lookup
/// that cannot tell means there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dedup {
    /// Never look before the first attempt (`dedup = false`).
    Off,
    /// Look; when the lookup cannot tell, warn and send (`dedup = true`, the default).
    BestEffort,
    /// Look; when the lookup cannot tell, do not send: a human decides (`dedup = "strict"`).
    Strict,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            retries: 2,
            backoff: Duration::from_secs(2),
            retry_after_cap: Duration::from_secs(60),
            confirm_polls: 3,
            confirm_delay: Duration::from_secs(5),
            min_interval: Duration::ZERO,
            dedup: Dedup::BestEffort,
            settle: None,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    content: Option<PathBuf>,
    state: Option<PathBuf>,
    timezone: Option<String>,
    catchup_days: Option<i64>,
    #[serde(default)]
    targets: BTreeMap<String, toml::Table>,
}

impl Config {
    /// Build the config for project folder `root`, reading `config` (default `root/dayrun.toml`).
    /// A missing default file means defaults; a missing named file is an error.
    pub fn load(root: &Path, config: Option<&Path>) -> Result<Config, Error> {
        let root = std::path::absolute(root)
            .map_err(|e| Error::io(crate::error::Kind::Config, root, "resolve the folder", &e))?;
        if !root.is_dir() {
            return Err(Error::config("no such project folder").at(&root));
        }
        let (path, required) = match config {
            Some(p) => (root.join(p), true),
            None => (root.join("dayrun.toml"), false),
        };
        // Errors name the file as the user would: relative to the project folder.
        let shown = path.strip_prefix(&root).unwrap_or(&path).to_path_buf();
        let read = crate::fsutil::read_regular(&path, 1024 * 1024, true).and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
        });
        let file = match read {
            Ok(text) => parse_file(&text, &shown)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => File::default(),
            Err(e) => {
                return Err(Error::io(
                    crate::error::Kind::Config,
                    &shown,
                    "read the config",
                    &e,
                ));
            }
        };
        let timezone = match &file.timezone {
            None => TimeZone::system(),
            Some(name) => TimeZone::get(name).map_err(|_| {
                Error::config(format!("unknown time zone `{name}`"))
                    .at(&shown)
                    .hint("use an IANA name such as `Europe/Berlin` or `UTC`")
            })?,
        };
        let catchup_days = file.catchup_days.unwrap_or(3);
        if catchup_days < 0 {
            return Err(Error::config("`catchup_days` must be 0 or more").at(&shown));
        }
        let mut targets = Vec::new();
        for (name, mut table) in file.targets {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(Error::config(format!(
                    "target name `{name}` may only use letters, digits, `-` and `_` (it names state files)"
                ))
                .at(&shown));
            }
            let ctx = |msg: String| Error::config(format!("[targets.{name}]: {msg}")).at(&shown);
            let kind = match table.remove("kind") {
                Some(toml::Value::String(kind)) => kind,
                Some(_) => return Err(ctx("`kind` must be a string".into())),
                None => {
                    return Err(ctx(
                        "missing `kind` (folder, http, command, wordpress, devto, mastodon)".into(),
                    ));
                }
            };
            let policy = take_policy(&mut table).map_err(ctx)?;
            targets.push(TargetConfig {
                name,
                kind,
                policy,
                settings: table,
                source: path.clone(),
            });
        }
        if targets.is_empty() {
            let mut settings = toml::Table::new();
            settings.insert("dir".into(), toml::Value::String("outbox".into()));
            targets.push(TargetConfig {
                name: "outbox".into(),
                kind: "folder".into(),
                policy: Policy::default(),
                settings,
                source: path.clone(),
            });
        }
        Ok(Config {
            content: root.join(file.content.unwrap_or_else(|| "content".into())),
            state: root.join(file.state.unwrap_or_else(|| "state".into())),
            root,
            timezone,
            catchup_days,
            targets,
        })
    }

    /// The targets named on the command line (all when none is named).
    pub fn select(&self, names: &[String]) -> Result<Vec<&TargetConfig>, Error> {
        for name in names {
            if !self.targets.iter().any(|t| &t.name == name) {
                let known: Vec<&str> = self.targets.iter().map(|t| t.name.as_str()).collect();
                return Err(Error::usage(format!(
                    "no target named `{name}` (configured: {})",
                    known.join(", ")
                )));
            }
        }
        Ok(self
            .targets
            .iter()
            .filter(|t| names.is_empty() || names.contains(&t.name))
            .collect())
    }

    /// A path as the user would write it: relative to the project folder when inside it.
    pub fn show(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root).unwrap_or(path).to_path_buf()
    }
}

fn parse_file(text: &str, path: &Path) -> Result<File, Error> {
    toml::from_str(text).map_err(|e| {
        let mut err = Error::config(e.message().trim().to_string()).at(path);
        if let Some(span) = e.span() {
            err = err.line(text[..span.start.min(text.len())].matches('\n').count() + 1);
        }
        err
    })
}

fn take_policy(table: &mut toml::Table) -> Result<Policy, String> {
    let mut policy = Policy::default();
    if let Some(v) = table.remove("retries") {
        policy.retries = v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n <= 10)
            .ok_or("`retries` must be a whole number from 0 to 10")?;
    }
    if let Some(v) = table.remove("confirm_polls") {
        policy.confirm_polls = v
            .as_integer()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=100).contains(n))
            .ok_or("`confirm_polls` must be a whole number from 1 to 100")?;
    }
    if let Some(v) = table.remove("dedup") {
        policy.dedup = match (v.as_bool(), v.as_str()) {
            (Some(true), _) => Dedup::BestEffort,
            (Some(false), _) => Dedup::Off,
            (_, Some("strict")) => Dedup::Strict,
            _ => return Err("`dedup` must be true, false or \"strict\"".into()),
        };
    }
    if let Some(v) = table.remove("settle_secs") {
        policy.settle =
            Some(seconds(&v).ok_or("`settle_secs` must be a number of seconds, 0 or more")?);
    }
    let secs = [
        ("backoff_secs", &mut policy.backoff),
        ("retry_after_cap_secs", &mut policy.retry_after_cap),
        ("confirm_delay_secs", &mut policy.confirm_delay),
        ("min_interval_secs", &mut policy.min_interval),
    ];
    for (key, slot) in secs {
        if let Some(v) = table.remove(key) {
            *slot = seconds(&v).ok_or(format!("`{key}` must be a number of seconds, 0 or more"))?;
        }
    }
    Ok(policy)
}

/// A duration given in (possibly fractional) seconds.
pub fn seconds(v: &toml::Value) -> Option<Duration> {
    let secs = v.as_float().or_else(|| v.as_integer().map(|n| n as f64))?;
    (secs.is_finite() && (0.0..=86_400.0).contains(&secs)).then(|| Duration::from_secs_f64(secs))
}
