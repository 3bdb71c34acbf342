//! One target's book (`Book`): its keys' lines as their lives read and write them. Every
//! change of a line is an event handed to `life::next` with the key's moment (`record.rs`);
//! what a visit decides is asked with the facts of the post and of the other lines
//! (`visit.rs`, `linked.rs`, `renamed.rs`); the pending line of an attempt (`attempt.rs`), a batch's lines (`batch.rs`); what
//! its keys keep beside it (`kept.rs`). The runner carries out what the book's steps say.

use crate::clock::Clock;
use crate::config::TargetConfig;
use crate::known::Known;
use crate::life::{Exit, Rules};
use crate::plan::Plan;
use crate::progress::Progress;
use crate::state::StateFile;
use jiff::civil::Date;
use std::cell::RefCell;
use std::collections::BTreeSet;

mod attempt;
mod batch;
mod kept;
mod linked;
mod record;
mod renamed;
mod visit;
pub(crate) use batch::Queued;
pub use record::visit;

/// One target's lines, and what the pass knows to judge them.
pub(crate) struct Book<'a> {
    pub(crate) cfg: &'a TargetConfig,
    pub(crate) state: &'a mut StateFile,
    /// What every target's pass shares: the clock, the plan, the day.
    pub(crate) run: Shared<'a>,
    /// The target's rules for a key's life.
    pub(crate) rules: Rules,
    /// A non-secret fingerprint of the target's credential (`Secrets::fingerprint`), and what
    /// masks its secrets in a reason kept on a line.
    pub(crate) credential: Option<String>,
    pub(crate) redactor: crate::redact::Redactor,
    /// What the pass knows of other lines: the linked targets' and the owners of ids.
    pub(crate) known: Known,
    /// The exit code the events recorded leave (a visit's is the caller's to fold in).
    pub(crate) exit: Exit,
}

/// What every target's pass shares.
#[derive(Clone, Copy)]
pub(crate) struct Shared<'a> {
    pub(crate) clock: &'a Clock,
    pub(crate) plan: &'a Plan,
    pub(crate) today: Date,
    pub(crate) state_dir: &'a std::path::Path,
    /// The content's posts, for the marks of the other keys' (`known/alike.rs`).
    pub(crate) catalog: &'a crate::content::Catalog,
    /// What was said this run about posts (their errors and warnings), shared by the targets:
    /// a post's error is told once, not once per target.
    pub(crate) told: &'a RefCell<BTreeSet<String>>,
    pub(crate) progress: &'a Progress,
}

impl<'a> Book<'a> {
    /// The book of `cfg`'s `state`, under `rules`.
    pub(crate) fn new(
        cfg: &'a TargetConfig,
        state: &'a mut StateFile,
        run: Shared<'a>,
        rules: Rules,
        (credential, redactor): (Option<String>, crate::redact::Redactor),
    ) -> Self {
        Book {
            cfg,
            state,
            run,
            rules,
            credential,
            redactor,
            known: Known::default(),
            exit: Exit::Ok,
        }
    }
}
