//! Per-target templates (issue 24) through the real binary: the text a template makes on
//! Bluesky, Mastodon, a command's payload and a WordPress title; a POSSE chain where the social
//! copies link to the site's copy, sent in dependency order; a key that waits (and says for
//! what) while the copy it links to is not there, and fails when it can never come; template
//! errors named by file, line and column; cycles refused; `--dry-run` showing the text.

use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::Project;

const TODAY: &str = "--today=2026-11-29";
const KEY: &str = "2026-11-29";
const CREATE: &str = "com.atproto.repo.createRecord";
const POST: &str = "---\ntags: [rust, ops]\n---\n# Why the date is the key\n\nOne key per day.\n";

/// A folder target `site` served at https://blog.test/posts.
const SITE: &str =
    "[targets.site]\nkind = \"folder\"\ndir = \"public\"\nurl = \"https://blog.test/posts/\"\n";

fn project(config: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", config);
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p.secret("secrets/masto.token", TOKEN);
    p.secret("secrets/wp.password", PASSWORD);
    p.file(&format!("content/{KEY}.md"), POST);
    p
}

/// The WordPress site first, Mastodon linking to its copy.
fn wp_then_masto(wp: &FakeWordPress, masto: &FakeMastodon) -> Project {
    // Mastodon's table comes first: the order of the run is the templates', not the file's.
    let config = format!(
        "{}{}",
        masto.config("template = \"{{ title }}\\n\\n{{ copies.wp.url }}\"\nretries = 0"),
        wp.config("retries = 0\nsettle_secs = 0")
    );
    project(&config)
}

#[test]
fn posse_the_site_goes_first_and_bluesky_links_to_its_copy() {
    let api = FakeBluesky::start();
    // `bsky` comes before `site` in the file and by name; its template links to the folder's
    // copy, so the run visits `site` first.
    let config = format!(
        "{}{SITE}",
        api.config(
            "bsky",
            "template = \"{{ title }} {{ hashtags | join(' ') }}\\n{{ copies.site.url }}\""
        )
    );
    let p = project(&config);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let site = out.stdout.find(&format!("{KEY} site published")).unwrap();
    let sky = out.stdout.find(&format!("{KEY} bsky published")).unwrap();
    assert!(site < sky, "{}", out.stdout);
    assert!(
        p.read("state/site.state")
            .contains("url=https://blog.test/posts/2026-11-29.html")
    );
    let records = api.records();
    assert_eq!(records.len(), 1);
    let text = "Why the date is the key #rust #ops\nhttps://blog.test/posts/2026-11-29.html";
    assert_eq!(records[0].text(), text);
    // The link and hashtags in a template's text are clickable: facets at their byte ranges.
    let facets = records[0].value["facets"].as_array().unwrap().clone();
    let covered: Vec<&str> = facets
        .iter()
        .map(|f| {
            let (s, e) = (
                f["index"]["byteStart"].as_u64().unwrap() as usize,
                f["index"]["byteEnd"].as_u64().unwrap() as usize,
            );
            &text[s..e]
        })
        .collect();
    assert_eq!(
        covered,
        ["#rust", "#ops", "https://blog.test/posts/2026-11-29.html"]
    );
    // Again: nothing is sent twice.
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.count(CREATE), 1);
}

#[test]
fn a_key_waits_while_the_copy_it_links_to_is_not_there_and_goes_when_it_is() {
    let wp = FakeWordPress::start();
    let masto = FakeMastodon::start(500);
    wp.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(503));
    let p = wp_then_masto(&wp, &masto);
    let out = p.run(&["run", TODAY]);
    out.code(75).stdout_has(&format!(
        "{KEY} masto waiting waits for wp's copy (wp failed (unknown: looked up"
    ));
    out.stdout_has(
        "and retries by itself): the text links to it; the next run sends it once it is there",
    );
    assert!(masto.statuses().is_empty(), "sent with the link missing");
    assert!(p.read("state/masto.state").contains("failed"));
    // The site answers now: both go, the status with the copy's real URL.
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has(&format!("{KEY} masto published"));
    let link = wp.posts()[0]["link"].as_str().unwrap().to_string();
    let sent = masto.state.lock().unwrap().sent_texts.clone();
    assert_eq!(sent, [format!("Why the date is the key\n\n{link}")]);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(masto.statuses().len(), 1);
}

