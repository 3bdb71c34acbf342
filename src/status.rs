//! `dayrun status`: every key's state per target, as text or as stable JSON, and the exit code
//! a run would leave if nothing answered otherwise (the key's life says it: `life::next`).
//! Never writes. Rows are printed as they are made, so memory does not grow with the keys.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Ctx, Decision, Event, Exit, Facts, KeyLine, Mode, Phase, Seen};
use crate::state::StateFile;
use crate::tally::Count;
use jiff::civil::Date;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// A pending key older than this is flagged: its run died or hangs.
const STUCK_SECS: i64 = 5 * 60;
/// The `--json` schema version (documented in docs/commands.md).
const SCHEMA: u32 = 1;

/// One key on one target (schema 1).
#[derive(Serialize)]
struct Row {
    key: String,
    /// Serialised as its word (`Count::word`).
    status: Count,
    at: Option<String>,
    age_secs: Option<i64>,
    id: Option<String>,
    url: Option<String>,
    class: Option<String>,
    reason: Option<String>,
    stuck: bool,
    /// Done, and the post's file changed since (its fingerprint is not the one published).
    edited: bool,
    /// Done, and the post's file is gone.
    deleted: bool,
    /// Failed, and past the catch-up window: not sent again until a human says.
    held_back: bool,
    /// Due, but its post cannot be made into this target's text until a person acts (its
    /// template fails on it, a copy its text links to will never come): why.
    blocked: Option<String>,
    /// Done, and the target refused the edit the post holds now: `reason` says what was
    /// refused and what to do. A run exits 1 until the post changes again, `retry --force`
    /// sends it or `mark done` accepts the copy as it is.
    edit_failed: bool,
    /// The exit code this key leaves a run with (0, 1, 3 or 75).
    exit: i32,
    /// A renamed post whose line the next run carries over: `from OLD` (this key takes it,
    /// its copies staying at OLD's place) or `to NEW` (this key's line goes to NEW).
    renamed: Option<String>,
}

/// What every target's keys are judged against, and how they are shown.
struct Scene<'a> {
    config: &'a Config,
    clock: &'a Clock,
    catalog: &'a Catalog,
    today: Date,
    now: jiff::Timestamp,
    /// The state folder as messages name it.
    shown: PathBuf,
    /// As a plain `dayrun run` would go.
    mode: Mode,
    as_json: bool,
}

/// One target as a run would judge its keys: its lines, its rules, its credential and the
/// lines of the targets its template links to.
struct Target<'a> {
    cfg: &'a TargetConfig,
    state: StateFile,
    rules: life::Rules,
    credential: Option<String>,
    linked: BTreeMap<String, StateFile>,
    template: Option<&'a str>,
    /// The lines whose post is gone, for a renamed post (`rename.rs`; slugged keys).
    gone: Option<store::gone::Gone>,
}

