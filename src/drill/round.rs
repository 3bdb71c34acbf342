//! One round of the drill: a throwaway post published through the real runner with faults
//! armed, then the follow-up a timer would make (`retry`: confirm, look, send again only on
//! proof of absence) until it is out or a person would be needed.

use super::Options;
use super::folder::Folder;
use crate::clock::Clock;
use crate::error::Error;
use crate::life::Status;
use crate::life::{Key, Lever, Mode};
use crate::plan::Plan;
use crate::targets::net::fault::{self, Injected};

/// The most runs of one round: the first and its follow-ups.
const MAX_RUNS: u32 = 12;

/// What one round came to, as the drill's state and trace say.
pub struct Round {
    pub n: u32,
    pub key: Key,
    /// Runs made: the first and the follow-ups.
    pub runs: u32,
    /// The faults the round's requests met, in order.
    pub faults: Vec<Injected>,
    /// The key's status at the end (`None`: no line).
    pub status: Option<Status>,
    /// The copy's id the state holds.
    pub id: Option<String>,
    /// A write reached the server and its answer was lost (or came late), and a lookup found
    /// the copy (`confirm done` in the trace): the post was not sent again.
    pub confirmed: bool,
    /// The last run's exit code.
    pub code: i32,
}

/// Make round `n`.
pub fn run(folder: &Folder, clock: &Clock, options: &Options, n: u32) -> Result<Round, Error> {
    let tag = format!("{}-{n:02}", options.tag);
    let key = Key::drill(clock.today(), &tag).expect("hex digits and a dash make a tag");
    folder.write_post(key, &text(&tag, n, options))?;
    fault::arm(
        options.seed.wrapping_mul(1000).wrapping_add(u64::from(n)),
        options.loss,
        options.delay,
    );
    let (mut runs, mut code) = (0, 0);
    let mut record = None;
    while runs < MAX_RUNS && crate::signals::received().is_none() {
        runs += 1;
        let plan = Plan {
            mode: match runs {
                1 => Mode::Run { backfill: false },
                _ => Mode::Retry(Lever::Again),
            },
            dry_run: false,
            keys: vec![key],
            targets: vec![folder.name.clone()],
        };
        code = folder.quietly(|| crate::run::run(&folder.config, clock, &plan));
        record = folder.record(key)?;
        let out = record.as_ref().is_some_and(|r| r.status == Status::Done);
        // 1, 2, 3: a person is needed; a timer would stop here too.
        if out || matches!(code, 1..=3) {
            break;
        }
    }
    fault::disarm();
    fault::land_late();
    let faults = fault::take();
    for injected in &faults {
        folder.note(&format!(
            "drill round {n} {key}: fault {} on {}",
            injected.fault.name(),
            injected.what
        ));
    }
    // A write that reached the server unanswered, and a lookup that found its copy.
    let unanswered = (faults.iter()).any(|f| f.write && f.fault.reached());
    let confirmed = unanswered && (folder.traced(key).iter()).any(|l| l.contains(" confirm done"));
    Ok(Round {
        n,
        key,
        runs,
        faults,
        status: record.as_ref().map(|r| r.status),
        id: record.and_then(|r| {
            r.fields()
                .find(|(n, _)| *n == "id")
                .map(|(_, v)| v.into_owned())
        }),
        confirmed,
        code,
    })
}

/// The drill post's text: plainly a drill's, in the title and the body.
fn text(tag: &str, n: u32, options: &Options) -> String {
    format!(
        "# dayrun drill {tag} — safe to delete\n\nThis is a throwaway post of `dayrun drill` (round {n} of {}, seed {}): it tests that dayrun publishes to this account exactly once when the network delays and loses requests. The drill deletes it itself; if it is still here, it is safe to delete.\n",
        options.rounds, options.seed
    )
}
