//! The reference model: a key's life as issue 20 and the README say it must be, written from
//! their words and never from `src/life`. For each command it predicts the exit code, each key's
//! line (as the few facts the rules turn on) and how many copies the fake holds.
//!
//! The rules it follows, each from the issue (row) or the README (section):
//! - a key with no line is looked up before its first send; found = done, else it is sent (the
//!   lookup is best effort: a failed or unreadable one does not stop the send) ("Lookups");
//! - a retry-safe failure (429) is sent again within the run, `retries` times, then recorded; it
//!   exits 75 until its first failure is older than `escalate_after`, then 1; past the catch-up
//!   window it is held back, not sent, exit 1 (row 3);
//! - an unknown outcome (5xx, a lost answer) is looked up: found = done; absent = sent again
//!   (counted against the same budget), then recorded `lookup=absent` for the next run (75);
//!   a failed lookup is looked again within the run, then left for the next run (75) until
//!   `escalate_after`, then "cannot tell" (1); an unreadable answer cannot tell (1) (row 1);
//! - nothing that may be out is ever sent again without a lookup, unless a human says `--absent`;
//! - rejected (422) and auth (401) wait for a human, exit 1 and 3 on every run whatever the key's
//!   age, until the post changes; auth stops the target for the run (row 2, "Failure classes");
//! - `mark KEY failed` puts a key aside: quiet (exit 0) until its post changes or `retry`;
//!   `mark done` records it; `retract` removes every live copy the line knows (row 5, 6);
//! - a line that proves nothing was sent goes when its post goes (row 7); a done line stays;
//! - `merge-state` keeps the line that comes first in the README's order, every live id of both
//!   sides, and what the other side may have sent (a done line keeps it too: an attempt that
//!   may have landed is never forgotten); two ids of one copy exit 1 (row 9). The next run
//!   looks such a done copy up: more copies of its generation found are duplicates (exit 1),
//!   none means nothing more is out; nothing is sent, and `--force --new` looks first too
//!   (issue 28: a copy recorded for an older generation never answers for a newer one);
//! - `run --dry-run` and `status` exit with what the state implies (row 11);
//! - (issue 28, row 3) a copy is known by what was sent, for which key, never by its text: with
//!   keys 0 and 1 of the same text (twins) and a lookup that matches by text, a lookup of one
//!   finds the other's copies too. Those the other's line names are left out; one that no line
//!   names may be either's while the other key's post would be sent with that text (its file
//!   is there) or its attempt may be out, so then only a copy the key's own line names answers,
//!   and with none, whose copy it is cannot be told: a person's (exit 1), and nothing is sent,
//!   not even a first send (the copy may be this post, made by another runner);
//! - in an outage (every connection refused), the first request refused stops the target for
//!   the rest of the run: each later key is neither sent nor looked up; one of which nothing
//!   may be out is recorded as a retry-safe failure (not tried), the others stay as they are,
//!   and each leaves the exit its line then implies (issue 29, row 8).
//!
//! Where the issue is silent, the model chose (and the code agrees):
//! - a lookup answered 200 with a body that is not JSON cannot tell (a human's, exit 1), as a
//!   cut listing does; it is not taken for a transient failure;
//! - a failed key whose attempts are looked again by themselves (retry-safe, `lookup=absent`,
//!   `lookup=error`) and whose date is past the catch-up window is held back without a lookup;
//! - `mark KEY failed` on a key whose copy is out is the human's word that a later send may make
//!   another copy; that send lands as a DUPLICATE (exit 1) beside the copy the line names;
//! - a key's failures are one run, whatever their classes, until its post goes out or a human
//!   marks it: `escalate_after` counts from the first (a send after an edit of a rejected post
//!   that then fails retry-safe is not a fresh start);
//! - a key whose first lookup refused the credential (nothing sent) records no post: an edit is
//!   no change, and it waits for the credential or a human (exit 3) like any auth failure.
//!
//! Where the code disagreed with the issue, `found.rs` replays the case (all fixed since).
//!
//! Left out: updates in place (no `update_url`), uploads, faults
//! on DELETE and killed retracts, `retry --new` alone and `--not-ours`, `adopt`, `dedup =
//! "strict"`, other kinds of target.

use jiff::Timestamp;
use jiff::civil::Date;

/// In-run retries (`retries`), and the config's `escalate_after` and `catchup_days`.
pub const RETRIES: usize = 2;
pub const ESCALATE_MINUTES: i64 = 120;
pub const CATCHUP_DAYS: i64 = 3;

/// An exit code, ordered as the README orders them: the more urgent wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    Ok,
    Later,
    Human,
    Auth,
    Usage,
}

impl Exit {
    pub fn code(self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Later => 75,
            Exit::Human => 1,
            Exit::Auth => 3,
            Exit::Usage => 2,
        }
    }
}

/// What a POST meets (the last of a key's list repeats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Send {
    Ok,
    /// Committed, then a 500: outcome unknown.
    Commit500,
    /// Committed, then the connection closed with no answer: outcome unknown.
    CommitClose,
    /// Committed, then no answer before the timeout: outcome unknown.
    CommitHang,
    /// Not committed, a 503: outcome unknown.
    Lost503,
    /// Not committed, no answer before the timeout: outcome unknown.
    LostHang,
    /// 429: retry-safe.
    Busy,
    /// The connection is refused (an outage): retry-safe, and the server cannot be reached,
    /// so the run tries none of the later keys (issue 29 row 8).
    Refused,
    /// 422: rejected.
    Reject,
    /// 401: auth.
    Auth,
}

