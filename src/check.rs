//! `dayrun check`: validate the config, every target's settings, state files and every post.
//! No writes; no network unless `--online`, which logs in to each target and looks today's
//! post up, so credentials and lookups are proven before the first timer run.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::content::Catalog;
use crate::error::{Class, Error};
use crate::life::Exit;
use crate::outside::escape;
use crate::post::Post;
use crate::state::StateFile;
use crate::targets::{self, Attempts, Built, Context, Lookup};

/// What `check` found so far: how many problems, and the exit the worst of them leaves.
#[derive(Default)]
struct Found {
    problems: usize,
    exit: Exit,
}

impl Found {
    /// A problem of the setup (the config, a target, a state file): said as a run says it.
    fn setup(&mut self, err: &Error) {
        err!("dayrun: {err}");
        self.add(Exit::of(err.code()));
    }

    /// A problem of one post (or file beside the posts): said as `path:line: reason`.
    fn post(&mut self, err: &impl std::fmt::Display) {
        err!("{err}");
        self.add(Exit::NeedsHuman);
    }

    fn add(&mut self, exit: Exit) {
        self.problems += 1;
        self.exit.merge(exit);
    }
}

/// Check everything that can be checked and say every problem found (`problems`: the config's,
/// from `Config::load_all`), then exit with the worst: a setup problem 2, a post's 1, and
/// with `--online` a refused login 3. Only a content folder that cannot be read stops it.
pub fn run(
    config: &Config,
    clock: &Clock,
    online: bool,
    problems: Vec<Error>,
) -> Result<i32, Error> {
    let mut found = Found::default();
    for err in &problems {
        found.setup(err);
    }
    let mut built = setup(config, clock, &mut found);
    let catalog = Catalog::scan(&config.sources())?;
    if online {
        look_up_today(clock, &catalog, &mut built, &mut found);
    }
    for problem in &catalog.problems {
        found.post(problem);
    }
    for &key in catalog.files.keys() {
        match catalog.text(key) {
            Ok(post) => check_post(config, &catalog, &post, &mut found),
            Err(err) => found.post(&err),
        }
    }
    for (path, why) in &catalog.ignored {
        out!(
            "ignored {}: {}",
            escape(&path.display().to_string(), 4000),
            escape(why, 4000)
        );
    }
    let names: Vec<&str> = config.targets.iter().map(|t| t.name.as_str()).collect();
    out!(
        "{} post(s), {} problem(s), {} ignored file(s); targets: {}",
        catalog.files.len(),
        found.problems,
        catalog.ignored.len(),
        names.join(", ")
    );
    Ok(found.exit.code())
}

/// Every target built (with what its settings say it can do) and its state file read, as a
/// run would; each that cannot be is said, and the others are checked still.
fn setup<'a>(
    config: &'a Config,
    clock: &Clock,
    found: &mut Found,
) -> Vec<(&'a TargetConfig, Built)> {
    let shown = config.show(&config.state);
    let mut built = Vec::new();
    for cfg in &config.targets {
        let ctx = Context {
            config,
            target: cfg,
            clock,
        };
        match targets::build(&ctx) {
            Ok(target) => built.push((cfg, target)),
            Err(err) => found.setup(&err),
        }
        if let Err(err) = StateFile::load(&config.state, &cfg.name, &shown) {
            found.setup(&err);
        }
    }
    built
}

/// One post: every bad image (not only the first a run would stop at), every target's
/// template rendered for it, and a warning for each image without alt text and (blog layout)
/// each use of a site generator's markup that is not a draft's.
fn check_post(config: &Config, catalog: &Catalog, post: &Post, found: &mut Found) {
    let mut errors = catalog.image_errors(post);
    if !post.draft {
        errors.extend(crate::targets::preview::render_all(config, post));
    }
    for err in &errors {
        found.post(err);
    }
    for image in post.image_refs.iter().filter(|r| r.alt.is_empty()) {
        err!(
            "warning: {}:{}: image `{}` has no alt text",
            escape(&post.path.display().to_string(), 4000),
            image.line,
            escape(&image.dest, 200)
        );
    }
    for markup in post.markup.iter().filter(|_| !post.draft) {
        err!(
            "warning: {}:{}: `{}` is {}: dayrun does not render it, so it goes out as written",
            escape(&post.path.display().to_string(), 4000),
            markup.line,
            escape(&markup.text, 200),
            markup.generator.said()
        );
    }
    if errors.is_empty() {
        // With slugged keys a file's key is not its name alone: said, before a run uses it.
        let key = match config.keys.slugs {
            true => format!(" key={}", post.key),
            false => String::new(),
        };
        out!(
            "ok {}{key} {} tags={}{}",
            escape(&post.path.display().to_string(), 4000),
            escape(&format!("{:?}", post.title), 4000),
            escape(&post.tags.join(","), 4000),
            if post.draft { " (draft)" } else { "" }
        );
    }
}

/// One read-only lookup of today's key on every target: proves the credentials (lookups log
/// in) and says what a lookup can tell there. Auth refused is exit 3, any other failure 1
/// (the posts are checked still).
fn look_up_today(
    clock: &Clock,
    catalog: &Catalog,
    built: &mut [(&TargetConfig, Built)],
    found: &mut Found,
) {
    let today = crate::life::Key::of_day(clock.today());
    let post = catalog.post(today).ok();
    let sent = post.as_ref().map_or_else(
        || serde_json::json!({"key": today.to_string()}),
        |p| targets::payload(p, &targets::ImageLinks::default()),
    );
    let marks: Vec<String> = post
        .iter()
        .map(|p| crate::text::mark(&p.fingerprint))
        .collect();
    let attempts = Attempts::none_yet(today, &marks, &sent);
    for (cfg, built) in built.iter_mut() {
        let looked = built.finder().map(|f| f.find(&attempts));
        let target = &built.target;
        let shown = |text: &str| escape(&target.secrets().redact(text), 2000);
        let said = match looked {
            None => "cannot look posts up (no list_url or confirm command): unknown outcomes will go to you".to_string(),
            Some(looked) => match looked {
                Ok(Lookup::Found(copies)) => format!(
                    "lookup works; today's post {today} is there (id={})",
                    shown(&copies[0].id)
                ),
                Ok(Lookup::Absent) => format!("lookup works; today's post {today} is not there"),
                Ok(Lookup::CannotTell(why)) => format!(
                    "lookup works, but cannot tell whether a post is there: {}",
                    shown(&why)
                ),
                Ok(Lookup::Foreign(copies)) => format!(
                    "lookup works; a copy at today's place is not today's post (id={})",
                    shown(&copies[0].id)
                ),
                Err(err) => {
                    found.add(match err.class() {
                        Some(Class::Auth) => Exit::Auth,
                        _ => Exit::NeedsHuman,
                    });
                    let mut text = format!("FAILED: {}", shown(&err.located()));
                    if let Some(hint) = &err.hint {
                        text.push_str(&format!("\n  {}", shown(hint)));
                    }
                    text
                }
            },
        };
        out!("online {}: {said}", cfg.name);
    }
}
