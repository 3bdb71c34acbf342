//! Proof under crashes: SIGKILL at random instants, concurrent runs, and a state folder that is
//! read-only or full. `DAYRUN_CRASH_KILLS` sets the number of kills (CI: 30; long: 300).

use crate::fakes::fake_posts::PostsApi;
use crate::support::util::{Project, Rng, env_number};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

const KEYS: i64 = 40;

fn keys() -> Vec<String> {
    let start: jiff::civil::Date = "2026-01-01".parse().unwrap();
    (0..KEYS)
        .map(|i| (start + jiff::Span::new().days(i)).to_string())
        .collect()
}

/// The state as `status --json` reads it (state file and journal): key → (status, id, fp).
fn state(p: &Project, target: &str) -> BTreeMap<String, (String, String)> {
    let out = p.run(&["status", "--json", "--target", target]);
    // `status` exits as a run would (75 for a key left pending); never 2: the state reads.
    assert_ne!(out.code, 2, "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    doc["targets"][0]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["key"].as_str().unwrap().to_string(),
                (
                    k["status"].as_str().unwrap().to_string(),
                    k["id"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect()
}

/// Start a backfill, kill it at a random instant; returns whether it was killed mid-run.
fn run_and_kill(p: &Project, rng: &mut Rng) -> bool {
    let mut child = p
        .command(&["run", "--backfill"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_micros(rng.below(40_000)));
    let killed = child.try_wait().unwrap().is_none();
    child.kill().ok(); // SIGKILL
    child.wait().unwrap();
    killed
}

#[test]
fn sigkill_at_any_instant_loses_nothing_and_duplicates_nothing() {
    let kills = env_number("DAYRUN_CRASH_KILLS", 30);
    let seed = env_number("DAYRUN_CRASH_SEED", 7);
    let mut rng = Rng::new(seed);
    let api = PostsApi::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n{}",
            // The fake lists every post it holds: its list is complete, and it lags not at all.
            api.config("blog", "list_complete = true\nsettle_secs = 0")
        ),
    );
    for key in keys() {
        p.post(&key, &format!("Post {key}"));
    }
    // The inode of each folder file when first seen: a rewrite (a second publish) changes it.
    let mut inodes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut done_kills, mut duplicates, mut lost) = (0u64, 0usize, 0usize);
    while done_kills < kills {
        if run_and_kill(&p, &mut rng) {
            done_kills += 1;
        }
        let (dup, l, _) = check(&p, &api, &mut inodes);
        duplicates += dup;
        lost += l;
        if dup > 0 || l > 0 {
            break;
        }
        // Once everything is published, start over with fresh keys so kills keep landing mid-run.
        if state(&p, "outbox")
            .values()
            .chain(state(&p, "blog").values())
            .all(|(s, _)| s == "done")
        {
            std::fs::remove_dir_all(p.path("state")).unwrap();
            std::fs::remove_dir_all(p.path("outbox")).unwrap();
            api.state.lock().unwrap().posts.clear();
            inodes.clear();
        }
    }
    p.run(&["run", "--backfill"]).code(0);
    let (dup, l, leaked_pending) = check(&p, &api, &mut inodes);
    assert!(
        state(&p, "outbox")
            .values()
            .chain(state(&p, "blog").values())
            .all(|(s, _)| s == "done")
    );
    duplicates += dup;
    lost += l;
    println!(
        "crash loop: seed={seed} kills={done_kills} duplicates={duplicates} lost={lost} leaked_pending={leaked_pending}"
    );
    assert_eq!((duplicates, lost, leaked_pending), (0, 0, 0));
}

/// After a kill: (keys published twice, keys done but not published, keys pending).
fn check(p: &Project, api: &PostsApi, inodes: &mut BTreeMap<String, u64>) -> (usize, usize, usize) {
    let (mut dup, mut lost, mut pending) = (0, 0, 0);
    for key in keys() {
        if let Ok(meta) = std::fs::metadata(p.path(&format!("outbox/{key}.json"))) {
            let first = *inodes.entry(key.clone()).or_insert(meta.ino());
            if first != meta.ino() {
                dup += 1;
            }
        }
        dup += api.commits_of(&key).saturating_sub(1);
    }
    let committed = api.committed();
    for (target, state) in [("outbox", state(p, "outbox")), ("blog", state(p, "blog"))] {
        for (key, (status, id)) in state {
            let published = match target {
                "outbox" => p.exists(&id),
                _ => committed.iter().any(|c| c.key == key && c.id == id),
            };
            match status.as_str() {
                "done" if !published => lost += 1,
                "pending" => pending += 1,
                _ => {}
            }
        }
    }
    (dup, lost, pending)
}

#[test]
fn concurrent_runs_let_exactly_one_proceed() {
    let p = Project::new();
    // Pacing makes each run last long enough for the others to meet its lock.
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\nmin_interval_secs = 0.02\n",
    );
    let start: jiff::civil::Date = "2026-01-01".parse().unwrap();
    for round in 0..8i64 {
        for i in 0..6 {
            let key = (start + jiff::Span::new().days(round * 6 + i)).to_string();
            p.post(&key, &format!("Post {key}"));
        }
        let children: Vec<_> = (0..4)
            .map(|_| {
                p.command(&["run", "--backfill"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let codes: Vec<i32> = outputs.iter().map(|o| o.status.code().unwrap()).collect();
        assert_eq!(
            codes.iter().filter(|c| **c == 0).count(),
            1,
            "round {round}: {codes:?}"
        );
        assert_eq!(
            codes.iter().filter(|c| **c == 75).count(),
            3,
            "round {round}: {codes:?}"
        );
        for out in outputs.iter().filter(|o| o.status.code() == Some(75)) {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("another dayrun run holds state/.lock (pid "),
                "{stderr}"
            );
            assert!(out.stdout.is_empty(), "a refused run printed decisions");
        }
        let log = p.read("state/outbox.log");
        assert_eq!(
            log.lines().count() as i64,
            (round + 1) * 6,
            "every key published exactly once:\n{log}"
        );
    }
}

/// Mount a small tmpfs at `dir` (root only); `None` when this machine does not allow it.
fn tmpfs(dir: &std::path::Path, options: &str) -> Option<Mounted> {
    std::fs::create_dir_all(dir).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs"])
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mounted(dir.to_path_buf()))
}

struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
#[ignore = "needs root (it mounts a tmpfs): cargo test -- --include-ignored as root (.ci/run does)"]
fn a_read_only_or_full_state_folder_stops_before_any_side_effect() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    let _ro = tmpfs(&p.path("state"), "ro,size=64k")
        .expect("this test mounts a tmpfs for the state folder: it needs root");
    p.run(&["run", "--today=2026-11-29"])
        .code(2)
        .stderr_has("state")
        .stderr_has("Read-only file system");
    assert!(
        !p.exists("outbox"),
        "published with a read-only state folder"
    );
    drop(_ro);

    let p = Project::new();
    p.post("2026-11-29", "Today")
        .post("2026-11-28", "Yesterday");
    let _full = tmpfs(&p.path("state"), "size=8k").expect("mounted above");
    // Fill the folder, leaving no block for the journal.
    let filler: Vec<u8> = vec![b'x'; 64 * 1024];
    let _ = std::fs::write(p.path("state/filler"), &filler);
    let out = p.run(&["run", "--today=2026-11-29"]);
    out.code(2).stderr_has("No space left on device");
    assert!(
        !p.exists("outbox/2026-11-28.html") && !p.exists("outbox/2026-11-29.html"),
        "{out:?}"
    );
    // Space again: the next run publishes both, once.
    std::fs::remove_file(p.path("state/filler")).unwrap();
    p.run(&["run", "--today=2026-11-29"])
        .code(0)
        .stdout_has("outbox: 2 published");
}

/// Kills aimed between a batch's pending lines and its files: the journal is watched, and the
/// run is killed as soon as its last line is a batch's pending line (pending lines synced,
/// files not yet in place). The next run must confirm or publish each key once.
#[test]
fn sigkill_between_a_batchs_pending_lines_and_its_files() {
    let kills = env_number("DAYRUN_CRASH_KILLS", 30);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n",
    );
    let start: jiff::civil::Date = "2025-01-01".parse().unwrap();
    let keys: Vec<String> = (0..200)
        .map(|i| (start + jiff::Span::new().days(i)).to_string())
        .collect();
    for key in &keys {
        p.post(key, &format!("Post {key}"));
    }
    let journal = p.path("state/outbox.journal");
    let mut inodes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut in_window, mut duplicates, mut lost, mut rounds) = (0u64, 0usize, 0usize, 0u64);
    while in_window < kills && rounds < kills * 20 {
        rounds += 1;
        let mut child = p
            .command(&["run", "--backfill"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait for a batch's pending lines to be the journal's tail, then kill at once.
        let started = std::time::Instant::now();
        let mut aimed = false;
        while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(20) {
            let text = std::fs::read_to_string(&journal).unwrap_or_default();
            let last = text.lines().last().unwrap_or("");
            if text.ends_with('\n') && last.contains(" pending ") {
                child.kill().ok();
                aimed = true;
                break;
            }
        }
        child.kill().ok();
        child.wait().unwrap();
        // Keys left pending whose files are not in place: the kill landed in the window.
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        let mut last_status: BTreeMap<&str, &str> = BTreeMap::new();
        for line in text.lines() {
            let mut words = line.split(' ');
            if let (Some(key), Some(status)) = (words.next(), words.next()) {
                last_status.insert(key, status);
            }
        }
        let waiting = last_status
            .iter()
            .filter(|(k, s)| **s == "pending" && !p.exists(&format!("outbox/{k}.json")))
            .count();
        if aimed && waiting > 0 {
            in_window += 1;
        }
        // The files of every key: a rewrite (a second publish) changes the JSON's inode.
        for key in &keys {
            if let Ok(meta) = std::fs::metadata(p.path(&format!("outbox/{key}.json")))
                && *inodes.entry(key.clone()).or_insert(meta.ino()) != meta.ino()
            {
                duplicates += 1;
            }
        }
        if state(&p, "outbox").values().all(|(s, _)| s == "done")
            && state(&p, "outbox").len() == keys.len()
        {
            std::fs::remove_dir_all(p.path("state")).unwrap();
            std::fs::remove_dir_all(p.path("outbox")).unwrap();
            inodes.clear();
        }
    }
    p.run(&["run", "--backfill"]).code(0);
    let state = state(&p, "outbox");
    for key in &keys {
        match state.get(key) {
            Some((s, id)) if s == "done" && p.exists(id) => {}
            _ => lost += 1,
        }
        let meta = std::fs::metadata(p.path(&format!("outbox/{key}.json"))).unwrap();
        if *inodes.entry(key.clone()).or_insert(meta.ino()) != meta.ino() {
            duplicates += 1;
        }
    }
    let leaked_pending = state.values().filter(|(s, _)| s == "pending").count();
    println!(
        "crash loop (batch window): kills_in_window={in_window} rounds={rounds} duplicates={duplicates} lost={lost} leaked_pending={leaked_pending}"
    );
    assert_eq!((duplicates, lost, leaked_pending), (0, 0, 0));
    assert!(
        in_window > 0,
        "no kill landed between a batch's pending lines and its files"
    );
}
