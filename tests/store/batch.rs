//! Group commit seen from outside: a key that cannot be written in a batch goes on alone, with
//! the ordinary retries and failure class, and the others of its batch are published.

use crate::support::util::Project;

#[test]
fn a_key_that_fails_in_a_batch_goes_on_alone_and_the_others_are_published() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\nretries = 1\nbackoff_secs = 0.01\n",
    );
    for key in ["2026-01-01", "2026-01-02", "2026-01-03"] {
        p.post(key, &format!("Post {key}"));
    }
    // A folder where the page should go: its rename fails, in the batch and alone.
    std::fs::create_dir_all(p.path("outbox/2026-01-02.html/blocked")).unwrap();
    let out = p.run(&["run", "--backfill", "--today=2026-11-29"]);
    out.code(75)
        .stdout_has("2026-01-01 outbox published")
        .stdout_has("2026-01-03 outbox published")
        .stdout_has("2026-01-02 outbox failed (retry-safe)");
    assert_eq!(
        p.statuses("outbox"),
        ["2026-01-01 done", "2026-01-02 failed", "2026-01-03 done"]
    );
    let trace = p.read("state/outbox.log");
    assert!(
        trace.contains("2026-01-02 publish retry-safe")
            && trace.contains("in a batch; sending it alone"),
        "{trace}"
    );
    assert!(
        !std::fs::read_dir(p.path("outbox")).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp")),
        "a temp was left behind"
    );
    // Fixed: the next run publishes it, once.
    std::fs::remove_dir_all(p.path("outbox/2026-01-02.html")).unwrap();
    p.run(&["run", "--backfill", "--today=2026-11-29"])
        .code(0)
        .stdout_has("outbox: 1 published, 2 done");
}
