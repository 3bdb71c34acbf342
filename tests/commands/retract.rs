//! Issue 11, retract (contract: /work/notes/contract-issue11-retract.md): for each target kind,
//! publish, `retract KEY --yes` (gone on the fake server itself, the state line `retracted` with
//! its id), a later run that sends nothing and never republishes, `status` saying `retracted`,
//! and `retry KEY --force` publishing a new copy. The edges are in `retract/edges.rs`.

use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::PostsApi;
use crate::fakes::fake_wordpress::{self, FakeWordPress};
use crate::support::util::{Output, Project};

mod edges;
mod fakes;

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";

/// Whether stdout or stderr holds `needle` (the contract does not always say which).
#[track_caller]
fn said(out: &Output, needle: &str) {
    assert!(
        out.stdout.contains(needle) || out.stderr.contains(needle),
        "neither stdout nor stderr has {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}

/// `retract KEY --yes`: exit 0, `KEY TARGET retracted id=ID` printed, the state line
/// `KEY retracted TS … id=ID`, and the rewritten state file starts with the format line.
#[track_caller]
fn retract_ok(p: &Project, target: &str, id: &str) -> Output {
    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0)
        .stdout_has(&format!("{KEY} {target} retracted id={id}"));
    let lines = p.state_lines(target);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("{KEY} retracted "))
            && lines[0].contains(&format!(" id={id}"))
            && !lines[0].contains("verified=no"),
        "{}",
        lines[0]
    );
    let text = p.read(&format!("state/{target}.state"));
    assert!(
        text.starts_with("# dayrun state format 3\n"),
        "the rewritten state file lacks the format line:\n{text}"
    );
    out
}

/// After a retract: a run sends nothing (`writes` counts what reached the server or disk),
/// keeps the key `retracted` and counts it; `status` and `status --json` say `retracted`.
#[track_caller]
fn stays_retracted(p: &Project, target: &str, writes: impl Fn() -> usize) {
    let before = writes();
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("1 retracted");
    assert!(
        !out.stdout.contains(" published ") && !out.stdout.contains(" confirmed "),
        "{}",
        out.stdout
    );
    assert_eq!(writes(), before, "the run after a retract sent something");
    assert_eq!(p.statuses(target), [format!("{KEY} retracted")]);
    p.run(&["status", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} {target}: retracted"));
    let json = p.run(&["status", "--json", TODAY]);
    json.code(0);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let keys = doc["targets"][0]["keys"].as_array().unwrap();
    let entry = keys.iter().find(|k| k["key"] == KEY).unwrap();
    assert_eq!(entry["status"], "retracted", "{entry}");
}

/// `retry KEY --force` on a retracted key publishes a new copy and says so.
#[track_caller]
fn republish(p: &Project, target: &str, id: &str) {
    let out = p.run(&["retry", KEY, "--force"]);
    out.code(0)
        .stdout_has(&format!("{KEY} {target} published id={id}"));
    said(&out, "(the retracted copy is gone; publishing a new one)");
    assert_eq!(p.statuses(target), [format!("{KEY} done")]);
}

#[test]
fn folder_deletes_both_files() {
    let p = Project::new();
    p.post(KEY, "Today");
    p.run(&["run", TODAY]).code(0);
    let files = ["outbox/2026-11-29.html", "outbox/2026-11-29.json"];
    let present = || files.iter().filter(|f| p.exists(f)).count();
    assert_eq!(present(), 2);
    retract_ok(&p, "outbox", "outbox/2026-11-29.html");
    assert_eq!(present(), 0, "the retracted files are still there");
    stays_retracted(&p, "outbox", present);
    republish(&p, "outbox", "outbox/2026-11-29.html");
    assert_eq!(present(), 2);
}

/// An http target with `delete_url` and an exact lookup by key.
pub fn http_project(api: &PostsApi) -> Project {
    let p = Project::new();
    let list = api.server.url("/posts");
    let config = api
        .config("blog", &format!("settle_secs = 0\n{}", api.delete_url()))
        .replace(
            &format!("list_url = \"{list}\""),
            &format!("list_url = \"{list}?key={{key}}\""),
        );
    p.file("dayrun.toml", config);
    p.post(KEY, "Today");
    p
}

/// Requests that write to the posts API: POSTs and DELETEs.
fn http_writes(api: &PostsApi) -> usize {
    let posts = api.state.lock().unwrap().post_times.len();
    posts + api.delete_requests()
}

#[test]
fn http_sends_one_delete_to_delete_url() {
    let api = PostsApi::start();
    let p = http_project(&api);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} blog published id=p-1"));
    retract_ok(&p, "blog", "p-1");
    assert!(
        p.state_lines("blog")[0].contains(" url=https://example.test/p-1"),
        "the url is kept on the retracted line"
    );
    assert_eq!(api.commits_of(KEY), 0, "still listed on the server");
    assert_eq!(api.delete_requests(), 1);
    assert_eq!(api.removed()[0].id, "p-1");
    stays_retracted(&p, "blog", || http_writes(&api));
    republish(&p, "blog", "p-2");
    assert_eq!(api.commits_of(KEY), 1);
}

