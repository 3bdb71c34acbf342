//! A key's life on one target, in one place: its typed line (`line.rs`), the events that move it,
//! and `next`, the one pure function from (line, event, the target's rules, now) to (the line to
//! write, what to do next, the exit code it leaves). Every command that writes a line (run,
//! retry, batch, uploads, updates, retract, mark, adopt) and every reader that judges one
//! (`status`, the dry run, `merge-state`) goes through here; the README's "Life of a key" is
//! checked against `table` by a test.
#![cfg_attr(test, allow(clippy::too_many_lines))]

mod before;
mod class;
pub mod copies;
pub mod day;
mod decide;
mod edit;
mod exit;
mod human;
mod keeps;
pub mod key;
mod landing;
mod line;
pub mod list;
mod look_failed;
mod merge;
pub mod native;
pub mod outside;
mod parts;
mod pass;
mod receipt;
mod record;
mod remove;
mod rename;
mod resume;
mod send;
mod sought;
mod word;

pub use before::{Before, Sending, sending};
pub use class::{Class, code};
pub use decide::{Decision, Skip, Why, compares_payload};
pub use edit::{Earlier, EditCheck, check_edit, edits_in_place};
pub use exit::Exit;
pub use human::Act;
pub use keeps::Keeps;
pub use key::Key;
pub use landing::{Landing, Looking};
pub use line::{
    Copies, Copy, Edits, Holds, KeyLine, Looked, MAX_MARKS, Op, Phase, Tried, check_field,
};
pub use look_failed::{LookFailed, look_failed, read_back_failed};
pub use merge::{Conflict, merge};
pub use native::Native;
pub use parts::{MAX_PARTS, Part, thread_how};
pub use pass::{Pass, looks_at, pass, will_look};
pub use receipt::Receipt;
pub use record::{Record, Status};
pub use remove::removed_note;
pub use resume::{Resume, first_parts, kept_fits, part_differs, resume, resumes, started};
pub use send::{Answer, Failure, How, Landed, Verdict};
pub use sought::Sought;
pub use word::Word;

use jiff::Timestamp;
use jiff::civil::Date;
use std::time::Duration;

/// At most this many live copies of earlier generations are kept on a line: a new copy past it
/// is refused (retract some first), so no id is ever dropped to make room. Duplicates a lookup
/// finds and copies ruled foreign are kept up to `MAX_IDS / 2` each. With ids of at most
/// `MAX_ID` bytes, a URL, 16 KiB of uploads, a reason of `MAX_REASON` characters and a thread of
/// `MAX_PARTS` parts of `parts::MAX_PART` bytes, a line stays below 62 KiB at the very worst,
/// under the state file's 64 KiB limit.
pub const MAX_IDS: usize = 8;
/// The longest id or URL kept from outside (a server, a script, `mark --id`).
pub const MAX_ID: usize = 2048;
/// The longest reason kept on a line (the trace and the terminal show the same).
pub const MAX_REASON: usize = 1000;
/// Generations past this are refused (`retry --new`): retract copies first.
pub const MAX_GENERATION: u32 = 64;

/// What the run was asked to do, one mode at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `run`: publish what is due; `backfill`: keys older than `catchup_days` too.
    Run { backfill: bool },
    /// `retry KEY…`: a human asks for these keys now.
    Retry(Lever),
    /// `retract KEY…`: take the copies back.
    Retract,
}

/// How a human asks for a key again (`retry` and its flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lever {
    /// `retry`: look first where an attempt may have landed; send only if absent.
    Again,
    /// `retry --absent`: the human looked and the post is not there: send without looking.
    Absent,
    /// `retry --new`: a failed key that nothing reached is sent as the key's next copy.
    New,
    /// `retry --force`: a done key is sent again, in place where the target updates.
    Force,
    /// `retry --force --new`: a done key gets a second copy, on purpose.
    ForceNew,
    /// `retry --not-ours ID`: the copy ID at this key's place is not this post; publish beside
    /// it (recorded as `foreign=`, so the question is not asked again).
    NotOurs(String),
}

/// The target's rules, from its config and its kind.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Due keys older than this many days are stale (never sent) or held back (sent and failed).
    pub catchup_days: i64,
    /// A failure that lasts this long turns the timer red (`escalate_after`, default 20 h).
    pub escalate_after: Duration,
    /// Edits are sent for this many days after the first publish.
    pub edit_days: i64,
    /// Extra sends, and extra looks after a failed lookup, within one run.
    pub retries: u32,
    /// The first backoff; it doubles.
    pub backoff: Duration,
    /// Edits go to the published copy (`on_edit`, or the kind's default).
    pub updates: bool,
    /// The target can look a key up at all (an http target without `list_url` cannot).
    pub can_find: bool,
    /// Pre-submit dedup is on (`dedup` is not `false`): a first attempt looks first.
    pub dedup: bool,
    /// `dedup = "strict"`: a pre-submit lookup that cannot tell does not send.
    pub strict: bool,
}

