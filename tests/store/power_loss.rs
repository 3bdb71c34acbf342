//! Power loss, modelled: a SIGKILL keeps the page cache, so it cannot show a missing sync.
//! Here one backfill runs in this process with `dayrun::fsutil::model` recording every sync
//! (what each made durable, read from the real files at that moment). For every instant just
//! after a sync, the disk a power cut would leave is rebuilt in a fresh project: each file of
//! `state/` and `outbox/` as of its last sync (empty if its data never was), each folder's
//! names as of its last folder sync or `syncfs`. The real binary then runs over it, and:
//!
//! - no key is lost: every key ends done, with its files whole;
//! - no key is written twice: a key whose files were whole on the rebuilt disk keeps them
//!   (same inode: a rewrite renames a new file over it);
//! - nothing is left pending.
//!
//! A second disk per instant keeps the journal's unsynced tail too, with its first unsynced
//! line zeroed (a page a power cut did not write): the run must drop that tail, not refuse.
//!
//! What this covers: the order of syncs against renames and journal lines in `state/` and the
//! folder target, under the worst a file system may do (keep nothing unsynced), plus a
//! NUL-damaged journal tail. What it does not: network targets (their side effects are remote;
//! the drill covers them), reordering *within* what one sync covers, torn or corrupted synced
//! data, the folders' own creation (they exist before the run), and syncs dayrun does not make
//! through `fsutil` (there are none in these paths; the trace and lock are not modelled).

use crate::support::util::Project;
use dayrun::fsutil::model::Recorder;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// More than one batch (64 keys), and a last batch that is not full.
const KEYS: i64 = 70;

fn keys() -> Vec<String> {
    let start: jiff::civil::Date = "2026-01-01".parse().unwrap();
    (0..KEYS)
        .map(|i| (start + jiff::Span::new().days(i)).to_string())
        .collect()
}

fn project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "timezone = \"UTC\"\n[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n",
    );
    for key in keys() {
        p.post(&key, &format!("Post {key}"));
    }
    std::fs::create_dir_all(p.path("state")).unwrap();
    std::fs::create_dir_all(p.path("outbox")).unwrap();
    p
}

/// The files of a key that the original run wrote, as they ended.
fn finals(p: &Project) -> BTreeMap<String, (Vec<u8>, Vec<u8>)> {
    keys()
        .into_iter()
        .map(|k| {
            let read = |ext: &str| std::fs::read(p.path(&format!("outbox/{k}.{ext}"))).unwrap();
            let files = (read("html"), read("json"));
            (k, files)
        })
        .collect()
}

/// Whether the key's files on `p` are whole (the bytes the original run wrote).
fn whole(p: &Project, key: &str, finals: &BTreeMap<String, (Vec<u8>, Vec<u8>)>) -> bool {
    let (html, json) = &finals[key];
    std::fs::read(p.path(&format!("outbox/{key}.html")))
        .ok()
        .as_ref()
        == Some(html)
        && std::fs::read(p.path(&format!("outbox/{key}.json")))
            .ok()
            .as_ref()
            == Some(json)
}

/// Whether the key's files on `p` are a whole publish of the post: the page as the original
/// run wrote it, and a JSON with the post's fingerprint (its time may differ after a rewrite).
fn intact(p: &Project, key: &str, finals: &BTreeMap<String, (Vec<u8>, Vec<u8>)>) -> bool {
    let fingerprint = |bytes: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(bytes)
            .ok()
            .and_then(|v| v["fingerprint"].as_str().map(str::to_string))
    };
    let (html, json) = &finals[key];
    let read = |ext: &str| std::fs::read(p.path(&format!("outbox/{key}.{ext}"))).ok();
    read("html").as_ref() == Some(html)
        && read("json")
            .and_then(|j| fingerprint(&j))
            .is_some_and(|f| Some(f) == fingerprint(json))
}

fn ino(p: &Project, rel: &str) -> Option<u64> {
    std::fs::metadata(p.path(rel)).ok().map(|m| m.ino())
}

