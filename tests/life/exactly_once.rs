//! Issue 8, "exactly once against real platforms": one test per case the issue counted and per
//! platform fact, each against a fake as strict as the real server, each asserting how many
//! posts the server committed. Times are scaled down (seconds become tenths).

use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::{Output, Project};
use std::time::{Duration, Instant};

mod devto;
mod mastodon;
mod wordpress;

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";

/// `config` with `name = value` replacing that key's line, or added.
pub fn set(config: &str, name: &str, value: &str) -> String {
    let prefix = format!("{name} = ");
    let line = format!("{name} = {value}");
    if config.lines().any(|l| l.starts_with(&prefix)) {
        let lines: Vec<&str> = config
            .lines()
            .map(|l| if l.starts_with(&prefix) { &line } else { l })
            .collect();
        lines.join("\n") + "\n"
    } else {
        format!("{config}{line}\n")
    }
}

/// Whether stdout or stderr has `needle` (where the contract does not say which).
#[track_caller]
pub fn said(out: &Output, needle: &str) {
    assert!(
        out.stdout.contains(needle) || out.stderr.contains(needle),
        "output lacks {needle:?}\n{}",
        shown(out)
    );
}

/// The run's output, for assertion messages.
pub fn shown(out: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", out.stdout, out.stderr)
}

fn sleep(secs: f64) {
    std::thread::sleep(Duration::from_secs_f64(secs));
}

/// A project with one http target `blog` and today's post; `settings` are `(key, value)` lines.
fn http(api: &PostsApi, settings: &[(&str, &str)]) -> Project {
    let p = Project::new();
    let mut config = api.config("blog", "");
    for (name, value) in settings {
        config = set(&config, name, value);
    }
    p.file("dayrun.toml", config);
    p.post(KEY, "Today");
    p
}

/// The fingerprint dayrun derives for the post of `key` in `p` (what an attempt sends).
pub fn fingerprint_of(p: &Project, key: &str) -> String {
    let path = p.path(&format!("content/{key}.md"));
    let bytes = std::fs::read(&path).unwrap();
    let post =
        dayrun::post::parse(key.parse().unwrap(), &path, &bytes, Default::default()).unwrap();
    post.fingerprint
}

/// `list_url` as an exact query on the key.
fn by_key(api: &PostsApi) -> String {
    format!("\"{}?key={{key}}\"", api.server.url("/posts"))
}

#[test]
fn http_lagging_list_after_a_committed_500_gives_one_copy() {
    // Issue 8 row 1 (list lags 8 s; here 1.5 s): every POST commits and answers 500.
    let api = PostsApi::start();
    api.state.lock().unwrap().lag = Duration::from_secs_f64(1.5);
    api.faults(&[Fault::CommitStatus(500); 3]);
    let list = by_key(&api);
    let p = http(&api, &[("list_url", &list), ("settle_secs", "2")]);
    // The settle time is near: the run waits it out and looks once more, in the same run.
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(
        api.commits_of(KEY),
        1,
        "commits after run 1\n{}",
        shown(&run1)
    );
    run1.code(0)
        .stdout_has(&format!("{KEY} blog confirmed id=p-1"));
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.commits_of(KEY), 1);
}

#[test]
fn http_lagging_list_not_yet_settled_leaves_the_key_pending_for_the_next_run() {
    // The same, with a settle time longer than a run waits: "not yet", never "absent".
    let api = PostsApi::start();
    api.state.lock().unwrap().lag = Duration::from_secs_f64(1.5);
    api.faults(&[Fault::CommitStatus(500)]);
    let list = by_key(&api);
    let p = http(&api, &[("list_url", &list), ("settle_secs", "3600")]);
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run1));
    run1.code(75).stdout_has("unconfirmed");
    assert_eq!(p.statuses("blog"), [format!("{KEY} pending")]);
    assert!(p.state_lines("blog")[0].contains("sent=maybe"));
    // Still unsettled next run: not sent, still pending.
    p.run(&["run", TODAY]).code(75);
    assert_eq!(api.commits_of(KEY), 1);
    // Once the list shows it, the next run confirms it.
    sleep(1.6);
    let run3 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run3));
    run3.code(0)
        .stdout_has(&format!("{KEY} blog confirmed id=p-1"));
}

