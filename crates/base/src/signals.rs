//! Stop signals (SIGINT, SIGTERM, SIGHUP) during a run: remembered, never fatal mid-action, so
//! that the action in flight ends, is recorded, and a script's process group gets the signal too.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static RECEIVED: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();

const STOP: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// From now on a stop signal is remembered instead of ending the process at once. Only commands
/// that change state call this; `status` and `check` keep the default (die at once).
pub fn install() {
    let flag = RECEIVED.get_or_init(|| Arc::new(AtomicUsize::new(0)));
    for signal in STOP {
        // Registration fails only for forbidden signals, which these are not.
        let _ = signal_hook::flag::register_usize(signal, flag.clone(), signal as usize);
    }
}

/// The stop signal received so far, if any.
pub fn received() -> Option<i32> {
    let n = RECEIVED.get()?.load(Ordering::SeqCst);
    (n != 0).then_some(n as i32)
}

/// Sleep, but wake early when a stop signal arrives. Returns false when woken by one.
pub fn sleep(wait: Duration) -> bool {
    let end = Instant::now() + wait;
    loop {
        if received().is_some() {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(20)));
    }
}

/// The exit code of a run stopped by `signal`: 128 + its number, as shells report it.
pub fn exit_code(signal: i32) -> i32 {
    128 + signal
}
