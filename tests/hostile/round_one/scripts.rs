//! S3, R3: a `kind = "command"` script that prints the environment it got, keeps stdout open
//! through a background child, floods stdout, or answers with an id no log line should carry.

use super::{
    TODAY, assert_no_leak, forms_and_parts, lines_starting, run_within, state_files, table,
};
use crate::support::util::Project;
use std::time::Duration;

/// A command target `site` running scripts/publish.sh (and scripts/confirm.sh when `confirm`).
fn project(script: &str, extra: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\ntimeout_secs = 20\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\ndedup = false\n{extra}\n"),
    );
    p.script("scripts/publish.sh", script);
    p.post("2026-11-29", "Today");
    p
}

const CONFIRM: &str = "confirm = [\"./scripts/confirm.sh\"]";

/// Finds every post: prints its id.
const FOUND: &str = "#!/bin/sh\ncat > /dev/null\necho \"site-$DAYRUN_KEY\"\n";

/// Variables whose names mark them as secrets, each with a value only it has.
const SECRETS: [(&str, &str); 8] = [
    ("BLOG_TOKEN", "tkn-8fQ2xW7pL3vZ"),
    ("MY_API_KEY", "key-K3n9Xq2Wm7Ry"),
    ("DB_PASSWORD", "pw-Vb6Tz1Hs4Nd8"),
    ("APP_SECRET_VALUE", "sec-Jr5Yw8Lp2Cq6"),
    ("SMTP_PASSWD", "smtp-Gt4Rk7Ws1Mx"),
    ("STRIPE_KEY_LIVE", "sk-Pz3Hc8Qn5Lv2"),
    ("GH_APIKEY", "gh-Wd6Ys9Kb2Tf4"),
    ("lower_token", "low-Mq7Xe3Zr8Ua1"),
];

const PRINTS_ITS_ENVIRONMENT: &str = r#"#!/bin/sh
cat > /dev/null
env > env-seen.txt
env | sort >&2
echo "key=$DAYRUN_KEY idem=$DAYRUN_IDEMPOTENCY_KEY plain=$PLAIN_SETTING token=$BLOG_TOKEN api=$MY_API_KEY pw=$DB_PASSWORD secret=$APP_SECRET_VALUE smtp=$SMTP_PASSWD stripe=$STRIPE_KEY_LIVE gh=$GH_APIKEY low=$lower_token" >&2
exit 77
"#;

fn with_secrets(p: &mut Project) {
    for (name, value) in SECRETS {
        p.env(name, value);
    }
    p.env("PLAIN_SETTING", "plain-Value-9Qz")
        .env("UNLISTED_SETTING", "unlisted-Value-4Jw")
        .env("LC_TIME", "C");
}

#[test]
fn s3_a_script_printing_its_environment_leaks_no_secret() {
    let mut p = project(PRINTS_ITS_ENVIRONMENT, "");
    with_secrets(&mut p);
    let out = p.run(&["run", TODAY]);
    out.code(3)
        .stdout_has("2026-11-29 site failed (auth): exited 77")
        // Not secrets: a plain variable, and dayrun's own DAYRUN_* (even DAYRUN_IDEMPOTENCY_KEY).
        .stdout_has("key=2026-11-29 idem=")
        .stdout_has("plain=plain-Value-9Qz");
    let seen = p.read("env-seen.txt");
    assert!(
        seen.contains("BLOG_TOKEN=tkn-8fQ2xW7pL3vZ\n"),
        "without `env`, the script inherits dayrun's environment:\n{seen}"
    );
    let idem = seen
        .lines()
        .find_map(|l| l.strip_prefix("DAYRUN_IDEMPOTENCY_KEY="))
        .unwrap();
    out.stdout_has(&format!("idem={idem}"));
    assert!(p.state_lines("site")[0].contains("class=auth"));
    let all: Vec<_> = SECRETS
        .iter()
        .flat_map(|(name, value)| forms_and_parts(name, value))
        .collect();
    assert_no_leak(&p, &[("run", &out)], &all);
}

#[test]
fn s3_env_passes_the_script_only_what_it_lists() {
    let mut p = project(
        "#!/bin/sh\ncat > /dev/null\nenv > env-seen.txt\necho '{\"id\":\"x-1\"}'\n",
        "env = [\"PLAIN_SETTING\"]",
    );
    with_secrets(&mut p);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("2026-11-29 site published id=x-1");
    let seen = p.read("env-seen.txt");
    for name in [
        "PLAIN_SETTING",
        "DAYRUN_KEY",
        "DAYRUN_TARGET",
        "PATH",
        "TZ",
        "LC_TIME",
    ] {
        assert!(
            seen.contains(&format!("\n{name}=")) || seen.starts_with(&format!("{name}=")),
            "{name} missing:\n{seen}"
        );
    }
    if std::env::var_os("HOME").is_some() {
        assert!(seen.contains("HOME="), "HOME missing:\n{seen}");
    }
    for (name, _) in SECRETS.iter().chain(&[("UNLISTED_SETTING", "")]) {
        assert!(
            !seen.contains(&format!("{name}=")),
            "{name} reached a script that did not list it:\n{seen}"
        );
    }
}

