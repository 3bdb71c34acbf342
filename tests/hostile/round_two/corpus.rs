//! The checked-in corpus of hostile inputs: `corpus/cases.toml` names each file (a post's front
//! matter, a server's body, a config) and the outcome it must have. Every case runs the real
//! binary in a capped address space, and must also print no raw control character and keep no
//! form of the token anywhere.

use super::secrets::TOKEN;
use crate::fakes::fake_server::{Reply, Server};
use crate::hostile::round_one::{
    TODAY, assert_no_leak, forms_and_parts, run_capped, state_files, table,
};
use crate::support::util::{Output, Project};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Case {
    file: String,
    #[serde(rename = "as")]
    what: String,
    #[serde(default)]
    status: u16,
    exit: i32,
    #[serde(default)]
    stdout: Vec<String>,
    #[serde(default)]
    stderr: Vec<String>,
    #[serde(default)]
    state: Vec<String>,
    #[serde(default)]
    state_not: Vec<String>,
}

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/round_two/corpus");
    let text = std::fs::read_to_string(dir.join("cases.toml")).unwrap();
    let cases: Cases = toml::from_str(&text).unwrap();
    // Every file in the corpus has a case, and every case a file.
    let mut files = Vec::new();
    for sub in ["posts", "bodies", "configs"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            files.push(format!(
                "{sub}/{}",
                entry.unwrap().file_name().to_string_lossy()
            ));
        }
    }
    files.sort();
    let mut named: Vec<String> = cases.case.iter().map(|c| c.file.clone()).collect();
    named.sort();
    assert_eq!(files, named, "corpus files and cases.toml differ");
    cases.case
}

fn bytes(file: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/round_two/corpus");
    std::fs::read(dir.join(file)).unwrap()
}

/// Characters never printed raw: C0 but the line end, DEL, C1, bidi controls.
fn raw_controls(text: &str) -> Vec<String> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
        })
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

/// Run one case; its project and what `run` printed.
fn run(case: &Case) -> (Project, Output, Option<Server>) {
    let p = Project::new();
    p.post("2026-11-28", "Yesterday");
    let mut server = None;
    match case.what.as_str() {
        "post" => {
            p.file("content/2026-11-29.md", bytes(&case.file));
        }
        "body" => {
            let (status, body) = (case.status, bytes(&case.file));
            let s = Server::start(move |_| Reply::raw(status, "application/json", body.clone()));
            p.file(
                "dayrun.toml",
                format!(
                    "[targets.blog]\nkind = \"http\"\nurl = \"{}\"\ntoken_file = \"secrets/blog.token\"\ntimeout_secs = 2\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\nsettle_secs = 0\ndedup = false\n",
                    s.url("/posts")
                ),
            );
            p.secret("secrets/blog.token", format!("{TOKEN}\n"));
            p.file(
                "state/blog.state",
                "2026-11-28 done 2026-11-28T07:00:00+00:00 id=old\n",
            );
            p.post("2026-11-29", "Today");
            server = Some(s);
        }
        "config" => {
            p.file("dayrun.toml", bytes(&case.file));
            p.post("2026-11-29", "Today");
        }
        other => panic!("{}: unknown `as = \"{other}\"`", case.file),
    }
    let (out, _) = run_capped(&p, &["run", TODAY], Duration::from_secs(60), 512);
    (p, out, server)
}

#[test]
fn every_corpus_case_has_its_outcome() {
    let cases = corpus();
    table(cases.into_iter().map(|c| (c.file.clone(), c)), |case| {
        let (p, out, _server) = run(&case);
        out.code(case.exit);
        for needle in &case.stdout {
            out.stdout_has(needle);
        }
        for needle in &case.stderr {
            out.stderr_has(needle);
        }
        let lines = [p.state_lines("blog"), p.state_lines("outbox")]
            .concat()
            .join("\n");
        for needle in &case.state {
            assert!(
                lines.contains(needle.as_str()),
                "state lacks {needle:?}: {lines}"
            );
        }
        for needle in &case.state_not {
            assert!(
                !lines.contains(needle.as_str()),
                "state has {needle:?}: {lines}"
            );
        }
        let status = p.run(&["status", TODAY]);
        let check = p.run(&["check"]);
        let mut texts = vec![
            ("run stdout".to_string(), out.stdout.clone()),
            ("run stderr".into(), out.stderr.clone()),
            ("status stdout".into(), status.stdout.clone()),
            ("status stderr".into(), status.stderr.clone()),
            ("check stdout".into(), check.stdout.clone()),
            ("check stderr".into(), check.stderr.clone()),
        ];
        texts.extend(
            state_files(&p)
                .into_iter()
                .filter(|(path, _)| path.ends_with(".log")),
        );
        for (place, text) in texts {
            let raw = raw_controls(&text);
            assert!(raw.is_empty(), "{raw:?} raw in {place}:\n{text:?}");
        }
        if case.what == "body" {
            assert_no_leak(&p, &[("run", &out)], &forms_and_parts("token", TOKEN));
        }
    });
}
