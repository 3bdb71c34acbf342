//! The visit: what a run does with a key when it reaches it, and the exit code the key leaves
//! if nothing answers otherwise (the dry run and `status` give exactly this).

use super::{Change, Ctx, Exit, Facts, KeyLine, Lever, Looked, Mode, Op, Phase, Seen, Step, Then};
use super::{escalated, past_window};
use crate::Class;
use crate::Word;

/// A rule needed the key's post and the visit was given none: the visit answers
/// `Then::Read`, and the caller visits again with what it read (a no-op run reads no done post).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unread;

/// The key's post, if the caller has read it.
fn post(seen: Option<&Seen>) -> Result<&Seen, Unread> {
    seen.ok_or(Unread)
}

/// Whether the post's file is gone.
fn gone(seen: Option<&Seen>) -> Result<bool, Unread> {
    Ok(*post(seen)? == Seen::Gone)
}

/// What to do with one key on one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Nothing to do.
    Skip(Skip),
    /// Send the post. `look_first`: an earlier attempt may have landed, so look and send only
    /// if it is provably absent. `new_copy`: as the key's next copy.
    Publish {
        why: Why,
        look_first: bool,
        new_copy: bool,
    },
    /// A pending publish from an earlier run: look, and send only if absent.
    Confirm,
    /// A published copy beside which a merge kept another runner's attempt that may have
    /// landed (`done sent=maybe`): look for further copies of it; nothing is ever sent.
    LookBeside,
    /// A pending update from an earlier run: read the copy back, send it again if needed.
    FinishUpdate,
    /// A pending retract from an earlier run: finish it.
    FinishRetract,
    /// Published and within its edit window: send the edit if the post changed (`forced`:
    /// `retry --force`, sent even if nothing changed).
    CheckEdit { forced: bool },
    /// Failed; waits for a human (or a renewed credential). The text says what to do.
    Wait(String),
    /// Published, and the target refused the edit the post holds now: the copy keeps its last
    /// version, nothing is sent, and the key needs a human until the post changes again,
    /// `retry --force` sends it, or `mark done` accepts the copy as it is. The text: what was
    /// refused and what to do.
    EditFailed(String),
    /// Failed and retried by itself until now, but its date is past the catch-up window:
    /// held back, not sent, until a human says.
    Hold,
    /// The post is gone and the line proves nothing was ever sent: the line goes.
    Drop,
    /// The post's file is bad: the reason.
    Broken(String),
    /// `retract`: remove every live copy.
    Retract,
    /// `retract`: nothing here to remove; the text says why.
    NothingToRetract(String),
}

impl Decision {
    /// Whether carrying it out sends or looks something up on the target (a publish, a
    /// confirm, an interrupted update or retract finished, a retract, an edit checked): the
    /// key then leaves what the attempt records. Any other is only said, and the key leaves
    /// the exit its line implies.
    pub fn reaches_target(&self) -> bool {
        matches!(
            self,
            Decision::Publish { .. }
                | Decision::Confirm
                | Decision::LookBeside
                | Decision::FinishUpdate
                | Decision::FinishRetract
                | Decision::Retract
                | Decision::CheckEdit { .. }
        )
    }

    /// Whether it may send the post as a new copy: a publish, or a pending publish confirmed
    /// (sent again if absent). What the run's progress counts ahead.
    pub fn publishes(&self) -> bool {
        matches!(self, Decision::Publish { .. } | Decision::Confirm)
    }
}

/// Why nothing is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Done,
    Scheduled,
    /// Due later, at this time of the run's zone (its front matter's `date`, with `times =
    /// "front-matter"`).
    Later(jiff::civil::DateTime),
    Stale,
    Draft,
    Retracted,
    /// Put aside by hand (`mark KEY failed`).
    Aside,
    /// `retry` of a done key without `--force`.
    DoneAsked,
    /// `retry --force` of a done key whose copy cannot be updated in place.
    CannotUpdate,
    /// Published, and edited after its edit window: not sent. Said once per edit (the visit
    /// records the edit's fingerprint as `edit_late=`); later runs are quiet until it changes.
    LateEdit,
}

