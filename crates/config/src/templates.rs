//! Reading every target's template when the config is read: the text inline or from a file
//! beside the config, only for kinds that take one, compiled by `template::compile`; then the
//! targets in dependency order (`order`).

use super::{KnownKind, TargetConfig};
use crate::error::Error;
use crate::template::{Place, Template};
use std::path::{Path, PathBuf};

/// The longest template file read.
const MAX_FILE: u64 = 256 * 1024;

/// Take `template` / `template_file` out of every target's table, compile them, and put the
/// targets in dependency order (`order::sort`). `base`: the config's folder, where template
/// files are read from; `root`: what paths are shown relative to; `config`: the config file as
/// shown; `names`: every target the config names (a copy of one left out for its own error is
/// no error here); `kinds`: which kinds take a template. A target whose template is wrong is
/// left out, and its error returned with the others, in the targets' order; then a cycle's.
pub fn attach(
    targets: &mut Vec<TargetConfig>,
    base: &Path,
    root: &Path,
    config: &Path,
    names: &[String],
    kinds: &[KnownKind],
) -> Vec<Error> {
    let mut problems = Vec::new();
    targets.retain_mut(|cfg| match load(cfg, base, root, config, names, kinds) {
        Ok(template) => {
            cfg.template = template;
            true
        }
        Err(err) => {
            problems.push(err);
            false
        }
    });
    problems.extend(super::order::sort(targets, config).err());
    problems
}

/// Take the target's template out of its table and compile it: `None` when it sets none.
fn load(
    cfg: &mut TargetConfig,
    base: &Path,
    root: &Path,
    config: &Path,
    names: &[String],
    kinds: &[KnownKind],
) -> Result<Option<Template>, Error> {
    let inline = cfg.settings.remove("template");
    let file = cfg.settings.remove("template_file");
    let name = cfg.name.clone();
    let bad = |key: &str, msg: String| {
        Error::config(format!("[targets.{name}]: {msg}"))
            .at(config)
            .at_line(cfg.line_of(key))
    };
    let key = match (&inline, &file) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(bad(
                "template_file",
                "set `template` or `template_file`, not both".into(),
            ));
        }
        (Some(_), None) => "template",
        (None, Some(_)) => "template_file",
    };
    takes_template(&cfg.kind, kinds, key, &bad)?;
    let (source, place) = match (inline, file) {
        (Some(toml::Value::String(text)), _) => (
            text,
            Place {
                what: format!("[targets.{name}] template"),
                path: config.to_path_buf(),
                key_line: cfg.line_of("template"),
            },
        ),
        (_, Some(toml::Value::String(file))) => {
            let (text, shown) = read_file(base, root, &file, &bad)?;
            let place = Place {
                what: format!("[targets.{name}] template_file"),
                path: shown,
                key_line: None,
            };
            (text, place)
        }
        _ => return Err(bad(key, format!("`{key}` must be a string"))),
    };
    let link = cfg.settings.get("link").is_some_and(toml::Value::is_str);
    crate::template::compile(source, place, &name, names, link).map(Some)
}

/// Refuse a template on a target of a kind that takes none (`key` names the setting).
fn takes_template(
    kind: &str,
    kinds: &[KnownKind],
    key: &str,
    bad: &dyn Fn(&str, String) -> Error,
) -> Result<(), Error> {
    if let Some(kind) = kinds.iter().find(|k| k.name == kind)
        && !kind.templated
    {
        let takers: Vec<&str> = kinds
            .iter()
            .filter(|k| k.templated)
            .map(|k| k.name)
            .collect();
        return Err(bad(
            key,
            format!(
                "a {} target takes no template (these do: {})",
                kind.name,
                takers.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Read the template file `file` (below `base`, at most `MAX_FILE` bytes of UTF-8): its text,
/// and its path as shown (relative to `root`).
fn read_file(
    base: &Path,
    root: &Path,
    file: &str,
    bad: &dyn Fn(&str, String) -> Error,
) -> Result<(String, PathBuf), Error> {
    let path = base.join(file);
    let shown = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
    let text = crate::fsutil::read_regular(&path, MAX_FILE, true)
        .and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
        })
        .map_err(|e| {
            let e = match e.kind() {
                std::io::ErrorKind::FileTooLarge => std::io::Error::other(format!(
                    "more than the {} KiB a template may have",
                    MAX_FILE / 1024
                )),
                _ => e,
            };
            bad(
                "template_file",
                format!("cannot read the template {}: {e}", shown.display()),
            )
        })?;
    Ok((text, shown))
}