/// A target table's defaults for the delivery keys a key's life reads; `config` starts from
/// them, so the two cannot disagree.
pub mod defaults {
    use std::time::Duration;

    /// `catchup_days`.
    pub const CATCHUP_DAYS: i64 = 3;
    /// `escalate_after`: red by the second morning of a daily timer.
    pub const ESCALATE_AFTER: Duration = Duration::from_secs(20 * 3600);
    /// `edit_days`.
    pub const EDIT_DAYS: i64 = 7;
    /// `retries`.
    pub const RETRIES: u32 = 2;
    /// `backoff_secs`.
    pub const BACKOFF: Duration = Duration::from_secs(2);
}

impl Default for Rules {
    /// A target table's defaults (`catchup_days` 3, `escalate_after` 20 h, `dedup = true`, …).
    fn default() -> Rules {
        Rules {
            catchup_days: defaults::CATCHUP_DAYS,
            escalate_after: defaults::ESCALATE_AFTER,
            edit_days: defaults::EDIT_DAYS,
            retries: defaults::RETRIES,
            backoff: defaults::BACKOFF,
            updates: false,
            can_find: true,
            dedup: true,
            strict: false,
        }
    }
}

/// The moment a key is judged in.
#[derive(Debug, Clone)]
pub struct Ctx<'a> {
    /// The key judged.
    pub key: Key,
    pub now: Timestamp,
    pub tz: &'a jiff::tz::TimeZone,
    /// `now` as a line writes it.
    pub stamp: String,
    pub today: Date,
    pub rules: &'a Rules,
    pub mode: &'a Mode,
    /// The key was named on the command line (`--key`, or `retry`'s keys): never stale.
    pub named: bool,
    /// `today` was pinned (`--today`): every key of that day is due, whatever its time.
    pub pinned: bool,
    /// The instant the key's post is due, when its front matter names a time (`Facts::due`),
    /// as the caller read it: a day's catch-up window counts from it.
    pub due: Option<Timestamp>,
    /// A non-secret fingerprint of the credential in use (an auth failure retries once it
    /// changes).
    pub credential: Option<&'a str>,
}

impl<'a> Ctx<'a> {
    /// `key` judged at `now` (in zone `tz`, as the caller's clock read it) on `today` (the
    /// clock's, or as `--today` pinned it). `life` reads no clock: the moment comes in.
    pub fn at(
        key: Key,
        now: &jiff::ZonedDateTime,
        tz: &'a jiff::tz::TimeZone,
        today: Date,
        rules: &'a Rules,
        mode: &'a Mode,
    ) -> Ctx<'a> {
        Ctx {
            key,
            now: now.timestamp(),
            tz,
            stamp: crate::day::stamp(now),
            today,
            rules,
            mode,
            named: false,
            pinned: false,
            due: None,
            credential: None,
        }
    }
}

/// The post of a key as the run finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// No file.
    Gone,
    /// The file cannot be read or derived: the reason.
    Broken(String),
    /// `draft: true`.
    Draft,
    /// Ready to send.
    Ready(Facts),
}

/// What of a readable post the rules compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub fp: String,
    /// The edit hash (`payload=`) of the post now, where the rules compare it: on a line that
    /// holds a refused edit (`edit_failed=`).
    pub payload: Option<String>,
    /// Why the post cannot go to this target until a person acts (its template fails on it,
    /// a copy its text links to will never come by itself), if it cannot: a send of it
    /// fails, so the key leaves a run needing a person.
    pub blocked: Option<String>,
    /// The line this key takes over, when the key has none: the post is that line's, renamed
    /// (the caller's finding, `rename.rs`); a visit carries it over before it decides.
    pub carry: Option<Box<KeyLine>>,
    /// The instant the post is due, when its front matter names a time of its day (`times =
    /// "front-matter"`); `None`: its day's start.
    pub due: Option<Timestamp>,
}

/// What happens to the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Keep,
    Write(Box<KeyLine>),
    /// The line goes (it proves nothing was ever sent, and its post is gone).
    Drop,
}

/// What the runner does next with the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Then {
    /// Nothing more this run.
    Stop,
    /// The visit's decision.
    Decide(Decision),
    /// Send (again) after waiting this long; the pending line is written first.
    Send(Duration),
    /// Look (again) after waiting this long.
    Look(Duration),
    /// Read the updated copy back, or send the update again, after waiting this long.
    ReadBack(Duration),
    /// Remove this live copy next.
    Remove(String),
    /// Read the key's post, then visit again with it.
    Read,
}