impl Send {
    fn commits(self) -> bool {
        matches!(
            self,
            Send::Ok | Send::Commit500 | Send::CommitClose | Send::CommitHang
        )
    }
}

/// What the lookups of a key meet in one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Ok,
    /// The first GET fails (500), the rest answer.
    FailOnce,
    /// Every GET fails (500).
    FailAlways,
    /// 200 with a body that is not JSON.
    Garbage,
    /// 401: the credential is refused (the target stops for the run).
    Auth,
    /// Every connection is refused (an outage): as `FailAlways`, and the server cannot be
    /// reached, so the run tries none of the later keys.
    Refused,
}

/// How the fake answers one key in one command.
#[derive(Clone, PartialEq, Eq)]
pub struct Script {
    /// Each POST in turn; the last repeats (empty: every POST succeeds).
    pub sends: Vec<Send>,
    pub look: Look,
}

impl Script {
    pub fn calm() -> Script {
        Script {
            sends: Vec::new(),
            look: Look::Ok,
        }
    }

    pub fn send(&self, nth: usize) -> Send {
        match self.sends.get(nth).or(self.sends.last()) {
            Some(send) => *send,
            None => Send::Ok,
        }
    }
}

/// Why a failed line waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    RetrySafe,
    Rejected,
    Auth,
    /// Outcome unknown, then looked up and proved absent: the next run looks and sends.
    Absent,
    /// Outcome unknown and the lookup failed: the next run looks again.
    LookupError,
    /// Outcome unknown and the lookup cannot tell: a human's.
    CannotTell,
    /// Put aside by hand (`mark failed`).
    Aside,
}

impl Why {
    /// The next run retries by itself.
    fn transient(self) -> bool {
        matches!(self, Why::RetrySafe | Why::Absent | Why::LookupError)
    }
}

/// A key's line, as the rules need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rec {
    None,
    /// Written before a send; found by a later command, its outcome is unknown.
    Pending,
    Done,
    Failed(Why),
    Retracted,
}

/// One key: its post, its line, and its copies on the fake.
#[derive(Debug, Clone)]
pub struct Key {
    /// The key's day (a period's first), and its last day (a period's, else the same).
    pub date: Date,
    pub last: Date,
    /// When its front matter's time makes it due (`times`), if it has one.
    pub due: Option<Timestamp>,
    /// The post file's version (`None`: deleted).
    pub file: Option<u32>,
    pub line: Line,
    /// Live copies of the key on the fake.
    pub live: usize,
    /// Of those, the earlier generations' copies the line names (`older=`): a lookup for this
    /// generation never answers with them (issue 28, row 2).
    pub older_live: usize,
    /// Copies beyond the first that a human asked for, or that two diverged sides made.
    pub allowed: usize,
    /// Of the live copies of this generation, those the line names (`id=`, `copies=`); read
    /// from the state before each step (and each morning of an outage), kept by the model
    /// within it.
    pub named: usize,
    /// A run noted the key's file gone (`gone=` on its line), read from the state before each
    /// run (each morning of an outage too): whether a run writes it is `content::renames`' to
    /// test.
    pub noted: bool,
}

/// The keys whose file is gone and whose line names a copy or an attempt that may be out, as
/// the rename rule reads them.
fn gone_lines(keys: &[Key]) -> Vec<GoneLine> {
    (keys.iter().enumerate())
        .filter(|(_, k)| k.file.is_none() && k.line.out())
        .map(|(j, k)| GoneLine {
            j,
            date: k.date,
            noted: k.noted,
        })
        .collect()
}

/// A key whose file is gone and whose line names a copy or an attempt that may be out, as the
/// rename rule reads it.
#[derive(Debug, Clone)]
struct GoneLine {
    j: usize,
    date: Date,
    noted: bool,
}

impl Key {
    /// Past the catch-up window: its last day more than `CATCHUP_DAYS` before `today`, or, with
    /// a time (`due`, a day's key here), that instant more than `CATCHUP_DAYS` days and one
    /// before `now`.
    pub fn stale(&self, now: Timestamp, today: Date) -> bool {
        match self.due {
            Some(due) => now >= due + jiff::SignedDuration::from_hours(24 * (CATCHUP_DAYS + 1)),
            None => days(self.last, today) > CATCHUP_DAYS,
        }
    }

    /// A post the rename rule asks about: its line is none, or proves nothing of it was sent.
    fn candidate(&self) -> bool {
        let line = &self.line;
        let unsent = matches!(line.rec, Rec::Failed(_)) && !line.maybe && !line.own && !line.older;
        self.file.is_some() && (line.rec == Rec::None || unsent)
    }

    /// Live copies of the key that no line names (earlier generations' named in `older=` aside).
    fn strays(&self) -> usize {
        self.live.saturating_sub(self.older_live + self.named)
    }
}

/// What a lookup of one twin sees of the other, as the run reaches it.
#[derive(Debug, Clone, Copy)]
pub struct Twin {
    /// Its post would be sent with the same text (its file is there).
    pub file: bool,
    /// An attempt of it may be out (`sent=maybe`).
    pub maybe: bool,
    /// Its live copies that no line names.
    pub strays: usize,
}

