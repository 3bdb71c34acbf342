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
