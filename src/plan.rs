//! What the command line asked of a run (`run`, `retry`, `retract`): the mode, the keys, the
//! targets and whether it is a dry run. The run command builds it; every target's pass reads it.

use crate::life::Key;
use crate::life::Mode;

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    pub mode: Mode,
    /// Print every decision; write nothing, send nothing.
    pub dry_run: bool,
    /// Only these keys (empty: all). Named keys are never stale.
    pub keys: Vec<Key>,
    /// Only these targets (empty: all).
    pub targets: Vec<String>,
}

impl Plan {
    /// A plain `run`.
    pub fn run() -> Plan {
        Plan {
            mode: Mode::Run { backfill: false },
            dry_run: false,
            keys: Vec::new(),
            targets: Vec::new(),
        }
    }

    /// Whether keys past the catch-up window are published (`run --backfill`, or a retry).
    pub fn backfill(&self) -> bool {
        !matches!(self.mode, Mode::Run { backfill: false })
    }
}
