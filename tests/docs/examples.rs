//! The scheduler examples in examples/: they parse as YAML, keep the promises their README
//! makes (one run at a time, state committed after a failed run, exit 75 a warning), and run
//! only commands the binary has and the README documents. Nothing here reaches a network: the
//! shell steps that can run locally (the exit-code mapping, the commit-and-push loop against a
//! bare repository) run here with the real binary and real git.

use crate::support::util::Project;
use gray_matter::Pod;
use gray_matter::engine::{Engine, YAML};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

mod commands;
use commands::invocations;
mod git;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every YAML document in the file (the engine itself reads only the first).
fn documents(rel: &str) -> Vec<Pod> {
    let text = read(rel);
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in text.lines().chain(std::iter::once("---")) {
        if line.trim_end() == "---" {
            if !current.trim().is_empty() {
                let doc = YAML::parse(&current).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
                assert!(
                    matches!(doc, Pod::Hash(_)),
                    "{rel}: a document is not a map"
                );
                docs.push(doc);
            }
            current.clear();
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    docs
}

fn document(rel: &str) -> Pod {
    let mut docs = documents(rel);
    assert_eq!(docs.len(), 1, "{rel}: one YAML document");
    docs.remove(0)
}

/// The value at a dotted path of map keys, e.g. `on.schedule`.
fn at<'a>(pod: &'a Pod, path: &str) -> Option<&'a Pod> {
    path.split('.').try_fold(pod, |pod, key| match pod {
        Pod::Hash(map) => map.get(key),
        _ => None,
    })
}

#[track_caller]
fn string<'a>(pod: &'a Pod, path: &str) -> &'a str {
    match at(pod, path) {
        Some(Pod::String(s)) => s,
        other => panic!("{path}: want a string, found {other:?}"),
    }
}

#[track_caller]
fn array<'a>(pod: &'a Pod, path: &str) -> &'a [Pod] {
    match at(pod, path) {
        Some(Pod::Array(items)) => items,
        other => panic!("{path}: want a list, found {other:?}"),
    }
}

fn text(pod: &Pod) -> Option<&str> {
    match pod {
        Pod::String(s) => Some(s),
        _ => None,
    }
}

/// The steps of the GitHub workflow's one job.
fn github_steps(workflow: &Pod) -> Vec<Pod> {
    let Some(Pod::Hash(jobs)) = at(workflow, "jobs") else {
        panic!("the workflow has no jobs");
    };
    assert_eq!(jobs.len(), 1, "one job");
    let job = jobs.values().next().unwrap();
    array(job, "steps").to_vec()
}

fn run_of(step: &Pod) -> &str {
    at(step, "run").and_then(text).unwrap_or("")
}

fn if_of(step: &Pod) -> &str {
    at(step, "if").and_then(text).unwrap_or("")
}

#[test]
fn the_github_workflow_runs_daily_alone_and_always_commits_the_state() {
    let workflow = document("examples/github-actions.yml");
    let cron = array(&workflow, "on.schedule")
        .iter()
        .filter_map(|s| at(s, "cron").and_then(text))
        .collect::<Vec<_>>();
    assert_eq!(cron.len(), 1, "one daily schedule: {cron:?}");
    assert_eq!(cron[0].split_whitespace().count(), 5, "{cron:?}");
    assert!(at(&workflow, "on.workflow_dispatch").is_some());
    assert_eq!(string(&workflow, "concurrency.group"), "dayrun");
    assert!(
        matches!(
            at(&workflow, "concurrency.cancel-in-progress"),
            Some(Pod::Boolean(false))
        ),
        "a running dayrun is never cancelled by the next one"
    );
    assert_eq!(string(&workflow, "permissions.contents"), "write");

    let steps = github_steps(&workflow);
    let position = |what: &str, found: &dyn Fn(&Pod) -> bool| {
        steps
            .iter()
            .position(found)
            .unwrap_or_else(|| panic!("no step {what}"))
    };
    let checkout = position("checks out", &|s| {
        at(s, "uses")
            .and_then(text)
            .is_some_and(|u| u.starts_with("actions/checkout@"))
    });
    let driver = position("configures the merge driver", &|s| {
        run_of(s).contains(r#"git config merge.dayrun.driver "dayrun merge-state %O %A %B %P""#)
    });
    let secrets = position("writes the secrets to files", &|s| {
        run_of(s).contains("umask 077") && run_of(s).contains("> secrets/")
    });
    let run = position("runs `dayrun run`", &|s| {
        invocations(run_of(s)).contains(&"run".to_string())
    });
    let commit = position("commits the state", &|s| {
        run_of(s).contains("git commit") && run_of(s).contains("state/*.state")
    });
    let exit = steps.len() - 1;
    assert!(checkout < driver && driver < run && secrets < run && run < commit && commit < exit);

    // The run's code is kept, not turned into an early stop before the commit.
    assert!(run_of(&steps[run]).contains("dayrun run || code=$?"));
    let id = string(&steps[run], "id");
    assert!(run_of(&steps[exit]).contains("75"));
    assert!(
        string(&steps[exit], "env.CODE").contains(&format!("steps.{id}.outputs.code")),
        "the exit-code step reads the run step's code"
    );
    // The state is committed, and the code mapped, whatever happened before.
    for step in [commit, exit] {
        assert_eq!(if_of(&steps[step]), "always()", "{:?}", steps[step]);
    }
    let save = run_of(&steps[commit]);
    assert!(save.contains("state/*.log"));
    assert!(
        save.contains("git pull -q --no-rebase"),
        "a merge, so the driver runs"
    );
    assert!(save.contains("for try in 1 2 3"));
    // A secret reaches a script as a variable, never pasted into its text.
    for step in &steps {
        assert!(!run_of(step).contains("${{ secrets."), "{step:?}");
    }
}

/// Run a workflow step's script as GitHub does (`shell: bash`).
fn bash(script: &str, dir: &Path, env: &[(&str, &str)]) -> (i32, String) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("dayrun-step-{}-{n}.sh", std::process::id()));
    std::fs::write(&path, script).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_dayrun")).parent().unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&path)
        .current_dir(dir)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    std::fs::remove_file(&path).unwrap();
    let both = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), both)
}

