//! `kind = "command"`: the exit-code contract, timeouts that kill the process group, confirm.

use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";

/// The publish script takes its behaviour for each call from the first line of modes.txt.
const PUBLISH: &str = r#"#!/bin/sh
input=$(cat)
echo "$DAYRUN_KEY" >> calls.txt
mode=$(head -n 1 modes.txt 2>/dev/null)
[ -s modes.txt ] && sed -i '1d' modes.txt
case "${mode:-ok}" in
  ok) echo "$DAYRUN_KEY" >> published.txt; echo "working..."; echo "{\"id\":\"site-$DAYRUN_KEY\",\"url\":\"https://site.test/$DAYRUN_KEY\"}" ;;
  bare) echo "$DAYRUN_KEY" >> published.txt; echo "bare-$DAYRUN_KEY" ;;
  75) echo "site is down" >&2; exit 75 ;;
  77) echo "token expired" >&2; exit 77 ;;
  65) echo "title too long for the site" >&2; exit 65 ;;
  hang) echo "$DAYRUN_KEY" >> published.txt; (sleep 1; touch orphan-survived.txt) & sleep 30 ;;
  early) echo "died before sending" >&2; exit 3 ;;
  crash) echo "$DAYRUN_KEY" >> published.txt; echo "lost the answer" >&2; exit 3 ;;
  env) printf '%s' "$input" > input.json; env | grep '^DAYRUN_' | sort > env.txt; pwd > cwd.txt; echo '{"id":"e"}' ;;
esac
"#;

const CONFIRM: &str = r#"#!/bin/sh
cat > /dev/null
case "$(cat confirm_mode.txt 2>/dev/null)" in
  broken) echo "cannot reach the site" >&2; exit 2 ;;
esac
if grep -qx "$DAYRUN_KEY" published.txt 2>/dev/null; then echo "site-$DAYRUN_KEY"; exit 0; fi
exit 1
"#;

fn project(confirm: bool) -> Project {
    let p = Project::new();
    let confirm_line = if confirm {
        "confirm = [\"./scripts/confirm.sh\", \"--find\"]\n"
    } else {
        ""
    };
    p.file(
        "dayrun.toml",
        format!("[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\n{confirm_line}timeout_secs = 0.5\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\ndedup = false\n"),
    );
    p.script("scripts/publish.sh", PUBLISH)
        .script("scripts/confirm.sh", CONFIRM);
    p.post("2026-11-29", "Today");
    p
}

fn lines(p: &Project, file: &str) -> usize {
    std::fs::read_to_string(p.path(file))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn exit_0_records_the_id_from_the_last_stdout_line() {
    let p = project(false);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 site published id=site-2026-11-29");
    assert!(p.state_lines("site")[0].contains("url=https://site.test/2026-11-29"));
    let p = project(false);
    p.file("modes.txt", "bare\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("id=bare-2026-11-29");
}

#[test]
fn the_post_arrives_as_json_on_stdin_with_its_environment() {
    let p = project(false);
    p.file("modes.txt", "env\n");
    p.run(&["run", TODAY]).code(0);
    let input: serde_json::Value = serde_json::from_str(&p.read("input.json")).unwrap();
    assert_eq!(input["key"], "2026-11-29");
    assert_eq!(input["title"], "Today");
    let env = p.read("env.txt");
    assert!(
        env.contains("DAYRUN_KEY=2026-11-29\n") && env.contains("DAYRUN_TARGET=site\n"),
        "{env}"
    );
    assert!(env.contains("DAYRUN_IDEMPOTENCY_KEY="), "{env}");
    assert_eq!(
        p.read("cwd.txt").trim(),
        p.root.canonicalize().unwrap().to_str().unwrap()
    );
}

#[test]
fn exit_codes_class_the_failure() {
    let p = project(false);
    p.file("modes.txt", "75\n75\n75\n");
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("failed (retry-safe): exited 75: site is down");
    assert_eq!(lines(&p, "calls.txt"), 3, "one try and two retries");
    p.run(&["run", TODAY]).code(0).stdout_has("published");

    let p = project(false);
    p.file("modes.txt", "77\n");
    p.run(&["run", TODAY])
        .code(3)
        .stdout_has("failed (auth): exited 77: token expired")
        .stdout_has("exit 77");

    let p = project(false);
    p.post("2026-11-28", "Yesterday");
    p.file("modes.txt", "65\n");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("2026-11-28 site failed (rejected): exited 65: title too long for the site")
        .stdout_has("2026-11-29 site published");
    assert!(p.state_lines("site")[0].contains("class=rejected"));
}

#[test]
fn a_hung_script_is_killed_with_its_children_and_confirmed() {
    let p = project(true);
    p.file("modes.txt", "hang\n");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 site confirmed id=site-2026-11-29");
    assert_eq!(lines(&p, "published.txt"), 1);
    assert!(
        p.read("state/site.log")
            .contains("timed out after 0.5 s (process group killed)")
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        !p.exists("orphan-survived.txt"),
        "a child of the script outlived the kill"
    );
}

#[test]
fn an_unclassed_exit_is_confirmed_and_never_resent_blind() {
    // Published, then crashed: confirm finds it.
    let p = project(true);
    p.file("modes.txt", "crash\n");
    p.run(&["run", TODAY]).code(0).stdout_has("confirmed");
    assert_eq!(lines(&p, "calls.txt"), 1);
    // Crashed before publishing: confirm says "not there", so it is sent again.
    let p = project(true);
    p.file("modes.txt", "early\n");
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!((lines(&p, "calls.txt"), lines(&p, "published.txt")), (2, 1));
    assert!(p.read("state/site.log").contains("confirm absent"));
    // No confirm command, or it cannot tell: a human decides.
    for broken in [false, true] {
        let p = project(broken);
        p.file("modes.txt", "crash\n");
        p.file("confirm_mode.txt", if broken { "broken" } else { "" });
        p.run(&["run", TODAY])
            .code(1)
            .stdout_has("failed (unknown)")
            .stdout_has("`dayrun retry 2026-11-29 --absent --target site`");
        p.run(&["run", TODAY]).code(1);
        assert_eq!(lines(&p, "calls.txt"), 1, "resent blind");
    }
}

#[test]
fn a_missing_script_is_a_config_error() {
    let p = project(false);
    std::fs::remove_file(p.path("scripts/publish.sh")).unwrap();
    p.run(&["run", TODAY])
        .code(2)
        .stdout_has("[targets.site]: `run`: ./scripts/publish.sh does not exist");
}

#[test]
fn a_script_that_cannot_start_stops_only_its_target() {
    // Issue 10 row 3: the README's script saved without `chmod +x`.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\n\n[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n",
    );
    p.file_mode("scripts/publish.sh", PUBLISH, 0o644);
    p.post("2026-11-29", "Today");
    p.run(&["check"])
        .code(2)
        .stderr_has("./scripts/publish.sh is not executable: run `chmod +x ./scripts/publish.sh`");
    let out = p.run(&["run", TODAY]);
    out.code(2)
        .stdout_has("site: not run: ")
        .stdout_has("chmod +x ./scripts/publish.sh")
        .stdout_has("2026-11-29 outbox published");
    assert!(!p.exists("calls.txt"), "the script ran");
    assert!(
        p.state_lines("site").is_empty(),
        "{:?}",
        p.state_lines("site")
    );
}
