//! The plain `Config`: command-line flags merged over `dayrun.toml` merged over defaults.
#![cfg_attr(test, allow(clippy::too_many_lines))]

mod links_file;
mod order;
mod policy;
mod rules;
mod static_dirs;
pub mod templates;

use crate::error::Error;
use crate::text::closest;
use base::{error, fsutil, text};
use content::template;
use jiff::tz::TimeZone;
use policy::take_policy;
pub use policy::{Dedup, POLICY_KEYS, Policy, seconds};
pub use rules::Capabilities;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Everything a command needs to know, resolved to absolute paths and typed values.
#[derive(Debug, Clone)]
pub struct Config {
    /// The project folder (`-C DIR`, else the current folder): where `dayrun.toml` and a
    /// relative `--config` are looked for, and what paths are shown relative to.
    pub root: PathBuf,
    /// The config file's folder: relative paths from the file start here (`from_file`).
    pub base: PathBuf,
    /// The config file that was read, as shown in messages (`None`: none, defaults apply).
    pub file: Option<PathBuf>,
    /// Where the dated posts live (`content`, default `content/`).
    pub content: PathBuf,
    /// Where state files, journals, trace logs and the lock live (`state`, default `state/`).
    pub state: PathBuf,
    /// The zone that decides "today" and the offsets of timestamps (`timezone`, default system).
    pub timezone: TimeZone,
    /// Due keys older than this many days are stale unless backfilled (`catchup_days`, default 3).
    pub catchup_days: i64,
    /// The names that make a post (`keys`, default `["date"]`: `YYYY-MM-DD.md` only).
    pub keys: content::content::Names,
    /// A post is due at the time its front matter's `date` names (`times = "front-matter"`);
    /// `false` (the default): at its day's start, whatever the front matter says.
    pub times: bool,
    /// The folders a site-root image path (`/img/x.png`) is looked for in after the content
    /// folder, in order (`static_dirs`, default none): each a folder inside the project.
    pub static_dirs: Vec<PathBuf>,
    /// Where each run that changed something writes every key's URLs and ids per target, as
    /// JSON for a static site (`links_file`, default: none).
    pub links_file: Option<PathBuf>,
    /// Configured targets, by name (default: one folder target `outbox` writing to `outbox/`).
    pub targets: Vec<TargetConfig>,
    /// The watch settings: the metrics file, the ping (docs/monitoring.md).
    pub watch: Watch,
}

/// What a run tells the monitors beside it (docs/monitoring.md).
#[derive(Debug, Clone)]
pub struct Watch {
    /// The `project` label that keeps two projects on one host apart (`project`, default the
    /// project folder's name).
    pub project: String,
    /// Where every run writes its metrics for node_exporter's textfile collector
    /// (`metrics_file`, or `run --metrics FILE`; default none).
    pub metrics_file: Option<PathBuf>,
    /// The file that holds the healthchecks-style ping URL, a secret (`ping_url_file`; default
    /// none).
    pub ping_url_file: Option<PathBuf>,
    /// How long one ping may take, all in (`ping_timeout_secs`, default 10).
    pub ping_timeout: std::time::Duration,
}

/// A ping's time, all in, unless `ping_timeout_secs` says otherwise.
pub const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

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
    /// The line of the table's header in `source` (`None` for the default target).
    pub line: Option<usize>,
    /// The line of each of the table's keys in `source`, for error messages.
    pub key_lines: BTreeMap<String, usize>,
    /// `template` / `template_file`, compiled (`templates`).
    pub template: Option<crate::template::Template>,
}

