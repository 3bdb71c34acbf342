//! S1, S2: a server echoes a credential in its error body, near the cut or in another form.
//! Every row: the post is rejected (exit 1) and no form of any secret is printed or stored.

use super::{TODAY, assert_no_leak, forms, forms_and_parts, http_project, pair_forms};
use crate::fakes::fake_server::{Reply, Server};
use crate::support::util::Project;

/// A server that answers every request with this 422 body.
fn rejecting(body: impl Into<Vec<u8>>) -> Server {
    let body: Vec<u8> = body.into();
    Server::start(move |_| Reply::raw(422, "application/json", body.clone()))
}

/// A `kind = "wordpress"` target `wp` on `server` with this Application Password.
fn wordpress_project(server: &Server, user: &str, password: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "[targets.wp]\nkind = \"wordpress\"\nurl = \"{}\"\nuser = \"{user}\"\npassword_file = \"secrets/wp.password\"\ntimeout_secs = 2\nconnect_timeout_secs = 1\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\ndedup = false\n",
            server.url("")
        ),
    );
    p.secret("secrets/wp.password", format!("{password}\n"));
    p.post("2026-11-29", "Today");
    p
}

#[test]
fn s1_a_token_echoed_near_the_cut_is_redacted_before_the_cut() {
    const TOKEN: &str = "Qx7tV2mK9pL4wR8sZ3n"; // 19 characters, starting at character 185
    let body = format!(
        "{{\"error\":\"{}Bearer {TOKEN} was refused\"}}",
        "x".repeat(185 - 10 - 7)
    );
    assert_eq!(body.find(TOKEN), Some(185));
    let server = rejecting(body);
    let p = http_project(
        &server,
        "token_file = \"secrets/blog.token\"\ndedup = false",
    );
    p.secret("secrets/blog.token", format!("{TOKEN}\n"));
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("2026-11-29 blog failed (rejected): POST: HTTP 422: {\"error\":\"xxxx");
    assert_eq!(server.request_count(), 1, "a 422 is not sent again");
    assert!(p.state_lines("blog")[0].contains("class=rejected"));
    assert_no_leak(&p, &[("run", &out)], &forms_and_parts("token", TOKEN));
    // Redacted, then cut: the marker is within the 200 characters shown.
    out.stdout_has("***");
}

#[test]
fn s2_a_json_escaped_token_is_redacted() {
    const TOKEN: &str = "tok/Qx7vM2kP9wL4/zz";
    let server =
        rejecting(r#"{"message":"token tok\/Qx7vM2kP9wL4\/zz is not valid for this site"}"#);
    let p = http_project(
        &server,
        "token_file = \"secrets/blog.token\"\ndedup = false",
    );
    p.secret("secrets/blog.token", format!("{TOKEN}\n"));
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("2026-11-29 blog failed (rejected): POST: HTTP 422: {\"message\":\"token ")
        .stdout_has("is not valid for this site");
    assert_no_leak(&p, &[("run", &out)], &forms_and_parts("token", TOKEN));
}

const WP_USER: &str = "editor";
const WP_PASSWORD: &str = "abcd EFGH ijkl MNOP qrst UVWX";

fn wordpress_forms() -> Vec<super::Form> {
    let mut all = forms_and_parts("app password", WP_PASSWORD);
    all.extend(pair_forms(WP_USER, WP_PASSWORD));
    all
}

#[test]
fn s2_the_base64_of_user_and_password_alone_is_redacted() {
    let pair = super::base64(format!("{WP_USER}:{WP_PASSWORD}").as_bytes(), false, true);
    let server = rejecting(format!(
        r#"{{"code":"rest_cannot_create","message":"header {pair} does not match any user","data":{{"status":422}}}}"#
    ));
    let p = wordpress_project(&server, WP_USER, WP_PASSWORD);
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("2026-11-29 wp failed (rejected): create post: HTTP 422")
        .stdout_has("does not match any user");
    assert!(p.state_lines("wp")[0].contains("class=rejected"));
    assert_no_leak(&p, &[("run", &out)], &wordpress_forms());
}

#[test]
fn s2_an_application_password_without_its_spaces_is_redacted() {
    let server = rejecting(format!(
        r#"{{"code":"rest_cannot_create","message":"application password {} is revoked","data":{{"status":422}}}}"#,
        WP_PASSWORD.replace(' ', "")
    ));
    let p = wordpress_project(&server, WP_USER, WP_PASSWORD);
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("2026-11-29 wp failed (rejected): create post: HTTP 422")
        .stdout_has("is revoked");
    assert_no_leak(&p, &[("run", &out)], &wordpress_forms());
}

#[test]
fn s2_a_part_of_a_cookie_value_is_redacted() {
    const COOKIE: &str = "session=Zk81PqR7tYw3Xc; csrftoken=Hn2Lx9Vb4Mc6Qe";
    let server =
        rejecting(r#"{"error":"csrf check failed for Hn2Lx9Vb4Mc6Qe","session":"Zk81PqR7tYw3Xc"}"#);
    let p = http_project(
        &server,
        "header_file = \"secrets/blog.headers\"\ndedup = false",
    );
    p.secret("secrets/blog.headers", format!("Cookie: {COOKIE}\n"));
    let out = p.run(&["run", TODAY]);
    out.code(1).stdout_has(
        "2026-11-29 blog failed (rejected): POST: HTTP 422: {\"error\":\"csrf check failed for ",
    );
    let mut all = forms("cookie", COOKIE);
    all.extend(forms("session part", "session=Zk81PqR7tYw3Xc"));
    all.extend(forms_and_parts("session value", "Zk81PqR7tYw3Xc"));
    all.extend(forms_and_parts("csrftoken value", "Hn2Lx9Vb4Mc6Qe"));
    assert_no_leak(&p, &[("run", &out)], &all);
}
