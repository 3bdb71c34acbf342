//! dayrun: publish dated markdown posts to their targets, exactly once, from a timer. This crate
//! is the top of the workspace: the command line, the commands, and the runner that carries out
//! what `life` decides; the crates beneath it (`docs/development.md`) are re-exported here.
#![cfg_attr(test, allow(clippy::too_many_lines))]

/// A line on stdout that a reader who went away cannot turn into a panic (`say::out`).
macro_rules! out {
    ($($arg:tt)*) => { $crate::say::out(&format!($($arg)*)) };
}

/// A line on stderr, the same way (`say::err`).
macro_rules! err {
    ($($arg:tt)*) => { $crate::say::err(&format!($($arg)*)) };
}

pub mod adopt;
mod ask;
mod book;
pub mod check;
pub mod cli;
pub mod drill;
mod failed;
mod known;
pub mod links;
mod look;
pub mod mark;
mod metrics;
pub mod mv;
mod ping;
pub mod plan;
mod posts;
mod preview;
pub mod progress;
mod rename;
pub mod retract;
pub mod run;
pub mod runner;
pub mod status;
pub mod tally;
pub mod tell;
pub mod voice;
mod watch;

pub use ::content::{content, images, post, template, thread};
pub use base::{clock, error, fsutil, redact, say, signals, text, trace};
pub use config;
pub use life::{self, outside};
pub use store::{lock, merge, state};
pub use targets;

use crate::life::Key;
use cli::{Args, Command};
use clock::Clock;
use config::Config;
use error::Error;

/// Run one command; returns the process exit code (see the README).
pub fn run(args: Args) -> i32 {
    let code = match dispatch(args) {
        Ok(code) => code,
        Err(err) => {
            say::err(&format!("dayrun: {err}"));
            err.code()
        }
    };
    say::finish(code);
    code
}

fn dispatch(args: Args) -> Result<i32, Error> {
    // A check answers in its own convention, even when it cannot judge (UNKNOWN).
    if let Command::Status(a) = &args.command
        && a.check
    {
        return Ok(match a.form() {
            Ok(_) => commands(args).unwrap_or_else(|err| checked(&err)),
            Err(err) => checked(&err),
        });
    }
    commands(args)
}

/// A check that could not judge: its UNKNOWN line, and 3.
fn checked(err: &Error) -> i32 {
    let (code, line) = status::check::unknown(err);
    say::out(&line);
    code
}

fn commands(args: Args) -> Result<i32, Error> {
    // git runs the merge driver in the repository's top folder: it needs no dayrun.toml.
    if let Command::MergeState(a) = &args.command {
        return merge::run(&a.base, &a.ours, &a.theirs, a.path.as_deref());
    }
    let root = args.dir.clone().unwrap_or_else(|| ".".into());
    // `check` says every problem of the config it can; the other commands stop at the first.
    let (mut config, mut problems) =
        Config::load_all(&root, args.config.as_deref(), &targets::kinds::known())?;
    if !matches!(args.command, Command::Check(_)) && !problems.is_empty() {
        return Err(problems.remove(0));
    }
    check_folder(&config, &args.command)?;
    metrics_flag(&mut config, &args.command)?;
    let clock = |today: &Option<String>| clock(&config, today);
    Ok(match args.command {
        Command::Run(a) => {
            if let Some(log) = &a.log {
                log_to(&config, log)?;
            }
            let plan = plan::Plan {
                mode: life::Mode::Run {
                    backfill: a.backfill,
                },
                dry_run: a.dry_run,
                keys: keys(&a.key, "--key")?,
                targets: a.target,
            };
            known(&config, &plan)?;
            run::run(&config, &clock(&a.today)?, &plan)
        }
        Command::Retry(a) => {
            if a.keys.is_empty() {
                return Err(Error::usage(
                    "name the key(s) to retry, e.g. `dayrun retry 2026-11-29`",
                ));
            }
            let plan = plan::Plan {
                mode: life::Mode::Retry(lever(&a)?),
                keys: keys(&a.keys, "key")?,
                targets: a.target,
                dry_run: false,
            };
            known(&config, &plan)?;
            run::run(&config, &clock(&None)?, &plan)
        }
        Command::Retract(a) => {
            if a.keys.is_empty() {
                return Err(Error::usage(
                    "name the key(s) to retract, e.g. `dayrun retract 2026-11-29 --yes`",
                ));
            }
            let plan = plan::Plan {
                mode: life::Mode::Retract,
                keys: keys(&a.keys, "key")?,
                targets: a.target,
                dry_run: a.dry_run,
            };
            if !a.dry_run && !a.yes && !retract::confirmed(&config, &plan)? {
                return Ok(error::code::USAGE);
            }
            run::run(&config, &clock(&None)?, &plan)
        }
        Command::Status(a) => status::run(&config, &clock(&a.today)?, &a.target, &a.form()?)?,
        Command::Check(a) => check::run(&config, &clock(&a.today)?, a.online, problems)?,
        Command::Mark(a) => mark::run(&config, &clock(&None)?, &a)?,
        Command::Mv(a) => mv::run(&config, &clock(&None)?, &a)?,
        Command::Adopt(a) => {
            let until = a
                .until
                .as_deref()
                .map(|s| key(s, "--until").map(Key::day))
                .transpose()?;
            adopt::run(&config, &clock(&None)?, until, &a.target)?
        }
        Command::Drill(a) => drill::run(&config, &clock(&None)?, &a)?,
        Command::MergeState(_) => unreachable!("handled before the config is read"),
    })
}