#[test]
fn http_list_of_only_the_newest_items_gives_one_copy_and_asks_a_human() {
    // Issue 8 row 2a: the list shows the 3 newest, and others post right after us.
    let api = PostsApi::start();
    {
        let mut s = api.state.lock().unwrap();
        (s.newest, s.others_per_post, s.created_at) = (Some(3), 3, true);
    }
    api.faults(&[Fault::CommitStatus(500); 3]);
    let p = http(
        &api,
        &[
            ("created_pointer", "\"/created_at\""),
            ("settle_secs", "0.2"),
        ],
    );
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run1));
    run1.code(1)
        .stdout_has(&format!("dayrun retry {KEY} --absent"));
    let line = &p.state_lines("blog")[0];
    assert!(
        line.contains("class=unknown") && !line.contains("lookup=absent"),
        "{line}"
    );
    let run2 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run2));
    run2.code(1);
}

#[test]
fn http_items_without_key_or_title_give_one_copy_and_ask_a_human() {
    // Issue 8 row 2b: items carry only an id.
    let api = PostsApi::start();
    api.state.lock().unwrap().omit = vec!["key", "idempotency_key", "title", "fingerprint"];
    api.faults(&[Fault::CommitStatus(500); 3]);
    let p = http(&api, &[]);
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run1));
    run1.code(1);
    let run2 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run2));
    run2.code(1);
}

#[test]
fn http_list_lagging_past_default_confirm_timing_gives_one_copy() {
    // Issue 8 row 3, at a tenth of the time: lag 20 s → 2 s; confirm 3 × 5 s → 3 × 0.5 s;
    // settle 30 s → 3 s. The list reaches back past the attempt (an older item).
    let api = PostsApi::start();
    api.state.lock().unwrap().created_at = true;
    api.seed("2026-11-01", "Older", Duration::from_secs(86_400));
    api.state.lock().unwrap().lag = Duration::from_secs(2);
    api.faults(&[Fault::CommitHang]);
    let p = http(
        &api,
        &[
            ("created_pointer", "\"/created_at\""),
            ("confirm_polls", "3"),
            ("confirm_delay_secs", "0.5"),
            ("settle_secs", "3"),
        ],
    );
    let started = Instant::now();
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run1));
    assert!(
        [0, 75].contains(&run1.code),
        "run 1: exit {}\n{}",
        run1.code,
        shown(&run1)
    );
    sleep(2.2 - started.elapsed().as_secs_f64().min(2.2));
    let run2 = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&run2));
    run2.code(0);
    assert_eq!(p.statuses("blog"), [format!("{KEY} done")]);
}

#[test]
fn http_auto_never_takes_last_weeks_recurring_title_for_todays_post() {
    // Issue 8 row 4: "Weekly notes" every week; items echo title and fingerprint, not the key.
    let api = PostsApi::start();
    api.state.lock().unwrap().hide_key = true;
    let p = http(&api, &[]);
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    p.file("content/2026-11-22.md", "# Weekly notes\n\nLast week.\n");
    p.run(&["run", "--today=2026-11-22"]).code(0);
    p.file(
        &format!("content/{KEY}.md"),
        "# Weekly notes\n\nThis week.\n",
    );
    let out = p.run(&["run", TODAY]);
    assert_eq!(
        api.commits_of(KEY),
        1,
        "today's post was not published\n{}",
        shown(&out)
    );
    out.code(0).stdout_has(&format!("{KEY} blog published"));
    let today = p.state_lines("blog");
    let today = today.iter().find(|l| l.starts_with(KEY)).unwrap();
    assert!(!today.contains("dedup=1"), "{today}");
}

#[test]
fn http_items_that_carry_only_a_title_never_match() {
    // The same, with items that carry nothing but id and title: no match, no "already there".
    let api = PostsApi::start();
    api.state.lock().unwrap().omit = vec!["key", "idempotency_key", "fingerprint"];
    let p = http(&api, &[]);
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    p.file("content/2026-11-22.md", "# Weekly notes\n\nLast week.\n");
    p.run(&["run", "--today=2026-11-22"]).code(0);
    p.file(
        &format!("content/{KEY}.md"),
        "# Weekly notes\n\nThis week.\n",
    );
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(0)
        .stdout_has(&format!("{KEY} blog published"))
        .stdout_has("could not look for an existing copy");
}