/// What reading a config needs to know of one kind of target. The registry of kinds
/// (`targets::kinds`) sits above config, so the command hands these in
/// (`targets::kinds::known`).
#[derive(Debug, Clone, Copy)]
pub struct KnownKind {
    /// What `kind = "…"` says.
    pub name: &'static str,
    /// A target of this kind takes a template (`template`, `template_file`).
    pub templated: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    content: Option<PathBuf>,
    state: Option<PathBuf>,
    timezone: Option<String>,
    catchup_days: Option<i64>,
    keys: Option<Vec<String>>,
    times: Option<String>,
    static_dirs: Option<static_dirs::Written>,
    links_file: Option<PathBuf>,
    project: Option<String>,
    metrics_file: Option<PathBuf>,
    ping_url_file: Option<PathBuf>,
    ping_timeout_secs: Option<u64>,
    #[serde(default)]
    targets: BTreeMap<String, toml::Table>,
}

/// The config file as read: where it is, how to show it, and its text (`None`: no file).
struct Source {
    path: PathBuf,
    shown: PathBuf,
    text: Option<String>,
}

impl Config {
    /// Build the config for project folder `root`, reading `config` (default `root/dayrun.toml`,
    /// a named file relative to `root`). A missing default file means defaults; a missing named
    /// file is an error. Relative paths in the file (and the defaults) start at its folder.
    /// `kinds`: every kind of target there is.
    pub fn load(root: &Path, config: Option<&Path>, kinds: &[KnownKind]) -> Result<Config, Error> {
        let (config, mut problems) = Config::load_all(root, config, kinds)?;
        match problems.is_empty() {
            true => Ok(config),
            false => Err(problems.remove(0)),
        }
    }

    /// `load`, for `check`: what is wrong in one target's table or template does not stop the
    /// reading. That target is left out of the config, and its error is in the list (the
    /// first is the one `load` answers); `Err` is a problem that leaves nothing to read.
    pub fn load_all(
        root: &Path,
        config: Option<&Path>,
        kinds: &[KnownKind],
    ) -> Result<(Config, Vec<Error>), Error> {
        let root = std::path::absolute(root)
            .map_err(|e| Error::io(crate::error::Kind::Config, root, "resolve the folder", &e))?;
        if !root.is_dir() {
            return Err(Error::config("no such project folder").at(&root));
        }
        let source = read_source(&root, config)?;
        let shown = &source.shown;
        let file = match &source.text {
            Some(text) => parse_file(text, shown)?,
            None => File::default(),
        };
        let timezone = match &file.timezone {
            None => TimeZone::system(),
            // Asking the zone database for UTC makes jiff list every zone file on the machine.
            Some(name) if ["UTC", "Etc/UTC"].contains(&name.as_str()) => TimeZone::UTC,
            Some(name) => TimeZone::get(name).map_err(|_| {
                Error::config(format!("unknown time zone `{name}`"))
                    .at(shown)
                    .hint("use an IANA name such as `Europe/Berlin` or `UTC`")
            })?,
        };
        let catchup_days = file.catchup_days.unwrap_or(life::defaults::CATCHUP_DAYS);
        if catchup_days < 0 {
            return Err(Error::config("`catchup_days` must be 0 or more").at(shown));
        }
        let keys = names(file.keys.as_deref()).map_err(|e| e.at(shown))?;
        let times = times(file.times.as_deref()).map_err(|e| e.at(shown))?;
        let base = source
            .path
            .parent()
            .map_or_else(|| root.clone(), Path::to_path_buf);
        let watch = watch(&file, &root, &base).map_err(|e| e.at(shown))?;
        let (targets, mut problems) = read_targets(&source, file.targets, &base, &root, kinds);
        let place = static_dirs::Place {
            text: source.text.as_deref().unwrap_or_default(),
            shown,
            base: &base,
            project: &root,
        };
        let static_dirs = static_dirs::read(file.static_dirs, &place)?;
        let content = base.join(file.content.unwrap_or_else(|| "content".into()));
        let state = base.join(file.state.unwrap_or_else(|| "state".into()));
        let config_file = source.text.is_some().then_some(source.path.as_path());
        let written = [
            ("links_file", &file.links_file),
            ("metrics_file", &file.metrics_file),
        ];
        for (setting, path) in written {
            if let Some(path) = path {
                let place = links_file::Place {
                    state: &state,
                    content: &content,
                    config: config_file,
                };
                let placed = place.check(setting, &base.join(path), path);
                problems.extend(placed.err().map(|e| e.at(shown)));
            }
        }
        let config = Config {
            links_file: file.links_file.map(|f| base.join(f)),
            content,
            state,
            file: source.text.is_some().then(|| source.shown.clone()),
            base,
            root,
            timezone,
            catchup_days,
            keys,
            times,
            static_dirs,
            targets,
            watch,
        };
        Ok((config, problems))
    }

