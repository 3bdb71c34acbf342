//! Issue 29: given the same facts on disk (the state lines, the posts, the templates, the
//! credentials), `run --dry-run` and `status` answer what the run does, and exit as it does.

use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::support::util::{Output, Project};

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";
const POST: &str = "---\ntags: [rust]\n---\n# Why the date is the key\n\nOne key per day.\n";

/// A folder target `site` served at https://blog.test/posts.
const SITE: &str =
    "[targets.site]\nkind = \"folder\"\ndir = \"public\"\nurl = \"https://blog.test/posts/\"\n";

/// A command target `out` whose script prints an id and a URL.
const OUT: &str = "[targets.out]\nkind = \"command\"\nrun = [\"./out.sh\"]\n";
const OUT_SH: &str = "#!/bin/sh\ncat >/dev/null\necho id=7\necho url=https://out.test/7\n";

fn project(config: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", config);
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p.secret("secrets/masto.token", TOKEN);
    p.file(&format!("content/{KEY}.md"), POST);
    p
}

/// The exit codes of `status`, `run --dry-run` and `run`, in that order, on the same facts.
fn three(p: &Project) -> [(i32, Output); 3] {
    let code = |out: Output| (out.code, out);
    [
        code(p.run(&["status", TODAY])),
        code(p.run(&["run", TODAY, "--dry-run"])),
        code(p.run(&["run", TODAY])),
    ]
}

fn assert_alike(p: &Project, want: i32) -> [(i32, Output); 3] {
    let got = three(p);
    let codes: Vec<i32> = got.iter().map(|(c, _)| *c).collect();
    assert_eq!(
        codes, [want; 3],
        "status, dry run, run\n--- status\n{}\n--- dry run\n{}\n--- run\n{}{}",
        got[0].1.stdout, got[1].1.stdout, got[2].1.stdout, got[2].1.stderr
    );
    got
}

/// Row 1: a template that fails on a post fails every run; the preview and `status` say so.
#[test]
fn a_template_that_fails_on_a_post_exits_alike_in_the_run_the_preview_and_status() {
    let p = project(&format!(
        "{OUT}template = \"{{{{ title }}}} {{{{ tags[1] }}}}\"\n"
    ));
    p.script("out.sh", OUT_SH);
    p.run(&["run", TODAY]).code(1);
    let got = assert_alike(&p, 1);
    got[0].1.stdout_has("tags[1]");
    got[1].1.stdout_has("tags[1]");
    // Fixed: all three agree it goes out.
    p.file(
        &format!("content/{KEY}.md"),
        POST.replace("[rust]", "[rust, ops]"),
    );
    assert_alike(&p, 0);
    assert!(p.read("state/out.state").contains(&format!("{KEY} done")));
}

/// Row 1: a copy the text links to that will never come (the site's command answered an id
/// and no URL).
#[test]
fn a_linked_copy_that_will_never_come_exits_alike() {
    let p = project(&format!(
        "[targets.site]\nkind = \"command\"\nrun = [\"./site.sh\"]\n\
         {OUT}template = \"{{{{ title }}}} {{{{ copies.site.url }}}}\"\n"
    ));
    p.script("site.sh", "#!/bin/sh\ncat >/dev/null\necho id=41\n");
    p.script("out.sh", OUT_SH);
    p.run(&["run", TODAY]).code(1);
    let got = assert_alike(&p, 1);
    got[0].1.stdout_has("no URL");
}

/// Row 2: the README's own combination, on its first morning: the dry run says the thread
/// waits for the site's copy and goes after it, and exits as the run does.
#[test]
fn a_thread_that_links_to_the_site_previews_as_the_run_sends_it() {
    let masto = FakeMastodon::start(120);
    let config = format!(
        "{SITE}{}",
        masto.config("long = \"thread\"\nsettle_secs = 0\ntemplate = \"{{ title }} {{ body }} {{ copies.site.url }}\"")
    );
    let p = project(&config);
    p.file(
        &format!("content/{KEY}.md"),
        format!(
            "{POST}\n{}\n",
            "A sentence that makes the post long. ".repeat(12)
        ),
    );
    let dry = p.run(&["run", TODAY, "--dry-run"]);
    dry.code(0)
        .stdout_has(&format!(
            "{KEY} masto note the text links to site's copy, not there yet"
        ))
        .stdout_has("a thread of");
    assert!(!dry.stdout.contains("failed"), "{}", dry.stdout);
    p.run(&["run", TODAY]).code(0);
    assert!(masto.statuses().len() > 1);
}

/// Row 3: a refused token, then the token file renewed: every one of the three says the key
/// goes out again.
#[test]
fn a_renewed_token_exits_alike() {
    let masto = FakeMastodon::start(500);
    let p = project(&masto.config("retries = 0"));
    p.secret("secrets/masto.token", "an-old-token\n");
    p.run(&["run", TODAY]).code(3);
    assert_alike(&p, 3);
    p.secret("secrets/masto.token", TOKEN);
    // `status` first, the dry run, then the run that sends it.
    assert_alike(&p, 0);
    assert_eq!(masto.statuses().len(), 1);
}

/// Publish on `sky`, lose its state file, run again: the copies are found before sending,
/// said and counted as dedup, and nothing is sent again.
fn found_again(p: &Project, api: &FakeBluesky) {
    p.run(&["run", TODAY]).code(0);
    let records = api.records().len();
    std::fs::remove_file(p.path("state/sky.state")).unwrap();
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} sky already there"))
        .stdout_has("1 already there");
    assert_eq!(api.records().len(), records);
    let status = p.run(&["status", TODAY, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let dedup = &json["targets"][0]["counts"]["dedup"];
    assert_eq!(dedup, 1, "{}", status.stdout);
}

/// Row 6: Bluesky finds the post at its record key before sending (the state file was lost):
/// said and counted as http says it.
#[test]
fn bluesky_finding_the_post_before_sending_says_already_there() {
    let api = FakeBluesky::start();
    found_again(&project(&api.config("sky", "")), &api);
    assert_eq!(api.records().len(), 1);
}

/// Row 6, a thread: its parts found before sending are said and counted the same way (it said
/// "published" and counted no dedup).
#[test]
fn a_bluesky_thread_found_before_sending_says_already_there() {
    let api = FakeBluesky::start();
    let p = project(&api.config("sky", "long = \"thread\"\nsettle_secs = 0"));
    p.file(
        &format!("content/{KEY}.md"),
        format!(
            "{POST}\n{}\n",
            "A sentence that makes the post long. ".repeat(12)
        ),
    );
    found_again(&p, &api);
    assert!(api.records().len() > 1);
}

/// Found by review: a due post whose image is missing fails the run's read (exit 1); `status`
/// read the post without its images and said 0.
#[test]
fn a_due_post_with_a_missing_image_exits_alike() {
    let p = project(SITE);
    p.file(
        &format!("content/{KEY}.md"),
        format!("{POST}\n![A picture](images/gone.png)\n"),
    );
    let got = assert_alike(&p, 1);
    got[0].1.stdout_has("due");
}