impl Skip {
    /// In a few words, for the tables.
    pub fn word(self) -> &'static str {
        match self {
            Skip::Done => "done",
            Skip::Scheduled | Skip::Later(_) => "scheduled",
            Skip::Stale => "stale",
            Skip::Draft => "draft",
            Skip::Retracted => "retracted",
            Skip::Aside => "put aside",
            Skip::DoneAsked => "done: --force sends it",
            Skip::CannotUpdate => "done: cannot update in place",
            Skip::LateEdit => "done: edited after the edit window, not sent",
        }
    }
}

/// Why a post is sent, shown with the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    Due,
    RetrySafe,
    LookedAbsent,
    LookAgain,
    Fixed,
    Changed,
    Renewed,
    Asked,
    AbsentOnWord,
    NotOurs,
    SecondCopy,
    AfterRetract,
    /// An attempt from an earlier run is pending: it is looked up before anything is sent.
    Pending,
}

impl Why {
    pub fn text(self) -> &'static str {
        match self {
            Why::Due => "due",
            Why::RetrySafe => "retry-safe failure earlier",
            Why::LookedAbsent => "the last lookup found it absent",
            Why::LookAgain => "the last lookup failed; looking again",
            Why::Fixed => "re-read after a content error",
            Why::Changed => "content changed since it failed",
            Why::Renewed => "credential changed since it failed",
            Why::Asked => "retry asked",
            Why::AbsentOnWord => "retry --absent",
            Why::NotOurs => "retry --not-ours",
            Why::SecondCopy => "forced: a second copy",
            Why::AfterRetract => "the retracted copy is gone; publishing a new one",
            Why::Pending => "pending from an earlier run",
        }
    }
}

/// The visit as a step: the decision, and the exit code the key leaves if nothing answers
/// otherwise; or, when a rule needs the post and `seen` is `None`, `Then::Read`.
pub(super) fn visit(line: Option<&KeyLine>, seen: Option<&Seen>, ctx: &Ctx) -> Step {
    match judged(line, seen, ctx) {
        Ok(step) => step,
        Err(Unread) => {
            let mut step = Step::stop(Change::Keep, Exit::Ok, Word::Nothing);
            step.then = Then::Read;
            step
        }
    }
}

fn judged(line: Option<&KeyLine>, seen: Option<&Seen>, ctx: &Ctx) -> Result<Step, Unread> {
    // A post with a time is judged from that instant (`Ctx::due`), as read with it.
    if let (None, Some(Seen::Ready(Facts { due: Some(due), .. }))) = (ctx.due, seen) {
        let timed = Ctx {
            due: Some(*due),
            ..ctx.clone()
        };
        return judged(line, seen, &timed);
    }
    if let (
        None,
        Some(Seen::Ready(Facts {
            carry: Some(from), ..
        })),
    ) = (line, seen)
    {
        let carried = from.carried_to(ctx.key, &ctx.stamp);
        let step = judged(Some(&carried), seen, ctx)?;
        return Ok(super::rename::carried(carried, step));
    }
    let decision = decide(line, seen, ctx)?;
    let blocked = |seen: &Seen| matches!(seen, Seen::Ready(f) if f.blocked.is_some());
    let exit = match decision {
        Decision::Publish { .. } if blocked(post(seen)?) => Exit::NeedsHuman,
        _ => implied(line, &decision, ctx),
    };
    let change = match (&decision, line) {
        (Decision::Drop, _) => Change::Drop,
        (Decision::Skip(Skip::LateEdit), Some(line)) => match post(seen)? {
            Seen::Ready(facts) => {
                let mut said = line.clone();
                said.edits.edit_late = Some(facts.fp.clone());
                Change::Write(Box::new(said))
            }
            _ => Change::Keep,
        },
        _ => Change::Keep,
    };
    let mut step = Step::stop(change, exit, word(&decision));
    step.then = Then::Decide(decision);
    Ok(step)
}