/// The facts of a key's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub rec: Rec,
    /// `sent=maybe`: an attempt may be out.
    pub maybe: bool,
    /// The line names a live copy of this generation (`id=`, `copies=`).
    pub own: bool,
    /// The line names live copies of earlier generations (`older=`).
    pub older: bool,
    pub generation: u32,
    /// When the key's current run of transient failures began.
    pub since: Option<Timestamp>,
    /// The post version the last failure or mark was about (an edit is a later version).
    pub fp: Option<u32>,
    /// An attempt was started (a pending line was written) since the line was last marked
    /// done: a failed line with none, of which nothing was sent, is looked up before its send
    /// as a first send is.
    pub attempted: bool,
    /// When the line was last written (the merge's order).
    pub written: Timestamp,
    /// A done copy's look for further copies could not settle it (a copy on no line while the
    /// twin has its text, a refusal): a person's, with why on the line.
    pub asks: bool,
}

impl Line {
    pub fn none(at: Timestamp) -> Line {
        Line {
            rec: Rec::None,
            maybe: false,
            own: false,
            older: false,
            generation: 0,
            since: None,
            fp: None,
            attempted: false,
            written: at,
            asks: false,
        }
    }

    /// The line names a copy, or an attempt that may be out (what a rename may carry over).
    fn out(&self) -> bool {
        !matches!(self.rec, Rec::None | Rec::Retracted) && (self.own || self.older || self.maybe)
    }

    /// In a run of failures (of any class, until the post goes out or a human marks the key):
    /// its start carries over.
    fn in_streak(&self) -> bool {
        let looking = self.rec == Rec::Done && self.maybe;
        (looking || matches!(self.rec, Rec::Pending | Rec::Failed(_))) && self.since.is_some()
    }
}

/// What a command asks of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Run,
    Retry(Lever),
}

/// `retry`'s flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lever {
    Again,
    Absent,
    Force,
    ForceNew,
}

/// A lookup's answer, after its in-run retries.
enum Seen {
    Found(usize),
    Absent,
    /// A copy no line names, and the twin's post or attempt has its text: whose is it?
    Whose,
    Transient,
    CannotTell,
    Refused,
}

/// One command's pass over the keys: the moment, the mode, and what it has met so far.
pub struct Pass<'a> {
    pub now: Timestamp,
    pub today: Date,
    pub mode: Mode,
    /// The keys named on the command line (never stale, never held back).
    pub named: bool,
    /// A fork's second side: a copy it sends beside the first side's is the fork's doing.
    pub fork: bool,
    /// Keys 0 and 1 have the same text (`visit_at` tells each what it sees of the other).
    pub twins: bool,
    twin: Option<Twin>,
    /// Keys are slugged (issue 32): a post with no line may be asked about as a rename.
    pub slugged: bool,
    /// `--today` pinned the day: every key of it is due, whatever its time (issue 33).
    pub pinned: bool,
    /// The gone lines as the pass first read them (`renamed`), and whether the key at hand
    /// is asked about as a rename.
    gone: Option<Vec<GoneLine>>,
    renamed: bool,
    /// Set when the story met what the model leaves to other tests (the case is dropped).
    pub unmodeled: Option<&'static str>,
    /// The target's `settle_secs`, in minutes: an attempt may still land this long after it
    /// (0, or 15: longer than a run waits, so a lookup before then says "not yet").
    pub settle: i64,
    scripts: &'a [Script],
    /// An auth failure stopped the target: later keys are not attempted.
    stopped: bool,
    /// A request of this run found the server unreachable (connection refused) ...
    down: bool,
    /// ... before the key at hand: nothing more is sent or looked up. A key nothing of which
    /// may be out is recorded as a retry-safe failure (not tried); the others stay as they are.
    unreached: bool,
    pub exit: Exit,
    /// Every line each key had during the command (for a command killed part way).
    pub trail: Vec<Vec<Line>>,
    gets: Vec<usize>,
    posts: Vec<usize>,
    /// Said when the model itself would break a rule (a copy sent beside a live one, unasked).
    pub broken: Option<String>,
    /// What the rules met, for the summary (held back, escalated, duplicate …).
    pub notes: Vec<(usize, &'static str)>,
}

