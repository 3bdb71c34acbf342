//! How a failed step looks: the class a person reads (`setup`, `rejected`, `retry-safe, needs
//! you now`, …), the reason (with the file and line, for a post's error), and the hint under it.

use super::Hints;
use crate::error::{Class, Error, Kind};
use crate::life::{Exit, KeyLine, Phase, Step, Then};

/// A failure as it is told: the words after `failed`, and the line under them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    /// `(CLASS): REASON`.
    pub said: String,
    pub hint: Option<String>,
}

/// How the failed `step` is told; `line`: the key's line (the one the step wrote, or the one
/// it left); `err`: the error it failed with, when there is one at hand.
pub fn told(step: &Step, line: Option<&KeyLine>, err: Option<&Error>, hints: &Hints) -> Told {
    let (class, reason) = match line.map(|l| l.phase) {
        Some(Phase::Failed(class, _)) => (class, line.and_then(|l| l.reason.clone())),
        // A refused edit: its done line keeps the reason and the hint together; the hint
        // goes on a line of its own here.
        Some(Phase::Done) if err.is_some() => {
            (err.and_then(Error::class).unwrap_or(Class::Unknown), None)
        }
        _ => (
            err.and_then(Error::class).unwrap_or(Class::Unknown),
            line.and_then(|l| l.reason.clone()),
        ),
    };
    // A failure the next run retries by itself, but that has lasted: a person must act.
    let escalated = step.exit == Exit::NeedsHuman
        && line.is_some_and(|l| matches!(l.phase, Phase::Failed(Class::RetrySafe, _)));
    let class_word = match err.map(|e| e.kind) {
        Some(Kind::Config) => "setup".to_string(),
        _ if escalated => format!("{class}, needs you now"),
        _ => class.to_string(),
    };
    let text = match err {
        Some(err) if err.path.is_some() => err.located(),
        _ => reason.unwrap_or_else(|| err.map(Error::located).unwrap_or_default()),
    };
    let given = err
        .and_then(|e| e.hint.clone())
        .or_else(|| step.say.clone());
    let server = err.and_then(|e| e.server.as_deref());
    let hint = match (escalated, line) {
        (true, Some(line)) => Some(hints.escalation(line, server)),
        _ => hints.hint(line, given),
    };
    Told {
        said: format!("({class_word}): {text}"),
        hint,
    }
}

/// How the trace keeps a send that failed (`detail`), as the key's life goes on (`then`): sent
/// again after its wait (`retry-safe`), looked for or read back (`unknown`), or not this run
/// (`failed`).
pub fn sent(then: &Then, detail: String) -> (&'static str, String) {
    match then {
        Then::Send(next) => (
            "retry-safe",
            format!("{detail} next_in_ms={}", next.as_millis()),
        ),
        Then::Look(_) | Then::ReadBack(_) => ("unknown", detail),
        _ => ("failed", detail),
    }
}

/// A failure as the trace keeps it: its class and reason.
pub fn detail(err: &Error) -> String {
    let class = err.class().map_or("error", Class::as_str);
    format!("class={class} reason={:?}", err.reason())
}