pub fn run(config: &Config, clock: &Clock, names: &[String], as_json: bool) -> Result<i32, Error> {
    let selected = config.select(names)?;
    let catalog = Catalog::scan(&config.sources())?;
    let scene = Scene {
        config,
        clock,
        catalog: &catalog,
        today: clock.today(),
        now: clock.instant(),
        shown: config.show(&config.state),
        mode: Mode::Run { backfill: false },
        as_json,
    };
    let mut drafts: BTreeMap<Key, bool> = BTreeMap::new();
    let stdout = std::io::stdout();
    // A reader that goes away (`status | head`) ends no computation: the exit code stands.
    let mut out = crate::say::Closable::new(BufWriter::new(stdout.lock()));
    let mut exit = Exit::Ok;
    say_standing(&catalog, scene.today, &mut exit);
    if as_json {
        write!(
            out,
            "{{\n  \"schema\": {SCHEMA},\n  \"today\": \"{}\",\n  \"targets\": [",
            scene.today
        )
        .map_err(io)?;
    }
    for (t, cfg) in selected.iter().enumerate() {
        let target = Target::read(&scene, cfg, &mut exit)?;
        show_target(&scene, &target, t, &mut out, &mut drafts, &mut exit)?;
    }
    if as_json {
        writeln!(out, "\n  ]\n}}").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(exit.code())
}

/// A failed write of the status.
fn io(e: std::io::Error) -> Error {
    Error::usage(format!("cannot write the status: {e}"))
}

/// What a run would say before its keys (on stderr here, so the JSON stays whole).
fn say_standing(catalog: &Catalog, today: Date, exit: &mut Exit) {
    for problem in catalog.standing_problems(today) {
        for line in crate::tell::header::error_lines("", &problem) {
            crate::say::err(&line);
        }
        exit.merge(Exit::NeedsHuman);
    }
}

impl<'a> Target<'a> {
    /// `cfg` read as a run reads it. A malformed line is said and left out; the rest is
    /// shown. A run would refuse the file, so status exits 2.
    fn read(scene: &Scene, cfg: &'a TargetConfig, exit: &mut Exit) -> Result<Target<'a>, Error> {
        let config = scene.config;
        let mut problems = Vec::new();
        let state =
            StateFile::load_readable(&config.state, &cfg.name, &scene.shown, &mut problems)?;
        for problem in &problems {
            crate::say::err(&format!(
                "dayrun: {} (left out here; a run refuses the file until it is fixed)",
                crate::outside::escape(&problem.located(), 4000)
            ));
            exit.merge(Exit::Usage);
        }
        // A table that cannot be read can do nothing; `credential` says why, as a run would.
        let ctx = crate::targets::Context {
            config,
            target: cfg,
            clock: scene.clock,
        };
        let can = crate::targets::capabilities(&ctx).unwrap_or_default();
        let rules = config.rules(cfg, can);
        let credential = credential(&ctx, exit);
        // The lines of the targets this one's template links to, read as a run reads them.
        let linked = crate::known::linked_states(config, cfg, &scene.shown)?;
        let gone = crate::rename::gone(&state, scene.catalog);
        Ok(Target {
            cfg,
            state,
            rules,
            credential,
            linked,
            template: cfg.template.as_ref().map(crate::template::Template::mark),
            gone,
        })
    }
}

/// `target`'s keys, a row each as it is made, then its counts (`t`: its place among the
/// targets shown; `drafts`: the keys whose post is a draft, read once for all targets).
fn show_target(
    scene: &Scene,
    target: &Target,
    t: usize,
    out: &mut impl Write,
    drafts: &mut BTreeMap<Key, bool>,
    exit: &mut Exit,
) -> Result<(), Error> {
    let cfg = target.cfg;
    let mut keys: BTreeSet<Key> = scene.catalog.files.keys().copied().collect();
    keys.extend(target.state.records().map(|r| r.key));
    let mut counts = zero_counts();
    let mut words = crate::tally::Tally::default();
    if scene.as_json {
        let name = serde_json::to_string(&cfg.name).expect("a string serialises");
        let kind = serde_json::to_string(&cfg.kind).expect("a string serialises");
        let kind = crate::outside::json_safe(kind);
        write!(
            out,
            "{}\n    {{\"name\": {name}, \"kind\": {kind}, \"keys\": [",
            if t > 0 { "," } else { "" }
        )
        .map_err(io)?;
    }
    for (i, key) in keys.into_iter().enumerate() {
        let line = target.state.get(key).map(KeyLine::of);
        let row = key_row(scene, target, key, line.as_ref(), drafts, exit);
        let dedup = line.as_ref().is_some_and(|l| l.dedup);
        tally(&row, dedup, &mut counts, &mut words);
        if scene.as_json {
            let json = serde_json::to_string(&row).expect("a row serialises");
            let json = crate::outside::json_safe(json);
            write!(out, "{}\n      {json}", if i > 0 { "," } else { "" }).map_err(io)?;
        } else {
            let can_find = target.rules.can_find;
            let text = text(&row, &line, can_find);
            writeln!(out, "{} {} {text}", row.key, cfg.name).map_err(io)?;
        }
    }
    totals(out, scene.as_json, &cfg.name, &counts, &words)
}

/// Every count `--json` shows, at zero.
fn zero_counts() -> BTreeMap<&'static str, u64> {
    [
        "done",
        "pending",
        "failed",
        "due",
        "scheduled",
        "stale",
        "draft",
        "retracted",
        "dedup",
        "edited",
        "deleted",
        "held_back",
        "edit_failed",
    ]
    .into_iter()
    .map(|k| (k, 0))
    .collect()
}

/// One key's row on `target`, judged as a run judges it: the same visit (`runner::visit`)
/// through the same life (`life::next`); the exit it leaves a run with goes into `exit`.
fn key_row(
    scene: &Scene,
    target: &Target,
    key: Key,
    line: Option<&KeyLine>,
    drafts: &mut BTreeMap<Key, bool>,
    exit: &mut Exit,
) -> Row {
    let has_post = scene.catalog.files.contains_key(&key);
    let clock = scene.clock;
    let ctx = Ctx {
        credential: target.credential.as_deref(),
        pinned: clock.pinned(),
        ..Ctx::at(
            key,
            &clock.now(),
            clock.tz(),
            scene.today,
            &target.rules,
            &scene.mode,
        )
    };
    let refused = life::compares_payload(line);
    // A key a run may send is read as the run reads it, images and all (a bad image
    // fails the run's read); a done one by its text, unless it holds a refused edit.
    let whole = refused || line.is_none_or(|l| l.phase != Phase::Done);
    let name = &target.cfg.name;
    let facts = |post: &crate::post::Post| {
        let renamed = crate::rename::renamed(target.gone.as_ref(), &scene.mode, post, line, name);
        let blocked = blocked(target.cfg, post, &ctx, &target.linked);
        renamed.facts(blocked, post.facts(target.template, refused))
    };
    let get = || seen(scene.catalog, key, has_post, whole, &facts);
    let next = |seen: Option<&Seen>| {
        Ok::<_, std::convert::Infallible>(life::next(line, &Event::Visit(seen), &ctx))
    };
    let Ok((step, seen)) = crate::runner::visit(next, get);
    // The post as the visit read it, or read now (a rule that did not need it).
    let seen = || seen.clone().unwrap_or_else(get);
    exit.merge(step.exit);
    let decision = match step.then {
        life::Then::Decide(decision) => decision,
        _ => unreachable!("a visit decides"),
    };
    // A renamed post's key is shown with the line the run carries over to it (`renamed`).
    let carried = match (line, &step.line) {
        (None, life::Change::Write(carried)) => Some(carried.as_ref().clone()),
        _ => None,
    };
    let renamed = match (&carried, target.gone.as_ref()) {
        (Some(_), _) => match seen() {
            Seen::Ready(life::Facts {
                carry: Some(from), ..
            }) => Some(Renamed::From(from.key)),
            _ => None,
        },
        (None, Some(gone)) => gone.successor(key).map(Renamed::To),
        _ => None,
    };
    let line = carried.as_ref().or(line);
    let draft = || *drafts.entry(key).or_insert_with(|| seen() == Seen::Draft);
    let status = status(line, &decision, draft);
    let blocked = match (&decision, matches!(decision, Decision::Publish { .. })) {
        (_, true) => match seen() {
            Seen::Ready(facts) => facts.blocked.clone(),
            _ => None,
        },
        _ => None,
    };
    let verdict = Verdict {
        status,
        decision,
        blocked,
        exit: step.exit.code(),
        renamed,
    };
    row(scene, key, line, has_post, verdict)
}

/// The status of a key: its line's, or (no line) what the visit decided; `draft`: whether
/// its post is a draft, asked only where the decision leaves it open.
fn status(line: Option<&KeyLine>, decision: &Decision, mut draft: impl FnMut() -> bool) -> Count {
    match (line, decision) {
        (Some(l), _) => Count::of_status(l.record().status),
        (None, Decision::Skip(life::Skip::Scheduled | life::Skip::Later(_))) => Count::Scheduled,
        (None, _) if draft() => Count::Draft,
        (None, Decision::Skip(life::Skip::Stale)) => Count::Stale,
        (None, _) => Count::Due,
    }
}

/// What the run's rules made of one key.
struct Verdict {
    status: Count,
    decision: Decision,
    /// Why its post cannot be sent, if it is to be sent and cannot.
    blocked: Option<String>,
    /// The exit code it leaves a run with.
    exit: i32,
    renamed: Option<Renamed>,
}

/// A renamed post, as the next run carries its line over (`rename.rs`).
#[derive(Clone, Copy)]
enum Renamed {
    /// This key takes the line of the key its copies stay at over.
    From(Key),
    /// This key's line goes to that key.
    To(Key),
}

/// The row of `key`, from its line, its post (`has_post`: its file is there) and `verdict`.
fn row(scene: &Scene, key: Key, line: Option<&KeyLine>, has_post: bool, verdict: Verdict) -> Row {
    let age = line
        .and_then(KeyLine::time)
        .map(|at| scene.now.as_second() - at.as_second());
    let done = line.filter(|l| l.phase == Phase::Done);
    let deleted = done.is_some() && !has_post && verdict.renamed.is_none();
    let edited = !deleted
        && done.and_then(|l| l.fp.as_ref()).is_some_and(|fp| {
            scene
                .catalog
                .text(key)
                .is_ok_and(|post| post.fingerprint != *fp)
        });
    let class = line.and_then(|l| match l.phase {
        Phase::Failed(class, _) => Some(class.to_string()),
        _ => None,
    });
    Row {
        key: key.to_string(),
        status: verdict.status,
        at: line.map(|l| l.at.clone()),
        age_secs: age,
        id: line.and_then(|l| l.copies.current.id.clone()),
        url: line.and_then(|l| l.copies.current.url.clone()),
        class,
        reason: line.and_then(|l| l.reason.clone()),
        stuck: line.is_some_and(|l| matches!(l.phase, Phase::Pending(_)))
            && age.is_some_and(|a| a > STUCK_SECS),
        edited,
        deleted,
        held_back: verdict.decision == Decision::Hold,
        blocked: verdict.blocked,
        edit_failed: matches!(verdict.decision, Decision::EditFailed(_)),
        exit: verdict.exit,
        renamed: verdict.renamed.map(|r| match r {
            Renamed::From(old) => format!("from {old}"),
            Renamed::To(new) => format!("to {new}"),
        }),
    }
}

/// Count `row` in `counts` (by status and flag, as `--json` shows them) and in `words` (the
/// words a run's summary uses); `dedup`: its line records a duplicate.
fn tally(
    row: &Row,
    dedup: bool,
    counts: &mut BTreeMap<&'static str, u64>,
    words: &mut crate::tally::Tally,
) {
    *counts.entry(row.status.word()).or_default() += 1;
    if dedup {
        *counts.entry("dedup").or_default() += 1;
    }
    // A deleted key is not also done, a key held back is not also failed.
    words.add(match () {
        _ if row.deleted => Count::Deleted,
        _ if row.held_back => Count::HeldBack,
        _ if row.edit_failed => Count::EditFailed,
        _ => row.status,
    });
    if row.edited {
        words.add(Count::Edited);
    }
    if dedup {
        words.add(Count::Dedup);
    }
    for (flag, word) in [
        (row.edited, "edited"),
        (row.deleted, "deleted"),
        (row.held_back, "held_back"),
        (row.edit_failed, "edit_failed"),
    ] {
        if flag {
            *counts.entry(word).or_default() += 1;
        }
    }
}

/// The end of target `name`'s rows: its counts (`--json`), or the words a run's summary uses.
fn totals(
    out: &mut impl Write,
    as_json: bool,
    name: &str,
    counts: &BTreeMap<&'static str, u64>,
    words: &crate::tally::Tally,
) -> Result<(), Error> {
    if as_json {
        let counts = serde_json::to_string(counts).expect("counts serialise");
        write!(out, "\n    ], \"counts\": {counts}}}").map_err(io)?;
    } else {
        writeln!(out, "{}", crate::tell::summary::status(name, words)).map_err(io)?;
    }
    Ok(())
}

/// The fingerprint of the target's credential, read as a run reads it (so a renewed token is seen
/// as renewed); a setup a run would refuse is said, and exits 2 as the run does.
fn credential(ctx: &crate::targets::Context, exit: &mut Exit) -> Option<String> {
    match crate::targets::build(ctx) {
        Ok(built) => built.target.secrets().fingerprint(),
        Err(err) => {
            crate::say::err(&format!(
                "dayrun: {}: a run would not run it: {}",
                ctx.target.name,
                crate::outside::escape(&err.located(), 4000)
            ));
            exit.merge(Exit::Usage);
            None
        }
    }
}

/// Why `post` cannot be made into `cfg`'s text, as the run judges it (`linked`: the lines of
/// the targets its template links to).
fn blocked(
    cfg: &TargetConfig,
    post: &crate::post::Post,
    ctx: &Ctx,
    linked: &BTreeMap<String, StateFile>,
) -> Option<String> {
    let template = cfg.template.as_ref()?;
    let held = life::past_window(ctx.key, ctx);
    let line_of = |name: &str| linked.get(name)?.get(ctx.key).map(KeyLine::of);
    let upstream = crate::template::upstream(template, line_of, held);
    crate::targets::preview::blocked(cfg, post, &upstream)
}

fn text(row: &Row, line: &Option<KeyLine>, can_find: bool) -> String {
    let mut text = row.status.word().to_string();
    if let Some(age) = row.age_secs {
        text.push_str(&format!(" {} ago", crate::clock::span(age)));
    }
    if row.stuck {
        match can_find {
            true => text.push_str(" STUCK: pending for over 5 minutes; the next run confirms it"),
            false => text.push_str(
                " STUCK: pending for over 5 minutes, and this target cannot look posts up: look for it by hand",
            ),
        }
    }
    if row.held_back {
        text.push_str(" HELD BACK: it failed and is now past the catch-up window; `dayrun run --backfill` or `dayrun retry KEY` sends it, `dayrun mark KEY failed` puts it aside");
    }
    if row.edit_failed {
        text.push_str(" EDIT FAILED: the target refused the edit and the copy keeps its last version; every run exits 1 until a person acts (the reason says how)");
    } else if row.edited {
        text.push_str(" EDITED: the post changed since it was published");
    }
    if let Some(why) = &row.blocked {
        text.push_str(&format!(
            " CANNOT BE SENT: {}; every run fails it until that is fixed",
            crate::outside::escape(why, 2048)
        ));
    }
    if row.status == Count::Done && row.id.is_none() {
        text.push_str(" (no id: edits and retracts cannot reach this copy; `dayrun mark KEY done --id ID` records it)");
    }
    if row.deleted {
        text.push_str(" DELETED: the post's file is gone (the published copy is not touched)");
    }
    if let Some(renamed) = &row.renamed {
        text.push_str(&format!(
            " RENAMED {renamed}: the next run carries the line over; the copies stay where they are"
        ));
    }
    if let Some(line) = line
        && !line.copies.duplicates.is_empty()
    {
        text.push_str(&format!(
            " DUPLICATE: also {}",
            crate::outside::escape(&line.copies.duplicates.join(", "), 2048)
        ));
    }
    // A copy is shown by where a person can open it; `--json` keeps both.
    let copy = match &row.url {
        Some(url) => ("url", Some(url)),
        None => ("id", row.id.as_ref()),
    };
    for (name, value) in [copy, ("class", row.class.as_ref())] {
        if let Some(value) = value {
            text.push_str(&format!(" {name}={}", crate::outside::escape(value, 2048)));
        }
    }
    if let Some(reason) = &row.reason {
        text.push_str(&format!(" reason={reason:?}"));
    }
    text
}

/// The post of `key` as the rules see it (`facts`: as `Post::facts` makes them).
/// `whole`: read with its images, as a run reads a post it may send (and the edit hash of a
/// refused edit needs them); otherwise by its text alone.
fn seen(
    catalog: &Catalog,
    key: Key,
    has_post: bool,
    whole: bool,
    facts: &dyn Fn(&crate::post::Post) -> Facts,
) -> Seen {
    if !has_post {
        return Seen::Gone;
    }
    let read = match whole {
        true => catalog.post(key),
        false => catalog.text(key),
    };
    match read {
        Err(err) => Seen::Broken(err.reason()),
        Ok(post) if post.draft => Seen::Draft,
        Ok(post) => Seen::Ready(facts(&post)),
    }
}
