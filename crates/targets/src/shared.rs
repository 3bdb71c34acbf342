//! Settings several kinds take, read from the target's table by the shared code and not by
//! each kind's own `Settings`: the network timeouts, and how a long post is cut (`long`). A
//! kind lists the groups it takes in its registry entry (`Kind::takes`); a kind that does
//! not list one refuses its keys as unknown.

use super::Context;
use crate::error::Error;
use crate::thread::Long;
use std::time::Duration;

/// `timeout_secs` (default 15) and `connect_timeout_secs` (default 10).
pub const TIMEOUTS: &[&str] = &["timeout_secs", "connect_timeout_secs"];
/// `long`, `numbering`, `max_parts` (docs/targets/bluesky.md, "Threads").
pub const LONG: &[&str] = &["long", "numbering", "max_parts"];

/// The target's timeouts: the whole request's and the connection's.
pub fn timeouts(ctx: &Context) -> Result<(Duration, Duration), Error> {
    let pick = |key: &str, default: u64| match ctx.target.settings.get(key) {
        None => Ok(Duration::from_secs(default)),
        Some(v) => config::seconds(v)
            .filter(|d| !d.is_zero())
            .ok_or_else(|| bad(ctx, key, format!("`{key}` must be a number of seconds"))),
    };
    Ok((pick(TIMEOUTS[0], 15)?, pick(TIMEOUTS[1], 10)?))
}

/// How a long post is cut: at the limit, or into a thread of this shape.
pub fn long(ctx: &Context) -> Result<Long, Error> {
    let table = &ctx.target.settings;
    let long = match table.get("long") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(ctx, "long", "`long` must be \"cut\" or \"thread\"".into()))?,
        ),
    };
    let numbering = match table.get("numbering") {
        None => None,
        Some(v) => Some(
            v.as_bool()
                .ok_or_else(|| bad(ctx, "numbering", "`numbering` must be true or false".into()))?,
        ),
    };
    let max_parts = match table.get("max_parts") {
        None => None,
        Some(v) => Some(
            v.as_integer()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    bad(
                        ctx,
                        "max_parts",
                        "`max_parts` must be a whole number".into(),
                    )
                })?,
        ),
    };
    let settings = crate::thread::Settings {
        long,
        numbering,
        max_parts,
    };
    settings.long().map_err(|msg| bad(ctx, "long", msg))
}

/// A config error naming the target's table, its file and the key's line.
fn bad(ctx: &Context, key: &str, msg: String) -> Error {
    Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
        .at(ctx.config.show(&ctx.target.source))
        .at_line(ctx.target.line_of(key))
}
