//! Logging in to the PDS (issue 12, "Requests" and "Classes"): one createSession per run, a
//! refused App Password stops the target and names its file, an expired token is refreshed once,
//! a 429 is waited out, and whatever secret an error body echoes is redacted everywhere dayrun
//! writes.

use super::{CREATE, GET, LOGIN, TODAY, field, project, shown};
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::fakes::fake_posts::Fault;
use crate::support::util::{Output, Project};

const REFRESH: &str = "com.atproto.server.refreshSession";

/// Three due posts (the catch-up window holds three days).
fn three_posts(p: &Project) {
    for key in ["2026-11-27", "2026-11-28"] {
        p.post(key, &format!("Post {key}"));
    }
}

#[test]
fn one_login_per_run_for_several_posts() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    three_posts(&p);
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.records().len(), 3, "{}", shown(&out));
    out.code(0);
    assert_eq!(api.count(LOGIN), 1, "{:?}", api.calls());
    assert_eq!(api.count(REFRESH), 0);
}

#[test]
fn a_wrong_app_password_stops_the_target_and_names_the_file() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    three_posts(&p);
    p.secret("secrets/bsky.password", "wrong-pass-0000\n");
    let out = p.run(&["run", TODAY]);
    assert_eq!(
        api.count(LOGIN),
        1,
        "login once, not per post: {:?}",
        api.calls()
    );
    assert_eq!(api.count(CREATE), 0);
    assert!(api.records().is_empty());
    out.code(3)
        .stdout_has("failed (auth)")
        .stdout_has("secrets/bsky.password")
        .stdout_has("App Password");
    let lines = p.state_lines("sky");
    assert!(
        lines
            .iter()
            .any(|l| field(l, "class").as_deref() == Some("auth")),
        "{lines:#?}"
    );
    // Again with the same file: still at most one login, still nothing sent.
    let logins = api.count(LOGIN);
    p.run(&["run", TODAY]).code(3);
    assert!(api.count(LOGIN) <= logins + 1, "{:?}", api.calls());
    assert_eq!(api.count(CREATE), 0);
    // A renewed password file publishes everything.
    p.secret("secrets/bsky.password", APP_PASSWORD);
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.records().len(), 3);
}

#[test]
fn an_expired_token_is_refreshed_once_then_the_call_repeated() {
    // The token expires before the createRecord, or before the first getRecord (dedup).
    for (nsid, creates) in [(CREATE, 2), (GET, 1)] {
        let api = FakeBluesky::start();
        api.state.lock().unwrap().expire_before = Some(nsid.into());
        let p = project(&api, "");
        let out = p.run(&["run", TODAY]);
        assert_eq!(api.records().len(), 1, "{nsid}: {}", shown(&out));
        out.code(0).stdout_has("published");
        assert_eq!(api.count(REFRESH), 1, "{:?}", api.calls());
        assert_eq!(api.count(LOGIN), 1);
        assert_eq!(
            api.count(CREATE),
            creates,
            "refused once (before any write), then repeated"
        );
    }
}

#[test]
fn a_refused_refresh_is_an_auth_failure() {
    let api = FakeBluesky::start();
    {
        let mut s = api.state.lock().unwrap();
        s.expire_before = Some(CREATE.into());
        s.refresh_refused = true;
    }
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert!(api.records().is_empty(), "{}", shown(&out));
    out.code(3).stdout_has("failed (auth)");
    assert_eq!(api.count(REFRESH), 1);
    assert_eq!(api.count(CREATE), 1);
}

#[test]
fn a_rate_limited_login_is_waited_out_or_left_for_the_next_run() {
    let api = FakeBluesky::start();
    api.state.lock().unwrap().login_faults.push_back(1);
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(LOGIN), 2, "{}", shown(&out));
    out.code(0).stdout_has("published");
    // A wait past the cap: retry-safe, nothing sent, the next run tries by itself.
    let api = FakeBluesky::start();
    api.state.lock().unwrap().login_faults.push_back(3600);
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 0, "{}", shown(&out));
    out.code(75).stdout_has("failed (retry-safe)");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.records().len(), 1);
}

/// Every secret the fake handed out or was sent, looked for in output and every state file.
#[track_caller]
fn no_secret_in(api: &FakeBluesky, p: &Project, out: &Output, extra: &[&str]) {
    let issued = api.state.lock().unwrap().issued.clone();
    assert!(!issued.is_empty() || !extra.is_empty());
    let mut places = vec![
        ("stdout".to_string(), out.stdout.clone()),
        ("stderr".to_string(), out.stderr.clone()),
    ];
    for (path, _) in p.tree(&[]) {
        if path.starts_with("state/") && !path.ends_with('/') {
            places.push((path.clone(), p.read(&path)));
        }
    }
    let secrets = issued
        .iter()
        .map(String::as_str)
        .chain([APP_PASSWORD])
        .chain(extra.iter().copied());
    for secret in secrets {
        // The JWT's signature alone is the secret part; the whole token must not show either.
        let signature = secret.rsplit('.').next().unwrap();
        for (place, text) in &places {
            assert!(!text.contains(secret), "{place} holds a secret:\n{text}");
            assert!(
                !text.contains(signature),
                "{place} holds a JWT signature:\n{text}"
            );
        }
    }
}

#[test]
fn secrets_echoed_in_error_bodies_are_redacted() {
    // A refused record whose error body echoes the bearer token, its refresh token (and so the
    // session), as a proxy or a buggy server may.
    let api = FakeBluesky::start();
    {
        let mut s = api.state.lock().unwrap();
        s.echo_secrets = true;
        s.create_faults.push_back(Fault::Reject(400));
    }
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(CREATE), 1, "{}", shown(&out));
    out.code(1).stdout_has("failed (rejected)");
    assert!(
        out.stdout.contains("Invalid request"),
        "the excerpt is shown: {}",
        shown(&out)
    );
    no_secret_in(&api, &p, &out, &[]);
    // A refused login whose body echoes the password that was sent.
    let api = FakeBluesky::start();
    api.state.lock().unwrap().echo_secrets = true;
    let p = project(&api, "");
    p.secret("secrets/bsky.password", "wrong-pass-4242\n");
    let out = p.run(&["run", TODAY]);
    out.code(3);
    no_secret_in(&api, &p, &out, &["wrong-pass-4242"]);
    // A lookup that fails after a lost answer, echoing the token, on a failed line (a
    // failed lookup is looked again by the next run: 75).
    let api = FakeBluesky::start();
    api.state.lock().unwrap().echo_secrets = true;
    api.create_faults(&[Fault::CommitHang]);
    api.confirm_faults(&[500; 10]);
    let p = project(&api, "");
    let out = p.run(&["run", TODAY]);
    out.code(75).stdout_has("failed (unknown)");
    no_secret_in(&api, &p, &out, &[]);
}
