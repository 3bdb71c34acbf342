//! The one judging of every key on every target, as a run judges it (`life::next` through the
//! run's own visit, `book::visit`): `status` in every form (text, `--json`, `--check`,
//! `--html`) and a run's metrics read the same rows from here, so none of them can disagree
//! with the run. Rows are handed to a `Sink` as they are made: memory does not grow with keys.

use super::row::{Renamed, Row, Verdict, row, status};
use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Ctx, Decision, Event, Exit, Facts, KeyLine, Mode, Phase, Seen};
use crate::state::StateFile;
use jiff::Timestamp;
use jiff::civil::Date;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One key on one target as the sinks see it: its row, its line, and what the line says
/// beside the row.
pub(crate) struct Judged<'a> {
    /// The target's place among the targets judged.
    pub(crate) target: usize,
    pub(crate) key: Key,
    pub(crate) row: &'a Row,
    pub(crate) line: Option<&'a KeyLine>,
    /// Its line records a copy found on the target before the first send (`dedup=1`).
    pub(crate) dedup: bool,
    /// Since when its line has lasted as it is: a failure's or a pending attempt's start, as
    /// the key's life counts it to escalate (`life::escalated`).
    pub(crate) since: Option<Timestamp>,
    /// When its line was written (a done line: the last success).
    pub(crate) at: Option<Timestamp>,
}

/// What is made of the judged rows: the text, the JSON, the check, the calendar, the metrics.
pub(crate) trait Sink {
    /// A target's rows begin (`rules`: its rules, as a run reads them).
    fn target(&mut self, cfg: &TargetConfig, rules: &life::Rules) -> Result<(), Error>;
    /// One key of the target begun last.
    fn key(&mut self, judged: &Judged) -> Result<(), Error>;
    /// The target's rows end.
    fn end(&mut self, cfg: &TargetConfig) -> Result<(), Error>;
    /// When the credential of the target begun last expires, when it is known.
    fn expiry(&mut self, at: Option<jiff::Timestamp>) {
        let _ = at;
    }
}

/// Judge every key of the targets `names` select (all when empty), handing each row to `sink`
/// in target order; the exit code a run would leave and what was said. `quiet`: say nothing of the standing
/// problems, unreadable lines and broken setups (a run that has just said them).
pub(crate) fn judge(
    config: &Config,
    clock: &Clock,
    names: &[String],
    quiet: bool,
    sink: &mut dyn Sink,
) -> Result<Judgement, Error> {
    walk(config, clock, names, quiet, Walk::ByTarget, sink)
}

/// `judge`, key by key: every target's `Sink::target` first, then each key on every target
/// that has it (its post, or a line), in key order, then every target's `Sink::end`. The
/// rows come as they are made, all targets' state files held at once (as a run holds them).
pub(crate) fn judge_by_key(
    config: &Config,
    clock: &Clock,
    names: &[String],
    sink: &mut dyn Sink,
) -> Result<Judgement, Error> {
    walk(config, clock, names, false, Walk::ByKey, sink)
}

/// In which order the rows come.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Each target's keys, target after target.
    ByTarget,
    /// Each key's targets, key after key.
    ByKey,
}

fn walk(
    config: &Config,
    clock: &Clock,
    names: &[String],
    quiet: bool,
    walk: Walk,
    sink: &mut dyn Sink,
) -> Result<Judgement, Error> {
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
        quiet,
        said: Default::default(),
    };
    let mut drafts: BTreeMap<Key, bool> = BTreeMap::new();
    let mut exit = Exit::Ok;
    say_standing(&scene, &mut exit);
    match walk {
        Walk::ByTarget => {
            for (t, cfg) in selected.into_iter().enumerate() {
                let target = Target::read(&scene, cfg, &mut exit)?;
                sink.target(target.cfg, &target.rules)?;
                sink.expiry(target.expires);
                for key in keys(&scene, std::slice::from_ref(&target)) {
                    judge_key(&scene, (t, &target), key, sink, &mut drafts, &mut exit)?;
                }
                sink.end(target.cfg)?;
            }
        }
        Walk::ByKey => {
            let targets = (selected.into_iter())
                .map(|cfg| Target::read(&scene, cfg, &mut exit))
                .collect::<Result<Vec<_>, _>>()?;
            for target in &targets {
                sink.target(target.cfg, &target.rules)?;
                sink.expiry(target.expires);
            }
            for key in keys(&scene, &targets) {
                for (t, target) in targets.iter().enumerate() {
                    if scene.catalog.files.contains_key(&key) || target.state.get(key).is_some() {
                        judge_key(&scene, (t, target), key, sink, &mut drafts, &mut exit)?;
                    }
                }
            }
            for target in &targets {
                sink.end(target.cfg)?;
            }
        }
    }
    Ok(Judgement {
        exit,
        said: scene.said.into_inner(),
    })
}

