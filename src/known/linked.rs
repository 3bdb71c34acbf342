//! A target whose template links to other targets' copies (`copies.NAME.url`): their lines for
//! the key, gathered just before the key is visited (those targets come first in the run's
//! order, their queued keys published first), and the state of those not in the run. Where
//! each copy then stands is `copies.rs`'s to say.

use super::{Copies, Known};
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::life::KeyLine;
use crate::state::StateFile;
use crate::template::Template;
use std::collections::BTreeMap;
use std::path::Path;

/// The state of each target a selected target's template links to that is not in this run
/// (not selected with `--target`, or its setup broken): read once, never written.
pub(crate) fn others(
    config: &Config,
    running: &[&TargetConfig],
    shown: &Path,
) -> Result<BTreeMap<String, StateFile>, Error> {
    let mut others = BTreeMap::new();
    let linked = running
        .iter()
        .filter_map(|cfg| cfg.template.as_ref())
        .flat_map(|t| t.uses().copies.keys());
    for name in linked {
        if !running.iter().any(|c| &c.name == name) && !others.contains_key(name) {
            others.insert(name.clone(), StateFile::load(&config.state, name, shown)?);
        }
    }
    Ok(others)
}

/// The state of each target `cfg`'s template links to, read only (for `status`).
pub(crate) fn linked_states(
    config: &Config,
    cfg: &TargetConfig,
    shown: &Path,
) -> Result<BTreeMap<String, StateFile>, Error> {
    others(config, &[cfg], shown)
}

impl Known {
    /// Before a key is visited: the line for it of each target `template` links to
    /// (`line_of`: by target name), in place of the last key's. `None`: nothing to gather (no
    /// template, or a key the pass passes over).
    pub(crate) fn gather(
        &mut self,
        template: Option<&Template>,
        mut line_of: impl FnMut(&str) -> Result<Option<KeyLine>, Error>,
    ) -> Result<(), Error> {
        self.upstream.clear();
        for name in template.into_iter().flat_map(|t| t.uses().copies.keys()) {
            self.upstream.insert(name.clone(), line_of(name)?);
        }
        Ok(())
    }

    /// Where each copy `template` needs stands for the key gathered, by target name; `held`:
    /// the key is past its catch-up window (`life::past_window`).
    pub(crate) fn copies(&self, template: Option<&Template>, held: bool) -> Copies {
        let Some(template) = template else {
            return Copies::default();
        };
        let line_of = |name: &str| self.upstream.get(name).and_then(Option::clone);
        Copies(crate::template::upstream(template, line_of, held))
    }
}
