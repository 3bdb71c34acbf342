//! One target's pass over the keys (`TargetRun`): each key is moved through its life
//! (`crate::life`) by the one transition function; the pass does what it says (read, send,
//! look, wait), records each line it returns, and traces and prints every action. The run
//! command (`run.rs`) builds one pass per target and walks the keys across them.

use crate::book::Book;
pub(crate) use crate::book::Shared;
use crate::config::{Capabilities, Config, TargetConfig};
use crate::life::Key;
use crate::posts::Posts;
use crate::progress::Progress;
use crate::state::StateFile;
use crate::targets::Target;
use crate::tell;
use crate::voice::Voice;
use std::time::Instant;

mod batch;
mod carry;
mod deliver;
mod judge;
mod linked;
mod media;
pub(super) mod report;
mod retract;
mod stop;
mod target_run;
mod thread;
mod update;

/// One target's pass over the keys (`target_run.rs`): its parts, grouped by what they are for.
pub(crate) struct TargetRun<'a> {
    cfg: &'a TargetConfig,
    target: &'a mut dyn Target,
    /// The target's lines, as its keys' lives read and write them.
    pub(crate) book: Book<'a>,
    /// What the pass prints and traces, and what it tells at its end.
    voice: Voice<'a>,
    /// What every target's pass shares: the clock, the plan, the day.
    run: Shared<'a>,
    /// How this target's lookup behaves, and how long an attempt may take to land.
    here: Here,
    /// Whether the target may be written to again, and when it last was.
    pace: Pace,
    /// Keys queued for the next group commit (`batch.rs`).
    batch: batch::Batch,
}

impl<'a> TargetRun<'a> {
    /// A target's pass, not started: its rules (from what its settings say it can do, `can`),
    /// and how its lookup behaves.
    pub(crate) fn new(
        config: &Config,
        cfg: &'a TargetConfig,
        target: &'a mut dyn Target,
        can: Capabilities,
        state: &'a mut StateFile,
        run: Shared<'a>,
    ) -> Self {
        let rules = config.rules(cfg, can);
        let secrets = target.secrets();
        let keys = (secrets.fingerprint(), secrets.redactor.clone());
        let voice = Voice::of(cfg, &secrets, run, rules.clone());
        let (immediate, keeps_payload) = (can.can_find.then(|| target.as_find()).flatten())
            .map_or((true, false), |f| (f.immediate(), f.keeps_payload()));
        let landing = crate::life::Landing {
            timeout: target.timeout(),
            settle: cfg.policy.settle.unwrap_or_else(|| target.settle()),
        };
        TargetRun {
            cfg,
            target,
            book: Book::new(cfg, state, run, rules, keys),
            voice,
            run,
            here: Here {
                immediate,
                keeps_payload,
                landing,
            },
            pace: Pace::default(),
            batch: batch::Batch::default(),
        }
    }

    /// The run's progress bar, made once every pass is built (it counts their keys).
    pub(crate) fn show_progress(&mut self, progress: &'a Progress) {
        self.voice.show_progress(progress);
    }

    /// Whether a retract removed the key's copies here (or found them gone).
    pub(crate) fn removed(&self, key: Key) -> bool {
        self.voice.outcome.removed.contains(&key)
    }

    /// Whether the key's line here holds a live copy dayrun knows of.
    pub(crate) fn knows_copy(&self, key: Key) -> bool {
        self.book
            .line(key)
            .is_some_and(|l| !l.live_ids().is_empty())
    }

    /// The target's lookup, when its settings give it one (`rules.can_find`): the rules of a
    /// key's life and the lookups made read the same value.
    pub(crate) fn finder(&mut self) -> Option<&mut dyn crate::targets::Find> {
        match self.book.rules.can_find {
            true => self.target.as_find(),
            false => None,
        }
    }
}

/// What one target is, for how its lookups and sends behave.
struct Here {
    /// Whether its lookup sees a finished publish at once (or it has none: nothing to wait
    /// for), and whether it needs what each attempt sent (`Find`).
    immediate: bool,
    keeps_payload: bool,
    /// How long an attempt may still show up on the target: its timeout and settle time.
    landing: crate::life::Landing,
}

/// Whether the target may be written to again in this run (`stop.rs`), and when it last was.
#[derive(Default)]
struct Pace {
    stopped: Option<tell::Stop>,
    last_write: Option<Instant>,
}
