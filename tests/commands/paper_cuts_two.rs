//! Issue 29's paper cuts, each as a person meets it: `check` that stops at the first problem
//! and takes no `--today`, a thread's parts called copies, no plain-text body for a template,
//! `status` showing an id where a URL exists, `-h`, help that points to the wrong page, and
//! http settings the docs leave out.

use crate::content::threads::{KEY, TODAY, long_body, write_post};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::support::util::{Project, bare};

/// A project where every kind of problem `check` can find is there once: a target's table
/// (an unknown setting, a missing `kind`), a credential file, a template that does not
/// compile, a template that fails on one post, a state file, and a post.
fn every_problem() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        r#"
[targets.api]
kind = "http"
url = "https://example.com/posts"
nosuch = 1

[targets.masto]
kind = "mastodon"
instance = "https://mastodon.example"
token_file = "secrets/missing.token"

[targets.typo]
kid = "folder"
dir = "typo"

[targets.spelt]
kind = "command"
run = ["true"]
template = "{{ sumary }}"

[targets.second]
kind = "command"
run = ["true"]
template = "{{ title }} {{ tags[1] }}"

[targets.site]
kind = "folder"
dir = "public"
"#,
    );
    p.file(
        "state/site.state",
        "# dayrun state format 3\ngarbage line\n",
    );
    p.file("content/2026-11-28.md", "no title here\n");
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [one]\n---\n# One tag\n\nWords.\n",
    );
    p
}

#[test]
fn check_reports_every_problem_it_can_then_exits_with_the_worst() {
    let p = every_problem();
    let out = p.run(&["check"]);
    out.code(2)
        .stderr_has("[targets.api]: unknown field `nosuch`")
        .stderr_has("secrets/missing.token")
        .stderr_has("[targets.typo]: missing `kind` (found `kid`: a typo?)")
        .stderr_has("unknown variable `sumary`")
        .stderr_has("state/site.state:2:")
        .stderr_has("content/2026-11-28.md")
        .stderr_has("[targets.second] template, line 1, column")
        .stdout_has("7 problem(s)");
    // Only the posts' problems: a person is needed, the setup is fine.
    let p = Project::new();
    p.file("content/2026-11-28.md", "no title here\n")
        .post("2026-11-29", "Fine");
    p.run(&["check"])
        .code(1)
        .stdout_has("ok content/2026-11-29.md");
}

#[test]
fn check_takes_today_as_run_does() {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.run(&["run", "--today=2026-11-28"]).code(0);
    p.run(&["check", "--online", "--today", "2026-11-28"])
        .code(0)
        .stdout_has("online outbox: lookup works; today's post 2026-11-28 is there");
    p.run(&["check", "--online", TODAY])
        .code(0)
        .stdout_has("online outbox: lookup works; today's post 2026-11-29 is not there");
    p.run(&["check", "--today=2026-02-30"])
        .code(2)
        .stderr_has("--today: `2026-02-30` is not a real date");
}

#[test]
fn retracting_a_thread_counts_its_parts_as_parts() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("long = \"thread\"\nvisibility = \"unlisted\"\nsettle_secs = 0"),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY]).code(0);
    let n = api.statuses().len();
    assert!(n >= 2, "a thread: {n}");
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0)
        .stdout_has(&format!("(a thread of {n} parts removed)"));
    assert!(!out.stdout.contains("copies removed"), "{}", out.stdout);
}

#[test]
fn a_template_has_the_body_as_plain_text() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.api]\nkind = \"http\"\nurl = \"https://example.com/posts\"\ntemplate = \"{{ body_text }}\"\n",
    );
    p.file(
        "content/2026-11-29.md",
        "# Plain\n\nSome *emphasis*, **strong** and `code`: see [the docs](https://example.com/docs).\n\n## A heading\n\n- one\n- two\n",
    );
    let out = p.run(&["run", TODAY, "--dry-run"]);
    out.code(0).stdout_has(
        r#"graphemes before fitting) "Some emphasis, strong and code: see the docs (https://example.com/docs).\n\nA heading\n\n- one\n\n- two""#,
    );
}

#[test]
fn status_shows_a_copys_url_and_keeps_the_id_in_json() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"folder\"\ndir = \"public\"\nurl = \"https://blog.example.com/posts\"\n",
    );
    p.post("2026-11-29", "Today");
    p.run(&["run", TODAY]).code(0);
    let out = p.run(&["status", TODAY]);
    out.code(0)
        .stdout_has("url=https://blog.example.com/posts/2026-11-29.html");
    assert!(
        !out.stdout.contains(" id="),
        "the URL, not the id: {}",
        out.stdout
    );
    let json = p.run(&["status", TODAY, "--json"]);
    json.code(0)
        .stdout_has(r#""id":"#)
        .stdout_has(r#""url":"https://blog.example.com/posts/2026-11-29.html""#);
}

#[test]
fn dash_h_is_help_everywhere_help_is() {
    let p = Project::new();
    let commands = [
        "run",
        "status",
        "check",
        "retry",
        "mark",
        "adopt",
        "retract",
        "merge-state",
    ];
    let top = bare(&p.root, &["--help"]);
    let short = bare(&p.root, &["-h"]);
    short.code(0);
    assert_eq!(short.stdout, top.stdout);
    for command in commands {
        let long = bare(&p.root, &[command, "--help"]);
        let short = bare(&p.root, &[command, "-h"]);
        short.code(0);
        assert_eq!(short.stdout, long.stdout, "{command}");
        short.stdout_has(&format!("Usage: dayrun {command}"));
    }
    p.run(&["status", "-h"]).code(0).stdout_has("-h, --help");
}

#[test]
fn help_points_to_the_page_that_holds_the_schema() {
    let p = Project::new();
    let status = bare(&p.root, &["status", "--help"]);
    status.code(0).stdout_has("(schema in docs/commands.md)");
    let merge = bare(&p.root, &["merge-state", "--help"]);
    merge.code(0).stdout_has("docs/scheduling.md");
    for out in [status, merge, bare(&p.root, &["--help"])] {
        assert!(!out.stdout.contains("README"), "{}", out.stdout);
    }
}

#[test]
fn the_http_page_documents_every_setting_the_code_takes() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.api]\nkind = \"http\"\nurl = \"https://example.com/posts\"\nnosuch = 1\n",
    );
    let out = p.run(&["check"]);
    out.code(2);
    let takes = out
        .stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("a http target takes "))
        .unwrap_or_else(|| panic!("the settings list: {}", out.stderr));
    let own = takes.split(';').next().unwrap();
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/targets/http.md"))
            .unwrap();
    let missing: Vec<&str> = own
        .split(", ")
        .filter(|name| {
            !page.contains(&format!("\n{name} =")) && !page.contains(&format!("# {name} ="))
        })
        .filter(|name| !["template", "template_file"].contains(name))
        .collect();
    assert!(missing.is_empty(), "docs/targets/http.md lacks {missing:?}");
    // The methods the page names are the only ones taken (another was sent as POST), in any
    // case.
    let with = |method: &str| {
        p.file(
            "dayrun.toml",
            format!("[targets.api]\nkind = \"http\"\nurl = \"https://example.com/posts\"\ndelete_method = \"{method}\"\n"),
        );
        p.run(&["check"])
    };
    with("fetch")
        .code(2)
        .stderr_has("delete_method = `FETCH`: use DELETE, POST, PUT, PATCH");
    with("delete").code(0);
}
