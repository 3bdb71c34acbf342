//! Issue 13's merge driver, `dayrun merge-state %O %A %B %P`: the real binary on random
//! divergent pairs against a reference merge written from the contract, the two-copies
//! conflict, comments, the format marker, traces, and a real `git merge` that uses it.

use crate::support::git::{self, must};
use crate::support::util::{Output, Project, bare, env_number};
use proptest::prelude::*;
use std::path::Path;

mod generate;
mod reference;

/// Run the driver as git does: `dayrun merge-state BASE OURS THEIRS [PATH]`, in `dir`.
fn merge_state(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["merge-state"];
    all.extend_from_slice(args);
    bare(dir, &all)
}

/// Merge with `a` as ours, in `p` (files O, A, B under `m/`, absolute paths; PATH left out
/// when empty): the exit and the merged text.
fn merge_into(p: &Project, o: &str, a: &str, b: &str, path: &str) -> (Output, String) {
    let dir = p.path("m");
    let _ = std::fs::remove_dir_all(&dir);
    p.file("m/O", o).file("m/A", a).file("m/B", b);
    let (fo, fa, fb) = (dir.join("O"), dir.join("A"), dir.join("B"));
    let mut args: Vec<&str> = [&fo, &fa, &fb].map(|f| f.to_str().unwrap()).to_vec();
    if !path.is_empty() {
        args.push(path);
    }
    let out = merge_state(&p.root, &args);
    (out, p.read("m/A"))
}

/// A project whose only target is `x`, a folder (enough for `dayrun status` to read
/// `state/x.state`).
fn status_project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.x]\nkind = \"folder\"\ndir = \"out\"\n",
    );
    p
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: env_number("DAYRUN_MERGE_CASES", 64) as u32,
        max_shrink_iters: 300,
        // A failure prints its minimal O, A and B; no regressions file in the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_divergent_pairs_merge_the_same_either_way_lose_no_key_and_match_the_reference(
        (o, a, b) in generate::divergent()
    ) {
        let p = status_project();
        let (ab, one) = merge_into(&p, &o, &a, &b, "state/x.state");
        let (ba, two) = merge_into(&p, &o, &b, &a, "state/x.state");
        let shown = format!("--- O\n{o}--- A\n{a}--- B\n{b}--- A as ours\n{one}--- B as ours\n{two}--- stderr\n{}", ab.stderr);
        prop_assert_eq!(&one, &two, "the merge depends on which side is ours\n{}", shown);
        let (want, conflicts) = reference::merge(&o, &a, &b);
        prop_assert_eq!(reference::canonical(&one), reference::canonical(&want), "the merge is not the reference merge\n{}", shown);
        let lost: Vec<String> = reference::keys(&a).union(&reference::keys(&b))
            .filter(|k| !reference::keys(&one).contains(*k)).cloned().collect();
        prop_assert!(lost.is_empty(), "keys lost: {:?}\n{}", lost, shown);
        let code = if conflicts.is_empty() { 0 } else { 1 };
        prop_assert_eq!((ab.code, ba.code), (code, code), "exit codes\n{}", shown);
        for (key, [x, y]) in &conflicts {
            for err in [&ab.stderr, &ba.stderr] {
                // One line names the key and both ids, each as a word of its own.
                let named = err.lines().any(|l| {
                    let words: Vec<&str> = l.split(|c: char| !c.is_ascii_alphanumeric() && c != '-').collect();
                    [key, x, y].iter().all(|w| words.contains(&w.as_str()))
                });
                prop_assert!(named, "stderr must name {} and ids {} and {}\n{}", key, x, y, shown);
            }
        }
        // What the driver wrote is a state file dayrun reads.
        p.file("state/x.state", &one);
        let status = p.run(&["status", "--json", "--today=2026-11-30"]);
        // (`status` exits as a run would: 1 or 75 for keys that wait, but never 2.)
        prop_assert!(status.code != 2, "status refused the merge\n{}\n{}", status.stderr, shown);
        let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
        let listed = json["targets"][0]["keys"].as_array().unwrap().iter()
            .filter(|k| k["at"].is_string()).count();
        prop_assert_eq!(listed, reference::keys(&one).len(), "{}\n{}", status.stdout, shown);
    }
}

#[test]
fn two_done_ids_for_one_key_exit_1_name_both_and_keep_the_other_as_copies() {
    let p = Project::new();
    let o = "# dayrun state format 3\n2026-11-28 done 2026-11-28T07:00:00+01:00 id=4790\n";
    let a = format!("{o}2026-11-29 done 2026-11-29T07:00:02+01:00 id=4812 fp=aa\n");
    let b = format!("{o}2026-11-29 done 2026-11-29T07:00:09+01:00 id=4813 fp=aa dedup=1\n");
    let winner = "2026-11-29 done 2026-11-29T07:00:09+01:00 id=4813 copies=4812 fp=aa dedup=1";
    for (ours, theirs) in [(&a, &b), (&b, &a)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/blog.state");
        out.code(1)
            .stderr_has("state/blog.state")
            .stderr_has("2026-11-29")
            .stderr_has("4812")
            .stderr_has("4813");
        assert_eq!(merged, format!("{o}{winner}\n"));
    }
    // The same copy seen twice (a lost state's dedup found the first run's post) is no conflict.
    let same = format!("{o}2026-11-29 done 2026-11-29T07:00:30+01:00 id=4812 dedup=1\n");
    let (out, merged) = merge_into(&p, o, &a, &same, "state/blog.state");
    out.code(0);
    assert!(merged.ends_with("id=4812 dedup=1\n"), "{merged}");
}

