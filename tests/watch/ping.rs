//! The ping (`ping_url_file`), against a local endpoint that records every ping, fails or
//! hangs: `/start`, then `/0` (exit 0 or 75, the run's lines as a log) or `/CODE` (1, 2, 3);
//! the URL never shown; a ping that fails or hangs changes nothing of the run.

use crate::fakes::fake_ping::{Answer, FakePing};
use crate::support::util::Project;
use std::time::{Duration, Instant};

const NOW: &str = "2026-11-29T07:00:00Z";
/// The part of the URL that is its secret.
const SECRET: &str = "5ec7e7-c0ffee-0000-4b1d-d00d5ec7e7ab";

/// A project whose script target exits with `code` for every post, pinging `ping`.
fn project(ping: &FakePing, code: i32) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "ping_url_file = \"secrets/ping.url\"\nping_timeout_secs = 1\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    )
    .secret("secrets/ping.url", format!("{}\n", ping.url()))
    .script(
        "publish.sh",
        format!("#!/bin/sh\ncat >/dev/null\n[ {code} = 0 ] && {{ echo id-1; exit 0; }}\necho 'the server said no' >&2\nexit {code}\n"),
    )
    .post("2026-11-29", "Three");
    p
}

/// Nothing the run left anywhere holds the URL's secret.
#[track_caller]
fn never_shown(p: &Project, out: &crate::support::util::Output) {
    assert!(
        !out.stdout.contains(SECRET) && !out.stderr.contains(SECRET),
        "{out:?}"
    );
    for (file, _) in p
        .tree(&["secrets"])
        .into_iter()
        .filter(|(f, _)| !f.ends_with('/'))
    {
        let text = std::fs::read(p.path(&file)).unwrap();
        assert!(
            !String::from_utf8_lossy(&text).contains(SECRET),
            "{file} holds the URL"
        );
    }
}

#[test]
fn a_run_pings_start_then_0_with_its_lines() {
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    let out = p.run_at(NOW, &["run"]);
    out.code(0);
    assert_eq!(ping.paths(), ["start", "0"]);
    let pings = ping.pings();
    assert!(pings.iter().all(|p| p.method == "POST"), "{pings:?}");
    assert_eq!(pings[0].body, "");
    // The end ping's body is the run's lines, as a log.
    assert!(
        pings[1].body.contains("2026-11-29 site published id=id-1"),
        "{}",
        pings[1].body
    );
    assert!(
        pings[1].body.contains("site: 1 published"),
        "{}",
        pings[1].body
    );
    never_shown(&p, &out);
}

#[test]
fn exit_75_pings_0_and_exits_1_2_3_ping_their_code() {
    // 75 is the next run retrying by itself: a log, not a failure.
    for (script, exit, path) in [(75, 75, "0"), (65, 1, "1"), (77, 3, "3")] {
        let ping = FakePing::start(Answer::Ok);
        let p = project(&ping, script);
        let out = p.run_at(NOW, &["run"]);
        out.code(exit);
        assert_eq!(ping.paths(), ["start", path], "script exit {script}");
        let body = &ping.pings()[1].body;
        assert!(body.contains("2026-11-29 site failed"), "{body}");
        never_shown(&p, &out);
    }
    // A target whose setup is broken is not run: 2, with what the run said.
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml")
            .replace("run = [", "bogus = 1\nrun = ["),
    );
    p.run_at(NOW, &["run"]).code(2);
    assert_eq!(ping.paths(), ["start", "2"]);
    assert!(
        ping.pings()[1].body.contains("site: not run"),
        "{:?}",
        ping.pings()
    );
    // A config that cannot be read at all names no ping: nothing is sent.
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    p.file(
        "dayrun.toml",
        format!("{}\nnot toml [", p.read("dayrun.toml")),
    );
    p.run_at(NOW, &["run"]).code(2);
    assert_eq!(ping.paths(), Vec::<String>::new());
}