#[test]
fn the_github_exit_code_step_warns_on_75_and_fails_on_1_2_3() {
    let steps = github_steps(&document("examples/github-actions.yml"));
    let script = run_of(steps.last().unwrap());
    let p = Project::new();
    for (code, want, says) in [
        ("0", 0, ""),
        ("75", 0, "::warning"),
        ("1", 1, "::error"),
        ("2", 1, "::error"),
        ("3", 1, "::error"),
        ("143", 1, "::error"),
        ("", 1, "::error::dayrun did not run"),
    ] {
        let (got, out) = bash(script, &p.root, &[("CODE", code)]);
        assert_eq!(got, want, "CODE={code:?}: {out}");
        assert!(out.contains(says), "CODE={code:?}: {out}");
    }
}

#[test]
fn the_gitlab_job_runs_from_a_schedule_one_at_a_time() {
    let ci = document("examples/gitlab-ci.yml");
    let job = at(&ci, "dayrun").expect("a job named dayrun");
    assert_eq!(string(job, "resource_group"), "dayrun");
    let rules = array(job, "rules");
    assert!(
        rules
            .iter()
            .any(|r| at(r, "if").and_then(text) == Some(r#"$CI_PIPELINE_SOURCE == "schedule""#)),
        "{rules:?}"
    );
    let allowed = array(job, "allow_failure.exit_codes");
    assert!(matches!(allowed, [Pod::Integer(75)]), "{allowed:?}");
    let script = array(job, "script")
        .iter()
        .filter_map(text)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(script.contains(r#"git config merge.dayrun.driver "dayrun merge-state %O %A %B %P""#));
    assert!(invocations(&script).contains(&"run".to_string()));
    assert!(
        script.contains("|| code=$?"),
        "the state is committed after a failed run"
    );
    assert!(script.contains("umask 077"));
    assert!(script.contains("DAYRUN_PUSH_TOKEN"));
    assert!(script.trim_end().ends_with(r#"exit "$code""#));
}

#[test]
fn the_kubernetes_cronjob_forbids_overlap_and_keeps_state_on_a_claim() {
    let docs = documents("examples/kubernetes-cronjob.yaml");
    let kind = |k: &str| {
        docs.iter()
            .find(|d| at(d, "kind").and_then(text) == Some(k))
            .unwrap_or_else(|| panic!("no {k}"))
    };
    let (claim, cron) = (kind("PersistentVolumeClaim"), kind("CronJob"));
    assert_eq!(string(cron, "spec.concurrencyPolicy"), "Forbid");
    assert!(string(cron, "spec.timeZone").contains('/'), "an IANA zone");
    assert!(matches!(
        at(cron, "spec.startingDeadlineSeconds"),
        Some(Pod::Integer(n)) if *n > 0
    ));
    assert!(matches!(
        at(cron, "spec.jobTemplate.spec.backoffLimit"),
        Some(Pod::Integer(0))
    ));
    let pod = at(cron, "spec.jobTemplate.spec.template.spec").unwrap();
    assert_eq!(string(pod, "restartPolicy"), "Never");
    let containers = array(pod, "containers");
    assert_eq!(containers.len(), 1);
    let command = array(&containers[0], "command")
        .iter()
        .filter_map(text)
        .collect::<Vec<_>>();
    assert_eq!(command, ["dayrun", "-C", "/data", "run"]);

    let mounts = array(&containers[0], "volumeMounts");
    let volume_at = |path: &str| {
        let name = mounts
            .iter()
            .find(|m| at(m, "mountPath").and_then(text) == Some(path))
            .map(|m| string(m, "name"))
            .unwrap_or_else(|| panic!("nothing mounted at {path}"));
        array(pod, "volumes")
            .iter()
            .find(|v| at(v, "name").and_then(text) == Some(name))
            .unwrap_or_else(|| panic!("no volume {name}"))
    };
    assert_eq!(
        string(volume_at("/data/state"), "persistentVolumeClaim.claimName"),
        string(claim, "metadata.name")
    );
    let modes = array(claim, "spec.accessModes");
    assert!(matches!(modes, [Pod::String(m)] if m == "ReadWriteOnce"));
    assert!(at(volume_at("/data/secrets"), "secret.secretName").is_some());
    // YAML 1.1 (Kubernetes) reads 0400 as octal; the engine here reads YAML 1.2: the text.
    assert!(read("examples/kubernetes-cronjob.yaml").contains("defaultMode: 0400"));
}