#[test]
fn a_copy_that_can_never_come_fails_the_key_and_says_why() {
    let wp = FakeWordPress::start();
    let masto = FakeMastodon::start(500);
    wp.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(400));
    let p = wp_then_masto(&wp, &masto);
    for _ in 0..2 {
        let out = p.run(&["run", TODAY]);
        out.code(1).stdout_has(&format!(
            "{KEY} masto failed (local): not sent: the text links to a copy that will not come by itself: wp failed (rejected"
        ));
        out.stdout_has("once wp has it, the next run sends this one");
    }
    assert!(masto.statuses().is_empty(), "sent with the link missing");
    assert_eq!(masto.state.lock().unwrap().post_requests, 0);
}

#[test]
fn a_linked_target_left_out_of_the_run_is_read_not_run() {
    let wp = FakeWordPress::start();
    let masto = FakeMastodon::start(500);
    let p = wp_then_masto(&wp, &masto);
    // Only Mastodon runs: WordPress has no copy yet, so it waits; WordPress is not touched.
    p.run(&["run", TODAY, "--target", "masto"])
        .code(75)
        .stdout_has(&format!(
            "{KEY} masto waiting waits for wp's copy (wp has not published it yet)"
        ));
    assert!(wp.posts().is_empty() && masto.statuses().is_empty());
    p.run(&["run", TODAY, "--target", "wp"]).code(0);
    p.run(&["run", TODAY, "--target", "masto"])
        .code(0)
        .stdout_has(&format!("{KEY} masto published"));
    let link = wp.posts()[0]["link"].as_str().unwrap().to_string();
    assert!(masto.state.lock().unwrap().sent_texts[0].ends_with(&link));
}

#[test]
fn dry_run_shows_the_text_and_what_it_waits_for() {
    let api = FakeBluesky::start();
    let config = format!(
        "{SITE}{}",
        api.config("sky", "template = \"{{ title }} {{ copies.site.url }}\"")
    );
    let p = project(&config);
    let out = p.run(&["run", TODAY, "--dry-run"]);
    out.code(0)
        .stdout_has(&format!("{KEY} sky note the text links to site's copy, not there yet (site has not published it yet): sent once it is"))
        .stdout_has(&format!(
            "{KEY} sky text (36 graphemes before fitting) \"Why the date is the key <site's url>\""
        ));
    assert!(!p.exists("state/sky.state") && api.records().is_empty());
    p.run(&["run", TODAY, "--target", "site"]).code(0);
    p.run(&["run", TODAY, "--dry-run"]).code(0).stdout_has(&format!(
        "{KEY} sky text (63 graphemes before fitting) \"Why the date is the key https://blog.test/posts/2026-11-29.html\""
    ));
}

#[test]
fn a_command_payload_gains_text_and_a_wordpress_title_comes_from_its_template() {
    let wp = FakeWordPress::start();
    let config = format!(
        "[targets.script]\nkind = \"command\"\nrun = [\"./publish.sh\"]\ntemplate = \"{{{{ title }}}}: {{{{ copies.wp.url }}}}\"\n{}",
        wp.config("template = \"{{ date }} · {{ title | upper }}\"")
    );
    let p = project(&config);
    p.script(
        "publish.sh",
        "#!/bin/sh\ncat > input.json\necho '{\"id\":\"s1\"}'\n",
    );
    p.run(&["run", TODAY]).code(0);
    let posts = wp.posts();
    assert_eq!(
        posts[0]["title"]["raw"]
            .as_str()
            .or(posts[0]["title"].as_str()),
        Some("2026-11-29 · WHY THE DATE IS THE KEY")
    );
    let input: serde_json::Value = serde_json::from_str(&p.read("input.json")).unwrap();
    let link = posts[0]["link"].as_str().unwrap();
    assert_eq!(input["text"], format!("Why the date is the key: {link}"));
    // The rest of the payload is as without a template.
    assert_eq!(input["title"], "Why the date is the key");
}

