//! The fault drill: many rounds of runs against a server that commits and then loses the
//! answer, resets, fails, rate-limits and goes down, re-running until every key is done.
//! `DAYRUN_DRILL_ROUNDS` and `DAYRUN_DRILL_SEED` size and replay it.

use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::{Project, Rng, env_number};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod bluesky;

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
        .config(
            "blog",
            &format!(
                "list_complete = true\nsettle_secs = 0.5\nupdate_url = \"{}\"\n{}",
                api.server.url("/posts/{id}"),
                api.delete_url()
            ),
        )
        .replace("timeout_secs = 0.3", "timeout_secs = 0.15")
        .replace("backoff_secs = 0.01", "backoff_secs = 0.005");
    p.file("dayrun.toml", config);

    let start: jiff::civil::Date = "2020-01-01".parse().unwrap();
    let (mut runs, mut retries, mut downs, mut duplicates, mut lost) =
        (0u64, 0u64, 0u64, 0usize, 0usize);
    let (mut edits, mut stale_copies) = (0u64, 0usize);
    let mut retracted: std::collections::BTreeSet<String> = Default::default();
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
            // Every state file parses after every run (`status` exits as a run would).
            let status = p.run(&["status", "--json"]);
            assert_ne!(status.code, 2, "{}", status.stderr);
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
        // After publishing: typo fixes (updates in place, some answers lost), and now and then
        // a retract. Then runs until every key is settled again.
        for key in &keys {
            if rng.lock().unwrap().below(3) == 0 {
                let path = format!("content/{key}.md");
                p.file(
                    &path,
                    format!("{}\nEdit in round {round}.\n", p.read(&path)),
                );
                edits += 1;
                if rng.lock().unwrap().below(4) == 0 {
                    api.state
                        .lock()
                        .unwrap()
                        .put_faults
                        .push_back(Fault::CommitHang);
                }
            }
        }
        if rng.lock().unwrap().below(8) == 0 {
            let out = p.run(&["retract", &keys[0], "--yes"]);
            assert!(
                [0, 1, 75].contains(&out.code),
                "retract: {}{}",
                out.stdout,
                out.stderr
            );
        }
        for _ in 0..40 {
            // A run that exits 0 left nothing outstanding: an edit whose update failed (the
            // server down) leaves its line `done` with the old payload until a run sends it.
            let clean = p.run(&["run", &today]).code == 0;
            runs += 1;
            let lines = p.state_lines("blog");
            let settled = keys.iter().all(|key| {
                lines.iter().any(|l| {
                    l.starts_with(key.as_str())
                        && (l.contains(" done ") || l.contains(" retracted "))
                })
            });
            if settled && clean {
                break;
            }
        }
        for key in &keys {
            let line = p
                .state_lines("blog")
                .into_iter()
                .find(|l| l.starts_with(key.as_str()))
                .unwrap();
            if line.contains(" retracted ") {
                retracted.insert(key.clone());
            }
            let live: Vec<_> = api
                .committed()
                .into_iter()
                .filter(|c| &c.key == key)
                .collect();
            if retracted.contains(key) {
                // A retracted key has no live copy, and nothing republished it.
                stale_copies += live.len();
                continue;
            }
            // The copy says what the file says now: no edit was lost or left stale.
            let text = p.read(&format!("content/{key}.md"));
            let body = text.split_once('\n').map_or("", |(_, rest)| rest).trim();
            if live
                .iter()
                .any(|c| c.body["markdown"].as_str().unwrap_or("").trim() != body)
            {
                stale_copies += 1;
            }
        }
        for key in &keys {
            let removed = api.removed().iter().filter(|c| &c.key == key).count();
            let commits = api.commits_of(key) + removed;
            duplicates += commits.saturating_sub(1);
            if retracted.contains(key) {
                continue;
            }
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
    let updated = p.read("state/blog.log").matches(" update done ").count();
    println!(
        "drill: seed={seed} rounds={rounds} keys={} runs={runs} human_retries={retries} server_downs={downs} edits={edits} updated={updated} retracted={} duplicates={duplicates} lost={lost} leaked_pending={leaked_pending} stale_copies={stale_copies} confirmed={confirmed}",
        rounds as i64 * KEYS_PER_ROUND,
        retracted.len()
    );
    assert_eq!(final_lines.len() as i64, rounds as i64 * KEYS_PER_ROUND);
    assert_eq!(
        (duplicates, lost, leaked_pending, stale_copies),
        (0, 0, 0, 0)
    );
    assert!(
        edits > 0 && updated > 0 && !retracted.is_empty(),
        "the drill never edited or retracted"
    );
    assert!(confirmed > 0, "the drill never exercised confirmation");
}