#[test]
fn comments_survive_from_both_sides() {
    let p = Project::new();
    let o = "# dayrun state format 3\n# published by hand\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n# end\n";
    let a = "# dayrun state format 3\n# published by hand\n# A: checked\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n# end\n";
    let b = "# dayrun state format 3\n# published by hand, long ago\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n# end\n# B was here\n";
    let want = "# dayrun state format 3\n# A: checked\n# published by hand, long ago\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n2026-11-29 done 2026-11-29T07:00:00Z id=2\n# end\n# B was here\n";
    for (ours, theirs) in [(a, b), (b, a)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/blog.state");
        out.code(0);
        assert_eq!(merged, want);
    }
}

#[test]
fn a_side_of_a_newer_format_is_refused_and_ours_is_left_alone() {
    let p = Project::new();
    let o = "# dayrun state format 3\n2026-11-28 done 2026-11-28T07:00:00Z id=1\n";
    let newer = "# dayrun state format 4\n2026-11-28 done 2026-11-28T07:00:00Z id=1 shiny=yes\n";
    for (ours, theirs) in [(o, newer), (newer, o)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/blog.state");
        out.code(2)
            .stderr_has("newer dayrun")
            .stderr_has("state/blog.state");
        assert_eq!(
            merged, ours,
            "ours must not change when the merge is refused"
        );
    }
    let (out, _) = merge_into(&p, o, o, "2026-11-28 finished now\n", "state/blog.state");
    out.code(2).stderr_has("state/blog.state:1:");
}

#[test]
fn traces_merge_as_a_sorted_union_whichever_side_is_ours() {
    let p = Project::new();
    let o = "2026-11-28T07:00:00+01:00 2026-11-28 blog publish done id=1\n";
    let a = format!(
        "{o}2026-11-29T07:00:02+01:00 2026-11-29 blog publish done id=2\n2026-11-30T07:00:00+01:00 2026-11-30 blog publish done id=4\n"
    );
    let b = format!(
        "{o}2026-11-29T06:30:00Z 2026-11-29 blog dedup done id=2\n2026-11-29T06:00:01Z 2026-11-29 blog publish failed class=unknown\n"
    );
    let want = format!(
        "{o}2026-11-29T06:00:01Z 2026-11-29 blog publish failed class=unknown\n2026-11-29T07:00:02+01:00 2026-11-29 blog publish done id=2\n2026-11-29T06:30:00Z 2026-11-29 blog dedup done id=2\n2026-11-30T07:00:00+01:00 2026-11-30 blog publish done id=4\n"
    );
    for path in ["state/blog.log", ""] {
        for (ours, theirs) in [(&a, &b), (&b, &a)] {
            let (out, merged) = merge_into(&p, o, ours, theirs, path);
            out.code(0);
            assert_eq!(merged, want, "PATH {path:?}");
        }
    }
}

/// A repo with the README's setup and one key, then two branches that each add a key to the
/// state file and a line to the trace; `git merge` with `driver`.
fn two_branches_merge(driver: &str) -> (Project, git::Git) {
    let p = Project::new();
    let dir = &p.root;
    git::init(dir);
    git::use_driver(dir, driver);
    p.file(".gitattributes", git::ATTRIBUTES)
        .file(".gitignore", git::IGNORE)
        .file(
            "state/blog.state",
            "# dayrun state format 3\n2026-11-28 done 2026-11-28T07:00:00+01:00 id=1\n",
        )
        .file(
            "state/blog.log",
            "2026-11-28T07:00:00+01:00 2026-11-28 blog publish done id=1\n",
        );
    must(dir, &["add", "-A"]);
    must(dir, &["commit", "-qm", "base"]);
    must(dir, &["checkout", "-qb", "b"]);
    let add = |key: &str, id: &str, time: &str| {
        let state = format!("{}{key} done {time} id={id}\n", p.read("state/blog.state"));
        let log = format!(
            "{}{time} {key} blog publish done id={id}\n",
            p.read("state/blog.log")
        );
        p.file("state/blog.state", state)
            .file("state/blog.log", log);
        must(dir, &["commit", "-qam", key]);
    };
    add("2026-11-30", "3", "2026-11-30T07:00:00+01:00");
    must(dir, &["checkout", "-q", "main"]);
    add("2026-11-29", "2", "2026-11-29T07:00:00+01:00");
    let merge = git::git(dir, &["merge", "--no-edit", "b"]);
    (p, merge)
}

