//! What the drill refuses before anything is sent, each saying why; and a drill key's name
//! kept from real posts.

use super::drill;
use crate::fakes::fake_posts::PostsApi;
use crate::support::util::Project;

#[test]
fn kinds_it_cannot_clean_up_after_and_targets_without_a_lookup_are_refused_unsent() {
    let api = PostsApi::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "[targets.out]\nkind = \"folder\"\ndir = \"outbox\"\n\n[targets.dev]\nkind = \"devto\"\napi_key_file = \"secrets/devto.key\"\n\n[targets.relay]\nkind = \"nostr\"\nsecret_key_file = \"secrets/nostr.key\"\nrelays = [\"ws://127.0.0.1:9\"]\n\n{}\n{}",
            api.config("nolist", &api.delete_url()).replace(&format!("list_url = \"{}\"\n", api.server.url("/posts")), ""),
            api.config("nodelete", "list_complete = true"),
        ),
    );
    p.secret("secrets/devto.key", "k");
    p.secret("secrets/nostr.key", format!("{}\n", "1".repeat(64)));
    for (target, why) in [
        ("out", "a folder target has nothing to remove"),
        ("dev", "dev.to can only unpublish a post, never delete it"),
        (
            "relay",
            "Nostr speaks WebSocket: a drill here would meet no fault",
        ),
        (
            "nolist",
            "without a lookup cannot tell whether a post whose answer was lost is there",
        ),
        (
            "nodelete",
            "the drill removes its posts, and this target cannot",
        ),
    ] {
        drill(&p, target, &[])
            .code(2)
            .stderr_has(why)
            .stderr_has("nothing was sent");
    }
    p.run(&["drill", "--target", "nope", "--yes"])
        .code(2)
        .stderr_has("no target named `nope`");
    assert_eq!(api.server.request_count(), 0, "nothing was sent");
    assert!(!p.exists("state/drill"), "no drill folder made");
}

#[test]
fn without_yes_and_without_a_terminal_it_refuses() {
    let api = PostsApi::start();
    let p = super::http_project(&api, "");
    p.run(&["drill", "--target", "blog"])
        .code(2)
        .stderr_has("add --yes to confirm (stdin is not a terminal");
    assert_eq!(api.server.request_count(), 0);
    for (flag, value, why) in [
        ("--loss", "120%", "from 0% to 100%"),
        ("--delay", "soon", "give seconds"),
        ("--rounds", "0", "give 1 to 100"),
    ] {
        drill(&p, "blog", &[flag, value]).code(2).stderr_has(why);
    }
}

/// The drill's state lives apart, out of git (`state/drill/.gitignore`), and the project's
/// lock is taken: a drill while a run holds it does nothing.
#[test]
fn the_drill_keeps_its_state_apart_and_takes_the_projects_lock() {
    let api = PostsApi::start();
    let p = super::http_project(&api, "");
    drill(&p, "blog", &["--rounds", "1", "--loss", "0%"]).code(0);
    assert_eq!(p.read("state/drill/.gitignore").lines().last(), Some("*"));
    assert!(p.exists("state/drill/blog/state/blog.state"));
    assert!(
        !p.exists("state/blog.state"),
        "the project's state untouched"
    );
    let held = std::fs::File::open(p.path("state")).unwrap();
    held.try_lock().unwrap();
    drill(&p, "blog", &["--rounds", "1", "--loss", "0%"]).code(75);
    drop(held);
}

/// A content file named as a drill's post is refused, naming the file: the name is kept for
/// `dayrun drill`, so no real key is ever a drill's.
#[test]
fn a_post_named_as_a_drills_is_refused() {
    let p = Project::new();
    p.file(
        "content/2026-11-29--drill-7f3a-01.md",
        "# Sneaky\n\nText.\n",
    );
    p.file(
        "dayrun.toml",
        "keys = [\"date\", \"slug\"]\n[targets.out]\nkind = \"folder\"\ndir = \"outbox\"\n",
    );
    let out = p.run(&["run", "--today=2026-11-29"]);
    out.code(1)
        .stdout_has("content/2026-11-29--drill-7f3a-01.md")
        .stdout_has("is a name kept for `dayrun drill`");
    assert!(!p.exists("outbox/2026-11-29--drill-7f3a-01.md"));
}