/// How a round lets dayrun look posts up: the ways a real list proves (or cannot prove) absence.
#[derive(Debug, Clone, Copy)]
enum Lookup {
    /// `list_url` with `{key}`: an exact query.
    Exact,
    /// A plain list the user declares complete.
    Complete,
    /// A plain list cut to the newest two items, each with a creation time.
    CutShortWithTimes,
    /// A plain list cut to the newest two, nothing else: it can never prove absence.
    CutShortBlind,
}

/// The drill against lists as real servers keep them: lagging, cut short, titles that recur
/// ("Weekly notes"), posts edited between attempts, and dayrun stopped by SIGINT or SIGKILL in
/// the middle of a send. Keys dayrun cannot tell about go to a simulated human, who looks at the
/// server and answers with `mark KEY done --id` or `retry KEY --absent`, as the advice says.
#[test]
fn drill_lagging_and_short_lists_edits_and_signals() {
    let rounds = env_number("DAYRUN_DRILL_ROUNDS", 200) / 4;
    let seed = env_number("DAYRUN_DRILL_SEED", 20261129);
    let rng = Arc::new(Mutex::new(Rng::new(seed ^ 0x5eed)));
    let api = PostsApi::start();
    {
        let mut state = api.state.lock().unwrap();
        state.hang = Duration::from_millis(250);
        state.created_at = true;
        let r = rng.clone();
        state.chooser = Some(Box::new(move || {
            let mut r = r.lock().unwrap();
            match r.below(10) {
                0 => Fault::Hang,
                _ => fault(&mut r),
            }
        }));
    }
    let p = Project::new();
    let list = api.server.url("/posts");
    let start: jiff::civil::Date = "2021-01-01".parse().unwrap();
    let mut count = Counts::default();
    for round in 0..rounds as i64 {
        let mode = match rng.lock().unwrap().below(4) {
            0 => Lookup::Exact,
            1 => Lookup::Complete,
            2 => Lookup::CutShortWithTimes,
            _ => Lookup::CutShortBlind,
        };
        let lag_ms = rng.lock().unwrap().below(3) * 150;
        {
            let mut state = api.state.lock().unwrap();
            state.lag = Duration::from_millis(lag_ms);
            state.newest = match mode {
                Lookup::CutShortWithTimes | Lookup::CutShortBlind => Some(2),
                _ => None,
            };
        }
        let (list_url, extra) = match mode {
            Lookup::Exact => (format!("{list}?key={{key}}"), ""),
            Lookup::Complete => (list.clone(), "list_complete = true"),
            Lookup::CutShortWithTimes => (list.clone(), "created_pointer = \"/created_at\""),
            Lookup::CutShortBlind => (list.clone(), ""),
        };
        let match_by = ["key", "fingerprint"][rng.lock().unwrap().below(2) as usize];
        // A folder beside the server, published in batches (`--backfill`), stopped by the
        // same signals.
        p.file(
            "dayrun.toml",
            "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n".to_string()
                + &api
                    .config(
                        "blog",
                        &format!("match_by = \"{match_by}\"\nsettle_secs = 0.6\n{extra}"),
                    )
                    .replace(
                        &format!("list_url = \"{list}\""),
                        &format!("list_url = \"{list_url}\""),
                    )
                    .replace("timeout_secs = 0.3", "timeout_secs = 0.15")
                    .replace("backoff_secs = 0.01", "backoff_secs = 0.005"),
        );
        let keys: Vec<String> = (0..KEYS_PER_ROUND)
            .map(|i| (start + jiff::Span::new().days(round * KEYS_PER_ROUND + i)).to_string())
            .collect();
        for key in &keys {
            p.file(
                &format!("content/{key}.md"),
                format!("# Weekly notes\n\nNotes of {key}.\n"),
            );
        }
        let today = format!("--today={}", keys.last().unwrap());
        for attempt in 1.. {
            assert!(
                attempt <= 40,
                "round {round} ({mode:?}, seed {seed}) did not converge:\n{:#?}",
                p.state_lines("blog")
            );
            count.runs += 1;
            let code = run_maybe_stopped(&p, &["run", "--backfill", &today], &rng, &mut count);
            assert!(
                [0, 1, 75, 130].contains(&code) || code < 0,
                "round {round}: exit {code}"
            );
            if rng.lock().unwrap().below(4) == 0 {
                // A typo fix between runs: lookups must compare what was sent, not this.
                let key = &keys[rng.lock().unwrap().below(keys.len() as u64) as usize];
                let path = format!("content/{key}.md");
                p.file(&path, format!("{}typo fixed.\n", p.read(&path)));
                count.edits += 1;
            }
            let lines = p.state_lines("blog");
            let outbox = p.state_lines("outbox");
            let mut all_done = keys.iter().all(|key| {
                outbox
                    .iter()
                    .any(|l| l.starts_with(key.as_str()) && l.contains(" done "))
            });
            for key in &keys {
                let line = lines.iter().find(|l| l.starts_with(key.as_str()));
                match line {
                    Some(l) if l.contains(" done ") => {}
                    Some(l) if l.contains("class=unknown") && !l.contains("lookup=absent") => {
                        // Cannot tell: the human looks at the server, then says what it saw.
                        count.cannot_tell += 1;
                        let found = api.committed().into_iter().find(|c| &c.key == key);
                        let out = match found {
                            Some(post) => {
                                p.run(&["mark", key, "done", "--id", &post.id, "--target", "blog"])
                            }
                            None => p.run(&["retry", key, "--absent", "--target", "blog"]),
                        };
                        assert!([0, 1, 75].contains(&out.code), "{}", out.stderr);
                        all_done = false;
                    }
                    _ => all_done = false,
                }
            }
            if all_done {
                break;
            }
            // Let lagging lists catch up, as the next morning would.
            std::thread::sleep(Duration::from_millis(lag_ms));
        }
        // The folder: each key published once (one `publish done` in its trace; a kill after
        // the files is confirmed, not written again), and its files there.
        let trace = p.read("state/outbox.log");
        for key in &keys {
            let published = trace.matches(&format!(" {key} publish done ")).count();
            count.duplicates += published.saturating_sub(1);
            if !p.exists(&format!("outbox/{key}.json")) || !p.exists(&format!("outbox/{key}.html"))
            {
                count.lost += 1;
            }
        }
        for key in &keys {
            count.duplicates += api.commits_of(key).saturating_sub(1);
            let line = p
                .state_lines("blog")
                .into_iter()
                .find(|l| l.starts_with(key.as_str()))
                .unwrap();
            let committed = api.committed().into_iter().find(|c| &c.key == key);
            match committed {
                Some(c) if line.contains(&format!(" id={} ", c.id)) => {}
                _ => count.lost += 1,
            }
        }
    }
    let leaked_pending = ["blog", "outbox"]
        .iter()
        .flat_map(|t| p.state_lines(t))
        .filter(|l| l.contains(" pending "))
        .count();
    let not_yet = p
        .read("state/blog.log")
        .matches(" confirm not-yet ")
        .count();
    println!(
        "drill (lists): seed={seed} rounds={rounds} keys={} runs={} edits={} sigint={} sigkill={} not_yet={not_yet} cannot_tell={} duplicates={} lost={} leaked_pending={leaked_pending}",
        rounds as i64 * KEYS_PER_ROUND,
        count.runs,
        count.edits,
        count.sigint,
        count.sigkill,
        count.cannot_tell,
        count.duplicates,
        count.lost
    );
    assert_eq!((count.duplicates, count.lost, leaked_pending), (0, 0, 0));
    assert!(count.cannot_tell > 0, "the drill never reached a human");
    assert!(count.sigint > 0 && count.sigkill > 0, "no run was stopped");
}

#[derive(Default)]
struct Counts {
    runs: u64,
    edits: u64,
    sigint: u64,
    sigkill: u64,
    cannot_tell: u64,
    duplicates: usize,
    lost: usize,
}

/// Run dayrun; one run in six is stopped after a random moment by SIGINT or SIGKILL. Returns
/// the exit code (negative when killed by a signal).
fn run_maybe_stopped(p: &Project, args: &[&str], rng: &Mutex<Rng>, count: &mut Counts) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    let mut child = p
        .command(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stop = {
        let mut r = rng.lock().unwrap();
        (r.below(6) == 0).then(|| (r.below(2) == 0, Duration::from_millis(r.below(400))))
    };
    if let Some((interrupt, after)) = stop {
        std::thread::sleep(after);
        let signal = if interrupt { "-INT" } else { "-KILL" };
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if sent && interrupt {
            count.sigint += 1;
        } else if sent {
            count.sigkill += 1;
        }
    }
    let status = child.wait().unwrap();
    status
        .code()
        .unwrap_or_else(|| -status.signal().unwrap_or(0))
}