    /// `run --metrics FILE` (relative to the project folder) over `metrics_file`: refused
    /// where it would replace one of dayrun's own files or a post.
    pub fn metrics_to(&mut self, written: &Path) -> Result<(), Error> {
        self.watch.metrics_file = Some(self.output("--metrics", written)?);
        Ok(())
    }

    /// A file named with `flag` on the command line that dayrun writes for others, relative
    /// to the project folder: refused where it would replace one of dayrun's own files or a
    /// post.
    pub fn output(&self, flag: &str, written: &Path) -> Result<PathBuf, Error> {
        let path = self.root.join(written);
        let file = self.file.as_ref().map(|f| self.root.join(f));
        let place = links_file::Place {
            state: &self.state,
            content: &self.content,
            config: file.as_deref(),
        };
        place.check(flag, &path, written)?;
        Ok(path)
    }

    /// A path written in the config file, resolved as the file means it: relative paths start
    /// at the file's folder (as Cargo does), absolute ones stay as they are.
    pub fn from_file(&self, path: &Path) -> PathBuf {
        self.base.join(path)
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

    /// What the catalog reads (the content folder, the names, the folders images may come
    /// from): every command scans with this one value, so they cannot disagree.
    pub fn sources(&self) -> content::content::Sources {
        content::content::Sources {
            root: self.content.clone(),
            project: self.root.clone(),
            names: self.keys,
            static_dirs: self.static_dirs.clone(),
            times: self.times.then(|| self.timezone.clone()),
        }
    }

    /// A path as the user would write it: relative to the project folder when inside it.
    pub fn show(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root).unwrap_or(path).to_path_buf()
    }
}

impl TargetConfig {
    /// The line to show for an error about `key`: the key's own, else the table's.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.key_lines.get(key).copied().or(self.line)
    }

    /// The one target used when the file names none: a folder target `outbox`.
    fn outbox(source: &Path) -> TargetConfig {
        let mut settings = toml::Table::new();
        settings.insert("dir".into(), toml::Value::String("outbox".into()));
        TargetConfig {
            name: "outbox".into(),
            kind: "folder".into(),
            policy: Policy::default(),
            settings,
            source: source.to_path_buf(),
            line: None,
            key_lines: BTreeMap::new(),
            template: None,
        }
    }

    /// Check the name, and take `kind` and the delivery keys out of the table.
    fn typed(mut self, shown: &Path, kinds: &[KnownKind]) -> Result<TargetConfig, Error> {
        let name = self.name.clone();
        let bad = |msg: String, line: Option<usize>| {
            Error::config(format!("[targets.{name}]: {msg}"))
                .at(shown)
                .at_line(line)
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(Error::config(format!(
                "target name `{name}` may only use letters, digits, `-` and `_` (it names state files)"
            ))
            .at(shown)
            .at_line(self.line));
        }
        self.kind = match self.settings.remove("kind") {
            Some(toml::Value::String(kind)) => kind,
            Some(_) => {
                return Err(bad("`kind` must be a string".into(), self.line_of("kind")));
            }
            None => {
                let typo = self.kind_typo(kinds);
                let found = typo
                    .as_ref()
                    .map(|key| format!(" (found `{key}`: a typo?)"))
                    .unwrap_or_default();
                let line = typo.as_deref().map_or(self.line, |key| self.line_of(key));
                return Err(bad(format!("missing `kind`{found}"), line).hint(format!(
                    "`kind` is one of: {}",
                    kinds.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                )));
            }
        };
        self.policy =
            take_policy(&mut self.settings).map_err(|(key, msg)| bad(msg, self.line_of(key)))?;
        Ok(self)
    }

    /// A key that was probably meant as `kind`: spelled like it, or holding a kind's name.
    fn kind_typo(&self, kinds: &[KnownKind]) -> Option<String> {
        self.settings
            .iter()
            .filter(|(key, _)| !POLICY_KEYS.contains(&key.as_str()))
            .find(|(key, value)| {
                closest(key, ["kind"]).is_some()
                    || value
                        .as_str()
                        .is_some_and(|v| kinds.iter().any(|k| k.name == v))
            })
            .map(|(key, _)| key.clone())
    }
}