#[test]
fn http_plain_list_without_the_post_cannot_prove_it_absent() {
    // A plain list_url (no {key}, no created_pointer, not declared complete) that lags: it
    // never proves absence, so the lost answer goes to a human instead of a resend.
    let api = PostsApi::start();
    api.state.lock().unwrap().lag = Duration::from_secs_f64(1.5);
    api.faults(&[Fault::CommitStatus(500); 3]);
    let p = http(&api, &[("settle_secs", "0.2")]);
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(1)
        .stdout_has("a plain list_url cannot prove a post absent");
    let line = &p.state_lines("blog")[0];
    assert!(
        line.contains("class=unknown")
            && line.contains("sent=maybe")
            && !line.contains("lookup=absent"),
        "{line}"
    );
}

#[test]
fn http_fingerprint_that_was_sent_confirms_after_a_typo_fix() {
    // Issue 8 row 6 (http): unknown outcome, the list is down, the human fixes a typo, retries.
    let api = PostsApi::start();
    api.state.lock().unwrap().list_chooser = Some(Box::new(|| 500));
    api.faults(&[Fault::CommitHang]);
    let p = http(&api, &[("match_by", "\"fingerprint\""), ("dedup", "false")]);
    p.file(&format!("content/{KEY}.md"), "# Today\n\nTeh body.\n");
    // The lookups are down, so the run cannot confirm: a failed lookup is transient and the
    // next run looks again by itself (75).
    p.run(&["run", TODAY]).code(75);
    api.state.lock().unwrap().list_chooser = None;
    p.file(&format!("content/{KEY}.md"), "# Today\n\nThe body.\n");
    let out = p.run(&["retry", KEY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(0)
        .stdout_has(&format!("{KEY} blog confirmed id=p-1"));
}

#[test]
fn http_exact_query_still_empty_after_settle_sends_again() {
    let api = PostsApi::start();
    api.faults(&[Fault::Hang]); // lost before anything was committed
    let list = by_key(&api);
    let p = http(
        &api,
        &[
            ("list_url", &list),
            ("settle_secs", "0.3"),
            ("confirm_polls", "4"),
            ("confirm_delay_secs", "0.25"),
        ],
    );
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(0).stdout_has(&format!("{KEY} blog published"));
}

#[test]
fn http_list_declared_complete_proves_absence_after_settle() {
    let api = PostsApi::start();
    api.faults(&[Fault::Hang]);
    let p = http(
        &api,
        &[
            ("list_complete", "true"),
            ("settle_secs", "0.3"),
            ("confirm_polls", "4"),
            ("confirm_delay_secs", "0.25"),
        ],
    );
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(0).stdout_has(&format!("{KEY} blog published"));
}

#[test]
fn http_two_copies_found_are_reported_and_never_resent() {
    let api = PostsApi::start();
    let list = by_key(&api);
    let p = http(&api, &[("list_url", &list)]);
    // Two copies of this post (each holds the fingerprint dayrun sends for it).
    let fp = fingerprint_of(&p, KEY);
    api.seed_copy(KEY, &fp, Duration::from_secs(600))
        .seed_copy(KEY, &fp, Duration::from_secs(300));
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 2, "{}", shown(&out));
    out.code(1);
    for needle in ["duplicate", "p-1", "p-2"] {
        said(&out, needle);
    }
    assert_eq!(p.statuses("blog"), [format!("{KEY} done")]);
}

#[test]
fn http_match_by_title_is_a_config_error_naming_what_to_use() {
    let api = PostsApi::start();
    let p = http(&api, &[("match_by", "\"title\"")]);
    p.run(&["run", TODAY])
        .code(2)
        .stdout_has("match_by = \"title\"")
        .stdout_has("was removed");
    assert_eq!(api.server.request_count(), 0);
}

#[test]
fn dedup_strict_sends_no_first_attempt_it_cannot_check() {
    let api = PostsApi::start(); // a plain list without created_at: cannot prove absence
    let p = http(&api, &[("dedup", "\"strict\"")]);
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.commits_of(KEY), 0, "{}", shown(&out));
    out.code(1);
    assert!(p.state_lines("blog")[0].contains("class=unknown"));
}

