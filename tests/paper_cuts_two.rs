//! Issue 29's paper cuts, each as a person meets it: `check` that stops at the first problem
//! and takes no `--today`, a thread's parts called copies, no plain-text body for a template,
//! `status` showing an id where a URL exists, `-h`, help that points to the wrong page, and
//! http settings the docs leave out.

use crate::util::{Project, bare};

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