/// The result of one event: the line, what comes next, the exit code it leaves, and the word
/// the summary counts it under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub line: Change,
    pub then: Then,
    pub exit: Exit,
    pub word: Word,
    /// What to tell the human (printed with the key, traced), if anything.
    pub say: Option<String>,
}

impl Step {
    fn stop(line: Change, exit: Exit, word: Word) -> Step {
        Step {
            line,
            then: Then::Stop,
            exit,
            word,
            say: None,
        }
    }

    fn write(line: KeyLine, exit: Exit, word: Word) -> Step {
        Step::stop(Change::Write(Box::new(line)), exit, word)
    }

    /// A step that changes nothing and goes on with `then`: where the runner starts carrying
    /// out what a visit decided (look first, send, read the copy back).
    pub fn to(then: Then) -> Step {
        Step::stop(Change::Keep, Exit::Ok, Word::Nothing).then(then)
    }

    fn then(mut self, then: Then) -> Step {
        self.then = then;
        self
    }

    fn say(mut self, text: impl Into<String>) -> Step {
        self.say = Some(text.into());
        self
    }

    /// The line written by this step, if any.
    pub fn written(&self) -> Option<&KeyLine> {
        match &self.line {
            Change::Write(line) => Some(line),
            _ => None,
        }
    }
}

