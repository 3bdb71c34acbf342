//! The fault drill: many rounds of runs against a server that commits and then loses the
//! answer, resets, fails, rate-limits and goes down, re-running until every key is done.
//! `DAYRUN_DRILL_ROUNDS` and `DAYRUN_DRILL_SEED` size and replay it.

use crate::fake_posts::{Fault, PostsApi};
use crate::util::{Project, Rng, env_number};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEYS_PER_ROUND: i64 = 3;

fn fault(rng: &mut Rng) -> Fault {
    match rng.below(100) {
        0..=51 => Fault::Normal,
        52..=59 => Fault::CommitHang,
        60..=67 => Fault::CommitClose,
        68..=70 => Fault::CommitStatus(500),
        71..=73 => Fault::CommitStatus(502),
        74..=76 => Fault::CommitStatus(504),
        77..=79 => Fault::CommitNoReceipt,
        80..=85 => Fault::Reject(503),
        86..=91 => Fault::RateLimit(0),
        _ => Fault::Reject(429),
    }
}

#[test]
fn drill_no_duplicates_no_losses_under_random_faults() {
    let rounds = env_number("DAYRUN_DRILL_ROUNDS", 200);
    let seed = env_number("DAYRUN_DRILL_SEED", 20261129);
    let rng = Arc::new(Mutex::new(Rng::new(seed)));
    let api = PostsApi::start();
    {
        let mut state = api.state.lock().unwrap();
        state.hang = Duration::from_millis(300);
        let r = rng.clone();
        state.chooser = Some(Box::new(move || fault(&mut r.lock().unwrap())));
        let r = rng.clone();
        state.list_chooser = Some(Box::new(move || {
            if r.lock().unwrap().below(100) < 12 {
                500
            } else {
                200
            }
        }));
    }
    let p = Project::new();
    let config = api
        .config("blog", "list_complete = true\nsettle_secs = 0")
        .replace("timeout_secs = 0.3", "timeout_secs = 0.15")
        .replace("backoff_secs = 0.01", "backoff_secs = 0.005");
    p.file("dayrun.toml", config);

    let start: jiff::civil::Date = "2020-01-01".parse().unwrap();
    let (mut runs, mut retries, mut downs, mut duplicates, mut lost) =
        (0u64, 0u64, 0u64, 0usize, 0usize);
    for round in 0..rounds as i64 {
        let keys: Vec<String> = (0..KEYS_PER_ROUND)
            .map(|i| (start + jiff::Span::new().days(round * KEYS_PER_ROUND + i)).to_string())
            .collect();
        for key in &keys {
            p.post(key, &format!("Post {key}"));
        }
        let today = format!("--today={}", keys.last().unwrap());
        let mut attempts = 0;
        loop {
            attempts += 1;
            assert!(
                attempts <= 40,
                "round {round} (seed {seed}) did not converge:\n{:#?}",
                p.state_lines("blog")
            );
            let down = rng.lock().unwrap().below(100) < 5;
            let up = down.then(|| {
                downs += 1;
                api.server.down();
                let delay = Duration::from_millis(rng.lock().unwrap().below(40));
                std::thread::spawn(move || std::thread::sleep(delay))
            });
            let out = p.run(&["run", &today]);
            runs += 1;
            if let Some(waiter) = up {
                waiter.join().unwrap();
                api.server.up();
            }
            assert!(
                [0, 1, 75].contains(&out.code),
                "round {round}: unexpected exit {}\n{}",
                out.code,
                out.stderr
            );
            // Every state file parses after every run.
            p.run(&["status", "--json"]).code(0);
            let lines = p.state_lines("blog");
            let line = |key: &str| lines.iter().find(|l| l.starts_with(key)).cloned();
            let mut all_done = true;
            for key in &keys {
                match line(key) {
                    Some(l) if l.contains(" done ") => {}
                    Some(l) if l.contains("class=unknown") => {
                        // The human lever: retry confirms first, then sends only if absent.
                        retries += 1;
                        let out = p.run(&["retry", key]);
                        assert!([0, 1, 75].contains(&out.code), "{}", out.stderr);
                        all_done = false;
                    }
                    _ => all_done = false,
                }
            }
            if all_done {
                break;
            }
        }
        for key in &keys {
            let commits = api.commits_of(key);
            duplicates += commits.saturating_sub(1);
            let line = p
                .state_lines("blog")
                .into_iter()
                .find(|l| l.starts_with(key.as_str()))
                .unwrap();
            let committed_id = api
                .committed()
                .into_iter()
                .find(|c| &c.key == key)
                .map(|c| c.id);
            match committed_id {
                Some(id) if line.contains(&format!(" id={id} ")) => {}
                _ => lost += 1,
            }
        }
    }
    let final_lines = p.state_lines("blog");
    let leaked_pending = final_lines
        .iter()
        .filter(|l| l.contains(" pending "))
        .count();
    let confirmed = p.read("state/blog.log").matches(" confirm done ").count();
    println!(
        "drill: seed={seed} rounds={rounds} keys={} runs={runs} human_retries={retries} server_downs={downs} duplicates={duplicates} lost={lost} leaked_pending={leaked_pending} confirmed={confirmed}",
        rounds as i64 * KEYS_PER_ROUND
    );
    assert_eq!(final_lines.len() as i64, rounds as i64 * KEYS_PER_ROUND);
    assert_eq!((duplicates, lost, leaked_pending), (0, 0, 0));
    assert!(confirmed > 0, "the drill never exercised confirmation");
}
