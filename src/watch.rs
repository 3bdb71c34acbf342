//! What a run tells the monitors beside it (docs/monitoring.md): the ping when it starts, and
//! when it ends the metrics file and the ping with its exit code and its lines. A dry run
//! tells them nothing; a `retry` or `retract` writes the metrics but does not ping (the ping
//! is the timer's heartbeat, and a person's command is not the timer).

use crate::clock::Clock;
use crate::config::Config;
use crate::life::Mode;
use crate::ping::Ping;
use crate::plan::Plan;
use std::time::Instant;

/// A run being watched, from its start.
pub(crate) struct Watch<'a> {
    config: &'a Config,
    clock: &'a Clock,
    /// Nothing is told (a dry run).
    off: bool,
    start: jiff::Timestamp,
    started: Instant,
    /// Requests made before the run's own (the start ping's).
    requests: u64,
    ping: Option<Ping>,
}

impl<'a> Watch<'a> {
    /// The run begins: the start ping goes out, and its lines are kept from now on.
    pub(crate) fn start(config: &'a Config, clock: &'a Clock, plan: &Plan) -> Watch<'a> {
        let off = plan.dry_run;
        let timer = matches!(plan.mode, Mode::Run { .. });
        let ping = (!off && timer).then(|| Ping::open(config)).flatten();
        if let Some(ping) = &ping {
            crate::say::keep();
            ping.start();
        }
        Watch {
            config,
            clock,
            off,
            start: clock.instant(),
            started: Instant::now(),
            requests: crate::targets::net::requests(),
            ping,
        }
    }

    /// The run ended with `code`: the metrics, then the end ping. Neither changes the code.
    pub(crate) fn finish(self, code: i32) {
        if self.off {
            return;
        }
        let run = crate::metrics::Run {
            start: self.start,
            duration: self.started.elapsed(),
            exit: code,
            requests: crate::targets::net::requests() - self.requests,
        };
        crate::metrics::write(self.config, self.clock, &run);
        if let Some(ping) = &self.ping {
            ping.finish(code, &crate::say::kept());
        }
    }
}
