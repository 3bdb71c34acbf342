//! Row 12: an id beyond 2^53 (or beyond 2^64) that a server writes as a JSON number is kept as
//! the server wrote it, on every kind that reads a server's id.

use crate::fake_server::{Reply, Server};
use crate::hostile::{TODAY, http_project, table};
use crate::util::Project;

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
