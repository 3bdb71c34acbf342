//! A progress bar for long interactive runs: shown only when stderr is a terminal and there is
//! more than a handful of keys to publish. Plain text, no colour; lines printed while it is
//! shown go above it. Non-interactive runs (timers, pipes) print plain lines only.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// More keys than this to publish (or confirm) in one run shows a bar.
const HANDFUL: u64 = 5;

pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// Whether a bar could be shown at all (so the work need not be counted otherwise).
    pub fn wanted(dry_run: bool) -> bool {
        !dry_run
            && !crate::say::logging()
            && std::io::stderr().is_terminal()
            && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
    }

    pub fn new(total: u64) -> Progress {
        if total <= HANDFUL {
            return Progress::none();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        Progress(Some(bar))
    }

    pub fn none() -> Progress {
        Progress(None)
    }

    /// The key and target being worked on.
    pub fn start(&self, key: &str, target: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(format!("{key} {target}"));
        }
    }

    pub fn advance(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// A line on stdout, above the bar.
    pub fn out(&self, line: &str) {
        match &self.0 {
            Some(bar) => bar.suspend(|| crate::say::out(line)),
            None => crate::say::out(line),
        }
    }

    /// A line on stderr, above the bar.
    pub fn err(&self, line: &str) {
        match &self.0 {
            Some(bar) => bar.suspend(|| crate::say::err(line)),
            None => crate::say::err(line),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