#[test]
fn template_errors_name_the_file_line_and_column() {
    let api = FakeBluesky::start();
    let cases = [
        // An unknown variable, in a template file: the file's own line.
        (
            "{{ title }}\n\n{{ sumary }}\n",
            "templates/sky.txt:3: [targets.sky] template_file, line 3, column 4: ",
        ),
        // A syntax error.
        (
            "{{ title }}\n{% if tags %}\n",
            "templates/sky.txt:2: [targets.sky] template_file, line 2",
        ),
        // A copy of a target that does not exist.
        (
            "{{ title }} {{ copies.blog.url }}\n",
            "templates/sky.txt:1: [targets.sky] template_file, line 1, column ",
        ),
    ];
    for (template, want) in cases {
        let p = project(&api.config("sky", "template_file = \"templates/sky.txt\""));
        p.file("templates/sky.txt", template);
        p.run(&["check"]).code(2).stderr_has(want);
        p.run(&["run", TODAY]).code(2).stderr_has(want);
        assert!(api.records().is_empty());
    }
    // A template that compiles but fails on a post: `check` renders it and names both.
    let p = project(&api.config("sky", "template_file = \"templates/sky.txt\""));
    p.file("templates/sky.txt", "{{ title }}\n{{ tags[5] }}\n");
    p.run(&["check"])
        .code(1)
        .stderr_has("templates/sky.txt:2: [targets.sky] template_file, line 2, column 4: a value is undefined for this post (at `tags[5]`) (rendering content/2026-11-29.md)");
}

#[test]
fn a_cycle_between_templates_is_a_config_error() {
    let p = project(
        "[targets.a]\nkind = \"http\"\nurl = \"https://a.test/\"\ntemplate = \"{{ copies.b.url }}\"\n\
         [targets.b]\nkind = \"http\"\nurl = \"https://b.test/\"\ntemplate = \"{{ copies.a.id }}\"\n",
    );
    p.run(&["check"])
        .code(2)
        .stderr_has("dayrun.toml:4: the templates make a cycle: a → b → a");
    p.run(&["run", TODAY]).code(2);
    assert!(!p.exists("state/a.state"));
}

#[test]
fn adding_a_template_is_no_edit_and_changing_it_is_one_where_edits_go_out() {
    let wp = FakeWordPress::start();
    let p = project(&wp.config(""));
    // With an image: a post without one hashes as before images, which no template changes.
    p.file(
        "content/images/b.jpg",
        crate::support::image_gen::plain_jpeg(40, 30, [30, 30, 220]),
    );
    p.file(
        &format!("content/{KEY}.md"),
        format!("{POST}\n![A blue square](images/b.jpg)\n"),
    );
    p.run(&["run", TODAY]).code(0);
    // Upgrading: a template appears on a target whose copies are published. The copies
    // within edit_days are not all updated for it.
    p.file("dayrun.toml", wp.config("template = \"{{ title }}\""));
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.state.lock().unwrap().update_requests, 0);
    // A change of the template changes what would be sent: an edit, on a target that sends
    // edits (WordPress does, `on_edit = "update"`).
    p.file(
        "dayrun.toml",
        wp.config("template = \"{{ title }} ({{ date }})\""),
    );
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} wp updated"));
    assert_eq!(wp.state.lock().unwrap().update_requests, 1);
    let title = wp.posts()[0]["title"].clone();
    assert_eq!(
        title["raw"].as_str().or(title.as_str()),
        Some("Why the date is the key (2026-11-29)")
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(wp.state.lock().unwrap().update_requests, 1);
}