#[test]
fn retry_absent_sends_a_key_waiting_on_cannot_tell() {
    let api = PostsApi::start();
    api.faults(&[Fault::Hang]); // nothing committed, but dayrun cannot know that
    let p = http(&api, &[]);
    let run1 = p.run(&["run", TODAY]);
    assert_eq!(
        api.commits_of(KEY),
        0,
        "sent on cannot tell\n{}",
        shown(&run1)
    );
    run1.code(1)
        .stdout_has(&format!("dayrun mark {KEY} done --id"))
        .stdout_has(&format!("dayrun retry {KEY} --absent"));
    assert!(p.state_lines("blog")[0].contains("sent=maybe"));
    p.run(&["run", TODAY]).code(1);
    p.run(&["retry", KEY]).code(1);
    assert_eq!(api.commits_of(KEY), 0);
    let out = p.run(&["retry", KEY, "--absent"]);
    assert_eq!(api.commits_of(KEY), 1, "{}", shown(&out));
    out.code(0).stdout_has(&format!("{KEY} blog published"));
    assert!(p.read("state/blog.log").contains("retry --absent"));
}

#[test]
fn command_stop_signal_reaches_the_script_and_dayrun_does_not_wait_out_its_timeout() {
    // dayrun passes SIGINT on to the script's process group: a script that traps it ends at
    // once, long before its 30 s timeout, and says so.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\ntimeout_secs = 30\ndedup = false\n",
    );
    p.script(
        "publish.sh",
        "#!/bin/sh\ntrap 'echo INT > signalled.txt; exit 130' INT TERM HUP\ncat > /dev/null\necho $$ > script.pid\nsleep 8 &\nwait\n",
    );
    p.post(KEY, "Today");
    let (out, took) = interrupt_once_the_script_runs(&p);
    assert!(p.exists("signalled.txt"), "the script never got the signal");
    assert!(took < Duration::from_secs(4), "dayrun waited {took:?}");
    assert_eq!(out.status.code(), Some(130));
}

/// Run dayrun, wait until its script has written `script.pid`, then send dayrun SIGINT.
/// Returns what dayrun printed and how long it took to end after the signal.
fn interrupt_once_the_script_runs(p: &Project) -> (std::process::Output, Duration) {
    let child = p
        .command(&["run", TODAY])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !p.exists("script.pid") && started.elapsed() < Duration::from_secs(3) {
        sleep(0.02);
    }
    sleep(0.1);
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    (out, signalled.elapsed())
}

/// Whether a process runs (a zombie does not).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

#[test]
fn command_sigint_to_dayrun_leaves_no_script_running_and_one_copy() {
    // Issue 8 row 7: Ctrl-C (or a supervisor) stops dayrun while its script is at work.
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\nconfirm = [\"./confirm.sh\"]\ntimeout_secs = 1.5\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\ndedup = false\n",
    );
    p.script(
        "publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho $$ > script.pid\nsleep 1\necho \"$DAYRUN_KEY\" >> published.txt\necho '{\"id\":\"site-1\"}'\n",
    );
    p.script(
        "confirm.sh",
        "#!/bin/sh\ncat > /dev/null\ngrep -qx \"$DAYRUN_KEY\" published.txt 2>/dev/null && echo site-1 && exit 0\nexit 1\n",
    );
    p.post(KEY, "Today");
    let (first, _) = interrupt_once_the_script_runs(&p);
    let first_code = {
        use std::os::unix::process::ExitStatusExt;
        first
            .status
            .code()
            .unwrap_or_else(|| -first.status.signal().unwrap_or(0))
    };
    let script = p.read("script.pid").trim().to_string();
    let script_left_running = running(&script);
    // Run again until the key is done (a key whose script may still run waits its timeout).
    for _ in 0..6 {
        if p.statuses("site") == [format!("{KEY} done")] {
            break;
        }
        p.run(&["run", TODAY]);
        sleep(0.5);
    }
    sleep(1.2); // anything still running has finished
    let copies = std::fs::read_to_string(p.path("published.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0);
    assert_eq!(
        (copies, script_left_running, first_code),
        (1, false, 130),
        "(copies, script left running after SIGINT, exit code of the interrupted run; -N = killed by signal N)\n--- stderr of the interrupted run\n{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(p.statuses("site"), [format!("{KEY} done")]);
}