/// `run --metrics FILE` over the config's `metrics_file`.
fn metrics_flag(config: &mut Config, command: &Command) -> Result<(), Error> {
    match command {
        Command::Run(cli::RunArgs {
            metrics: Some(file),
            ..
        }) => config.metrics_to(file),
        _ => Ok(()),
    }
}

/// Neither a config nor posts is most likely the wrong folder, not an empty project; no config
/// but posts is a note for a person (not for a timer's log): the defaults apply.
fn check_folder(config: &Config, command: &Command) -> Result<(), Error> {
    if config.file.is_none() && !config.content.exists() {
        return Err(Error::config(format!(
            "no dayrun.toml and no content/ folder in {}: is this the project folder?",
            config.root.display()
        ))
        .hint("run dayrun in the folder that holds dayrun.toml (or content/), or name it: `dayrun -C ~/blog run`"));
    }
    if config.file.is_none() && shows_setup(command) {
        say::err(&format!(
            "dayrun: note: no dayrun.toml in {}: using the defaults (content/, state/, one folder target `outbox`)",
            config.root.display()
        ));
    }
    Ok(())
}

/// The command's clock: `--today` if given, started at `DAYRUN_NOW` if set (tests, drills).
fn clock(config: &Config, today: &Option<String>) -> Result<Clock, Error> {
    let now = match std::env::var(clock::NOW_VAR) {
        Ok(text) => Some(text.parse::<jiff::Timestamp>().map_err(|_| {
            Error::usage(format!(
                "{}=`{text}` is not an RFC 3339 time with an offset",
                clock::NOW_VAR
            ))
        })?),
        Err(_) => None,
    };
    let today = today
        .as_deref()
        .map(|s| key(s, "--today").map(Key::day))
        .transpose()?;
    let clock = Clock::new(config.timezone.clone(), today);
    Ok(match now {
        Some(now) => clock.starting_at(now),
        None => clock,
    })
}

/// `run --log FILE`: the run's lines go to FILE (relative to the project folder, `-C DIR`), and
/// to the terminal only when a person is needed. Never into `state/`, whose `*.log` files are
/// traces that `merge-state` merges.
fn log_to(config: &Config, log: &std::path::Path) -> Result<(), Error> {
    let path = config.root.join(log);
    let state = std::path::absolute(&config.state).unwrap_or_else(|_| config.state.clone());
    if path.starts_with(&state) {
        return Err(Error::usage(format!(
            "--log {}: the log must not be in the state folder (its *.log files are traces)",
            log.display()
        ))
        .hint("put it beside the project, e.g. `--log dayrun.log`"));
    }
    say::to_file(&path, log).map_err(|e| Error::io(error::Kind::Usage, log, "open the log", &e))
}

/// The one way a `retry` asks for its keys, from its flags (which go together only so).
fn lever(args: &cli::RetryArgs) -> Result<life::Lever, Error> {
    use life::Lever;
    Ok(
        match (args.force, args.new, args.absent, args.not_ours.clone()) {
            (false, false, false, None) => Lever::Again,
            (true, false, false, None) => Lever::Force,
            (false, true, false, None) => Lever::New,
            (true, true, false, None) => Lever::ForceNew,
            (false, false, true, None) => Lever::Absent,
            (false, false, false, Some(id)) => Lever::NotOurs(id),
            _ => {
                return Err(Error::usage(
                    "retry: --absent and --not-ours go alone; --new goes alone or with --force",
                ));
            }
        },
    )
}

/// Whether the command shows the setup to a person (so a note on defaults helps), rather
/// than running from a timer (whose log should not repeat it every day).
fn shows_setup(command: &Command) -> bool {
    match command {
        Command::Status(_) | Command::Check(_) => true,
        Command::Run(a) => a.dry_run,
        _ => false,
    }
}

/// A key from the command line: strict `YYYY-MM-DD`, a real date.
pub fn key(s: &str, what: &str) -> Result<Key, Error> {
    Key::parse(s).ok_or_else(|| {
        let why = match clock::looks_like_key(s) {
            true => "is not a real date",
            false => "is not a date written YYYY-MM-DD",
        };
        Error::usage(format!("{what}: `{s}` {why}"))
    })
}

fn keys(list: &[String], what: &str) -> Result<Vec<Key>, Error> {
    list.iter().map(|s| key(s, what)).collect()
}

/// Every key named on the command line has a post, or a state line on a selected target:
/// otherwise it is a typo or a post not written yet, and nothing runs.
fn known(config: &Config, plan: &plan::Plan) -> Result<(), Error> {
    if plan.keys.is_empty() {
        return Ok(());
    }
    let catalog = content::Catalog::scan(&config.sources())?;
    let shown = config.show(&config.state);
    let mut states = Vec::new();
    for target in config.select(&plan.targets)? {
        states.push(state::StateFile::load(&config.state, &target.name, &shown)?);
    }
    let unknown = plan.keys.iter().find(|key| {
        !catalog.files.contains_key(key) && states.iter().all(|s| s.get(**key).is_none())
    });
    match unknown {
        None => Ok(()),
        Some(key) => {
            let file = config.show(&config.content.join(format!("{key}.md")));
            Err(Error::usage(format!(
                "no post for {key}: {} does not exist, and no target has a record of {key}",
                file.display()
            ))
            .hint("check the date, or write the post first"))
        }
    }
}

#[cfg(test)]
mod tests;
