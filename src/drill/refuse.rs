//! What the drill refuses before anything is sent, each saying why: a kind the registry says it
//! cannot drill (`Kind::undrillable`: dev.to only unpublishes, a folder has nothing to remove,
//! Nostr's WebSocket is out of the faults' reach), a target that cannot look a key up (the
//! drill could prove nothing there) or cannot remove a copy; and a drill nobody said yes to.

use super::Options;
use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::targets::{self, Context};
use std::io::IsTerminal;
use std::time::Duration;

/// The target named `name`, when it can be drilled, and its timeout (nothing is sent).
pub fn target<'a>(
    config: &'a Config,
    clock: &Clock,
    name: &str,
) -> Result<(&'a TargetConfig, Duration), Error> {
    let cfg = config.select(&[name.to_string()])?[0];
    let refuse = |why: String, hint: &str| {
        Err(Error::usage(format!("drill --target {name}: {why}; nothing was sent")).hint(hint))
    };
    if let Some((why, hint)) = targets::kinds::find(&cfg.kind).and_then(|k| k.undrillable) {
        return refuse(why.to_string(), hint);
    }
    let ctx = Context {
        config,
        target: cfg,
        clock,
    };
    let mut built = targets::build(&ctx)?;
    if !built.can.can_find {
        return refuse(
            format!(
                "a {} target without a lookup cannot tell whether a post whose answer was lost is there: the drill could prove nothing",
                cfg.kind
            ),
            "give it a lookup first (http: `list_url`; command: `confirm`)",
        );
    }
    if let Err(err) = built.target.as_retract() {
        return refuse(
            format!("the drill removes its posts, and this target cannot: {err}"),
            "give it a way to remove a post (http: `delete_url`; command: `retract`)",
        );
    }
    Ok((cfg, built.target.timeout()))
}

/// Whether a person said yes on the terminal; no terminal: refused, saying so.
pub fn confirmed(options: &Options) -> Result<bool, Error> {
    if !std::io::stdin().is_terminal() {
        err!(
            "dayrun: drill publishes {} throwaway posts to {} (followers see them): add --yes to confirm (stdin is not a terminal, so dayrun cannot ask)",
            options.rounds,
            options.target
        );
        return Ok(false);
    }
    crate::ask::yes(&format!(
        "Publish {} drill posts to {} and delete them again? Followers may see them: use a test account. [y/N] ",
        options.rounds, options.target
    ))
}