/// What judging every key found besides the rows.
pub(crate) struct Judgement {
    /// The exit code a run would leave.
    pub(crate) exit: Exit,
    /// The problems said beside the rows (a standing problem, an unreadable line, a broken
    /// setup), in order.
    pub(crate) said: Vec<String>,
}

/// Every key of `targets`: each post's, and each key with a line, in key order.
fn keys(scene: &Scene, targets: &[Target]) -> BTreeSet<Key> {
    let mut keys: BTreeSet<Key> = scene.catalog.files.keys().copied().collect();
    for target in targets {
        keys.extend(target.state.records().map(|r| r.key));
    }
    keys
}

/// One key on one target (`t`: its place among the targets), judged and handed to `sink`
/// (`drafts`: the keys whose post is a draft, read once for all targets).
fn judge_key(
    scene: &Scene,
    (t, target): (usize, &Target),
    key: Key,
    sink: &mut dyn Sink,
    drafts: &mut BTreeMap<Key, bool>,
    exit: &mut Exit,
) -> Result<(), Error> {
    let line = target.state.get(key).map(KeyLine::of);
    let row = key_row(scene, target, key, line.as_ref(), drafts, exit);
    let line = line.as_ref();
    sink.key(&Judged {
        target: t,
        key,
        row: &row,
        line,
        dedup: line.is_some_and(|l| l.dedup),
        since: line.and_then(|l| l.first_failure_time().or_else(|| l.time())),
        at: line.and_then(KeyLine::time),
    })
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
    /// Say nothing (`judge`).
    quiet: bool,
    /// What was said beside the rows, in order.
    said: std::cell::RefCell<Vec<String>>,
}

/// One target as a run would judge its keys: its lines, its rules, its credential and the
/// lines of the targets its template links to.
struct Target<'a> {
    cfg: &'a TargetConfig,
    state: StateFile,
    rules: life::Rules,
    credential: Option<String>,
    /// When that credential expires, when the target knows.
    expires: Option<jiff::Timestamp>,
    linked: BTreeMap<String, StateFile>,
    template: Option<&'a str>,
    /// The lines whose post is gone, for a renamed post (`rename.rs`; slugged keys).
    gone: Option<store::gone::Gone>,
}

/// What a run would say before its keys (on stderr here, so the JSON stays whole).
fn say_standing(scene: &Scene, exit: &mut Exit) {
    for problem in scene.catalog.standing_problems(scene.today) {
        for line in crate::tell::header::error_lines("", &problem) {
            scene.say(line);
        }
        exit.merge(Exit::NeedsHuman);
    }
}

impl Scene<'_> {
    /// A problem said beside the rows (on stderr unless quiet), and kept for the sink.
    fn say(&self, line: String) {
        if !self.quiet {
            crate::say::err(&line);
        }
        self.said.borrow_mut().push(line);
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
            scene.say(format!(
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
        let (credential, expires) = credential(scene, &ctx, exit);
        // The lines of the targets this one's template links to, read as a run reads them.
        let linked = crate::known::linked_states(config, cfg, &scene.shown)?;
        let gone = crate::rename::gone(&state, scene.catalog);
        Ok(Target {
            cfg,
            state,
            rules,
            credential,
            expires,
            linked,
            template: cfg.template.as_ref().map(crate::template::Template::mark),
            gone,
        })
    }
}

/// One key's row on `target`, judged as a run judges it: the same visit (`book::visit`)
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
    let Ok((step, seen)) = crate::book::visit(next, get);
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
    row(scene.now, scene.catalog, key, line, has_post, verdict)
}

/// The fingerprint of the target's credential, read as a run reads it (so a renewed token is seen
/// as renewed), and when it expires if the target knows; a setup a run would refuse is said,
/// and exits 2 as the run does.
fn credential(
    scene: &Scene,
    ctx: &crate::targets::Context,
    exit: &mut Exit,
) -> (Option<String>, Option<jiff::Timestamp>) {
    match crate::targets::build(ctx) {
        Ok(built) => (
            built.target.secrets().fingerprint(),
            built.target.credential_expiry(),
        ),
        Err(err) => {
            scene.say(format!(
                "dayrun: {}: a run would not run it: {}",
                ctx.target.name,
                crate::outside::escape(&err.located(), 4000)
            ));
            exit.merge(Exit::Usage);
            (None, None)
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
