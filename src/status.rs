//! `dayrun status`: every key's state per target, as text or as stable JSON, and the exit code
//! a run would leave if nothing answered otherwise (the key's life says it: `life::next`).
//! Never writes. Rows are printed as they are made, so memory does not grow with the keys.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::{self, Ctx, Decision, Event, Exit, Facts, KeyLine, Mode, Phase, Seen};
use jiff::civil::Date;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufWriter, Write};

/// A pending key older than this is flagged: its run died or hangs.
const STUCK_SECS: i64 = 5 * 60;
/// The `--json` schema version (documented in docs/commands.md).
const SCHEMA: u32 = 1;

/// One key on one target (schema 1).
#[derive(Serialize)]
struct Row<'a> {
    key: String,
    status: &'a str,
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
}

pub fn run(config: &Config, clock: &Clock, names: &[String], as_json: bool) -> Result<i32, Error> {
    let selected = config.select(names)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let today = clock.today();
    let now = clock.instant();
    let shown = config.show(&config.state);
    let mut drafts: BTreeMap<Date, bool> = BTreeMap::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| Error::usage(format!("cannot write the status: {e}"));
    let mut exit = Exit::Ok;
    let mode = Mode::Run { backfill: false };
    // What a run would say before its keys (on stderr here, so the JSON stays whole).
    for problem in catalog.standing_problems(today) {
        crate::say::err(&crate::outside::escape(&problem.located(), 4000));
        if let Some(hint) = &problem.hint {
            crate::say::err(&format!("  {}", crate::outside::escape(hint, 4000)));
        }
        exit.merge(Exit::NeedsHuman);
    }
    if as_json {
        write!(
            out,
            "{{\n  \"schema\": {SCHEMA},\n  \"today\": \"{today}\",\n  \"targets\": ["
        )
        .map_err(io)?;
    }
    for (t, cfg) in selected.iter().enumerate() {
        // A malformed line is said and left out; the rest is shown. A run would refuse the
        // file, so status exits 2.
        let mut problems = Vec::new();
        let state = crate::state::StateFile::load_readable(
            &config.state,
            &cfg.name,
            &shown,
            &mut problems,
        )?;
        for problem in &problems {
            crate::say::err(&format!(
                "dayrun: {} (left out here; a run refuses the file until it is fixed)",
                crate::outside::escape(&problem.located(), 4000)
            ));
            exit.merge(Exit::Usage);
        }
        let rules = crate::runner::rules(config, cfg);
        let can_find = rules.can_find;
        let credential = credential(config, cfg, clock, &mut exit);
        // The lines of the targets this one's template links to, read as a run reads them.
        let linked = crate::runner::linked_states(config, cfg, &shown)?;
        let mut keys: BTreeSet<Date> = catalog.files.keys().copied().collect();
        keys.extend(state.records().map(|r| r.key));
        let mut counts: BTreeMap<&str, u64> = [
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
        .collect();
        let mut words = crate::tally::Tally::default();
        if as_json {
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
        let template = cfg.template.as_ref().map(crate::template::Template::mark);
        for (i, key) in keys.into_iter().enumerate() {
            let line = state.get(key).map(KeyLine::of);
            let has_post = catalog.files.contains_key(&key);
            let ctx = Ctx {
                credential: credential.as_deref(),
                ..Ctx::at(key, &clock.now(), clock.tz(), today, &rules, &mode)
            };
            let refused = line.as_ref().is_some_and(|l| l.edits.edit_failed.is_some());
            // A key a run may send is read as the run reads it, images and all (a bad image
            // fails the run's read); a done one by its text, unless it holds a refused edit.
            let whole = refused || line.as_ref().is_none_or(|l| l.phase != Phase::Done);
            let facts = |post: &crate::post::Post| Facts {
                blocked: blocked(cfg, post, &ctx, &linked),
                ..post.facts(template, refused)
            };
            let get = || seen(&catalog, key, has_post, whole, &facts);
            let next = |seen: Option<&Seen>| {
                Ok::<_, std::convert::Infallible>(life::next(
                    line.as_ref(),
                    &Event::Visit(seen),
                    &ctx,
                ))
            };
            let Ok((step, seen)) = crate::runner::visit(next, get);
            // The post as the visit read it, or read now (a rule that did not need it).
            let seen = || seen.clone().unwrap_or_else(get);
            exit.merge(step.exit);
            let decision = match step.then {
                life::Then::Decide(decision) => decision,
                _ => unreachable!("a visit decides"),
            };
            let status = match (&line, &decision) {
                (Some(l), _) => l.record().status.as_str(),
                (None, Decision::Skip(life::Skip::Scheduled)) => "scheduled",
                (None, _) if *drafts.entry(key).or_insert_with(|| seen() == Seen::Draft) => "draft",
                (None, Decision::Skip(life::Skip::Stale)) => "stale",
                (None, _) => "due",
            };
            *counts.entry(status).or_default() += 1;
            if line.as_ref().is_some_and(|l| l.dedup) {
                *counts.entry("dedup").or_default() += 1;
            }
            let age = line
                .as_ref()
                .and_then(KeyLine::time)
                .map(|at| now.as_second() - at.as_second());
            let done = line.as_ref().filter(|l| l.phase == Phase::Done);
            let deleted = done.is_some() && !has_post;
            let edited = !deleted
                && done
                    .and_then(|l| l.fp.as_ref())
                    .is_some_and(|fp| catalog.text(key).is_ok_and(|post| post.fingerprint != *fp));
            let held_back = decision == Decision::Hold;
            let blocked = match (&decision, matches!(decision, Decision::Publish { .. })) {
                (_, true) => match seen() {
                    Seen::Ready(facts) => facts.blocked.clone(),
                    _ => None,
                },
                _ => None,
            };
            let edit_failed = matches!(decision, Decision::EditFailed(_));
            // The words a run's summary uses: a deleted key is not also done, a key held
            // back is not also failed.
            words.add(match () {
                _ if deleted => "deleted",
                _ if held_back => "held back",
                _ if edit_failed => "edit failed",
                _ => status,
            });
            if edited {
                words.add("edited");
            }
            if line.as_ref().is_some_and(|l| l.dedup) {
                words.add("dedup");
            }
            for (flag, word) in [
                (edited, "edited"),
                (deleted, "deleted"),
                (held_back, "held_back"),
                (edit_failed, "edit_failed"),
            ] {
                if flag {
                    *counts.entry(word).or_default() += 1;
                }
            }
            let class = line.as_ref().and_then(|l| match l.phase {
                Phase::Failed(class, _) => Some(class.to_string()),
                _ => None,
            });
            let row = Row {
                key: key.to_string(),
                status,
                at: line.as_ref().map(|l| l.at.clone()),
                age_secs: age,
                id: line.as_ref().and_then(|l| l.copy.id.clone()),
                url: line.as_ref().and_then(|l| l.copy.url.clone()),
                class,
                reason: line.as_ref().and_then(|l| l.reason.clone()),
                stuck: line
                    .as_ref()
                    .is_some_and(|l| matches!(l.phase, Phase::Pending(_)))
                    && age.is_some_and(|a| a > STUCK_SECS),
                edited,
                deleted,
                held_back,
                blocked,
                edit_failed,
                exit: step.exit.code(),
            };
            if as_json {
                let json = serde_json::to_string(&row).expect("a row serialises");
                let json = crate::outside::json_safe(json);
                write!(out, "{}\n      {json}", if i > 0 { "," } else { "" }).map_err(io)?;
            } else {
                writeln!(
                    out,
                    "{} {} {}",
                    row.key,
                    cfg.name,
                    text(&row, &line, can_find)
                )
                .map_err(io)?;
            }
        }
        if as_json {
            let counts = serde_json::to_string(&counts).expect("counts serialise");
            write!(out, "\n    ], \"counts\": {counts}}}").map_err(io)?;
        } else {
            let parts = words.parts(|word, n| format!("{n} {word}"));
            writeln!(
                out,
                "{}: {}",
                cfg.name,
                if parts.is_empty() {
                    "no keys".into()
                } else {
                    parts.join(", ")
                }
            )
            .map_err(io)?;
        }
    }
    if as_json {
        writeln!(out, "\n  ]\n}}").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(exit.code())
}

/// The fingerprint of `cfg`'s credential, read as a run reads it (so a renewed token is seen
/// as renewed); a setup a run would refuse is said, and exits 2 as the run does.
fn credential(
    config: &Config,
    cfg: &TargetConfig,
    clock: &Clock,
    exit: &mut Exit,
) -> Option<String> {
    let ctx = crate::targets::Context {
        config,
        target: cfg,
        clock,
    };
    match crate::targets::build(&ctx) {
        Ok(target) => target.secrets().fingerprint(),
        Err(err) => {
            crate::say::err(&format!(
                "dayrun: {}: a run would not run it: {}",
                cfg.name,
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
    linked: &BTreeMap<String, crate::state::StateFile>,
) -> Option<String> {
    let template = cfg.template.as_ref()?;
    let held = life::past_window(ctx.key, ctx);
    let line_of = |name: &str| linked.get(name)?.get(ctx.key).map(KeyLine::of);
    let upstream = crate::template::upstream(template, line_of, held);
    crate::targets::preview::blocked(cfg, post, &upstream)
}

fn text(row: &Row, line: &Option<KeyLine>, can_find: bool) -> String {
    let mut text = row.status.to_string();
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
    if row.status == "done" && row.id.is_none() {
        text.push_str(" (no id: edits and retracts cannot reach this copy; `dayrun mark KEY done --id ID` records it)");
    }
    if row.deleted {
        text.push_str(" DELETED: the post's file is gone (the published copy is not touched)");
    }
    if let Some(line) = line
        && !line.copies.is_empty()
    {
        text.push_str(&format!(
            " DUPLICATE: also {}",
            crate::outside::escape(&line.copies.join(", "), 2048)
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

/// The post of `key` as the rules see it (`facts`: as `runner::report::facts` makes them).
/// `whole`: read with its images, as a run reads a post it may send (and the edit hash of a
/// refused edit needs them); otherwise by its text alone.
fn seen(
    catalog: &Catalog,
    key: Date,
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