#[test]
fn git_merge_with_the_driver_takes_both_keys_without_a_conflict() {
    let (p, merge) = two_branches_merge(&git::documented_driver());
    assert!(merge.ok, "git merge: {}", merge.text());
    assert!(!merge.text().contains("CONFLICT"), "{}", merge.text());
    assert_eq!(
        p.read("state/blog.state"),
        "# dayrun state format 3\n2026-11-28 done 2026-11-28T07:00:00+01:00 id=1\n2026-11-29 done 2026-11-29T07:00:00+01:00 id=2\n2026-11-30 done 2026-11-30T07:00:00+01:00 id=3\n"
    );
    let log = p.read("state/blog.log");
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(
        log.lines().nth(1).unwrap().contains("2026-11-29 blog"),
        "{log}"
    );
    assert!(must(&p.root, &["status", "--porcelain"]).is_empty());
}

#[test]
fn every_part_of_both_sides_threads_survives_the_merge() {
    // Issue 28 row 7: the loser's `parts=` were dropped, and the replies it had sent with them.
    let p = status_project();
    let o = "# dayrun state format 3\n2026-11-27 pending 2026-11-27T07:00:00Z id=s1 parts=s1,s2 attempt=1\n2026-11-28 done 2026-11-28T07:00:00Z id=t1 parts=t1,t2\n";
    // The 27th: one side sent part 3, the other wrote a later line without it. The 28th: one
    // side published the thread again as a new copy (`retry --force --new`).
    let a = "# dayrun state format 3\n2026-11-27 pending 2026-11-27T09:00:00Z id=s1 parts=s1,s2 attempt=2\n2026-11-28 done 2026-11-28T07:00:00Z id=t1 parts=t1,t2,t3\n";
    let b = "# dayrun state format 3\n2026-11-27 pending 2026-11-27T08:00:00Z id=s1 parts=s1,s2,s3 attempt=1\n2026-11-28 done 2026-11-28T08:00:00Z id=n1 generation=1 parts=n1,n2\n";
    let want = "# dayrun state format 3\n2026-11-27 pending 2026-11-27T09:00:00Z id=s1 parts=s1,s2,s3 attempt=2 sent=maybe since=2026-11-27T08:00:00Z\n2026-11-28 done 2026-11-28T08:00:00Z id=n1 older=t1,t2,t3 generation=1 parts=n1,n2\n";
    for (ours, theirs) in [(a, b), (b, a)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/x.state");
        out.code(0);
        assert_eq!(merged, want);
    }
    // Two runners each sent a part 2: both stay, the other as a duplicate, and the driver says.
    let o = "# dayrun state format 3\n2026-11-29 done 2026-11-29T06:00:00Z id=u1 parts=u1\n";
    let a = "# dayrun state format 3\n2026-11-29 done 2026-11-29T07:05:00Z id=u1 parts=u1,u2\n";
    let b = "# dayrun state format 3\n2026-11-29 done 2026-11-29T07:00:00Z id=u1 parts=u1,v2,v3\n";
    let want = "# dayrun state format 3\n2026-11-29 done 2026-11-29T07:05:00Z id=u1 copies=v2,v3 parts=u1,u2\n";
    for (ours, theirs) in [(a, b), (b, a)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/x.state");
        out.code(1)
            .stderr_has("state/x.state: 2026-11-29 holds two copies: ids u2 and v2");
        assert_eq!(merged, want);
    }
    // What the driver wrote is a state file dayrun reads, every id of it live.
    p.file("state/x.state", want);
    let status = p.run(&["status", "--json", "--today=2026-11-30"]);
    assert_ne!(status.code, 2, "{}", status.stderr);
}

#[test]
fn a_merged_line_longer_than_a_state_line_may_be_exits_1_and_says_so() {
    // No id is dropped to make room, so two long lines can merge into one dayrun would refuse
    // to read: the driver must not pass that off as a clean merge.
    let p = status_project();
    let ids = |side: &str| {
        (0..40)
            .map(|n| format!("{side}{n:02}-{}", "x".repeat(1000)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let o = "# dayrun state format 3\n2026-11-29 done 2026-11-29T07:00:00Z id=1\n";
    let a = format!(
        "# dayrun state format 3\n2026-11-29 done 2026-11-29T07:00:00Z id=1 older={}\n",
        ids("a")
    );
    let b = format!(
        "# dayrun state format 3\n2026-11-29 done 2026-11-29T08:00:00Z id=1 older={}\n",
        ids("b")
    );
    for (ours, theirs) in [(&a, &b), (&b, &a)] {
        let (out, merged) = merge_into(&p, o, ours, theirs, "state/x.state");
        out.code(1)
            .stderr_has("state/x.state: 2026-11-29")
            .stderr_has("over the 64 KiB");
        // Every id of both sides is still there.
        for side in ["a", "b"] {
            for n in 0..40 {
                assert!(merged.contains(&format!("{side}{n:02}-")), "{side}{n:02}");
            }
        }
        // What the message says: dayrun refuses the file as it is.
        p.file("state/x.state", &merged);
        let status = p.run(&["status", "--today=2026-11-30"]);
        assert_eq!(status.code, 2, "{}", status.stderr);
        assert!(status.stderr.contains("over 64 KiB"), "{}", status.stderr);
    }
}
