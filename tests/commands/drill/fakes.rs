//! The drill against every target's fake (http is in `drill.rs`; Nostr is refused): three rounds, half of the
//! requests faulted, each drill post out once and every copy removed from the fake itself.
//! Each table sets `settle_secs = 0.6`, past the 0.5 s delay, as the docs ask.

use super::{count, drill};
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_ghost::{FakeGhost, KEY_ID, SECRET};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_matrix::{self, FakeMatrix};
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::{Output, Project};

/// The drill's arguments in these tests: short, seeded, half of the requests faulted.
const ARGS: [&str; 8] = [
    "--rounds", "3", "--loss", "50%", "--seed", "11", "--delay", "0.5",
];

/// A project with `config` (its `settle_secs` set to 0.6).
fn project(config: &str) -> Project {
    let p = Project::new();
    let config = match config.contains("settle_secs = 0\n") {
        true => config.replace("settle_secs = 0\n", "settle_secs = 0.6\n"),
        false => format!("{config}settle_secs = 0.6\n"),
    };
    p.file("dayrun.toml", config);
    p
}

/// The drill went clean: 0 duplicates, nothing lost, three copies removed, and `left()` (what
/// the fake still holds) is nothing.
#[track_caller]
fn clean(out: &Output, left: usize) {
    println!("{}\n{}", out.stdout, out.stderr);
    out.code(0);
    assert_eq!(count(out, "rounds"), 3);
    assert_eq!(count(out, "duplicates"), 0);
    assert_eq!((count(out, "lost"), count(out, "leaked-pending")), (0, 0));
    assert_eq!(count(out, "removed"), 3);
    assert_eq!(left, 0, "the fake still holds drill copies");
}

#[test]
fn drill_on_wordpress_deletes_for_good() {
    let wp = FakeWordPress::start();
    let p = project(&wp.config(""));
    p.secret("secrets/wp.password", PASSWORD);
    let out = drill(&p, "wp", &ARGS);
    clean(&out, wp.posts().len());
    assert!(out.stdout.contains("--drill-"), "{}", out.stdout);
}

#[test]
fn drill_on_ghost() {
    let ghost = FakeGhost::start();
    let p = project(&ghost.config(""));
    p.secret("secrets/ghost.key", format!("{KEY_ID}:{SECRET}\n"));
    let out = drill(&p, "ghost", &ARGS);
    clean(&out, ghost.posts().len());
}

#[test]
fn drill_on_bluesky() {
    let pds = FakeBluesky::start();
    let p = project(&pds.config("sky", ""));
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    let out = drill(&p, "sky", &ARGS);
    clean(&out, pds.records().len());
}

#[test]
fn drill_on_matrix() {
    let mx = FakeMatrix::start();
    let p = project(&mx.config(fake_matrix::ROOM, ""));
    p.secret("secrets/matrix.token", format!("{}\n", fake_matrix::TOKEN));
    let out = drill(&p, "room", &ARGS);
    clean(&out, mx.posts(fake_matrix::ROOM).len());
}

#[test]
fn drill_on_mastodon() {
    let api = FakeMastodon::start(500);
    let p = project(&api.config(""));
    p.secret("secrets/masto.token", TOKEN);
    // A Mastodon run makes several requests (the account, the instance, a walk over the
    // timeline, each status's source): at 50% a round may not get through in 12 runs.
    let mut args = ARGS;
    args[3] = "20%";
    let out = drill(&p, "masto", &args);
    clean(&out, api.statuses().len());
}

/// A site the scripts keep as files (`site/<id>` holding the key), and what each call saw of
/// its environment (`env/`).
const PUBLISH: &str = r#"#!/bin/sh
cat > /dev/null
mkdir -p site env
id="$DAYRUN_KEY.$(date +%s%N)"
echo "$DAYRUN_KEY" > "site/$id"
env | grep -v -e '^DAYRUN_KEY=' -e '^DAYRUN_IDEMPOTENCY_KEY=' -e '^DAYRUN_ATTEMPT_AT=' | sort > "env/$id"
echo "{\"id\":\"$id\"}"
"#;

const CONFIRM: &str = r#"#!/bin/sh
cat > /dev/null
found=$(grep -lx "$DAYRUN_KEY" site/* 2>/dev/null | head -n 1)
[ -n "$found" ] || exit 1
basename "$found"
"#;

const RETRACT: &str = r#"#!/bin/sh
rm -f "site/$DAYRUN_ID"
"#;

fn command_project() -> Project {
    let p = project(
        "[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\nconfirm = [\"./scripts/confirm.sh\"]\nretract = [\"./scripts/retract.sh\"]\ntimeout_secs = 2\nbackoff_secs = 0.01\nconfirm_delay_secs = 0.01\n",
    );
    p.script("scripts/publish.sh", PUBLISH)
        .script("scripts/confirm.sh", CONFIRM)
        .script("scripts/retract.sh", RETRACT);
    p
}

fn files(p: &Project, dir: &str) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(p.path(dir)) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

/// Seed 12: with seed 11 the first round's script is killed and so is its `confirm`, which
/// the command contract makes "cannot tell", and the runner hands to a person (lost=1).
#[test]
fn drill_on_a_command_target() {
    let p = command_project();
    let mut args = ARGS;
    args[5] = "12";
    let out = drill(&p, "site", &args);
    clean(&out, files(&p, "site").len());
    assert!(out.stdout.contains("script ./scripts/"), "{}", out.stdout);
}

/// The user's script gets the environment a run gives it: the same variables, the same
/// folder; only the key and what is made of it differ.
#[test]
fn the_drill_gives_a_script_the_environment_a_run_gives_it() {
    let p = command_project();
    p.post("2026-11-29", "A real post");
    p.run(&["run", "--today=2026-11-29"]).code(0);
    let from_run = files(&p, "env");
    assert_eq!(from_run.len(), 1);
    let run_env = std::fs::read_to_string(&from_run[0]).unwrap();
    drill(&p, "site", &["--rounds", "1", "--loss", "0%"]).code(0);
    let from_drill: Vec<_> = (files(&p, "env").into_iter())
        .filter(|f| f.to_string_lossy().contains("--drill-"))
        .collect();
    assert_eq!(from_drill.len(), 1);
    let drill_env = std::fs::read_to_string(&from_drill[0]).unwrap();
    assert!(run_env.contains("DAYRUN_TARGET=site"), "{run_env}");
    assert_eq!(drill_env, run_env);
}
