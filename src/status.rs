//! `dayrun status`: every key's state per target, as text, as stable JSON (`--json`), as one
//! monitoring-plugin line (`--check`) or as a calendar page (`--html FILE`); and the exit code
//! a run would leave if nothing answered otherwise. Every form reads the same rows, judged as
//! a run judges them (`judge.rs`). Never writes, but the calendar's page.

pub(crate) mod calendar;
pub(crate) mod check;
pub(crate) mod facts;
mod json;
pub(crate) mod judge;
mod row;
mod text;

use crate::clock::Clock;
use crate::config::Config;
use crate::error::Error;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// What `status` shows: one of these (the flags go alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// Every key's row and each target's counts, for a person.
    Text,
    /// The rows and counts as JSON (`--json`, schema in docs/commands.md).
    Json,
    /// One line for a monitoring plugin, with performance data (`--check`).
    Check,
    /// The calendar, one self-contained page written to this file (`--html FILE`).
    Html(PathBuf),
}

impl Form {
    /// The form the flags ask for; more than one is a usage error.
    pub fn of(json: bool, check: bool, html: Option<PathBuf>) -> Result<Form, Error> {
        match (json, check, html) {
            (false, false, None) => Ok(Form::Text),
            (true, false, None) => Ok(Form::Json),
            (false, true, None) => Ok(Form::Check),
            (false, false, Some(file)) => Ok(Form::Html(file)),
            _ => Err(Error::usage(
                "status: --json, --check and --html go alone (one form at a time)",
            )),
        }
    }
}

pub fn run(config: &Config, clock: &Clock, names: &[String], form: &Form) -> Result<i32, Error> {
    let stdout = std::io::stdout();
    // A reader that goes away (`status | head`) ends no computation: the exit code stands.
    let mut out = crate::say::Closable::new(BufWriter::new(stdout.lock()));
    let code = match form {
        Form::Text => {
            let mut sink = text::Text::new(&mut out);
            judge::judge_by_key(config, clock, names, &mut sink)?
                .exit
                .code()
        }
        Form::Json => {
            let mut sink = json::Json::new(&mut out, clock.today())?;
            let exit = judge::judge(config, clock, names, false, &mut sink)?.exit;
            sink.close()?;
            exit.code()
        }
        Form::Check => return Ok(check::run(config, clock, names, &mut out)),
        Form::Html(file) => calendar::run(config, clock, names, file)?,
    };
    out.flush().map_err(io)?;
    Ok(code)
}

/// A failed write of the status.
fn io(e: std::io::Error) -> Error {
    Error::usage(format!("cannot write the status: {e}"))
}