impl<'a> Pass<'a> {
    pub fn new(now: Timestamp, mode: Mode, named: bool, scripts: &'a [Script]) -> Pass<'a> {
        Pass {
            now,
            today: now.to_zoned_datetime(jiff::tz::TimeZone::UTC).date(),
            mode,
            named,
            fork: false,
            twins: false,
            twin: None,
            slugged: false,
            pinned: false,
            gone: None,
            renamed: false,
            unmodeled: None,
            settle: 0,
            scripts,
            stopped: false,
            down: false,
            unreached: false,
            exit: Exit::Ok,
            trail: vec![Vec::new(); scripts.len()],
            gets: vec![0; scripts.len()],
            posts: vec![0; scripts.len()],
            broken: None,
            notes: Vec::new(),
        }
    }

    /// Whether a plain run would send the key (a candidate of the rename rule) now.
    fn sends(&self, key: &Key) -> bool {
        let changed = key.line.fp.is_some_and(|fp| Some(fp) != key.file);
        match key.line.rec {
            Rec::None => key.date <= self.today && !self.later(key) && !self.past_window(key),
            Rec::Failed(Why::RetrySafe) => !self.past_window(key),
            Rec::Failed(Why::Rejected | Why::Auth | Why::Aside) => changed,
            _ => false,
        }
    }

    /// A key of today whose time (`times`) is still to come, unless the day is pinned.
    fn later(&self, key: &Key) -> bool {
        !self.pinned && key.due.is_some_and(|due| self.now < due)
    }

    fn past_window(&self, key: &Key) -> bool {
        self.mode == Mode::Run && !self.named && key.stale(self.now, self.today)
    }

    /// Whether a run of failures that began at `since` has lasted past `escalate_after`.
    fn escalated(&self, line: &Line) -> bool {
        let Some(since) = line.since else {
            return false;
        };
        let minutes = self.now.duration_since(since).as_secs() / 60;
        minutes >= ESCALATE_MINUTES
    }

    /// Write the key's line.
    fn write(&mut self, i: usize, key: &mut Key, line: Line) {
        key.line = Line {
            written: self.now,
            ..line
        };
        self.trail[i].push(key.line.clone());
    }

    /// One lookup of the key, looked again within the run after a failed GET.
    fn look(&mut self, i: usize, key: &Key) -> Seen {
        for _ in 0..=RETRIES {
            let nth = self.gets[i];
            self.gets[i] += 1;
            match self.scripts[i].look {
                Look::Ok => {}
                Look::FailOnce if nth > 0 => {}
                Look::FailOnce | Look::FailAlways => continue,
                Look::Refused => {
                    self.down = true;
                    continue;
                }
                Look::Garbage => return Seen::CannotTell,
                Look::Auth => return Seen::Refused,
            }
            return self.seen(key);
        }
        Seen::Transient
    }

    /// What an answered lookup finds: the key's copies of this generation; a twin's, the other
    /// twin's that no line names too (those its line names are left out).
    fn seen(&self, key: &Key) -> Seen {
        let own = key.live.saturating_sub(key.older_live);
        let Some(twin) = self.twin else {
            return match own {
                0 => Seen::Absent,
                n => Seen::Found(n),
            };
        };
        let recorded = key.named.min(own);
        let strays = own - recorded + twin.strays;
        // A done line looking for further copies (a merge kept the other side's attempt): a
        // copy on no line is what it looks for, and may be the twin's.
        let further = key.line.rec == Rec::Done && key.line.maybe;
        match (twin.file || twin.maybe) && strays > 0 {
            true if recorded > 0 && !further => Seen::Found(recorded),
            true => Seen::Whose,
            false if own + twin.strays == 0 => Seen::Absent,
            false => Seen::Found(own + twin.strays),
        }
    }

    /// Key `i` of `keys`, visited; a twin is told what it sees of the other, as it is now.
    pub fn visit_at(&mut self, i: usize, keys: &mut [Key]) {
        self.twin = match self.twins && i < 2 {
            true => {
                let other = &keys[1 - i];
                Some(Twin {
                    file: other.file.is_some(),
                    maybe: other.line.maybe,
                    strays: other.strays(),
                })
            }
            false => None,
        };
        self.renamed = self.rename_rule(i, keys);
        self.visit(i, &mut keys[i]);
    }

    /// Issue 32's rule for key `i` in a plain run of slugged keys: a post with no line is not
    /// sent while another key's file is gone and its line names a copy or an attempt that may
    /// be out (as the pass first read those lines: `gone`), and that key shares its day (keys
    /// 0 and 1; no two keys here share a slug) or no run has noted it gone yet (`gone=`). Twins
    /// may share a text (a carry): left to `content::renames_prop`.
    fn rename_rule(&mut self, i: usize, keys: &[Key]) -> bool {
        if !self.slugged || !keys[i].candidate() || self.mode != Mode::Run {
            return false;
        }
        let gone = self.gone.get_or_insert_with(|| gone_lines(keys));
        let near: Vec<usize> = (gone.iter())
            .filter(|g| g.j != i && (g.date == keys[i].date || !g.noted))
            .map(|g| g.j)
            .collect();
        if self.twins && i < 2 && near.contains(&(1 - i)) {
            self.unmodeled = Some("a twin may take the other's line over (renames_prop)");
        }
        !near.is_empty()
    }

    /// `implied`, for key `i` of `keys` as they are before the command (what its dry run and
    /// `status` read): a due post that the rename rule holds back needs a person.
    pub fn implied_at(&self, i: usize, keys: &[Key]) -> Exit {
        let key = &keys[i];
        let held =
            self.slugged && key.candidate() && self.sends(key) && self.mode == Mode::Run && {
                (gone_lines(keys).iter()).any(|g| g.j != i && (g.date == key.date || !g.noted))
            };
        match held {
            true => Exit::Human,
            false => self.implied(key),
        }
    }

    /// A post with no line asked about as a rename: failed, rejected, until a person acts (or
    /// the post changes).
    fn asked_renamed(&mut self, i: usize, key: &mut Key) -> Exit {
        self.notes.push((i, "renamed? asked"));
        self.record(i, key, Why::Rejected, false);
        key.line.fp = key.file;
        *self.trail[i].last_mut().expect("just written") = key.line.clone();
        Exit::Human
    }

    /// The exit code the state implies if nothing answers otherwise (row 11), what `run
    /// --dry-run` and `status` give: a key due and never tried counts 0, what waits counts as
    /// waiting, what needs a human as 1 (3 for a refused credential).
    pub fn implied(&self, key: &Key) -> Exit {
        let line = &key.line;
        let waiting = || {
            let began = line.since.unwrap_or(line.written);
            match self.now.duration_since(began).as_secs() / 60 >= ESCALATE_MINUTES {
                true => Exit::Human,
                false => Exit::Later,
            }
        };
        let changed = line.fp.is_some_and(|fp| Some(fp) != key.file);
        match (line.rec, key.file) {
            // A done copy still to be looked for beside (a merge kept the other side's
            // attempt): as if the look will find nothing more, until its lookups have failed.
            (Rec::Done, _) if line.maybe && line.asks => Exit::Human,
            (Rec::Done, _) if line.maybe && line.since.is_some() => waiting(),
            (Rec::None | Rec::Done | Rec::Retracted, _) => Exit::Ok,
            (Rec::Pending, _) => waiting(),
            (Rec::Failed(why), None) => match why {
                _ if !line.maybe && !line.own && !line.older => Exit::Ok,
                Why::Aside => Exit::Ok,
                _ if line.maybe && why.transient() => waiting(),
                Why::Auth => Exit::Auth,
                _ => Exit::Human,
            },
            (Rec::Failed(why), Some(_)) => match why {
                _ if why.transient() && self.past_window(key) => Exit::Human,
                Why::RetrySafe | Why::Absent | Why::LookupError => waiting(),
                Why::CannotTell => Exit::Human,
                Why::Rejected | Why::Auth | Why::Aside if changed => Exit::Ok,
                Why::Rejected => Exit::Human,
                Why::Auth => Exit::Auth,
                Why::Aside => Exit::Ok,
            },
        }
    }

    /// The run reaches key `i`.
    pub fn visit(&mut self, i: usize, key: &mut Key) {
        self.unreached = self.down;
        let line = key.line.clone();
        let gone = key.file.is_none();
        let exit = match (line.rec, self.mode) {
            (Rec::None, _) if gone => Exit::Ok,
            (Rec::None, _) if key.date > self.today => Exit::Ok,
            (Rec::None, _) if self.later(key) => {
                self.notes.push((i, "due later today (times)"));
                Exit::Ok
            }
            (Rec::None, _) if self.past_window(key) => Exit::Ok,
            (Rec::None, _) if self.renamed => self.asked_renamed(i, key),
            (Rec::None, _) => self.first(i, key),
            (Rec::Pending, Mode::Retry(Lever::Absent)) if !gone => self.send(i, key, false),
            (Rec::Pending, _) => self.confirm(i, key),
            // Published, and another runner's attempt of this copy may be out too (a merge
            // kept it): looked for first, whatever is asked (`--force --new` too).
            (Rec::Done, _) if line.maybe => self.done_look(i, key),
            (Rec::Done, Mode::Retry(Lever::ForceNew)) if !gone => self.send(i, key, true),
            (Rec::Done, _) => Exit::Ok,
            (Rec::Retracted, Mode::Retry(Lever::Force | Lever::ForceNew)) if !gone => {
                self.send(i, key, true)
            }
            (Rec::Retracted, _) => Exit::Ok,
            (Rec::Failed(_), Mode::Retry(lever)) => self.asked(i, key, lever),
            (Rec::Failed(why), Mode::Run) => self.failed(i, key, why),
        };
        self.exit = self.exit.max(exit);
    }

    /// `retry` of a failed key.
    fn asked(&mut self, i: usize, key: &mut Key, lever: Lever) -> Exit {
        let line = &key.line;
        let named = line.own || line.older;
        match lever {
            _ if key.file.is_none() && line.maybe => self.confirm(i, key),
            _ if key.file.is_none() && !named => self.forget(i, key),
            // No post to send, and the line names a copy that is out: it stays, and waits.
            _ if key.file.is_none() && line.rec == Rec::Failed(Why::Auth) => Exit::Auth,
            _ if key.file.is_none() => Exit::Human,
            Lever::Absent => self.send(i, key, false),
            Lever::ForceNew if !line.maybe => self.send(i, key, true),
            _ if line.maybe => self.confirm(i, key),
            _ => self.send(i, key, false),
        }
    }

    /// A run meets a failed key.
    fn failed(&mut self, i: usize, key: &mut Key, why: Why) -> Exit {
        let line = key.line.clone();
        let Some(version) = key.file else {
            return match why {
                _ if !line.maybe && !line.own && !line.older => self.forget(i, key),
                // Put aside by hand: quiet, whatever became of its file.
                Why::Aside => Exit::Ok,
                _ if line.maybe && why.transient() => self.confirm(i, key),
                Why::Auth => Exit::Auth,
                _ => Exit::Human,
            };
        };
        let changed = line.fp.is_some_and(|fp| fp != version);
        match why {
            _ if why.transient() && self.past_window(key) => {
                self.notes.push((i, "held back"));
                Exit::Human
            }
            Why::RetrySafe if line.maybe => self.confirm(i, key),
            Why::RetrySafe => self.send(i, key, false),
            Why::Absent | Why::LookupError => self.confirm(i, key),
            Why::CannotTell => Exit::Human,
            Why::Rejected | Why::Auth | Why::Aside if changed && line.maybe => self.confirm(i, key),
            Why::Rejected | Why::Auth | Why::Aside if changed => self.send(i, key, false),
            Why::Rejected => Exit::Human,
            Why::Auth => Exit::Auth,
            Why::Aside => Exit::Ok,
        }
    }

    /// The line goes: its post is gone and nothing of it was ever out.
    fn forget(&mut self, i: usize, key: &mut Key) -> Exit {
        self.notes.push((i, "forgotten"));
        let line = Line::none(self.now);
        key.line = line.clone();
        self.trail[i].push(line);
        Exit::Ok
    }

    /// The target stopped before this key (`maybe`: something of it may be out): nothing is
    /// sent or looked up. After refused credentials the run exits 3 whatever the key; after a
    /// server that could not be reached, a key with nothing out is recorded as a retry-safe
    /// failure, not tried, and every other key stays as it is and leaves what it implies.
    fn stopped_before(&mut self, i: usize, key: &mut Key, maybe: bool) -> Option<Exit> {
        if self.stopped {
            return Some(Exit::Ok);
        }
        if !self.unreached {
            return None;
        }
        if maybe || !matches!(key.line.rec, Rec::None | Rec::Failed(_)) {
            self.notes.push((i, "not tried, as it stands"));
            return Some(self.implied(key));
        }
        self.notes.push((i, "not tried, recorded"));
        self.record(i, key, Why::RetrySafe, false);
        Some(self.retry_safe(i, key))
    }

    /// The exit of a retry-safe failure: 75, or 1 once it has lasted or is past the window.
    fn retry_safe(&mut self, i: usize, key: &Key) -> Exit {
        match self.escalated(&key.line) || self.past_window(key) {
            true => {
                self.notes.push((i, "retry-safe escalated"));
                Exit::Human
            }
            false => Exit::Later,
        }
    }

    /// The first send of a key with no line: looked up first (best effort).
    fn first(&mut self, i: usize, key: &mut Key) -> Exit {
        if let Some(exit) = self.stopped_before(i, key, false) {
            return exit;
        }
        self.dedup(i, key)
            .unwrap_or_else(|| self.send(i, key, false))
    }

    /// The look before a first send (best effort): the exit when it decides, `None` to send.
    fn dedup(&mut self, i: usize, key: &mut Key) -> Option<Exit> {
        match self.look(i, key) {
            Seen::Found(n) => Some(self.done(i, key, Some(n))),
            // Nothing was sent: the line names no post, so no edit is a change (it waits for
            // the credential, or a human).
            Seen::Refused => Some(self.refused(i, key)),
            // A copy that may be this post: nothing of it may be out from here, and not sent.
            Seen::Whose => {
                self.notes.push((i, "whose copy: not sent"));
                self.record(i, key, Why::CannotTell, false);
                Some(Exit::Human)
            }
            _ => None,
        }
    }

    /// A key an attempt may have reached: look, and send only if it is provably absent.
    fn confirm(&mut self, i: usize, key: &mut Key) -> Exit {
        if let Some(exit) = self.stopped_before(i, key, true) {
            return exit;
        }
        match self.look(i, key) {
            Seen::Found(n) => self.done(i, key, Some(n)),
            // The last attempt may still land: the next run looks again.
            Seen::Absent
                if self.now.duration_since(key.line.written).as_secs() < self.settle * 60 =>
            {
                self.not_yet(i, key)
            }
            // The attempt is absent and nothing is left to send, but earlier copies of the key
            // are live: a person's (retract them, or mark one the key's copy); the line stays.
            Seen::Absent if key.file.is_none() && (key.line.own || key.line.older) => {
                self.notes.push((i, "gone, copies still live"));
                self.record(i, key, Why::CannotTell, false);
                Exit::Human
            }
            Seen::Absent if key.file.is_none() => self.forget(i, key),
            Seen::Absent if self.past_window(key) => self.held_back(i, key),
            Seen::Absent => self.send(i, key, false),
            Seen::Transient => self.lookup_failed(i, key),
            Seen::CannotTell | Seen::Whose => self.cannot_tell(i, key),
            Seen::Refused => self.refused(i, key),
        }
    }

    /// Whether key `i`'s lookups are refused (its credential).
    fn look_refused(&self, i: usize) -> bool {
        self.scripts[i].look == Look::Auth
    }

    /// A done line that says `sent=maybe`: looked up for copies of this generation beside the
    /// one it names. Found more: they are duplicates (exit 1); found only its own, or absent once
    /// nothing can land any more: nothing more is out (0). The line stays done either way and
    /// nothing is sent. A failed lookup: the next run looks again (75, 1 once it has lasted).
    fn done_look(&mut self, i: usize, key: &mut Key) -> Exit {
        if let Some(exit) = self.stopped_before(i, key, true) {
            return exit;
        }
        let settled = |pass: &Pass, key: &Key| Line {
            maybe: false,
            since: None,
            asks: false,
            written: pass.now,
            ..key.line.clone()
        };
        match self.look(i, key) {
            Seen::Found(n) => {
                let line = settled(self, key);
                key.named = n;
                self.write(i, key, line);
                match n > 1 {
                    true => {
                        self.notes.push((i, "duplicate of a merged attempt"));
                        Exit::Human
                    }
                    false => Exit::Ok,
                }
            }
            Seen::Absent
                if self.now.duration_since(key.line.written).as_secs() < self.settle * 60 =>
            {
                self.not_yet(i, key)
            }
            Seen::Absent => {
                let line = settled(self, key);
                self.write(i, key, line);
                Exit::Ok
            }
            Seen::Transient => {
                // The line is written as it was, with when its lookups began to fail.
                key.line.since.get_or_insert(self.now);
                self.trail[i].push(key.line.clone());
                match self.escalated(&key.line) {
                    true => Exit::Human,
                    false => Exit::Later,
                }
            }
            // Not settled: the line stays done, still saying what may be out, with why on it
            // (1; 3 for a refused credential, and the target stops).
            Seen::CannotTell | Seen::Whose | Seen::Refused => {
                key.line.since.get_or_insert(self.now);
                key.line.asks = true;
                self.trail[i].push(key.line.clone());
                match self.look_refused(i) {
                    true => {
                        self.stopped = true;
                        Exit::Auth
                    }
                    false => Exit::Human,
                }
            }
        }
    }

    /// Not there yet, and the attempt may still land: the line stays as it is, and the next run
    /// looks again (75, or 1 once the key's failures have lasted past `escalate_after`: row 3).
    fn not_yet(&mut self, i: usize, key: &Key) -> Exit {
        self.notes.push((i, "not yet"));
        match self.escalated(&key.line) {
            true => Exit::Human,
            false => Exit::Later,
        }
    }

    /// A lookup refused the credential: recorded as an auth failure; the target stops.
    fn refused(&mut self, i: usize, key: &mut Key) -> Exit {
        let maybe = key.line.maybe;
        self.record(i, key, Why::Auth, maybe);
        self.stopped = true;
        Exit::Auth
    }

    /// The copy is there: `copies` found by a lookup, or `None` when the send answered (a
    /// copy the line already named is then a second one).
    fn done(&mut self, i: usize, key: &mut Key, copies: Option<usize>) -> Exit {
        let twice = match copies {
            Some(n) => n > 1,
            None => key.line.own,
        };
        let line = Line {
            rec: Rec::Done,
            maybe: false,
            own: true,
            since: None,
            fp: key.file,
            ..key.line.clone()
        };
        key.named = match copies {
            Some(n) => n,
            None => key.named + 1,
        };
        self.write(i, key, line);
        if twice {
            self.notes.push((i, "duplicate"));
        }
        if copies.is_none() && twice {
            self.notes.push((i, "a new copy beside a named one"));
        }
        match twice {
            false => Exit::Ok,
            true => Exit::Human,
        }
    }

    /// A failure recorded from the line as it is (`maybe` as given). Its post is the one last
    /// sent (a later edit is a change), as the line says.
    fn record(&mut self, i: usize, key: &mut Key, why: Why, maybe: bool) {
        let line = &key.line;
        let since = match line.in_streak() {
            true => line.since,
            false => Some(self.now),
        };
        let line = Line {
            rec: Rec::Failed(why),
            maybe,
            since,
            ..line.clone()
        };
        self.write(i, key, line);
    }

    fn held_back(&mut self, i: usize, key: &mut Key) -> Exit {
        self.notes.push((i, "held back after a lookup"));
        self.record(i, key, Why::Absent, true);
        Exit::Human
    }

    fn lookup_failed(&mut self, i: usize, key: &mut Key) -> Exit {
        self.record(i, key, Why::LookupError, true);
        match self.escalated(&key.line) {
            true => {
                self.notes.push((i, "lookups failing past escalate_after"));
                key.line.rec = Rec::Failed(Why::CannotTell);
                *self.trail[i].last_mut().expect("just written") = key.line.clone();
                Exit::Human
            }
            false => Exit::Later,
        }
    }

    fn cannot_tell(&mut self, i: usize, key: &mut Key) -> Exit {
        self.record(i, key, Why::CannotTell, true);
        Exit::Human
    }

    /// Send, with the in-run retries the rules allow. `new_copy`: the key's next copy.
    fn send(&mut self, i: usize, key: &mut Key, new_copy: bool) -> Exit {
        // A failed key of which nothing was sent, about to be sent again: the rename rule
        // first, as for a key with no line.
        if self.renamed && matches!(key.line.rec, Rec::Failed(_)) {
            return self.asked_renamed(i, key);
        }
        let fresh = new_copy || key.line.rec == Rec::Retracted;
        // What may be out, as known before this run's sends: a failure that provably sent
        // nothing leaves it so.
        let maybe_before = key.line.maybe && !fresh;
        if let Some(exit) = self.stopped_before(i, key, maybe_before) {
            return exit;
        }
        // A failed line of which nothing was ever sent: still a first send, looked up first
        // (whatever the lever: `--force --new` of nothing sent is a first copy too).
        let line = &key.line;
        let untried = matches!(line.rec, Rec::Failed(_))
            && !line.attempted
            && !line.maybe
            && !line.own
            && !line.older;
        if untried && let Some(exit) = self.dedup(i, key) {
            return exit;
        }
        let mut sends = 0;
        loop {
            sends += 1;
            let mut pending = key.line.clone();
            if fresh && sends == 1 {
                // The live copies of the earlier generation stay on the line (`older=`).
                pending.older |= key.line.own && key.line.rec != Rec::Retracted;
                // Only the copies the line names become `older=`: a copy on no line is
                // nobody's generation that the line knows of, and a lookup for the next
                // generation may find it (invariant 6 says whether the code takes it).
                if key.line.own && key.line.rec != Rec::Retracted {
                    key.older_live = (key.older_live + key.named).min(key.live);
                }
                pending.own = false;
                pending.generation += 1;
                pending.maybe = false;
                key.named = 0;
            }
            pending.attempted = true;
            if !pending.in_streak() {
                pending.since = None;
            }
            pending.rec = Rec::Pending;
            pending.maybe = true;
            pending.fp = key.file;
            self.write(i, key, pending);
            let send = self.scripts[i].send(self.posts[i]);
            self.posts[i] += 1;
            if send.commits() {
                if key.live > 0 && self.fork {
                    key.allowed += 1;
                }
                if key.live > key.allowed {
                    self.broken.get_or_insert(format!(
                        "the model sends copy {} of key {} unasked",
                        key.live + 1,
                        key.date
                    ));
                }
                key.live += 1;
            }
            let exit = match send {
                Send::Ok => return self.done(i, key, None),
                Send::Refused if sends <= RETRIES => {
                    self.down = true;
                    continue;
                }
                Send::Busy if sends <= RETRIES => continue,
                Send::Busy | Send::Refused => {
                    self.down |= send == Send::Refused;
                    self.record(i, key, Why::RetrySafe, maybe_before);
                    self.retry_safe(i, key)
                }
                Send::Reject => {
                    self.record(i, key, Why::Rejected, maybe_before);
                    Exit::Human
                }
                Send::Auth => {
                    self.record(i, key, Why::Auth, maybe_before);
                    self.stopped = true;
                    Exit::Auth
                }
                Send::Commit500
                | Send::CommitClose
                | Send::CommitHang
                | Send::Lost503
                | Send::LostHang => {
                    // The outcome is unknown: the pending line says since when.
                    let mut line = key.line.clone();
                    line.since.get_or_insert(self.now);
                    self.write(i, key, line);
                    match self.look(i, key) {
                        Seen::Found(n) => return self.done(i, key, Some(n)),
                        Seen::Absent if self.settle > 0 => self.not_yet(i, key),
                        Seen::Absent if self.past_window(key) => self.held_back(i, key),
                        Seen::Absent if sends <= RETRIES => continue,
                        Seen::Absent => {
                            self.record(i, key, Why::Absent, true);
                            match self.escalated(&key.line) || self.past_window(key) {
                                true => {
                                    self.notes.push((i, "absent escalated"));
                                    Exit::Human
                                }
                                false => Exit::Later,
                            }
                        }
                        Seen::Transient => self.lookup_failed(i, key),
                        Seen::CannotTell | Seen::Whose => self.cannot_tell(i, key),
                        Seen::Refused => self.refused(i, key),
                    }
                }
            };
            return exit;
        }
    }
}

/// Whole days from `from` to `to`.
pub fn days(from: Date, to: Date) -> i64 {
    to.since(from).map_or(0, |span| span.get_days().into())
}

/// `mark KEY done` (`id`: with `--id`) and `mark KEY failed`. A key put aside while a copy is
/// out may be sent again on the human's word: the README says it is tried again when its post
/// changes or on `retry`, and the issue is silent about a copy that is out.
pub fn mark(key: &mut Key, done: bool, id: bool, now: Timestamp) {
    if !done && key.live > 0 {
        key.allowed += 1;
    }
    let line = &key.line;
    key.line = match done {
        // The human's word settles every attempt, as `sent=maybe` goes: a later send of a
        // line that names no copy (after `mark failed`) is a first send again, looked up
        // first, and may find the copy the human made or found.
        true => Line {
            rec: Rec::Done,
            maybe: false,
            own: line.own || id,
            since: None,
            fp: key.file.or(line.fp),
            attempted: false,
            written: now,
            ..line.clone()
        },
        false => Line {
            rec: Rec::Failed(Why::Aside),
            since: None,
            fp: key.file.or(line.fp),
            written: now,
            // A retracted copy is not live again because a human put the key aside.
            own: match line.rec {
                Rec::Retracted => false,
                _ => line.own,
            },
            ..line.clone()
        },
    };
}

/// How strongly a line says what happened to its copy (README, "merge driver").
fn rank(rec: Rec) -> u8 {
    match rec {
        Rec::Retracted => 5,
        Rec::Done => 3,
        Rec::Pending => 1,
        Rec::Failed(_) | Rec::None => 0,
    }
}

/// One key's line merged from two sides: the line first in the README's order (the later copy,
/// then retracted, done, pending, failed, then the later time), keeping the live ids of both and
/// what the other side may have sent.
pub fn merge(a: &Line, b: &Line) -> Line {
    if a.rec == Rec::None {
        return b.clone();
    }
    if b.rec == Rec::None {
        return a.clone();
    }
    let order = |l: &Line| (l.generation, rank(l.rec), l.written);
    let (win, lose) = match order(a) >= order(b) {
        true => (a, b),
        false => (b, a),
    };
    let mut merged = win.clone();
    match win.generation == lose.generation {
        true => merged.own |= lose.own,
        false => merged.older |= lose.own,
    }
    merged.older |= lose.older;
    merged.attempted |= lose.attempted;
    // What the other side may have sent of this copy is kept whatever the winner says of its
    // own (a done line too): only a retracted line drops it.
    let open = win.rec != Rec::Retracted;
    if open && win.generation == lose.generation && lose.maybe {
        merged.maybe = true;
    }
    merged
}