fn word(decision: &Decision) -> Word {
    match decision {
        Decision::Skip(Skip::Done | Skip::DoneAsked | Skip::CannotUpdate | Skip::LateEdit) => {
            Word::Done
        }
        Decision::Skip(Skip::Scheduled | Skip::Later(_)) => Word::Scheduled,
        Decision::Skip(Skip::Stale) => Word::Stale,
        Decision::Skip(Skip::Draft) => Word::Draft,
        Decision::Skip(Skip::Retracted) => Word::Retracted,
        Decision::Skip(Skip::Aside) => Word::PutAside,
        Decision::Hold => Word::HeldBack,
        Decision::Drop => Word::Forgotten,
        Decision::Wait(_) | Decision::Broken(_) => Word::Failed,
        Decision::EditFailed(_) => Word::EditFailed,
        Decision::NothingToRetract(_) => Word::NotPublished,
        _ => Word::Nothing,
    }
}

/// When a post with a time (`Facts::due`) is due, while that is still to come; `--today`
/// makes every key of its day due, whatever its time (`Ctx::pinned`).
fn later(facts: &Facts, ctx: &Ctx) -> Option<jiff::civil::DateTime> {
    let due = facts.due.filter(|due| !ctx.pinned && ctx.now < *due)?;
    Some(due.to_zoned_datetime(ctx.tz.clone()).datetime())
}

/// Why a key of a day still to come waits: scheduled, at its time when it has one.
fn scheduled(seen: &Seen, ctx: &Ctx) -> Skip {
    match seen {
        Seen::Ready(facts) => later(facts, ctx).map_or(Skip::Scheduled, Skip::Later),
        _ => Skip::Scheduled,
    }
}

fn decide(line: Option<&KeyLine>, seen: Option<&Seen>, ctx: &Ctx) -> Result<Decision, Unread> {
    if *ctx.mode == Mode::Retract {
        return Ok(retract(line));
    }
    let Some(line) = line else {
        return Ok(match post(seen)? {
            Seen::Draft => Decision::Skip(Skip::Draft),
            seen if ctx.today < ctx.key.day() => Decision::Skip(scheduled(seen, ctx)),
            Seen::Gone => Decision::Drop,
            Seen::Broken(why) => Decision::Broken(why.clone()),
            Seen::Ready(facts) if let Some(at) = later(facts, ctx) => {
                Decision::Skip(Skip::Later(at))
            }
            Seen::Ready(_) if past_window(ctx.key, ctx) => Decision::Skip(Skip::Stale),
            Seen::Ready(_) => publish(Why::Due, false, false),
        });
    };
    let lever = match ctx.mode {
        Mode::Retry(lever) => Some(lever),
        _ => None,
    };
    let maybe = line.tried.maybe;
    Ok(match line.phase {
        Phase::Pending(Op::Publish) => Decision::Confirm,
        Phase::Pending(Op::Update) => Decision::FinishUpdate,
        Phase::Pending(Op::Retract) => Decision::FinishRetract,
        _ if line.proves_nothing_sent() && gone(seen)? => Decision::Drop,
        // Published, and a merge kept another runner's attempt of this copy that may have
        // landed: looked for first, whatever is asked (a `--force --new` too, so that a copy
        // of this generation is never taken for the next one's).
        Phase::Done | Phase::Retracted { .. } if maybe && !ctx.rules.can_find => {
            let key = line.key;
            let then = match line.phase {
                Phase::Retracted { .. } => format!(
                    "remove any copy of it there by hand, then `dayrun mark {key} retracted`"
                ),
                _ => format!("then `dayrun mark {key} done` (with `--id ID` for a copy to keep)"),
            };
            Decision::Wait(format!(
                "another runner's attempt of this copy may have landed too, and this target cannot look posts up: look on the target, {then}"
            ))
        }
        Phase::Done | Phase::Retracted { .. } if maybe => Decision::LookBeside,
        Phase::Done => match lever {
            Some(Lever::Force) if ctx.rules.updates && line.copies.current.id.is_some() => {
                Decision::CheckEdit { forced: true }
            }
            Some(Lever::ForceNew) if !gone(seen)? => publish(Why::SecondCopy, false, true),
            Some(Lever::Force) => Decision::Skip(Skip::CannotUpdate),
            Some(_) => Decision::Skip(Skip::DoneAsked),
            None => done(line, seen, ctx)?,
        },
        Phase::Retracted { .. } => match lever {
            Some(Lever::Force | Lever::ForceNew) if !gone(seen)? => {
                publish(Why::AfterRetract, false, false)
            }
            _ => Decision::Skip(Skip::Retracted),
        },
        Phase::Failed(class, looked) => {
            if let Some(lever) = lever {
                return Ok(match lever {
                    _ if maybe && gone(seen)? => Decision::Confirm,
                    _ if gone(seen)? && line.proves_nothing_sent() => Decision::Drop,
                    _ if gone(seen)? => Decision::Wait(format!(
                        "nothing to send: the post's file is gone; `dayrun retract {}` removes its copies",
                        line.key
                    )),
                    Lever::Absent => publish(Why::AbsentOnWord, false, false),
                    Lever::NotOurs(_) => publish(Why::NotOurs, maybe, false),
                    Lever::New | Lever::ForceNew if !maybe => publish(Why::Asked, false, true),
                    _ => publish(Why::Asked, maybe, false),
                });
            }
            failed(line, class, looked, seen, ctx)?
        }
    })
}

