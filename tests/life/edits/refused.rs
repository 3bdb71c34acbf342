//! Issue 29 row 4: a refused edit is a standing fact, not a one-morning message. A thread edit
//! that splits into another part count keeps every run, the dry run and `status` at exit 1,
//! with the advice, until the post changes again, `retry --force` sends it, or `mark KEY done`
//! accepts the copy as it is.

use crate::content::threads::{KEY, TODAY, long_body, write_post};
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::support::util::Project;

const PUT: &str = "com.atproto.repo.putRecord";
const TITLE: &str = "Why the date is the key";

fn sky() -> (FakeBluesky, Project) {
    let api = FakeBluesky::start();
    let p = Project::new();
    let extra = "long = \"thread\"\nlink = \"https://blog.test/{key}\"\non_edit = \"update\"";
    p.file("dayrun.toml", api.config("sky", extra));
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    write_post(&p, TITLE, &long_body());
    (api, p)
}

/// `status --json`'s row for KEY.
fn row(p: &Project) -> serde_json::Value {
    let out = p.run(&["status", "--json", TODAY]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect(&out.stdout);
    let keys = json["targets"][0]["keys"].as_array().unwrap().clone();
    keys.into_iter().find(|r| r["key"] == KEY).expect("a row")
}

#[test]
fn issue_29_a_refused_thread_edit_keeps_every_run_at_1_until_a_person_acts() {
    let (api, p) = sky();
    p.run(&["run", TODAY]).code(0).stdout_has("sky published");
    write_post(&p, TITLE, "Short now.");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("splits into 1 parts and the thread has");
    let puts = api.count(PUT);

    // Every later run says so again, with what to do, and sends nothing.
    for args in [&["run", TODAY][..], &["run", TODAY, "--dry-run"]] {
        p.run(args)
            .code(1)
            .stdout_has(&format!("{KEY} sky edit failed"))
            .stdout_has("splits into 1 parts")
            .stdout_has(&format!("`dayrun retract {KEY} --yes --target sky`"))
            .stdout_has(&format!("`dayrun mark {KEY} done --target sky`"));
    }
    assert_eq!(api.count(PUT), puts, "a refused edit was sent again");
    p.run(&["status", TODAY])
        .code(1)
        .stdout_has("EDIT FAILED")
        .stdout_has("splits into 1 parts");
    let shown = row(&p);
    assert_eq!(shown["edit_failed"], true, "{shown}");
    assert_eq!(shown["exit"], 1, "{shown}");
    let reason = shown["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("dayrun retract"), "{shown}");

    // The post changes again (as many parts as the thread): sent, and the alert is over.
    write_post(&p, TITLE, &long_body().replace("decides", "chooses"));
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    assert_eq!(row(&p)["edit_failed"], false);
    p.run(&["status", TODAY]).code(0);

    // Refused again; `mark KEY done` accepts the copy as it is: quiet, nothing sent.
    write_post(&p, TITLE, "Short again.");
    p.run(&["run", TODAY]).code(1);
    p.run(&["mark", KEY, "done", "--target", "sky"]).code(0);
    let puts = api.count(PUT);
    p.run(&["run", TODAY]).code(0);
    p.run(&["status", TODAY]).code(0);
    assert_eq!(row(&p)["edit_failed"], false);
    assert_eq!(api.count(PUT), puts, "an accepted copy was edited");
}
