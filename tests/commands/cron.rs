//! The README's cron line, run as cron runs it (`env -i`, a minimal PATH and HOME, `sh -c`):
//! what it prints is what cron mails. A good morning and a failure the next run retries by
//! itself mail nothing; a morning that needs a person mails the run.

use crate::support::util::{Output, Project};
use std::process::Command;

/// The command of the README's crontab line (after its five time fields).
fn cron_command() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let block = readme
        .split("```cron\n")
        .nth(1)
        .expect("the README has a ```cron block");
    let line = block.lines().next().expect("a crontab line");
    line.split_whitespace()
        .skip(5)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A home with `blog/` (the project) and `.cargo/bin/dayrun`, as the README installs it.
fn home() -> Project {
    let p = Project::new();
    let bin = p.path(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_dayrun"), bin.join("dayrun")).unwrap();
    p.file(
        "blog/dayrun.toml",
        "timezone = \"UTC\"\n\n[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\n[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\nbackoff_secs = 0.01\n",
    );
    p
}

fn today() -> String {
    jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
        .to_string()
}

/// The cron line as cron runs it; `extra`: more variables (a test's clock).
fn cron(p: &Project, extra: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("env");
    cmd.arg("-i")
        .arg("PATH=/usr/bin:/bin")
        .arg(format!("HOME={}", p.root.display()))
        .arg("SHELL=/bin/sh");
    for (name, value) in extra {
        cmd.arg(format!("{name}={value}"));
    }
    cmd.args(["sh", "-c", &cron_command()])
        .output()
        .unwrap()
        .into()
}

fn mailed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn the_cron_line_mails_exactly_when_a_person_is_needed() {
    let p = home();
    let key = today();
    p.file(&format!("blog/content/{key}.md"), "# Today\n\nWords.\n");
    p.file_mode(
        "blog/publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho ok-1\n",
        0o755,
    );

    // A good morning: published, nothing mailed, everything in the log.
    let out = cron(&p, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(mailed(&out), "", "a good morning mails nothing");
    let log = p.read("blog/dayrun.log");
    assert!(log.contains(&format!("{key} outbox published")), "{log}");
    assert!(log.contains(&format!("{key} site published")), "{log}");

    // The site is down for maintenance (exit 75): the next run retries by itself, quietly.
    let tomorrow = {
        let d: jiff::civil::Date = key.parse().unwrap();
        d.tomorrow().unwrap().to_string()
    };
    p.file(
        &format!("blog/content/{tomorrow}.md"),
        "# Tomorrow\n\nWords.\n",
    );
    p.file_mode(
        "blog/publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho down >&2\nexit 75\n",
        0o755,
    );
    let morning = |hours: i64| {
        let at = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24 + hours);
        at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    };
    let out = cron(&p, &[("DAYRUN_NOW", &morning(0))]);
    assert_eq!(out.code, 75, "{out:?}");
    assert_eq!(
        mailed(&out),
        "",
        "a failure the next run retries mails nothing"
    );
    assert!(p.read("blog/dayrun.log").contains("failed (retry-safe)"));

    // Still down the next morning, past `escalate_after`: a person is told, by mail, that it
    // is theirs now, since when, and what to do (issue 29 row 7).
    let out = cron(&p, &[("DAYRUN_NOW", &morning(24))]);
    assert_eq!(out.code, 1, "{out:?}");
    let mail = mailed(&out);
    assert!(
        mail.contains(&format!(
            "{tomorrow} site failed (retry-safe, needs you now): exited 75: down"
        )),
        "{mail}"
    );
    assert!(
        mail.contains("past `escalate_after` (20h): find out why site keeps failing")
            && mail.contains(&format!("`dayrun retry {tomorrow} --target site`")),
        "{mail}"
    );
    assert!(
        mail.contains("(exit 1; the whole log is dayrun.log)"),
        "{mail}"
    );
    assert!(
        !mail.contains("outbox published"),
        "only this run's lines: {mail}"
    );

    // The site's credentials are refused (exit 3): only a person can renew them, so it mails.
    let day_after = {
        let d: jiff::civil::Date = tomorrow.parse().unwrap();
        d.tomorrow().unwrap().to_string()
    };
    p.file(
        &format!("blog/content/{day_after}.md"),
        "# After\n\nWords.\n",
    );
    p.file_mode(
        "blog/publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho 'token expired' >&2\nexit 77\n",
        0o755,
    );
    let out = cron(&p, &[("DAYRUN_NOW", &morning(48))]);
    assert_eq!(out.code, 3, "{out:?}");
    let mail = mailed(&out);
    assert!(mail.contains("site failed (auth)"), "{mail}");
    assert!(mail.contains("renew them"), "{mail}");
    assert!(
        mail.contains("(exit 3; the whole log is dayrun.log)"),
        "{mail}"
    );

    // The log never lands in state/, where *.log files are traces.
    assert!(!p.exists("blog/state/cron.log"));
}

#[test]
fn a_log_inside_the_state_folder_is_refused() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    p.run(&["run", "--today=2026-11-29", "--log", "state/run.log"])
        .code(2)
        .stderr_has("the log must not be in the state folder");
}
