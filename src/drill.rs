//! `dayrun drill` (issue 37, docs/drill.md): the field report's fault drill, on the user's own
//! target. Throwaway posts go out through the real runner with the network layer's faults
//! armed (`targets::net::fault`), each followed up as a timer would until it is out or a person
//! is needed; then, faults off, the target's own lookups count the copies, and every copy is
//! removed and proved gone. The drill's state lives in `state/drill/<target>/`, apart.

mod folder;
mod refuse;
mod report;
mod round;
mod sweep;

use crate::cli::DrillArgs;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::{self, Error};
use std::time::Duration;

/// What the command line asked of the drill, read.
pub struct Options {
    pub target: String,
    pub rounds: u32,
    /// A late request's delay; `None`: the target's timeout plus 2 s.
    pub delay: Option<Duration>,
    /// The share of requests that meet a fault, in parts per thousand.
    pub loss: u32,
    pub seed: u64,
    /// What this drill's keys share (`YYYY-MM-DD--drill-TAG-NN`): from the seed and the time
    /// it started, so a replay's posts are new posts (Mastodon keeps an Idempotency-Key an
    /// hour, and an earlier drill's copy left behind is not taken for this one's).
    pub tag: String,
    pub json: bool,
}

/// The most rounds one drill makes (each is a post on the user's account).
const MAX_ROUNDS: u32 = 100;

/// Run the drill; its exit code: 0 only when every drill post went out exactly once, none was
/// left pending and every copy was removed.
pub fn run(config: &Config, clock: &Clock, args: &DrillArgs) -> Result<i32, Error> {
    let options = Options::read(args, clock)?;
    let (cfg, timeout) = refuse::target(config, clock, &options.target)?;
    if !args.yes && !refuse::confirmed(&options)? {
        return Ok(error::code::USAGE);
    }
    let _lock = crate::lock::acquire(&config.state, &config.show(&config.state), clock)?;
    let folder = folder::Folder::make(config, cfg)?;
    if !options.json {
        out!("{}", report::header(&folder, &options, timeout));
    }
    let mut rounds = Vec::new();
    for n in 1..=options.rounds {
        let round = round::run(&folder, clock, &options, n)?;
        if !options.json {
            out!("{}", report::round(&round, options.rounds));
        }
        rounds.push(round);
        if crate::signals::received().is_some() {
            break;
        }
    }
    let swept = sweep::run(&folder, clock, &rounds)?;
    Ok(report::finish(&folder, &options, &rounds, &swept))
}

impl Options {
    fn read(args: &DrillArgs, clock: &Clock) -> Result<Options, Error> {
        if !(1..=MAX_ROUNDS).contains(&args.rounds) {
            return Err(Error::usage(format!(
                "--rounds {}: give 1 to {MAX_ROUNDS}",
                args.rounds
            )));
        }
        let loss = args.loss.trim().trim_end_matches('%').trim();
        let loss = (loss.parse::<f64>().ok())
            .filter(|l| (0.0..=100.0).contains(l))
            .ok_or_else(|| {
                Error::usage(format!(
                    "--loss {}: give a share of requests from 0% to 100%, e.g. 20%",
                    args.loss
                ))
            })?;
        let delay = match &args.delay {
            None => None,
            Some(text) => Some(
                (text.trim().trim_end_matches('s').parse::<f64>().ok())
                    .filter(|d| d.is_finite() && *d > 0.0 && *d < 3600.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| {
                        Error::usage(format!("--delay {text}: give seconds, e.g. 12"))
                    })?,
            ),
        };
        let now = clock.instant().as_nanosecond().unsigned_abs() as u64;
        let seed = args.seed.unwrap_or(now % 1_000_000);
        let started = clock.instant().as_second().unsigned_abs();
        Ok(Options {
            tag: format!("{:04x}", (seed.wrapping_mul(0x9e37) ^ started) & 0xffff),
            target: args.target.clone(),
            rounds: args.rounds,
            delay,
            loss: (loss * 10.0).round() as u32,
            seed,
            json: args.json,
        })
    }
}
