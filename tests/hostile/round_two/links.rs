//! Rows 9 and 13: a `links_file` that names one of dayrun's own files, a post or a folder, and
//! a server that answers with a URL no site should link to.

use crate::fakes::fake_server::{Reply, Server};
use crate::hostile::round_one::{TODAY, http_project, table};
use crate::support::util::Project;
use serde_json::json;

#[test]
fn row9_a_links_file_among_dayruns_own_files_is_a_config_error_before_anything_runs() {
    let rows = [
        ("the state file", "state/outbox.state"),
        ("the journal", "state/outbox.journal"),
        ("a new file in state/", "state/links.json"),
        ("the config", "dayrun.toml"),
        ("a post", "content/2026-11-28.md"),
        ("a new file in content/", "content/links.json"),
        ("the state file, by a detour", "data/../state/outbox.state"),
    ];
    table(rows.map(|(what, file)| (what.to_string(), file)), |file| {
        let p = Project::new();
        p.file("dayrun.toml", format!("links_file = \"{file}\"\n"));
        p.post("2026-11-28", "Yesterday")
            .post("2026-11-29", "Today");
        let state = "2026-11-28 done 2026-11-28T07:00:00+00:00 id=outbox/2026-11-28.html\n";
        p.file("state/outbox.state", state);
        let before = p.tree(&[]);
        for args in [
            &["run", TODAY][..],
            &["run", "--dry-run", TODAY],
            &["check"],
        ] {
            let out = p.run(args);
            out.code(2).stderr_has("links_file").stderr_has(file);
        }
        assert_eq!(p.tree(&[]), before, "{file}: something changed");
    });
}

#[test]
fn row9_a_links_file_that_cannot_be_written_fails_the_run() {
    let p = Project::new();
    p.file("dayrun.toml", "links_file = \"data\"\n");
    p.file("data/keep.txt", "a folder of the user's\n");
    p.post("2026-11-29", "Today");
    let out = p.run(&["run", TODAY]);
    assert_ne!(out.code, 0, "a links file that was not written\n{out:?}");
    out.stdout_has("2026-11-29 outbox published")
        .stderr_has("data")
        .stderr_has("links file");
    assert_eq!(p.read("data/keep.txt"), "a folder of the user's\n");
}

#[test]
fn row13_only_web_urls_are_recorded_as_a_copys_url() {
    let rows = [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "//evil.example/p-1",
        "vbscript:msgbox(1)",
    ];
    table(rows.map(|url| (url.to_string(), url)), |url| {
        let server = Server::start(move |_| Reply::json(201, json!({"id": "p-1", "url": url})));
        let p = http_project(&server, "dedup = false");
        let toml = p.read("dayrun.toml");
        p.file(
            "dayrun.toml",
            format!("links_file = \"data/links.json\"\n{toml}"),
        );
        let out = p.run(&["run", TODAY]);
        out.code(0).stdout_has("2026-11-29 blog published id=p-1");
        let links: serde_json::Value = serde_json::from_str(&p.read("data/links.json")).unwrap();
        assert_eq!(links["2026-11-29"]["blog"], json!({"id": "p-1"}), "{url}");
        let line = &p.state_lines("blog")[0];
        assert!(!line.contains("url="), "{url}: {line}");
        let status = p.run(&["status", "--json", TODAY]);
        let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
        assert_eq!(status["targets"][0]["keys"][0]["url"], json!(null), "{url}");
    });
    // An https URL is kept, as the server wrote it.
    let server = Server::start(|_| {
        Reply::json(201, json!({"id": "p-1", "url": "HTTPS://example.test/p-1"}))
    });
    let p = http_project(&server, "dedup = false");
    p.run(&["run", TODAY]).code(0);
    assert!(p.state_lines("blog")[0].contains("url=HTTPS://example.test/p-1"));
}

#[test]
fn row13_a_url_already_recorded_that_is_not_a_web_url_stays_out_of_the_links_file() {
    let p = Project::new();
    p.file("dayrun.toml", "links_file = \"data/links.json\"\n");
    p.post("2026-11-28", "Yesterday")
        .post("2026-11-29", "Today");
    p.file(
        "state/outbox.state",
        "2026-11-28 done 2026-11-28T07:00:00+00:00 id=x-1 url=javascript:alert(1)\n",
    );
    p.run(&["run", TODAY]).code(0);
    let links: serde_json::Value = serde_json::from_str(&p.read("data/links.json")).unwrap();
    assert_eq!(links["2026-11-28"]["outbox"], json!({"id": "x-1"}));
}