/// A failed key in a run (no human lever).
fn failed(
    line: &KeyLine,
    class: Class,
    looked: Looked,
    seen: Option<&Seen>,
    ctx: &Ctx,
) -> Result<Decision, Unread> {
    let maybe = line.tried.maybe;
    let key = line.key;
    let transient = matches!(
        (class, looked),
        (Class::RetrySafe, _) | (Class::Unknown, Looked::Absent | Looked::Error)
    );
    let seen = post(seen)?;
    // Put aside by hand: quiet until the post changes (or a person retries it).
    if line.by_hand {
        return Ok(match seen {
            Seen::Ready(f) if line.fp.as_ref().is_some_and(|fp| *fp != f.fp) => {
                publish(Why::Changed, maybe, false)
            }
            _ => Decision::Skip(Skip::Aside),
        });
    }
    match seen {
        // The file is gone, but an attempt may be out: look; a copy found is recorded.
        Seen::Gone if maybe && ctx.rules.can_find && transient => return Ok(Decision::Confirm),
        // Nothing of it can be out, but the line names live copies: it says what to do.
        Seen::Gone if !maybe && !line.live_ids().is_empty() => {
            return Ok(Decision::Wait(line.reason.clone().unwrap_or_else(|| {
                format!(
                    "the post's file is gone and copies are still live: `dayrun retract {key} --yes` takes them back, or `dayrun mark {key} done --id ID` keeps one"
                )
            })));
        }
        Seen::Gone => {
            return Ok(Decision::Wait(format!(
                "the post's file is gone and an attempt may be out; look on the target: `dayrun mark {key} done --id ID` if it is there, `dayrun mark {key} failed` if not"
            )));
        }
        Seen::Draft => return Ok(Decision::Skip(Skip::Draft)),
        Seen::Broken(why) => return Ok(Decision::Broken(why.clone())),
        Seen::Ready(_) => {}
    }
    if transient && past_window(key, ctx) {
        return Ok(Decision::Hold);
    }
    // A line that names no fingerprint cannot tell an edit: it is not one.
    let changed = matches!(seen, Seen::Ready(f) if line.fp.as_ref().is_some_and(|fp| *fp != f.fp));
    Ok(match (class, looked) {
        (Class::RetrySafe, _) => publish(Why::RetrySafe, maybe, false),
        (Class::Unknown, Looked::Absent) => publish(Why::LookedAbsent, true, false),
        (Class::Unknown, Looked::Error) => publish(Why::LookAgain, true, false),
        (Class::Local, _) => publish(Why::Fixed, maybe, false),
        (Class::Unknown, Looked::Nothing) => Decision::Wait(
            line.reason
                .clone()
                .unwrap_or_else(|| "outcome unknown, and the lookup could not tell".into()),
        ),
        (Class::Rejected | Class::Auth, _) if changed => publish(Why::Changed, maybe, false),
        (Class::Auth, _) if ctx.credential.is_some() && ctx.credential != line.cred.as_deref() => {
            publish(Why::Renewed, maybe, false)
        }
        (_, _) if line.by_hand => Decision::Skip(Skip::Aside),
        (Class::Auth | Class::Rejected, _) => Decision::Wait(format!(
            "failed ({class}: {})",
            line.reason.as_deref().unwrap_or("no reason recorded")
        )),
    })
}

