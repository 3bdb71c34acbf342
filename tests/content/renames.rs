//! Issue 32: a renamed post is never a second copy in silence. With slugged keys, a new key
//! whose post has the text of a key whose file is gone and whose copy is out is not sent: the
//! run fails it (rejected, exit 1) naming both keys, as its dry run and `status` say, until a
//! person says which it is (`retry` publishes it as a new post). A date project is unchanged.

use crate::support::util::Project;

const NOW: &str = "2026-12-01T09:00:00Z";
const LATER: &str = "2026-12-01T10:00:00Z";
const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";
const TEXT: &str = "# A title\n\nThe words of the post.\n";

fn project(keys: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", format!("timezone = \"UTC\"\n{keys}{FOLDER}"));
    p
}

fn rename(p: &Project, from: &str, to: &str) {
    std::fs::rename(p.path(from), p.path(to)).unwrap();
}

#[test]
fn a_renamed_post_is_not_sent_again_and_the_run_says_from_what() {
    let p = project("keys = [\"date\", \"slug\"]\n");
    p.file("content/2026-12-01-first-name.md", TEXT);
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    rename(
        &p,
        "content/2026-12-01-first-name.md",
        "content/2026-12-01-better-name.md",
    );
    let said = "not sent: its text is 2026-12-01-first-name's, whose file is gone and whose copy is out here: renamed from 2026-12-01-first-name?";
    p.run_at(LATER, &["run", "--dry-run"])
        .code(1)
        .stdout_has(&format!(
            "2026-12-01-better-name out would fail (local) ({said}"
        ));
    p.run_at(LATER, &["status"]).code(1);
    p.run_at(LATER, &["run"])
        .code(1)
        .stdout_has(&format!(
            "2026-12-01-better-name out failed (rejected): {said}"
        ))
        .stdout_has("`dayrun mark 2026-12-01-better-name done --id ID --target out`")
        .stdout_has("`dayrun retry 2026-12-01-better-name --target out` publishes it");
    assert!(
        !p.exists("out/2026-12-01-better-name.html"),
        "no second copy"
    );
    // It stays so, run after run, until a person acts.
    p.run_at(LATER, &["run"]).code(1);
    assert!(!p.exists("out/2026-12-01-better-name.html"));
    // A person's word that it is a new post: published beside the first.
    p.run_at(LATER, &["retry", "2026-12-01-better-name"])
        .code(0);
    assert!(p.exists("out/2026-12-01-better-name.html"));
    p.run_at(LATER, &["run"]).code(0);
}

#[test]
fn a_new_post_of_other_words_beside_a_gone_one_is_sent() {
    let p = project("keys = [\"date\", \"slug\"]\n");
    p.file("content/2026-12-01-first-name.md", TEXT);
    p.run_at(NOW, &["run"]).code(0);
    std::fs::remove_file(p.path("content/2026-12-01-first-name.md")).unwrap();
    p.file("content/2026-12-01-other.md", "# Another\n\nOther words.\n");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn a_date_project_publishes_a_renamed_post_as_it_did() {
    let p = project("");
    p.file("content/2026-12-01.md", TEXT);
    p.run_at(NOW, &["run"]).code(0);
    rename(&p, "content/2026-12-01.md", "content/2026-11-30.md");
    p.run_at(LATER, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
    assert!(p.exists("out/2026-11-30.html") && p.exists("out/2026-12-01.html"));
}

#[test]
fn a_retry_of_a_renamed_post_is_the_persons_word_and_publishes_it() {
    let p = project("keys = [\"date\", \"slug\"]\n");
    p.file("content/2026-12-01-first-name.md", TEXT);
    p.run_at(NOW, &["run"]).code(0);
    rename(
        &p,
        "content/2026-12-01-first-name.md",
        "content/2026-12-01-better-name.md",
    );
    p.run_at(LATER, &["retry", "2026-12-01-better-name"])
        .code(0)
        .stdout_has("2026-12-01-better-name out published");
}