/// Run dayrun over a rebuilt disk; returns (lost, duplicates, pending) and the run's stderr.
fn recover(
    disk: &BTreeMap<std::path::PathBuf, Vec<u8>>,
    source: &Project,
    finals: &BTreeMap<String, (Vec<u8>, Vec<u8>)>,
) -> (Vec<String>, Vec<String>, usize, String) {
    let q = Project::new();
    q.file("dayrun.toml", source.read("dayrun.toml"));
    for key in keys() {
        q.file(
            &format!("content/{key}.md"),
            source.read(&format!("content/{key}.md")),
        );
    }
    std::fs::create_dir_all(q.path("state")).unwrap();
    std::fs::create_dir_all(q.path("outbox")).unwrap();
    for (path, bytes) in disk {
        q.file(&path.to_string_lossy(), bytes);
    }
    let before: BTreeMap<String, u64> = keys()
        .into_iter()
        .filter(|k| whole(&q, k, finals))
        .map(|k| {
            let i = ino(&q, &format!("outbox/{k}.json")).unwrap();
            (k, i)
        })
        .collect();
    let out = q.run(&["run", "--backfill"]);
    assert!(
        out.code == 0,
        "the run after a power cut failed:\n{}{}",
        out.stdout,
        out.stderr
    );
    let statuses = q.statuses("outbox");
    let mut lost = Vec::new();
    for key in keys() {
        let done = statuses.contains(&format!("{key} done"));
        if !done || !intact(&q, &key, finals) {
            lost.push(key);
        }
    }
    let duplicates = before
        .iter()
        .filter(|(k, i)| ino(&q, &format!("outbox/{k}.json")) != Some(**i))
        .map(|(k, _)| k.clone())
        .collect();
    let pending = statuses.iter().filter(|s| s.ends_with(" pending")).count();
    (lost, duplicates, pending, out.stderr)
}

#[test]
fn a_power_cut_after_any_sync_loses_nothing_and_writes_nothing_twice() {
    let p = project();
    let root = p.path("");
    Recorder::start(&root, &["state", "outbox"]);
    let argv: Vec<String> = ["dayrun", "-C", &root.to_string_lossy(), "run", "--backfill"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let code = dayrun::run(dayrun::cli::parse(&argv).expect("valid arguments"));
    let record = Recorder::stop();
    assert_eq!(code, 0);
    let finals = finals(&p);
    // The batches' syncs, not five per key: 2 batches of (journal, syncfs, folder), the
    // journal's creation, and the fold at the end (state file, folder, journal removed).
    let syncs = record.syncs.len();
    assert!(
        syncs < 20,
        "{syncs} syncs for {KEYS} keys: {:#?}",
        record.syncs.iter().map(|s| &s.what).collect::<Vec<_>>()
    );
    let journal = Path::new("state/outbox.journal");
    let (mut cuts, mut torn_tails) = (0, 0);
    for n in 0..=syncs {
        let disk = record.disk_at(n);
        let (lost, dup, pending, _) = recover(&disk, &p, &finals);
        let at = match n {
            0 => "before the first sync".to_string(),
            n => format!("after sync {n} ({})", record.syncs[n - 1].what),
        };
        assert_eq!(
            (lost.as_slice(), dup.as_slice(), pending),
            (&[][..], &[][..], 0),
            "power cut {at}: lost {lost:?}, written twice {dup:?}, pending {pending}"
        );
        cuts += 1;
        // The same cut, but the journal's unsynced tail partly written: its first line zeroed.
        let next = record.disk_at((n + 1).min(syncs));
        if let (Some(now), Some(later)) = (disk.get(journal), next.get(journal))
            && later.len() > now.len()
            && later.starts_with(now)
        {
            let mut damaged = later.clone();
            let end = damaged[now.len()..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(damaged.len(), |i| now.len() + i);
            damaged[now.len()..end].fill(0);
            let mut disk = disk.clone();
            disk.insert(journal.to_path_buf(), damaged);
            let (lost, dup, pending, stderr) = recover(&disk, &p, &finals);
            assert_eq!(
                (lost.as_slice(), dup.as_slice(), pending),
                (&[][..], &[][..], 0),
                "power cut {at}, journal tail with NULs: lost {lost:?}, written twice {dup:?}"
            );
            assert!(stderr.contains("dropped"), "{stderr}");
            torn_tails += 1;
        }
    }
    println!(
        "power loss model: keys={KEYS} syncs={syncs} cuts={cuts} torn_tails={torn_tails} duplicates=0 lost=0 leaked_pending=0"
    );
    assert!(torn_tails > 0, "no cut left an unsynced journal tail");
}