/// Every `[targets.NAME]` table typed, its template compiled, in dependency order; with the
/// error of each table that could not be (that target left out). No table: the default target.
fn read_targets(
    source: &Source,
    tables: BTreeMap<String, toml::Table>,
    base: &Path,
    root: &Path,
    kinds: &[KnownKind],
) -> (Vec<TargetConfig>, Vec<Error>) {
    let shown = &source.shown;
    if tables.is_empty() {
        return (vec![TargetConfig::outbox(&source.path)], Vec::new());
    }
    let names: Vec<String> = tables.keys().cloned().collect();
    let mut lines = source.text.as_deref().map(target_lines).unwrap_or_default();
    let (mut targets, mut problems) = (Vec::new(), Vec::new());
    for (name, table) in tables {
        let (line, key_lines) = lines.remove(&name).unwrap_or_default();
        let target = TargetConfig {
            name,
            kind: String::new(),
            policy: Policy::default(),
            settings: table,
            source: source.path.clone(),
            line,
            key_lines,
            template: None,
        };
        match target.typed(shown, kinds) {
            Ok(target) => targets.push(target),
            Err(err) => problems.push(err),
        }
    }
    // Templates are read from the config's folder; the targets go in dependency order.
    problems.extend(templates::attach(
        &mut targets,
        base,
        root,
        shown,
        &names,
        kinds,
    ));
    (targets, problems)
}

/// Find and read the config file. A missing default file is no error: `text` is `None`.
fn read_source(root: &Path, config: Option<&Path>) -> Result<Source, Error> {
    let (path, required) = match config {
        Some(p) => (root.join(p), true),
        None => (root.join("dayrun.toml"), false),
    };
    // Errors name the file as the user would: relative to the project folder.
    let shown = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
    let read = crate::fsutil::read_regular(&path, 1024 * 1024, true).and_then(|bytes| {
        String::from_utf8(bytes)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
    });
    let text = match read {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => None,
        Err(e) => {
            return Err(Error::io(
                crate::error::Kind::Config,
                &shown,
                "read the config",
                &e,
            ));
        }
    };
    Ok(Source { path, shown, text })
}

/// The watch settings of the file: the project's name (else its folder's), the metrics file
/// and the ping's URL file resolved from the file's folder, the ping's time.
fn watch(file: &File, root: &Path, base: &Path) -> Result<Watch, Error> {
    let project = match &file.project {
        Some(name) => name.clone(),
        None => root
            .file_name()
            .map_or_else(|| "dayrun".into(), |n| n.to_string_lossy().into_owned()),
    };
    let ping_timeout = match file.ping_timeout_secs {
        None => PING_TIMEOUT,
        Some(0) => return Err(Error::config("`ping_timeout_secs` must be 1 or more")),
        Some(secs) => std::time::Duration::from_secs(secs),
    };
    Ok(Watch {
        project,
        metrics_file: file.metrics_file.as_ref().map(|f| base.join(f)),
        ping_url_file: file.ping_url_file.as_ref().map(|f| base.join(f)),
        ping_timeout,
    })
}

