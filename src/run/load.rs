//! The selected targets' state files around a run: loaded (a link planted where the run will
//! write is refused), their journals folded in before the walk, and folded back after it.

use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::life::Exit;
use crate::say;
use crate::state::StateFile;
use crate::trace::Trace;
use std::path::Path;

/// The selected targets' state files, loaded (a torn line is noted).
pub(super) fn states(
    config: &Config,
    selected: &[&TargetConfig],
    shown_state: &Path,
) -> Result<Vec<StateFile>, Error> {
    let mut states = Vec::new();
    for cfg in selected {
        // Files written later in the run: a link planted there is refused before any send.
        let log = Trace::path(&config.state, &cfg.name);
        crate::fsutil::refuse_link(&log).map_err(|e| {
            Error::io(
                crate::error::Kind::State,
                &config.show(&log),
                "use the trace",
                &e,
            )
        })?;
        let state = StateFile::load(&config.state, &cfg.name, shown_state)?;
        if let Some(torn) = &state.torn {
            say::err(&format!("dayrun: note: {torn}"));
        }
        states.push(state);
    }
    Ok(states)
}

/// Fold each journal into its state file before the run; whether any line had changed.
pub(super) fn compact(states: &mut [StateFile]) -> Result<bool, Error> {
    let mut changed = false;
    for state in states {
        changed |= state.is_dirty();
        state.compact()?;
    }
    Ok(changed)
}

/// Fold the journal back even when a state write failed midway: what was recorded stays.
/// The links file is written again when a line changed or it is missing (exit 2 if it fails).
pub(super) fn fold_back(config: &Config, states: &mut [StateFile], mut changed: bool) -> Exit {
    for state in states {
        changed |= state.is_dirty();
        if let Err(e) = state.compact() {
            say::err(&format!("dayrun: {e}"));
        }
    }
    let missing = config.links_file.as_ref().is_some_and(|f| !f.exists());
    if (changed || missing)
        && let Err(e) = crate::links::write(config)
    {
        say::err(&format!("dayrun: {e}"));
        return Exit::Usage;
    }
    Exit::Ok
}