#[test]
fn a_failing_ping_changes_nothing_and_says_so_in_one_line() {
    let ping = FakePing::start(Answer::Fails);
    let p = project(&ping, 0);
    let out = p.run_at(NOW, &["run"]);
    out.code(0)
        .stderr_has("dayrun: note: the start ping to the monitor failed (HTTP 500); the run's outcome stands")
        .stderr_has("dayrun: note: the end ping to the monitor failed (HTTP 500); the run's outcome stands");
    assert_eq!(
        out.stderr.lines().filter(|l| l.contains("ping")).count(),
        2,
        "{}",
        out.stderr
    );
    assert_eq!(p.statuses("site"), ["2026-11-29 done"]);
    never_shown(&p, &out);
}

#[test]
fn a_hanging_ping_is_cut_off_at_its_timeout() {
    let ping = FakePing::start(Answer::Hangs(Duration::from_secs(30)));
    let p = project(&ping, 0);
    let started = Instant::now();
    let out = p.run_at(NOW, &["run"]);
    let took = started.elapsed();
    out.code(0)
        .stderr_has("dayrun: note: the end ping to the monitor failed (");
    // Two pings of at most `ping_timeout_secs = 1` each, and the run itself.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_eq!(p.statuses("site"), ["2026-11-29 done"]);
    never_shown(&p, &out);
}

#[test]
fn an_unreachable_monitor_and_an_unreadable_url_file_leave_the_run_alone() {
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    ping.server.down();
    let out = p.run_at(NOW, &["run"]);
    out.code(0)
        .stderr_has("the start ping to the monitor failed");
    never_shown(&p, &out);
    std::fs::remove_file(p.path("secrets/ping.url")).unwrap();
    p.post("2026-11-28", "Two");
    p.run_at(NOW, &["run"])
        .code(0)
        .stderr_has("dayrun: note: no ping: cannot read the ping URL from secrets/ping.url");
}

#[test]
fn a_url_file_others_can_read_is_warned_about_as_a_token_is() {
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    p.file_mode("secrets/ping.url", format!("{}\n", ping.url()), 0o644);
    let out = p.run_at(NOW, &["run"]);
    out.code(0).stderr_has(
        "dayrun: warning: secrets/ping.url can be read by other users; run `chmod 600 secrets/ping.url`",
    );
    assert_eq!(ping.paths(), ["start", "0"]);
    never_shown(&p, &out);
}

#[test]
fn a_dry_run_and_a_persons_retry_do_not_ping() {
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 65);
    p.run_at(NOW, &["run", "--dry-run"]).code(0);
    assert_eq!(ping.paths(), Vec::<String>::new());
    p.run_at(NOW, &["run"]).code(1);
    assert_eq!(ping.paths(), ["start", "1"]);
    p.run_at(NOW, &["retry", "2026-11-29"]).code(1);
    assert_eq!(
        ping.paths(),
        ["start", "1"],
        "a retry is a person's, not the timer's"
    );
}

#[test]
fn the_body_is_bounded_and_redacted() {
    let ping = FakePing::start(Answer::Ok);
    let p = project(&ping, 0);
    // A script that prints a token it was given: redacted in the run's lines, so in the body.
    p.secret("secrets/token", "tok-9f8e7d6c5b4a-SECRET\n");
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml").replace(
            "kind = \"command\"",
            "kind = \"command\"\nenv = [\"BLOG_TOKEN\"]",
        ),
    );
    let padding = "and more words ".repeat(20);
    p.script(
        "publish.sh",
        format!(
            "#!/bin/sh\ncat >/dev/null\necho \"{padding} refused for $BLOG_TOKEN\" >&2\nexit 65\n"
        ),
    );
    for day in 1..=28 {
        p.post(&format!("2026-11-{day:02}"), "A title");
    }
    let mut cmd = p.command(&["run", "--backfill"]);
    let out: crate::support::util::Output = cmd
        .env("DAYRUN_NOW", NOW)
        .env("BLOG_TOKEN", "tok-9f8e7d6c5b4a-SECRET")
        .output()
        .unwrap()
        .into();
    out.code(1);
    let body = &ping.pings()[1].body;
    assert!(body.len() <= 10_000, "{}", body.len());
    assert!(body.contains("more line(s)"), "{body}");
    assert!(!body.contains("tok-9f8e7d6c5b4a-SECRET"), "{body}");
    assert!(body.contains("refused for ***"), "{body}");
}
