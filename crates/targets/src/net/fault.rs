//! The drill's fault layer (`dayrun drill`, issue 37, docs/drill.md): the faults of the field
//! report's network put between a target and the server, inside the process. Off unless the
//! drill arms it (`arm`): a process-wide switch no config key reaches. While armed, each request
//! (a write or a lookup) meets a fault at the `loss` rate, drawn from a seeded generator so a
//! drill can be replayed:
//!
//! - `Late`: sent only after `delay` (past the target's timeout), from a thread of its own,
//!   its answer discarded; the client gives up at its timeout, the request still lands;
//! - `Dropped`: never sent; the client waits its timeout (it cannot know it was dropped);
//! - `Lost`: sent, and the whole answer read and thrown away; the client sees its timeout
//!   (the report's case: the server committed, the answer died on the way back).
//!
//! A command target's script meets `Killed` (killed after it wrote its answer) or `Lost` (its
//! answer dropped). Every fault is kept (`injected`) for the drill's trace.

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

/// A fault one request (or one run of a script) met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Sent `delay` late; the client gave up at its timeout.
    Late,
    /// Never sent; the client waited its timeout.
    Dropped,
    /// Sent and answered, the answer lost; the client waited its timeout.
    Lost,
    /// A script killed after it wrote its answer.
    Killed,
}

impl Fault {
    /// The fault's name in the drill's trace.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Late => "late",
            Fault::Dropped => "dropped",
            Fault::Lost => "answer-lost",
            Fault::Killed => "killed",
        }
    }

    /// Whether the request reached the server (or the script ran to its end).
    pub fn reached(self) -> bool {
        self != Fault::Dropped
    }
}

/// The faults a network request may meet.
pub const NETWORK: [Fault; 3] = [Fault::Late, Fault::Dropped, Fault::Lost];
/// The faults a script may meet.
pub const SCRIPT: [Fault; 2] = [Fault::Killed, Fault::Lost];

/// A fault as the trace tells it: which, and on what (`POST /wp/v2/posts`, `run ./publish.sh`).
#[derive(Debug, Clone)]
pub struct Injected {
    pub fault: Fault,
    pub what: String,
    /// It met a write (a request other than GET, a script other than `confirm`), not a lookup.
    pub write: bool,
}

/// The switch, while the drill holds it on.
struct Armed {
    /// The rate, in parts per thousand.
    loss: u32,
    /// The added delay of a late request; `None`: the target's timeout plus 2 s.
    delay: Option<Duration>,
    /// The generator's state (splitmix64).
    rng: u64,
    injected: Vec<Injected>,
}

static ARMED: Mutex<Option<Armed>> = Mutex::new(None);
/// Late requests not landed yet.
static LATE: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Arm the faults: `loss` in parts per thousand, `delay` of a late request (default: the
/// target's timeout plus 2 s), from `seed`.
pub fn arm(seed: u64, loss: u32, delay: Option<Duration>) {
    *lock(&ARMED) = Some(Armed {
        loss: loss.min(1000),
        delay,
        rng: seed,
        injected: Vec::new(),
    });
}

/// Turn the faults off; the faults injected since the last `take` stay to be taken.
pub fn disarm() {
    if let Some(armed) = lock(&ARMED).as_mut() {
        armed.loss = 0;
    }
}

/// Whether faults are on (a drill armed them).
pub fn armed() -> bool {
    lock(&ARMED).as_ref().is_some_and(|a| a.loss > 0)
}

/// The faults injected since the last call, in order.
pub fn take() -> Vec<Injected> {
    lock(&ARMED)
        .as_mut()
        .map(|a| std::mem::take(&mut a.injected))
        .unwrap_or_default()
}

/// Wait until every late request has landed (or failed): what the drill counts afterwards
/// includes them.
pub fn land_late() {
    let late: Vec<JoinHandle<()>> = std::mem::take(&mut *lock(&LATE));
    for handle in late {
        let _ = handle.join();
    }
}

/// The fault the next request meets, if any (never when disarmed); `write`: it is a write,
/// `what` names it for the trace.
pub(crate) fn draw(choices: &[Fault], write: bool, what: impl FnOnce() -> String) -> Option<Fault> {
    let mut armed = lock(&ARMED);
    let armed = armed.as_mut().filter(|a| a.loss > 0)?;
    let roll = next(&mut armed.rng);
    if (roll % 1000) as u32 >= armed.loss {
        return None;
    }
    let fault = choices[((roll >> 32) % choices.len() as u64) as usize];
    armed.injected.push(Injected {
        fault,
        what: what(),
        write,
    });
    Some(fault)
}

/// How late a late request of a target with `timeout` is sent.
pub(crate) fn delay(timeout: Duration) -> Duration {
    lock(&ARMED)
        .as_ref()
        .and_then(|a| a.delay)
        .unwrap_or(timeout + Duration::from_secs(2))
}

/// Run `send` on a thread of its own (a late request); `land_late` waits for it.
pub(crate) fn later(send: impl FnOnce() + Send + 'static) {
    lock(&LATE).push(std::thread::spawn(send));
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// splitmix64: small, seeded, the same sequence on every machine.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_holds_and_a_seed_replays() {
        let mut a = 7u64;
        let hits = (0..10_000).filter(|_| next(&mut a) % 1000 < 200).count();
        assert!((1800..2200).contains(&hits), "{hits}");
        let (mut x, mut y) = (42u64, 42u64);
        assert!((0..100).all(|_| next(&mut x) == next(&mut y)));
    }
}
