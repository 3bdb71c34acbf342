//! `dayrun retract`: what to ask before taking posts back. The removal itself runs through the
//! runner, with the lock, the pending line and the trace of every other write.

use crate::config::Config;
use crate::error::Error;
use crate::plan::Plan;
use std::io::IsTerminal;

/// Whether to go on: on a terminal, asked when more than one target would lose the post;
/// without one, `--yes` is required (a timer must never remove posts by accident).
pub fn confirmed(config: &Config, plan: &Plan) -> Result<bool, Error> {
    let targets: Vec<&str> = config
        .select(&plan.targets)?
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    if !std::io::stdin().is_terminal() {
        err!(
            "dayrun: retract removes published posts: add --yes to confirm (stdin is not a terminal, so dayrun cannot ask); --dry-run shows what would go"
        );
        return Ok(false);
    }
    if targets.len() < 2 {
        return Ok(true);
    }
    let keys: Vec<String> = plan.keys.iter().map(ToString::to_string).collect();
    crate::ask::yes(&format!(
        "Retract {} from {}? [y/N] ",
        keys.join(", "),
        targets.join(", ")
    ))
}
