//! The GitHub workflow's commit-and-push step, run with real git against a bare repository.

use super::*;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null())
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

const BASE: &str = "# dayrun state format 3\n\
    2026-11-28 done 2026-11-28T07:00:03+01:00 id=4790 fp=9a1c\n";

/// A repository with the example's .gitattributes and a state file, a clone set up as the
/// workflow's steps set it up ("runner"), and one more clone ("other") that pushes first.
fn two_runners(p: &Project) -> (std::path::PathBuf, std::path::PathBuf) {
    let steps = github_steps(&document("examples/github-actions.yml"));
    let configure = steps
        .iter()
        .find(|s| run_of(s).contains("merge.dayrun.driver"))
        .unwrap();
    let origin = p.root.join("origin.git");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "-q", "--bare", "-b", "main"]);
    let seed = p.root.join("seed");
    git(&p.root, &["clone", "-q", "origin.git", "seed"]);
    let attributes = read("examples/README.md")
        .split("# .gitattributes\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("examples/README.md: the .gitattributes lines")
        .to_string();
    std::fs::write(seed.join(".gitattributes"), attributes).unwrap();
    std::fs::create_dir_all(seed.join("state")).unwrap();
    std::fs::write(seed.join("state/blog.state"), BASE).unwrap();
    std::fs::write(
        seed.join("state/blog.log"),
        "2026-11-28T07:00:03+01:00 2026-11-28 publish done id=4790\n",
    )
    .unwrap();
    let id = ["-c", "user.name=t", "-c", "user.email=t@example.com"];
    git(&seed, &["add", "-A"]);
    git(&seed, &[&id[..], &["commit", "-qm", "base"]].concat());
    git(&seed, &["push", "-q", "origin", "HEAD:main"]);
    for clone in ["runner", "other"] {
        git(&p.root, &["clone", "-q", "origin.git", clone]);
    }
    let (runner, other) = (p.root.join("runner"), p.root.join("other"));
    let (code, out) = bash(run_of(configure), &runner, &[]);
    assert_eq!(code, 0, "the configure step: {out}");
    git(&other, &["config", "user.name", "other"]);
    git(&other, &["config", "user.email", "other@example.com"]);
    (runner, other)
}

fn add_line(dir: &Path, file: &str, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(file))
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

fn commit_step(p: &Project, runner: &Path) -> (i32, String) {
    let steps = github_steps(&document("examples/github-actions.yml"));
    let step = steps
        .iter()
        .find(|s| run_of(s).contains("git commit"))
        .unwrap();
    let temp = p.root.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    bash(
        run_of(step),
        runner,
        &[
            ("BRANCH", "main"),
            ("RUN_ID", "7"),
            ("CODE", "0"),
            ("RUNNER_TEMP", temp.to_str().unwrap()),
        ],
    )
}

#[test]
fn the_github_commit_step_merges_a_concurrent_push_with_the_driver() {
    let p = Project::new();
    let (runner, other) = two_runners(&p);
    add_line(
        &other,
        "state/blog.state",
        "2026-11-30 done 2026-11-30T07:00:02+01:00 id=4801 fp=9a1e",
    );
    add_line(
        &other,
        "state/blog.log",
        "2026-11-30T07:00:02+01:00 2026-11-30 publish done id=4801",
    );
    git(&other, &["commit", "-qam", "other run"]);
    git(&other, &["push", "-q", "origin", "HEAD:main"]);

    add_line(
        &runner,
        "state/blog.state",
        "2026-11-29 done 2026-11-29T07:00:02+01:00 id=4800 fp=9a1d",
    );
    add_line(
        &runner,
        "state/blog.log",
        "2026-11-29T07:00:02+01:00 2026-11-29 publish done id=4800",
    );
    let (code, out) = commit_step(&p, &runner);
    assert_eq!(code, 0, "{out}");

    let origin = p.root.join("origin.git");
    let state = git(&origin, &["show", "main:state/blog.state"]);
    assert_eq!(
        state,
        format!(
            "{BASE}2026-11-29 done 2026-11-29T07:00:02+01:00 id=4800 fp=9a1d\n\
             2026-11-30 done 2026-11-30T07:00:02+01:00 id=4801 fp=9a1e\n"
        )
    );
    let log = git(&origin, &["show", "main:state/blog.log"]);
    assert_eq!(log.lines().count(), 3, "{log}");
    let parents = git(&origin, &["log", "-1", "--format=%P", "main"]);
    assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
}

#[test]
fn the_github_commit_step_pushes_two_copies_of_a_post_and_fails() {
    let p = Project::new();
    let (runner, other) = two_runners(&p);
    add_line(
        &other,
        "state/blog.state",
        "2026-11-29 done 2026-11-29T07:00:02+01:00 id=111 fp=9a1d",
    );
    git(&other, &["commit", "-qam", "other run"]);
    git(&other, &["push", "-q", "origin", "HEAD:main"]);
    add_line(
        &runner,
        "state/blog.state",
        "2026-11-29 done 2026-11-29T07:00:03+01:00 id=222 fp=9a1d",
    );

    let (code, out) = commit_step(&p, &runner);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("::error::a post exists twice"), "{out}");
    assert!(
        out.contains("ids 222 and 111") || out.contains("ids 111 and 222"),
        "{out}"
    );
    // Both facts reached the repository: one id on the line, the other in copies=.
    let state = git(
        &p.root.join("origin.git"),
        &["show", "main:state/blog.state"],
    );
    let line = state.lines().find(|l| l.starts_with("2026-11-29")).unwrap();
    assert!(
        line.contains("id=222") && line.contains("copies=111"),
        "{state}"
    );
}