/// `times = "front-matter"`: a post is due at the time its front matter's `date` names.
fn times(times: Option<&str>) -> Result<bool, Error> {
    match times {
        None => Ok(false),
        Some("front-matter") => Ok(true),
        Some(other) => Err(Error::config(format!(
            "`times`: `{}` is not where a post's time is read from (write \"front-matter\", or leave it out: a post is due at its day's start)",
            life::outside::escape(other, 40)
        ))),
    }
}

/// `keys = [...]`: `"date"` (always; today's names), `"slug"` for `YYYY-MM-DD-slug` names,
/// `"week"` for `YYYY-Www` and `"month"` for `YYYY-MM`.
fn names(keys: Option<&[String]>) -> Result<content::content::Names, Error> {
    let Some(keys) = keys else {
        return Ok(content::content::Names::default());
    };
    let mut names = content::content::Names::default();
    for key in keys {
        match key.as_str() {
            "date" => {}
            "slug" => names.slugs = true,
            "week" => names.weeks = true,
            "month" => names.months = true,
            other => {
                return Err(Error::config(format!(
                    "`keys`: `{}` is not a kind of key (write \"date\", and any of \"slug\", \"week\" and \"month\")",
                    life::outside::escape(other, 40)
                )));
            }
        }
    }
    if !keys.iter().any(|k| k == "date") {
        return Err(Error::config(
            "`keys` must hold \"date\": a post named YYYY-MM-DD.md is always one",
        ));
    }
    Ok(names)
}

fn parse_file(text: &str, path: &Path) -> Result<File, Error> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().trim().to_string();
        let line = e.span().map(|span| line_at(text, span.start));
        // serde names neither the key of a value of the wrong type nor a key it might be.
        let message = match (message.strip_prefix("unknown field `"), line) {
            (Some(rest), _) => {
                let (key, expected) = rest.split_once('`').unwrap_or((rest, ""));
                let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
                match closest(key, known.iter().copied()) {
                    Some(guess) => format!("{message} (did you mean `{guess}`?)"),
                    None => message,
                }
            }
            (None, Some(line)) if message.starts_with("invalid ") => {
                let key = text
                    .lines()
                    .nth(line - 1)
                    .and_then(|l| l.split_once('='))
                    .map(|(key, _)| key.trim().trim_matches('"'))
                    .filter(|key| !key.is_empty());
                match key {
                    Some(key) => format!("`{key}`: {message}"),
                    None => message,
                }
            }
            _ => message,
        };
        let mut err = Error::config(message).at(path);
        if let Some(line) = line {
            err = err.line(line);
            // `[[targets]]`, as other tools spell a list of tables.
            if text.lines().nth(line - 1).map(str::trim) == Some("[[targets]]") {
                err = err.hint("each target is a table named after it: `[targets.NAME]`");
            }
        }
        err
    })
}

/// The 1-based line of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Per target table: the line of its name (the `[targets.NAME]` header) and of each key in it.
fn target_lines(text: &str) -> BTreeMap<String, (Option<usize>, BTreeMap<String, usize>)> {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return BTreeMap::new();
    };
    let targets = doc
        .get_ref()
        .iter()
        .find(|(key, _)| key.get_ref() == "targets")
        .and_then(|(_, value)| value.get_ref().as_table());
    let Some(targets) = targets else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for (name, table) in targets {
        let keys = table
            .get_ref()
            .as_table()
            .into_iter()
            .flatten()
            .map(|(key, _)| (key.get_ref().to_string(), line_at(text, key.span().start)))
            .collect();
        out.insert(
            name.get_ref().to_string(),
            (Some(line_at(text, name.span().start)), keys),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_one_or_two_slips_only() {
        let cases = [
            ("retires", Some("retries")),
            ("backof_secs", Some("backoff_secs")),
            ("dedupe", Some("dedup")),
            ("knd", Some("kind")),
            ("kidn", Some("kind")),
            ("speed", None),
            ("url", None),
            ("", None),
        ];
        for (word, want) in cases {
            let known = POLICY_KEYS.iter().copied().chain(["kind", "dir"]);
            assert_eq!(closest(word, known), want, "{word}");
        }
    }
}