fn retract(line: Option<&KeyLine>) -> Decision {
    let Some(line) = line else {
        return Decision::NothingToRetract("not published (no record here)".into());
    };
    match line.phase {
        Phase::Pending(Op::Retract) => return Decision::FinishRetract,
        Phase::Pending(Op::Publish) => {
            return Decision::Wait(format!(
                "an attempt is pending and its outcome unknown: `dayrun run` looks it up first, or `dayrun mark {} done --id ID`",
                line.key
            ));
        }
        Phase::Failed(..) if line.tried.maybe => {
            return Decision::Wait(format!(
                "an attempt may have landed and dayrun has no id for it: look on the target, `dayrun mark {} done --id ID` if it is there, then retract",
                line.key
            ));
        }
        // A merge kept another runner's attempt of this copy beside it: a retract now would
        // leave that attempt's copy out and forgotten.
        Phase::Done | Phase::Retracted { .. } if line.tried.maybe => {
            return Decision::Wait(format!(
                "another runner's attempt of this copy may have landed too: `dayrun run` looks for it first (it records any copy it finds), then retract {}",
                line.key
            ));
        }
        _ => {}
    }
    if !line.live_ids().is_empty() {
        return Decision::Retract;
    }
    Decision::NothingToRetract(match line.phase {
        Phase::Done => format!(
            "no id recorded for this post, so it cannot be found to remove; remove it by hand, then `dayrun mark {} done --id ID` records the id for next time",
            line.key
        ),
        Phase::Retracted { .. } => "already retracted".into(),
        _ => "not published (failed)".into(),
    })
}

fn publish(why: Why, look_first: bool, new_copy: bool) -> Decision {
    Decision::Publish {
        why,
        look_first,
        new_copy,
    }
}

/// Whether a visit of the key compares the post's edit hash (`Facts::payload`): only where its
/// line holds a refused edit, which stands while the post still holds it. The hash needs the
/// post's images, so the run and `status` make it only then.
pub fn compares_payload(line: Option<&KeyLine>) -> bool {
    line.is_some_and(|l| l.edits.edit_failed.is_some())
}

