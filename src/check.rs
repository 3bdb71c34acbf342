//! `dayrun check`: validate the config, every target's settings, state files and every post.
//! No writes; no network unless `--online`, which logs in to each target and looks today's
//! post up, so credentials and lookups are proven before the first timer run.

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Class, Error, code};
use crate::outside::escape;
use crate::state::StateFile;
use crate::targets::{self, Attempts, Context, Lookup};

pub fn run(config: &Config, clock: &Clock, online: bool) -> Result<i32, Error> {
    let shown = config.show(&config.state);
    let mut built = Vec::new();
    for cfg in &config.targets {
        built.push(targets::build(&Context {
            config,
            target: cfg,
            clock,
        })?);
        StateFile::load(&config.state, &cfg.name, &shown)?;
    }
    let catalog = Catalog::scan(&config.content, &config.root)?;
    if online {
        let code = look_up_today(config, clock, &catalog, &mut built);
        if code != code::OK {
            return Ok(code);
        }
    }
    let mut bad = 0;
    for problem in &catalog.problems {
        eprintln!("{problem}");
        bad += 1;
    }
    for &key in catalog.files.keys() {
        let post = match catalog.text(key) {
            Ok(post) => post,
            Err(err) => {
                eprintln!("{err}");
                bad += 1;
                continue;
            }
        };
        // Every bad image, not only the first a run would stop at.
        let mut errors = catalog.image_errors(&post);
        // Every target's template, rendered for the post.
        if !post.draft {
            errors.extend(crate::template::check::render_all(config, &post));
        }
        for err in &errors {
            eprintln!("{err}");
        }
        bad += errors.len();
        for image in post.image_refs.iter().filter(|r| r.alt.is_empty()) {
            eprintln!(
                "warning: {}:{}: image `{}` has no alt text",
                escape(&post.path.display().to_string(), 4000),
                image.line,
                escape(&image.dest, 200)
            );
        }
        if errors.is_empty() {
            println!(
                "ok {} {} tags={}{}",
                escape(&post.path.display().to_string(), 4000),
                escape(&format!("{:?}", post.title), 4000),
                escape(&post.tags.join(","), 4000),
                if post.draft { " (draft)" } else { "" }
            );
        }
    }
    for (path, why) in &catalog.ignored {
        println!(
            "ignored {}: {}",
            escape(&path.display().to_string(), 4000),
            escape(why, 4000)
        );
    }
    let names: Vec<&str> = config.targets.iter().map(|t| t.name.as_str()).collect();
    println!(
        "{} post(s), {bad} problem(s), {} ignored file(s); targets: {}",
        catalog.files.len(),
        catalog.ignored.len(),
        names.join(", ")
    );
    Ok(if bad > 0 { code::NEEDS_HUMAN } else { code::OK })
}

/// One read-only lookup of today's key on every target: proves the credentials (lookups log
/// in) and says what a lookup can tell there. Auth refused is exit 3, any other failure 1.
fn look_up_today(
    config: &Config,
    clock: &Clock,
    catalog: &Catalog,
    built: &mut [Box<dyn targets::Target>],
) -> i32 {
    let today = clock.today();
    let post = catalog.post(today).ok();
    let sent = post.as_ref().map_or_else(
        || serde_json::json!({"key": today.to_string()}),
        |p| targets::payload(p, &targets::ImageLinks::default()),
    );
    let marks: Vec<String> = post.iter().map(|p| targets::mark(&p.fingerprint)).collect();
    let attempts = Attempts::none_yet(today, &marks, &sent);
    let mut worst = code::OK;
    for (cfg, target) in config.targets.iter().zip(built.iter_mut()) {
        let looked = target.as_find().map(|f| f.find(&attempts));
        let shown = |text: &str| escape(&target.secrets().redact(text), 2000);
        let said = match looked {
            None => "cannot look posts up (no list_url or confirm command): unknown outcomes will go to you".to_string(),
            Some(looked) => match looked {
                Ok(Lookup::Found(found)) => format!(
                    "lookup works; today's post {today} is there (id={})",
                    shown(&found[0].id)
                ),
                Ok(Lookup::Absent) => format!("lookup works; today's post {today} is not there"),
                Ok(Lookup::CannotTell(why)) => format!(
                    "lookup works, but cannot tell whether a post is there: {}",
                    shown(&why)
                ),
                Ok(Lookup::Foreign(found)) => format!(
                    "lookup works; a copy at today's place is not today's post (id={})",
                    shown(&found[0].id)
                ),
                Err(err) => {
                    worst = worst.max(match err.class() {
                        Some(Class::Auth) => code::AUTH,
                        _ => code::NEEDS_HUMAN,
                    });
                    let mut text = format!("FAILED: {}", shown(&err.located()));
                    if let Some(hint) = &err.hint {
                        text.push_str(&format!("\n  {}", shown(hint)));
                    }
                    text
                }
            },
        };
        println!("online {}: {said}", cfg.name);
    }
    worst
}
