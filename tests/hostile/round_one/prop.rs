//! The redaction property through the binary: a 422 body that carries a random token in
//! random forms at random places never leaks any form of it (16 cases, each runs dayrun; the
//! 256-case property against the library is in redact.rs). The strategies are shared.

use super::{
    TODAY, assert_no_leak, base64, forms_and_parts, http_project, json_escape, url_encode,
};
use crate::fakes::fake_server::{Reply, Server};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A secret of 8–40 printable characters; some grouped by single spaces like a WordPress
/// application password (without its spaces it is still 8 characters or more).
pub fn secret() -> impl Strategy<Value = String> {
    prop_oneof!["[!-~]{8,40}", "[!-~]{4}( [!-~]{4}){1,5}"]
}

/// Text around the secret: words, punctuation, JSON-ish characters, non-ASCII.
pub fn filler() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.:;{}\"'=éü—-]{0,60}"
}

/// How many forms `encode` knows.
pub const ENCODINGS: usize = 8;

/// The secret in form `how`: raw, JSON-escaped (with `\/` or without), URL-encoded (`%20` or
/// `+`), base64 (standard padded, URL-safe unpadded), or without its spaces.
pub fn encode(secret: &str, how: usize) -> String {
    match how {
        0 => secret.to_string(),
        1 => json_escape(secret, true),
        2 => json_escape(secret, false),
        3 => url_encode(secret, false),
        4 => url_encode(secret, true),
        5 => base64(secret.as_bytes(), false, true),
        6 => base64(secret.as_bytes(), true, false),
        _ => secret.replace(' ', ""),
    }
}

/// Filler, then the secret in one form, and so on, then a last filler.
pub fn body(secret: &str, pieces: &[(usize, String)], tail: &str) -> String {
    let mut text = String::new();
    for (how, filler) in pieces {
        text.push_str(filler);
        text.push_str(&encode(secret, *how));
    }
    text.push_str(tail);
    text
}

proptest! {
    #![proptest_config(Config {
        cases: 16,
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn prop_no_form_of_a_token_in_a_422_body_is_printed_or_stored(
        token in secret(),
        pieces in prop::collection::vec((0..ENCODINGS, filler()), 1..5),
        tail in filler(),
    ) {
        let text = body(&token, &pieces, &tail);
        let server = Server::start(move |_| Reply::raw(422, "application/json", text.clone()));
        let p = http_project(&server, "token_file = \"secrets/blog.token\"\ndedup = false");
        p.secret("secrets/blog.token", format!("{token}\n"));
        let out = p.run(&["run", TODAY]);
        out.code(1).stdout_has("2026-11-29 blog failed (rejected): POST: HTTP 422");
        assert_no_leak(&p, &[("run", &out)], &forms_and_parts("token", &token));
    }
}