/// A done key in a run: its refused edit stands while the post still holds it; else its edit
/// goes to the copy within the edit window; an edit after the window is said once.
fn done(line: &KeyLine, seen: Option<&Seen>, ctx: &Ctx) -> Result<Decision, Unread> {
    // Edits of this key go nowhere: the target does not update, or the copy's id is unknown.
    if !ctx.rules.updates || line.copies.current.id.is_none() {
        return Ok(Decision::Skip(Skip::Done));
    }
    let facts = match post(seen)? {
        Seen::Ready(facts) => Some(facts),
        _ => None,
    };
    if let Some(refused) = &line.edits.edit_failed
        && facts.is_some_and(|f| f.payload.as_ref() == Some(refused))
    {
        return Ok(Decision::EditFailed(line.reason.clone().unwrap_or_else(|| {
            format!(
                "the target refused this edit, and the copy keeps its last version; save the post again once it is fixed, `dayrun retry {0} --force` sends it as it is, `dayrun mark {0} done` accepts the copy as it is",
                line.key
            )
        })));
    }
    if within_window(line, ctx) {
        return Ok(match facts {
            Some(_) => Decision::CheckEdit { forced: false },
            None => Decision::Skip(Skip::Done),
        });
    }
    // After the window, an edit is what the fingerprint says (as `status` shows EDITED).
    let late = facts.is_some_and(|f| {
        line.fp.as_ref().is_some_and(|fp| *fp != f.fp)
            && line.edits.edit_late.as_ref() != Some(&f.fp)
    });
    Ok(match late {
        true => Decision::Skip(Skip::LateEdit),
        false => Decision::Skip(Skip::Done),
    })
}

/// Whether the first publish (in the run's zone) is within `edit_days` of today.
fn within_window(line: &KeyLine, ctx: &Ctx) -> bool {
    let published = line.edits.published.as_deref().unwrap_or(&line.at);
    published
        .parse::<jiff::Timestamp>()
        .map(|t| t.to_zoned_datetime(ctx.tz.clone()).date())
        .is_ok_and(|day| crate::day::days_between(day, ctx.today) <= ctx.rules.edit_days)
}

/// The exit code the key leaves if nothing answers otherwise: a send that may succeed counts
/// as if it will (a due key never tried is 0); what waits counts as waiting.
pub(super) fn implied(line: Option<&KeyLine>, decision: &Decision, ctx: &Ctx) -> Exit {
    let waiting = |line: &KeyLine| match escalated(line, ctx) {
        true => Exit::NeedsHuman,
        false => Exit::RetryLater,
    };
    match (decision, line) {
        (Decision::Skip(_) | Decision::Drop | Decision::CheckEdit { .. }, _) => Exit::Ok,
        (Decision::Retract | Decision::NothingToRetract(_), _) => Exit::Ok,
        (Decision::Hold | Decision::EditFailed(_), _) => Exit::NeedsHuman,
        (Decision::Wait(_), Some(l)) if matches!(l.phase, Phase::Failed(Class::Auth, _)) => {
            Exit::Auth
        }
        (Decision::Wait(_), _) => Exit::NeedsHuman,
        (Decision::Broken(_), Some(l)) if l.attempted() => Exit::NeedsHuman,
        (Decision::Broken(_), _) => match past_window(ctx.key, ctx) {
            true => Exit::Ok,
            false => Exit::NeedsHuman,
        },
        // A target that cannot look: an unknown outcome is a human's at once.
        (Decision::Confirm, Some(_)) if !ctx.rules.can_find => Exit::NeedsHuman,
        // A done copy looked for beside: as if the look will find nothing more, until its
        // lookups have failed (75, red once it lasts), or one could not settle it (a person's,
        // the reason on the line says why).
        (Decision::LookBeside, Some(l)) => match (&l.first_failure, &l.reason) {
            (None, _) => Exit::Ok,
            (Some(_), Some(_)) => Exit::NeedsHuman,
            (Some(_), None) => crate::send::still_out(l, ctx),
        },
        (Decision::Confirm | Decision::FinishUpdate | Decision::FinishRetract, Some(l)) => {
            waiting(l)
        }
        (
            Decision::Publish {
                why: Why::RetrySafe | Why::LookedAbsent | Why::LookAgain,
                ..
            },
            Some(l),
        ) => waiting(l),
        _ => Exit::Ok,
    }
}

#[cfg(test)]
mod tests;
