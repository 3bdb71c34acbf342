//! Where a drill lives: `state/drill/<target>/`, its posts in `content/`, its state, journal
//! and trace in `state/`, the runs' lines and the faults in `drill.log`. Inside the project's
//! state folder (so the project's lock covers it and a look finds it), out of git by its own
//! `.gitignore` (`state/drill/.gitignore`: `*`), and out of the merge driver's way: its files
//! are not `state/*.state` or `state/*.log`, which `.gitattributes` names. The previous drill
//! of the target is cleared when the next starts.

use crate::config::{Config, TargetConfig};
use crate::error::{Error, Kind};
use crate::life::{Key, Record};
use crate::state::StateFile;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One target's drill folder and the config its runs use.
pub struct Folder {
    /// `state/drill/<target>/`.
    pub dir: PathBuf,
    /// The project's config with the drill's content and state folders, the one target, no
    /// links file, and drill keys taken (`Names::drill`).
    pub config: Config,
    pub name: String,
    /// `drill.log`: the runs' lines and the faults.
    pub log: PathBuf,
}

impl Folder {
    /// The drill's folder, cleared of an earlier drill's, and its config.
    pub fn make(project: &Config, cfg: &TargetConfig) -> Result<Folder, Error> {
        let top = project.state.join("drill");
        let dir = top.join(&cfg.name);
        let io = |doing: &str, path: &Path, e: std::io::Error| {
            Error::io(Kind::State, &project.show(path), doing, &e)
        };
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| io("clear the last drill", &dir, e))?;
        }
        for sub in ["content", "state"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path).map_err(|e| io("create", &path, e))?;
        }
        let ignore = top.join(".gitignore");
        std::fs::write(
            &ignore,
            "# dayrun drill's throwaway state: never committed\n*\n",
        )
        .map_err(|e| io("write", &ignore, e))?;
        let mut config = project.clone();
        config.content = dir.join("content");
        config.state = dir.join("state");
        config.targets = vec![cfg.clone()];
        config.links_file = None;
        // The monitors watch the project's timer: a drill's runs write no metrics and ping
        // nothing (docs/monitoring.md).
        config.watch.metrics_file = None;
        config.watch.ping_url_file = None;
        config.keys.drill = true;
        Ok(Folder {
            log: dir.join("drill.log"),
            dir,
            config,
            name: cfg.name.clone(),
        })
    }

    /// A path as the user would write it (from the project folder).
    pub fn show(&self, path: &Path) -> PathBuf {
        self.config.show(path)
    }

    /// Write the drill's post for `key`: plainly a drill's, in its title and its body.
    pub fn write_post(&self, key: Key, text: &str) -> Result<(), Error> {
        let path = self.config.content.join(format!("{key}.md"));
        std::fs::write(&path, text)
            .map_err(|e| Error::io(Kind::State, &self.show(&path), "write the drill post", &e))
    }

    /// The key's line in the drill's state, if any.
    pub fn record(&self, key: Key) -> Result<Option<Record>, Error> {
        let shown = self.show(&self.config.state);
        let state = StateFile::load(&self.config.state, &self.name, &shown)?;
        Ok(state.get(key).cloned())
    }

    /// The key's lines in the drill's trace (`state/<target>.log`).
    pub fn traced(&self, key: Key) -> Vec<String> {
        let path = crate::trace::Trace::path(&self.config.state, &self.name);
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let needle = format!(" {key} ");
        text.lines()
            .filter(|l| l.contains(&needle))
            .map(str::to_string)
            .collect()
    }

    /// Run `f` with every line it says going to `drill.log` only; its exit code.
    pub fn quietly(&self, f: impl FnOnce() -> i32) -> i32 {
        let logged = crate::say::to_file(&self.log, &self.show(&self.log)).is_ok();
        let code = f();
        if logged {
            crate::say::finish(0);
        }
        code
    }

    /// Add `line` to `drill.log`.
    pub fn note(&self, line: &str) {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log);
        if let Ok(mut file) = file {
            let _ = writeln!(file, "{line}");
        }
    }
}
