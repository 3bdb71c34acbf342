//! `status --check`: one line in the monitoring-plugin convention (`DAYRUN OK - … | perfdata`)
//! and its exit: 0 OK (nothing needs a person), 1 WARNING (failures the next run retries, keys
//! waiting, a credential that expires within 7 days), 2 CRITICAL (a key needs a person: what a run would exit 1 or 3 for), 3 UNKNOWN
//! (a config or state error). Read from the same facts as the metrics (`facts.rs`).

use super::facts::{Collect, Facts};
use super::judge;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::Error;
use crate::life::Exit;
use std::io::Write;

/// A plugin's exit codes.
pub(crate) const OK: i32 = 0;
pub(crate) const WARNING: i32 = 1;
pub(crate) const CRITICAL: i32 = 2;
pub(crate) const UNKNOWN: i32 = 3;

/// Warn this many seconds before a credential expires (7 days).
const EXPIRING: i64 = 7 * 86_400;

/// The most of the line's text (before the performance data), in characters.
const MAX_TEXT: usize = 600;

/// Judge every key, print the one line, answer with the plugin's exit code.
pub(crate) fn run(config: &Config, clock: &Clock, names: &[String], out: &mut impl Write) -> i32 {
    let mut facts = Collect::default();
    let (code, line) = match judge::judge(config, clock, names, true, &mut facts) {
        Err(err) => unknown(&err),
        Ok(judged) => line(judged.exit, &judged.said, &facts.targets, clock),
    };
    // A reader that went away changes nothing of the answer.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    code
}

/// The line of a check that could not judge: UNKNOWN, with why.
pub(crate) fn unknown(err: &Error) -> (i32, String) {
    let why = flat(&err.to_string());
    (
        UNKNOWN,
        format!("DAYRUN UNKNOWN - {why} | {}", perfdata(&[], 0)),
    )
}

/// The line and its code, from the exit a run would leave, what was said beside the rows
/// and each target's facts.
fn line(exit: Exit, said: &[String], targets: &[Facts], clock: &Clock) -> (i32, String) {
    let sum = |f: fn(&Facts) -> u64| targets.iter().map(f).sum::<u64>();
    let (keys, needs, retrying, waiting) = (
        sum(Facts::total),
        sum(|f| f.needs_person),
        sum(|f| f.retrying),
        sum(|f| f.waiting),
    );
    let now = clock.instant();
    let perf = perfdata(targets, now.as_second());
    let first_said = said.first().map(|s| flat(s));
    let soon = expiring(targets, now);
    let (code, text) = match exit {
        Exit::Usage => (
            UNKNOWN,
            first_said.unwrap_or_else(|| "a config or state error: run `dayrun status`".into()),
        ),
        Exit::Auth | Exit::NeedsHuman => (CRITICAL, critical(needs, said, targets)),
        _ if soon.is_some() => (WARNING, soon.unwrap_or_default()),
        _ if retrying + waiting > 0 || exit == Exit::RetryLater => (
            WARNING,
            format!(
                "{retrying} failure(s) the next run retries, {waiting} key(s) waiting for the next run; nothing needs a person yet"
            ),
        ),
        _ => (
            OK,
            format!(
                "{keys} key(s) on {} target(s), nothing needs a person",
                targets.len()
            ),
        ),
    };
    let word = ["OK", "WARNING", "CRITICAL", "UNKNOWN"][code as usize];
    let text: String = text.chars().take(MAX_TEXT).collect();
    (code, format!("DAYRUN {word} - {text} | {perf}"))
}

/// The first target whose credential expires within `EXPIRING` (or has expired), said.
fn expiring(targets: &[Facts], now: jiff::Timestamp) -> Option<String> {
    targets.iter().find_map(|f| {
        let at = f.credential_expiry?;
        let left = at.as_second() - now.as_second();
        (left <= EXPIRING).then(|| match left > 0 {
            true => format!("the credential of {} expires at {at}: renew it", f.name),
            false => format!("the credential of {} expired at {at}: renew it", f.name),
        })
    })
}

/// What a CRITICAL line says: how many keys need a person and the first few, by target.
fn critical(needs: u64, said: &[String], targets: &[Facts]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for facts in targets.iter().filter(|f| !f.named.is_empty()) {
        let more = facts.needs_person - facts.named.len() as u64;
        let more = match more {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        parts.push(format!("{}: {}{more}", facts.name, facts.named.join(", ")));
    }
    if let Some(first) = said.first() {
        parts.push(flat(first));
    }
    format!("{needs} key(s) need a person: {}", parts.join("; "))
}

/// The performance data: since when the oldest line has been pending (as an age), the copies
/// found before a first send, the failing, held back and waiting keys; all targets summed.
fn perfdata(targets: &[Facts], now: i64) -> String {
    let sum = |f: fn(&Facts) -> u64| targets.iter().map(f).sum::<u64>();
    let pending = targets
        .iter()
        .filter_map(|f| f.oldest_pending)
        .min()
        .map_or(0, |t| (now - t.as_second()).max(0));
    format!(
        "pending_since={pending}s;;;0 hits={};;;0 failing={};;;0 held_back={};;;0 waiting={};;;0",
        sum(|f| f.dedup),
        sum(Facts::failing),
        sum(|f| f.held_back),
        sum(|f| f.waiting + f.retrying),
    )
}

/// One line, whitespace made single spaces, no `|` (it starts the performance data) and no
/// `dayrun: ` before it.
fn flat(text: &str) -> String {
    let text = text
        .strip_prefix("dayrun: ")
        .unwrap_or(text)
        .replace('|', "/");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