#[test]
fn r3_a_background_child_holding_stdout_costs_neither_the_receipt_nor_time() {
    let p = project(
        "#!/bin/sh\ncat > /dev/null\necho '{\"id\":\"REAL-ID\",\"url\":\"https://site.test/real\"}'\nsleep 30 &\nexit 0\n",
        "",
    );
    let (out, took) = run_within(&p, &["run", TODAY], Duration::from_secs(40));
    println!("r3 background child: run took {took:?}");
    out.code(0)
        .stdout_has("2026-11-29 site published id=REAL-ID");
    assert!(p.state_lines("site")[0].contains("url=https://site.test/real"));
    assert!(
        took < Duration::from_secs(5),
        "the run waited {took:?} for a child it does not need (contract: ~2 s at most)"
    );
}

#[test]
fn r3_a_flood_on_stdout_is_a_protocol_error_then_confirmed() {
    const FLOOD: &str =
        "#!/bin/sh\ncat > /dev/null\nhead -c 100000000 /dev/zero | tr '\\0' a\nexit 0\n";
    let rows = [false, true].map(|confirm| (format!("confirm: {confirm}"), confirm));
    table(rows, |confirm| {
        let p = project(FLOOD, if confirm { CONFIRM } else { "" });
        p.script("scripts/confirm.sh", FOUND);
        let (out, took) = run_within(&p, &["run", TODAY], Duration::from_secs(60));
        println!("r3 flood (confirm: {confirm}): run took {took:?}");
        if confirm {
            out.code(0)
                .stdout_has("2026-11-29 site confirmed id=site-2026-11-29");
            assert!(p.read("state/site.log").contains("protocol error"));
        } else {
            out.code(1)
                .stdout_has("2026-11-29 site failed (unknown)")
                .stdout_has("protocol error");
            assert!(p.state_lines("site")[0].contains("class=unknown"));
        }
        for (path, text) in state_files(&p) {
            assert!(
                text.len() < 64 * 1024 && !text.contains(&"a".repeat(2049)),
                "{path} holds the flood ({} bytes)",
                text.len()
            );
        }
    });
}

#[test]
fn r3_an_id_with_control_characters_or_too_long_is_a_protocol_error() {
    let long = "x".repeat(3000);
    let rows = [
        (
            "JSON id with ESC",
            r#"printf '{"id":"A\\u001b[31mB"}\n'"#.to_string(),
        ),
        ("bare id with ESC", r"printf 'ab\033[2Jcd\n'".to_string()),
        (
            "JSON id with a newline",
            r#"printf '{"id":"77\\n2026-11-30 site published id=999"}\n'"#.to_string(),
        ),
        (
            "JSON id of 3000 bytes",
            format!(r#"echo '{{"id":"{long}"}}'"#),
        ),
        (
            "JSON url with a newline",
            r#"printf '{"id":"ok-1","url":"https://x.test/\\n2026-11-30 site published"}\n'"#
                .to_string(),
        ),
    ];
    table(rows.map(|row| (row.0.to_string(), row)), |(row, print)| {
        let p = project(&format!("#!/bin/sh\ncat > /dev/null\n{print}\n"), "");
        let out = p.run(&["run", TODAY]);
        assert_eq!(out.code, 1, "{row}: exit code\n{out:?}");
        assert!(
            out.stdout.contains("2026-11-29 site failed (unknown)")
                && out.stdout.contains("protocol error"),
            "{row}:\n{}",
            out.stdout
        );
        assert!(
            p.state_lines("site")[0].contains("class=unknown"),
            "{row}: {:?}",
            p.state_lines("site")
        );
        let status = p.run(&["status", TODAY]);
        for (place, text) in [
            ("stdout", &out.stdout),
            ("stderr", &out.stderr),
            ("status", &status.stdout),
            ("trace", &p.read("state/site.log")),
        ] {
            assert!(
                !text.contains('\u{1b}'),
                "{row}: raw ESC in {place}:\n{text}"
            );
            assert!(
                // The forged text; a real trace line of 2026-11-30 starts with a timestamp.
                lines_starting(text, "2026-11-30 site published").is_empty(),
                "{row}: forged line in {place}:\n{text}"
            );
            assert!(!text.contains(&long), "{row}: the long id in {place}");
        }
    });
}
