//! Requests per post against the fake Mastodon and the fake dev.to (issue 23), for
//! `scripts/bench --network`, which runs this and prints the figures. A backfill of N posts
//! (three tags each, dates in the past) on a fresh fake, then a second run with nothing to send;
//! every request is recorded as the fake read it (`METHOD target`) and the bench sorts them into
//! creates, lookups and the rest. It measures: the only assertion is that each post was created
//! once. Ignored, like the other measurements.
//!
//! `DAYRUN_BENCH_BIN`: the binary to run (default: the one cargo built for the tests);
//! `DAYRUN_NETBENCH_POSTS`: N (default 40); `DAYRUN_NETBENCH_OUT`: a file for the figures as
//! JSON (default: a line per fake is printed).

use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_server::Server;
use crate::support::days::days_ago;
use crate::support::util::{Project, env_number};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Instant;

const TAGS: [&str; 3] = ["rust", "ops", "notes"];

/// `content/KEY.md` for N consecutive days ending 21 days ago: all due, all past `catchup_days`.
fn write_posts(p: &Project, n: u64) {
    for i in 0..n {
        let day = days_ago(20 + n as i64 - i as i64);
        p.file(
            &format!("content/{day}.md"),
            format!(
                "---\ntags: [{}]\n---\n# Post number {i}\n\nA summary of post {i}, one sentence.\n\nSome body text for post {i}.\n",
                TAGS.join(", ")
            ),
        );
    }
}

/// One `dayrun run --backfill`: what the fake read meanwhile, the wall time and the exit code.
fn run(p: &Project, server: &Server) -> Value {
    let exe = std::env::var("DAYRUN_BENCH_BIN")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_dayrun").to_string());
    let before = server.seen.lock().unwrap().len();
    let started = Instant::now();
    let out = Command::new(&exe)
        .arg("-C")
        .arg(&p.root)
        .args(["run", "--backfill"])
        .env("TZ", "UTC")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{exe}: {e}"));
    let wall = started.elapsed().as_secs_f64();
    let requests = server.seen.lock().unwrap()[before..].to_vec();
    json!({"wall_s": wall, "code": out.status.code(), "requests": requests,
           "stderr_tail": String::from_utf8_lossy(&out.stderr).lines().rev().take(5).collect::<Vec<_>>()})
}

/// The backfill and the run after it, and how many posts the fake holds after each.
fn measure(p: &Project, server: &Server, count: impl Fn() -> usize, n: u64) -> Value {
    write_posts(p, n);
    let mut backfill = run(p, server);
    backfill["records"] = json!(count());
    let mut again = run(p, server);
    again["records"] = json!(count());
    assert_eq!(count(), n as usize, "each post created once: {backfill}");
    json!({"posts": n, "backfill": backfill, "again": again})
}

#[test]
#[ignore = "a measurement for scripts/bench --network, which prints it (DAYRUN_NETBENCH_OUT)"]
fn requests_per_post_against_the_fakes() {
    let n = env_number("DAYRUN_NETBENCH_POSTS", 40);

    let masto = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\n\n{}", masto.config("")),
    );
    p.secret("secrets/masto.token", fake_mastodon::TOKEN);
    let mastodon = measure(&p, &masto.server, || masto.statuses().len(), n);

    let devto = FakeDevto::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\n\n{}", devto.config("")),
    );
    p.secret("secrets/devto.key", fake_devto::KEY);
    let forem = measure(&p, &devto.server, || devto.articles().len(), n);

    let figures = json!({"mastodon": mastodon, "devto": forem});
    match std::env::var("DAYRUN_NETBENCH_OUT") {
        Ok(path) if !path.is_empty() => std::fs::write(&path, figures.to_string()).unwrap(),
        _ => {
            for (name, doc) in figures.as_object().unwrap() {
                let sent = doc["backfill"]["requests"].as_array().unwrap().len();
                let again = doc["again"]["requests"].as_array().unwrap().len();
                println!(
                    "{name}: {n} posts, {sent} requests ({:.2} a post), then {again} with nothing to send",
                    sent as f64 / n as f64
                );
            }
        }
    }
}
