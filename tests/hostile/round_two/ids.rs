//! Row 12: an id beyond 2^53 (or beyond 2^64) that a server writes as a JSON number is kept as
//! the server wrote it, on every kind that reads a server's id.

use crate::fakes::fake_server::{Reply, Server};
use crate::hostile::round_one::{TODAY, http_project, table};
use crate::support::util::Project;

const BIG: &str = "12345678901234567890123";

/// A server answering every request with `body` (201), and `instance` for Mastodon's limits.
fn answering(body: String) -> Server {
    Server::start(move |req| match req.path() {
        "/api/v2/instance" => Reply::raw(200, "application/json", "{}"),
        _ => Reply::raw(201, "application/json", body.clone()),
    })
}

/// `[targets.t]` of `kind` on `server`, with the credential it needs.
fn project(kind: &str, server: &Server) -> Project {
    let url = server.url("");
    let table = match kind {
        "wordpress" => {
            format!("url = \"{url}\"\nuser = \"editor\"\npassword_file = \"secrets/t.secret\"")
        }
        "devto" => format!("base_url = \"{url}\"\napi_key_file = \"secrets/t.secret\""),
        _ => format!("instance = \"{url}\"\ntoken_file = \"secrets/t.secret\""),
    };
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("[targets.t]\nkind = \"{kind}\"\n{table}\ntimeout_secs = 2\ndedup = false\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\n"),
    );
    p.secret("secrets/t.secret", "secret-value-1234\n");
    p.post("2026-11-29", "Today");
    p
}

#[test]
fn row12_an_id_beyond_two_to_the_53_keeps_the_servers_text() {
    let server = answering(format!(
        "{{\"id\": {BIG}, \"url\": \"https://example.test/1\"}}"
    ));
    let p = http_project(&server, "dedup = false");
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("2026-11-29 blog published id={BIG} "));
    assert!(p.state_lines("blog")[0].contains(&format!("id={BIG} ")));
    let rows = [
        (
            "wordpress",
            format!("{{\"id\": {BIG}, \"link\": \"https://example.test/1\"}}"),
        ),
        (
            "devto",
            format!("{{\"id\": {BIG}, \"url\": \"https://example.test/1\"}}"),
        ),
        (
            "mastodon",
            format!("{{\"id\": {BIG}, \"url\": \"https://example.test/1\"}}"),
        ),
    ];
    table(
        rows.map(|(kind, body)| (kind.to_string(), (kind, body))),
        |(kind, body)| {
            let server = answering(body);
            let p = project(kind, &server);
            let out = p.run(&["run", TODAY]);
            out.code(0)
                .stdout_has(&format!("2026-11-29 t published id={BIG} "));
            assert!(
                p.state_lines("t")[0].contains(&format!("id={BIG} ")),
                "{kind}: {:?}",
                p.state_lines("t")
            );
        },
    );
}

/// Row 8: a 201 with a 70,000-character id, and `mark --id` of 70,000 characters. No input can
/// make dayrun refuse its own state file.
#[test]
fn row08_an_id_too_long_for_a_line_is_not_a_receipt_and_the_state_stays_readable() {
    let long = "x".repeat(70_000);
    let body = format!(r#"{{"id": "{long}", "url": "https://example.test/1"}}"#);
    let server = answering(body);
    let p = http_project(&server, "dedup = false");
    let out = p.run(&["run", TODAY]);
    // Not written blind: the outcome is unknown (this endpoint has no lookup, so a person).
    out.code(1)
        .stdout_has("the receipt id is not usable (70000 bytes");
    let state = p.read("state/blog.state");
    assert!(
        state.len() < 8 * 1024,
        "the line holds the id: {} bytes",
        state.len()
    );
    // Every later command still reads the state file.
    p.run(&["status", TODAY]).code(1);
    p.run(&["run", TODAY]).code(1);
    // A person's `mark --id` is checked the same way, and refused before anything is written.
    p.run(&["mark", "2026-11-29", "done", "--id", &long])
        .code(2)
        .stderr_has("mark --id: the receipt id is not usable");
    let printable = "id\u{7}bell";
    p.run(&["mark", "2026-11-29", "done", "--id", printable])
        .code(2)
        .stderr_has("with control characters");
    assert_eq!(p.read("state/blog.state"), state);
    p.run(&["mark", "2026-11-29", "done", "--id", "p-1"])
        .code(0);
    p.run(&["run", TODAY]).code(0);
}
