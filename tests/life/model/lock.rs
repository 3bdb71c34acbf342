//! The lock file removed under a run (issue 28, row 8): a run is held at its first request
//! while `state/.lock` is removed and a second run starts; the second must be kept out.

use crate::fakes::fake_posts::{Hold, PostsApi};
use crate::support::util::Project;
use jiff::Timestamp;
use std::sync::atomic::{AtomicBool, Ordering};

/// An exit code (`None`: killed) and what the command printed.
pub type Said = (Option<i32>, String);

/// Run `args` (the first run); once the fake holds its first request, `state/.lock` is removed
/// and the same command starts again, and the fake lets go once that one ends. The first run's
/// answer, and the second's (`None`: the first made no request to hold it at).
pub fn contended(
    api: &PostsApi,
    p: &Project,
    now: Timestamp,
    args: &[&str],
) -> (Said, Option<Said>) {
    api.state.lock().unwrap().hold = Hold::Armed;
    let ended = AtomicBool::new(false);
    std::thread::scope(|s| {
        let first = s.spawn(|| {
            let out = super::world::run(p, now, args, None);
            ended.store(true, Ordering::SeqCst);
            out
        });
        let second = loop {
            if api.state.lock().unwrap().hold == Hold::Holding {
                let _ = std::fs::remove_file(p.path("state/.lock"));
                break Some(super::world::run(p, now, args, None));
            }
            if ended.load(Ordering::SeqCst) {
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        api.state.lock().unwrap().hold = Hold::Off;
        (first.join().unwrap(), second)
    })
}

/// Invariant 8: what is wrong with the second run's answer, if anything. It must exit 75 and
/// say that another run holds the lock, having decided nothing.
pub fn kept_out(second: &Said) -> Option<String> {
    let (code, output) = second;
    let told = output.contains("another dayrun run holds state/.lock");
    match (*code, told) {
        (Some(75), true) if !output.contains(" blog ") => None,
        _ => Some(format!(
            "invariant 8: a second run started while the first held the lock (its lock file removed) exited {code:?}, not 75 with \"another dayrun run holds state/.lock\""
        )),
    }
}
