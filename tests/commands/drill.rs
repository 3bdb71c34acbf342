//! Issue 37, `dayrun drill`: the field report's fault drill against every target's fake (0
//! duplicates, every copy removed), drills that must fail (a listing that lags past
//! `settle_secs`, a delete that keeps the post), the refusals, and drill keys kept apart from
//! real ones.

use crate::fakes::fake_posts::PostsApi;
use crate::support::util::{Output, Project};

mod fakes;
mod refusals;

/// `drill --target NAME --yes` with these further arguments.
pub fn drill(p: &Project, target: &str, more: &[&str]) -> Output {
    let mut args = vec!["drill", "--target", target, "--yes"];
    args.extend_from_slice(more);
    p.run(&args)
}

/// The drill's one line, parsed: `rounds=… duplicates=… …` as (name, number) pairs.
pub fn summary(out: &Output) -> Vec<(String, u64)> {
    let line = (out.stdout.lines())
        .rfind(|l| l.starts_with("rounds="))
        .unwrap_or_else(|| panic!("no summary line\n{}\n{}", out.stdout, out.stderr));
    line.split(' ')
        .map(|pair| {
            let (name, n) = pair.split_once('=').unwrap();
            (name.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// The summary's value of `name`.
pub fn count(out: &Output, name: &str) -> u64 {
    summary(out)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in the summary"))
        .1
}

/// An http target on the posts fake that can look up and delete, with short timeouts.
pub fn http_project(api: &PostsApi, extra: &str) -> Project {
    let p = Project::new();
    let config = api.config(
        "blog",
        &format!(
            "list_complete = true\nsettle_secs = 0.6\n{}\n{extra}",
            api.delete_url()
        ),
    );
    p.file("dayrun.toml", config);
    p
}

#[test]
fn drill_on_http_publishes_once_per_round_and_removes_every_copy() {
    let api = PostsApi::start();
    let p = http_project(&api, "");
    let out = drill(
        &p,
        "blog",
        &[
            "--rounds", "4", "--loss", "50%", "--seed", "7", "--delay", "0.5",
        ],
    );
    out.code(0);
    assert_eq!(
        summary(&out)
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        [
            "rounds",
            "duplicates",
            "confirm-branch",
            "lost",
            "leaked-pending",
            "removed"
        ]
    );
    assert_eq!((count(&out, "rounds"), count(&out, "duplicates")), (4, 0));
    assert_eq!((count(&out, "lost"), count(&out, "leaked-pending")), (0, 0));
    assert_eq!(count(&out, "removed"), 4);
    assert!(api.committed().is_empty(), "{:?}", api.committed());
    println!("{}", out.stdout);
}

/// A listing that shows a post only 1.5 s after it was made, and `settle_secs` far shorter: a
/// lost answer is looked for, not seen, and sent again. The drill must say so.
#[test]
fn a_drill_fails_when_the_listing_lags_past_settle_secs_and_names_the_copies() {
    let api = PostsApi::start();
    api.state.lock().unwrap().lag = std::time::Duration::from_millis(1500);
    let p = http_project(&api, "");
    let config = p
        .read("dayrun.toml")
        .replace("settle_secs = 0.6", "settle_secs = 0.1");
    p.file("dayrun.toml", config);
    let out = drill(
        &p,
        "blog",
        &[
            "--rounds", "4", "--loss", "50%", "--seed", "7", "--delay", "0.5",
        ],
    );
    println!("{}\n{}", out.stdout, out.stderr);
    out.code(1)
        .stdout_has("duplicate on blog: ")
        .stderr_has("did not prove exactly once");
    assert!(count(&out, "duplicates") >= 1, "{}", out.stdout);
    assert!(
        api.committed().is_empty(),
        "every copy removed: {:?}",
        api.committed()
    );
}

/// A server that answers a DELETE and keeps the post: the drill proves each copy gone, so it
/// finds it still there and names it, with where to remove it by hand.
#[test]
fn a_drill_fails_when_a_delete_is_answered_but_the_post_stays() {
    let api = PostsApi::start();
    api.state.lock().unwrap().keep_deleted = true;
    let p = http_project(&api, "");
    let out = drill(
        &p,
        "blog",
        &["--rounds", "2", "--loss", "0%", "--seed", "3"],
    );
    println!("{}\n{}", out.stdout, out.stderr);
    out.code(1)
        .stdout_has("left on blog: ")
        .stdout_has("the delete was answered, but the copy is still there; remove it by hand: a post with key ")
        .stdout_has("removed=0");
    assert_eq!(api.committed().len(), 2);
    let lines = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("left on blog: "))
        .count();
    assert_eq!(lines, 2, "one line per copy left:\n{}", out.stdout);
}

/// `--json`: the same counts as one document, with a trace object per round.
#[test]
fn json_says_the_same_as_one_document() {
    let api = PostsApi::start();
    let p = http_project(&api, "");
    let out = drill(
        &p,
        "blog",
        &["--rounds", "2", "--loss", "0%", "--seed", "5", "--json"],
    );
    out.code(0);
    let doc: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    for (name, want) in [
        ("rounds", 2),
        ("duplicates", 0),
        ("confirm_branch", 0),
        ("lost", 0),
        ("leaked_pending", 0),
        ("removed", 2),
        ("seed", 5),
    ] {
        assert_eq!(doc[name], want, "{name}: {doc}");
    }
    assert_eq!(doc["target"], "blog");
    let trace = doc["trace"].as_array().unwrap();
    assert_eq!(trace.len(), 2);
    let key = trace[0]["key"].as_str().unwrap();
    assert!(
        key[10..].starts_with("--drill-") && key.ends_with("-01"),
        "{key}"
    );
    assert_eq!(
        (trace[0]["status"].as_str(), trace[0]["runs"].as_u64()),
        (Some("done"), Some(1))
    );
    assert_eq!(trace[1]["copies"].as_array().unwrap().len(), 1);
    assert_eq!(doc["left"], serde_json::json!([]));
}

/// The monitors watch the project's timer, not a drill: a project that writes metrics and
/// pings gets neither from `drill`, whose runs are throwaway posts on their own state.
#[test]
fn a_drill_writes_no_metrics_and_pings_nothing() {
    use crate::fakes::fake_ping::{Answer, FakePing};
    let (api, ping) = (PostsApi::start(), FakePing::start(Answer::Ok));
    let p = Project::new();
    let target = api.config(
        "blog",
        &format!(
            "list_complete = true\nsettle_secs = 0.6\n{}\n",
            api.delete_url()
        ),
    );
    p.file(
        "dayrun.toml",
        format!(
            "metrics_file = \"metrics/dayrun.prom\"\nping_url_file = \"secrets/ping.url\"\n{target}"
        ),
    )
    .secret("secrets/ping.url", format!("{}\n", ping.url()));
    std::fs::create_dir_all(p.path("metrics")).unwrap();
    let out = drill(
        &p,
        "blog",
        &["--rounds", "2", "--loss", "0%", "--seed", "3"],
    );
    out.code(0);
    assert_eq!(count(&out, "removed"), 2, "{}", out.stdout);
    assert!(ping.paths().is_empty(), "pinged: {:?}", ping.paths());
    assert!(!p.path("metrics/dayrun.prom").exists(), "metrics written");
    // The project's own run still does both.
    let run = p.run(&["run"]);
    run.code(0);
    assert_eq!(ping.paths(), ["start", "0"], "{run:?}");
    assert!(p.path("metrics/dayrun.prom").exists(), "{run:?}");
}
