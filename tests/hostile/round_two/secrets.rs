//! Rows 6 and 7: a server echoes the bearer token in a form the first round did not know, and
//! a script prints another target's credential. No form of any secret dayrun loaded in the run
//! may be printed or stored, whichever target it belongs to.

use crate::fakes::fake_server::{Reply, Server};
use crate::hostile::round_one::{
    TODAY, assert_no_leak, forms_and_parts, http_project, table, url_encode,
};
use crate::support::util::{Project, base64};
use serde_json::json;

/// A token with characters that every encoder escapes (`/`, `+`, `=`).
pub const TOKEN: &str = "tok/Qx7+vM2=kP9wL4zR";

/// Every character as a JSON `\u` escape, lower-case hex (what some encoders write for all of
/// it, and others for the characters they consider unsafe).
fn json_unicode(s: &str) -> String {
    s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

/// The forms a server or library produces, beyond the first round's: each row is one echo.
fn echoes() -> Vec<(String, String)> {
    let bearer = format!("Bearer {TOKEN}");
    let (head, tail) = TOKEN.split_at(9);
    vec![
        ("split by a line break".into(), format!("{head}\n{tail}")),
        (
            "split by CRLF and an indent".into(),
            format!("{head}\r\n    {tail}"),
        ),
        ("JSON \\u escapes".into(), json_unicode(TOKEN)),
        (
            "percent-encoded in lower case".into(),
            url_encode(TOKEN, false)
                .replace("%2F", "%2f")
                .replace("%2B", "%2b")
                .replace("%3D", "%3d"),
        ),
        (
            "base64 of `Bearer <token>`".into(),
            base64(bearer.as_bytes(), false, true),
        ),
        (
            "base64url of `Bearer <token>`".into(),
            base64(bearer.as_bytes(), true, false),
        ),
        (
            "base64 of `Authorization: Bearer <token>`".into(),
            base64(format!("Authorization: {bearer}").as_bytes(), false, true),
        ),
        (
            "base64 of `user:<token>`".into(),
            base64(format!("user:{TOKEN}").as_bytes(), false, true),
        ),
        (
            "base64 wrapped at 8 characters".into(),
            base64(bearer.as_bytes(), false, true)
                .as_bytes()
                .chunks(8)
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    ]
}

#[test]
fn row6_every_form_a_server_echoes_the_bearer_token_in_is_redacted() {
    table(echoes(), |echo| {
        let body = json!({"error": format!("token {echo} is not valid here")}).to_string();
        // The JSON encoder escapes the line breaks as `\n`; send them raw as well.
        let raw = format!("{{\"error\":\"token {echo} is not valid here\"}}");
        for body in [body, raw] {
            let server = Server::start(move |_| Reply::raw(422, "application/json", body.clone()));
            let p = http_project(
                &server,
                "token_file = \"secrets/blog.token\"\ndedup = false",
            );
            p.secret("secrets/blog.token", format!("{TOKEN}\n"));
            let out = p.run(&["run", TODAY]);
            out.code(1)
                .stdout_has("2026-11-29 blog failed (rejected): POST: HTTP 422")
                .stdout_has("is not valid here");
            let mut forms = forms_and_parts("token", TOKEN);
            forms.push(("the echo".into(), echo.clone()));
            assert_no_leak(&p, &[("run", &out)], &forms);
            // A form cut by line breaks is found with the breaks taken out.
            let squeezed: String = echo.split_whitespace().collect();
            for (place, text) in crate::hostile::round_one::state_files(&p)
                .into_iter()
                .chain([("stdout".to_string(), out.stdout.clone())])
            {
                let text: String = text.split_whitespace().collect();
                let text = text.replace("\\n", "").replace("\\r", "");
                assert!(
                    !text.contains(&squeezed),
                    "the echo, unwrapped, in {place}: {text}"
                );
            }
        }
    });
}

#[test]
fn row7_a_script_printing_another_targets_token_leaks_nothing() {
    let server = Server::start(|_| Reply::json(201, json!({"id": "p-1"})));
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "[targets.blog]\nkind = \"http\"\nurl = \"{}\"\ntoken_file = \"secrets/blog.token\"\ndedup = false\n\n\
             [targets.cmd]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\nbackoff_secs = 0.01\ndedup = false\n",
            server.url("/posts")
        ),
    );
    p.secret("secrets/blog.token", format!("{TOKEN}\n"));
    p.script(
        "scripts/publish.sh",
        "#!/bin/sh\ncat > /dev/null\necho \"read $(cat secrets/blog.token)\"\necho \"stole $(cat secrets/blog.token)\" >&2\nexit 65\n",
    );
    p.post("2026-11-29", "Today");
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("2026-11-29 blog published id=p-1")
        .stdout_has("2026-11-29 cmd failed (rejected): exited 65")
        .stdout_has("stole ***");
    assert!(p.read("state/cmd.log").contains("stole ***"));
    assert_no_leak(&p, &[("run", &out)], &forms_and_parts("token", TOKEN));
}