/// Everything that moves a key.
#[derive(Debug, Clone)]
pub enum Event<'a> {
    /// The run reaches the key: what to do with it. The post as read, or `None`: a rule that
    /// needs it then answers `Then::Read`, and the caller visits again with what it read (a
    /// no-op run reads no done post).
    Visit(Option<&'a Seen>),
    /// A send starts (`op` publish or update): the pending line, durable before the request.
    /// `marks`: what this attempt sends; `payload`: its edit hash (a copy a lookup finds later
    /// is this attempt's, whatever the file says by then); `native`: what the platform chose for
    /// the copy before sending (a record key), taken when the copy has none; `new_copy`: the
    /// human asked for the key's next copy.
    Attempt {
        op: Op,
        fp: &'a str,
        marks: &'a [String],
        payload: Option<&'a str>,
        new_copy: bool,
        native: &'a Native,
    },
    /// An upload's answer arrived: the uploads so far, on the pending line at once.
    Uploaded(&'a str),
    /// The platform made something mid-send that a resend must reuse rather than make again
    /// (a Threads container): its fields, on the pending publish's line at once, as an
    /// answer's are taken (`Native::answered`).
    Noted(&'a Native),
    /// A send answered. `before`: the line as it was before this attempt (a failure that
    /// provably sent nothing leaves it as it was); `sends`: sends made for the key this run.
    Answered {
        answer: Answer<'a>,
        before: Option<&'a KeyLine>,
        sends: u32,
    },
    /// A lookup answered. `first`: before any attempt (pre-submit dedup); `looks`: failed looks
    /// this run; `sends`: sends this run; `sendable`: a post is there to send if absent.
    Looked {
        verdict: Verdict<'a>,
        first: bool,
        looks: u32,
        sends: u32,
        sendable: bool,
    },
    /// An unchanged published copy: its edit hash recorded without sending (a line from
    /// before payloads were kept, or one dayrun 0.3 hashed without images).
    Baseline(&'a str),
    /// A retract starts: every live copy goes, one at a time.
    Retracting,
    /// A copy was removed (`gone`: a lookup showed it gone; else the target accepted it).
    Removed { id: &'a str, verified: bool },
    /// A removal failed (nothing was removed) or the copy is still there (`unsure`: its
    /// outcome is unknown). `before`: the line before the retract started.
    NotRemoved {
        class: Class,
        reason: &'a str,
        unsure: bool,
        before: Option<&'a KeyLine>,
    },
    /// Part `n` of a thread landed (`url`: the link of part 0): on the pending line at once.
    /// `cut_off`: found after the run that sent it was cut off, and no part after it was
    /// sent (a part goes only once the one before it is on the line), so nothing of the
    /// thread is out unrecorded any more.
    PartLanded {
        n: usize,
        part: &'a Part,
        url: Option<&'a str>,
        cut_off: bool,
    },
    /// The parts a thread is sent as (`thread::hash`): on its pending line before the first
    /// part goes.
    Split(&'a str),
    /// A human command.
    Human(&'a Act),
    /// `dayrun mv`: the key takes over this line (its post renamed to the key).
    Took(&'a KeyLine),
    /// A run saw the key's post file gone, and no new post it visited may be it renamed.
    SeenGone,
}

/// The one transition function. Pure: the runner does what `then` says, and feeds the answer
/// back as the next event.
pub fn next(line: Option<&KeyLine>, event: &Event, ctx: &Ctx) -> Step {
    match event {
        Event::Visit(seen) => decide::visit(line, *seen, ctx),
        Event::Attempt {
            op,
            fp,
            marks,
            payload,
            new_copy,
            native,
        } => {
            let sent = send::Sent {
                fp,
                marks,
                payload: *payload,
            };
            send::attempt(line, *op, &sent, *new_copy, native, ctx)
        }
        Event::Uploaded(media) => send::uploaded(line, media, ctx),
        Event::Noted(native) => send::noted(line, native, ctx),
        Event::Answered {
            answer,
            before,
            sends,
        } => match line.map(|l| l.phase) {
            Some(Phase::Pending(Op::Update)) => edit::answered(line, answer, *sends, ctx),
            _ => send::answered(line, answer, *before, *sends, ctx),
        },
        Event::Looked {
            verdict,
            first,
            looks,
            sends,
            sendable,
        } => match line.map(|l| l.phase) {
            Some(Phase::Pending(Op::Update)) => edit::read_back(line, verdict, *sends, ctx),
            _ => send::looked(line, verdict, *first, *looks, *sends, *sendable, ctx),
        },
        Event::Baseline(payload) => edit::baseline(line, payload),
        Event::Took(from) => {
            let carried = from.carried_to(ctx.key, &ctx.stamp);
            Step::stop(Change::Write(Box::new(carried)), Exit::Ok, Word::Nothing)
        }
        Event::SeenGone => rename::seen_gone(line, ctx.today),
        Event::Retracting => remove::start(line, ctx),
        Event::Removed { id, verified } => remove::removed(line, id, *verified, ctx),
        Event::NotRemoved {
            class,
            reason,
            unsure,
            before,
        } => remove::not_removed(line, *class, reason, *unsure, *before, ctx),
        Event::PartLanded {
            n,
            part,
            url,
            cut_off,
        } => parts::landed(line, (*n, part, *url), *cut_off, ctx),
        Event::Split(hash) => parts::split(line, hash, ctx),
        Event::Human(act) => human::act(line, act, ctx),
    }
}

/// Whether a failure that began at the line's `first_failure` (else the line's own time) has
/// lasted past `escalate_after`.
pub fn escalated(line: &KeyLine, ctx: &Ctx) -> bool {
    let began = line.first_failure_time().or_else(|| line.time());
    began.is_some_and(|t| {
        ctx.now
            .duration_since(t)
            .try_into()
            .is_ok_and(|d: Duration| d > ctx.rules.escalate_after)
    })
}

/// Whether the key is older than the catch-up window and nobody asked for it: its day (a
/// period's last) more than `catchup_days` before today, or, for a day's post with a time
/// (`Ctx::due`), that instant more than `catchup_days` days and one before now, so that the
/// window counts from the instant it became due either way.
pub fn past_window(key: Key, ctx: &Ctx) -> bool {
    let backfill = matches!(ctx.mode, Mode::Run { backfill: true } | Mode::Retry(_));
    let past = match ctx.due.filter(|_| key.period() == key::Period::Day) {
        Some(due) => {
            let window = jiff::Span::new().days(ctx.rules.catchup_days + 1);
            let end = due.to_zoned_datetime(ctx.tz.clone()).checked_add(window);
            end.is_ok_and(|end| ctx.now >= end.timestamp())
        }
        None => crate::day::days_between(key.last_day(), ctx.today) > ctx.rules.catchup_days,
    };
    past && !backfill && !ctx.named
}

/// A receipt from outside, as a line may keep it: an id of at most `MAX_ID` bytes with no
/// control character, and a URL only when it is http(s). `Err`: the id is unusable, so the
/// outcome is unknown (the key is looked up, never written blind).
pub fn checked(receipt: &Receipt) -> Result<Receipt, String> {
    let id = &receipt.id;
    if id.is_empty() || id.len() > MAX_ID || id.chars().any(char::is_control) {
        let shown = crate::outside::escape(id, 60);
        return Err(format!(
            "the receipt id is not usable ({} bytes{}: {shown})",
            id.len(),
            match id.chars().any(char::is_control) {
                true => ", with control characters",
                false => "",
            }
        ));
    }
    // A link: http(s), or a path on the site (`/posts/x.json`); never `javascript:` and the like.
    let url = crate::outside::web_url(receipt.url.as_deref()).filter(|u| u.len() <= MAX_ID);
    Ok(Receipt {
        id: id.clone(),
        url,
        note: receipt.note.clone(),
        native: receipt.native.checked(),
    })
}

/// A reason kept on a line: one attempt's words, control characters as spaces (a reason is for
/// people, and escapes would grow the line), cut to `MAX_REASON` characters.
pub fn reason(text: &str) -> String {
    let plain: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cut(plain, MAX_REASON)
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn cut(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests;