/// Publish adds the key to published.txt; retract removes it; confirm finds it there.
const PUBLISH: &str = r#"#!/bin/sh
cat > /dev/null
echo "$DAYRUN_KEY" >> published.txt
echo "$DAYRUN_KEY" >> publish_calls.txt
echo "{\"id\":\"site-$DAYRUN_KEY\",\"url\":\"https://site.test/$DAYRUN_KEY\"}"
"#;
const RETRACT: &str = r#"#!/bin/sh
cat > retract_input.json
echo "$DAYRUN_KEY $DAYRUN_ID" >> retract_calls.txt
grep -vx "$DAYRUN_KEY" published.txt > published.tmp; mv published.tmp published.txt
"#;
const CONFIRM: &str = r#"#!/bin/sh
cat > /dev/null
if grep -qx "$DAYRUN_KEY" published.txt 2>/dev/null; then echo "site-$DAYRUN_KEY"; exit 0; fi
exit 1
"#;

#[test]
fn command_runs_the_retract_script_with_the_id() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\nretract = [\"./scripts/retract.sh\"]\nconfirm = [\"./scripts/confirm.sh\"]\ntimeout_secs = 2\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\nsettle_secs = 0\n",
    );
    p.script("scripts/publish.sh", PUBLISH)
        .script("scripts/retract.sh", RETRACT)
        .script("scripts/confirm.sh", CONFIRM);
    p.post(KEY, "Today");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} site published id=site-{KEY}"));
    retract_ok(&p, "site", &format!("site-{KEY}"));
    assert_eq!(p.read("retract_calls.txt"), format!("{KEY} site-{KEY}\n"));
    let input: serde_json::Value = serde_json::from_str(&p.read("retract_input.json")).unwrap();
    assert_eq!(input["key"], KEY, "the payload on stdin");
    assert!(!p.read("published.txt").contains(KEY));
    let calls = |file: &str| std::fs::read_to_string(p.path(file)).map_or(0, |t| t.lines().count());
    stays_retracted(&p, "site", || {
        calls("publish_calls.txt") + calls("retract_calls.txt")
    });
    republish(&p, "site", &format!("site-{KEY}"));
    assert_eq!(calls("publish_calls.txt"), 2);
    assert!(p.read("published.txt").contains(KEY));
}

/// The WordPress post with this id, whatever its status.
fn wp_post(wp: &FakeWordPress, id: u64) -> Option<serde_json::Value> {
    wp.posts().into_iter().find(|p| p["id"] == id)
}

#[test]
fn wordpress_moves_the_post_to_the_trash() {
    let wp = FakeWordPress::start();
    let p = Project::new();
    p.file("dayrun.toml", wp.config("settle_secs = 0"));
    p.secret(
        "secrets/wp.password",
        format!("{}\n", fake_wordpress::PASSWORD),
    );
    p.post(KEY, "Why the Date is the Key");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} wp published id=500"));
    let slug = wp_post(&wp, 500).unwrap()["slug"]
        .as_str()
        .unwrap()
        .to_string();
    retract_ok(&p, "wp", "500");
    let trashed = wp_post(&wp, 500).unwrap();
    assert_eq!(trashed["status"], "trash");
    assert_eq!(trashed["slug"], format!("{slug}__trashed"));
    assert_eq!(wp.state.lock().unwrap().trash.requests, 1);
    let writes = || {
        let s = wp.state.lock().unwrap();
        s.post_requests + s.trash.requests
    };
    stays_retracted(&p, "wp", writes);
    republish(&p, "wp", "501");
    let again = wp_post(&wp, 501).unwrap();
    assert_eq!(again["status"], "publish");
    assert_eq!(
        again["slug"],
        slug.as_str(),
        "the trashed copy freed the slug"
    );
}

#[test]
fn devto_unpublishes_the_article() {
    let api = FakeDevto::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("published = true\nsettle_secs = 0"),
    );
    p.secret("secrets/devto.key", fake_devto::KEY);
    p.post(KEY, "Shipping daily");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} devto published id=1000"));
    assert_eq!(api.article(1000).unwrap()["published"], true);
    retract_ok(&p, "devto", "1000");
    assert_eq!(api.articles().len(), 1, "dev.to has no delete: it stays");
    assert_eq!(api.article(1000).unwrap()["published"], false);
    assert_eq!(api.state.lock().unwrap().put_requests, 1);
    let writes = || {
        let s = api.state.lock().unwrap();
        s.post_requests + s.put_requests
    };
    stays_retracted(&p, "devto", writes);
    // Five minutes pass: Forem refuses a repeated title within five minutes, drafts included.
    api.age();
    republish(&p, "devto", "1001");
    assert_eq!(api.article(1001).unwrap()["published"], true);
    assert_eq!(api.article(1000).unwrap()["published"], false);
}

#[test]
fn mastodon_deletes_the_status() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file("dayrun.toml", api.config("settle_secs = 0"));
    p.secret("secrets/masto.token", fake_mastodon::TOKEN);
    p.post(KEY, "Why the date is the key");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} masto published id=110000"));
    retract_ok(&p, "masto", "110000");
    assert!(api.statuses().is_empty(), "{:?}", api.statuses());
    assert_eq!(api.state.lock().unwrap().delete_requests, 1);
    let writes = || {
        let s = api.state.lock().unwrap();
        s.post_requests + s.delete_requests
    };
    stays_retracted(&p, "masto", writes);
    // Within the hour: the same Idempotency-Key would find the deleted status (404), so the
    // new copy needs a key of its own.
    republish(&p, "masto", "110001");
    assert_eq!(api.statuses().len(), 1);
}
