//! `dayrun check`: validate the config, every target's settings, state files and every post.
//! No network, no writes.

use crate::clock::Clock;
use crate::config::Config;
use crate::content::Catalog;
use crate::error::{Error, code};
use crate::state::StateFile;
use crate::targets::{self, Context};

pub fn run(config: &Config, clock: &Clock) -> Result<i32, Error> {
    let shown = config.show(&config.state);
    for cfg in &config.targets {
        targets::build(&Context {
            config,
            target: cfg,
            clock,
        })?;
        StateFile::load(&config.state, &cfg.name, &shown)?;
    }
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let mut bad = 0;
    for problem in &catalog.problems {
        eprintln!("{problem}");
        bad += 1;
    }
    for &key in catalog.files.keys() {
        match catalog.post(key) {
            Ok(post) => println!(
                "ok {} {:?} tags={}{}",
                post.path.display(),
                post.title,
                post.tags.join(","),
                if post.draft { " (draft)" } else { "" }
            ),
            Err(err) => {
                eprintln!("{err}");
                bad += 1;
            }
        }
    }
    for (path, why) in &catalog.ignored {
        println!("ignored {}: {why}", path.display());
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
