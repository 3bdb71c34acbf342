//! Every console block of the README and docs/ runs here against the binary: each command of the
//! block, in a project its fixture builds, must print what the block shows. Times are the
//! block's business (any RFC 3339 stamp matches any), durations and hashes too (`duration_ms=…`,
//! `fp=…`), and `…` in a block matches any text within its line. A change in what dayrun prints
//! fails here until the docs follow.

use crate::fakes::fake_server::{Reply, Server};
use crate::support::util::Project;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A console block: where it is, its fixture, and its commands with what each prints.
struct Block {
    place: String,
    fixture: String,
    steps: Vec<(String, Vec<String>)>,
}

fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => dirs.push(path),
                false if path.extension().is_some_and(|e| e == "md") => pages.push(path),
                false => {}
            }
        }
    }
    pages.sort();
    pages
}

/// Every console block; one without its `<!-- console: NAME -->` line is an error.
fn blocks() -> Vec<Block> {
    let mut out = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let name = page
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        let mut i = 0;
        while i < lines.len() {
            if lines[i].trim() != "```console" {
                i += 1;
                continue;
            }
            let place = format!("{name}:{}", i + 1);
            let fixture = i
                .checked_sub(1)
                .and_then(|j| lines[j].strip_prefix("<!-- console: "))
                .and_then(|rest| rest.strip_suffix(" -->"))
                .unwrap_or_else(|| panic!("{place}: a console block needs `<!-- console: NAME -->` above it (its fixture in tests/docs/console.rs)"))
                .to_string();
            let mut steps: Vec<(String, Vec<String>)> = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                match lines[i].strip_prefix("$ ") {
                    Some(command) => steps.push((command.to_string(), Vec::new())),
                    None => steps
                        .last_mut()
                        .unwrap_or_else(|| panic!("{place}: output before any `$ ` command"))
                        .1
                        .push(lines[i].to_string()),
                }
                i += 1;
            }
            out.push(Block {
                place,
                fixture,
                steps,
            });
        }
    }
    out
}

/// A line as compared: every RFC 3339 stamp as `<TIME>`, a duration or hash as `…`, the
/// spacing of its words collapsed.
fn normal(line: &str) -> String {
    let words: Vec<String> = line
        .split_whitespace()
        .map(|w| {
            let mut w = w.to_string();
            for (field, hexes) in [("fp=", 64), ("payload=", 16)] {
                if let Some(value) = w.strip_prefix(field)
                    && value.len() == hexes
                    && value.bytes().all(|b| b.is_ascii_hexdigit())
                {
                    w = format!("{field}…");
                }
            }
            if let Some(value) = w.strip_prefix("duration_ms=")
                && value.bytes().all(|b| b.is_ascii_digit())
            {
                w = "duration_ms=…".into();
            }
            stamps(&w)
        })
        .collect();
    words.join(" ")
}

/// `text` with each `YYYY-MM-DDTHH:MM:SS±HH:MM` (or `…Z`) in it as `<TIME>`.
fn stamps(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('T').filter(|at| *at >= 10) {
        let start = at - 10;
        let tail = &rest[start..];
        let len = [25, 20].into_iter().find(|len| {
            tail.get(..*len)
                .is_some_and(|s| s.parse::<jiff::Timestamp>().is_ok())
        });
        match len {
            Some(len) => {
                out.push_str(&rest[..start]);
                out.push_str("<TIME>");
                rest = &rest[start + len..];
            }
            None => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `got` is `want`, where `…` in `want` stands for any text.
fn matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split('…').collect();
    if parts.len() == 1 {
        return want == got;
    }
    let mut rest = got;
    for (i, part) in parts.iter().enumerate() {
        match i {
            0 => match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            },
            _ if i == parts.len() - 1 => return rest.ends_with(part),
            _ => match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            },
        }
    }
    true
}

/// A project for a block, and what its commands see (the clock, the zone).
struct Setup {
    project: Project,
    env: Vec<(String, String)>,
    _server: Option<Server>,
    _masto: Option<crate::fakes::fake_mastodon::FakeMastodon>,
}

/// The fixtures, by name.
fn setup(fixture: &str) -> Setup {
    match fixture {
        "intro" => intro(),
        "git-config" => {
            let p = Project::new();
            Command::new("git")
                .args(["init", "-q"])
                .current_dir(&p.root)
                .status()
                .unwrap();
            Setup {
                project: p,
                env: Vec::new(),
                _server: None,
                _masto: None,
            }
        }
        "morning" => morning(),
        "check-good" => check(
            "2026-11-28 done 2026-11-28T07:00:00+00:00 id=a\n2026-11-29 done 2026-11-29T07:00:00+00:00 id=b\n",
        ),
        "check-bad" => check(
            "2026-11-27 done 2026-11-27T07:00:00+00:00 id=a dedup=1\n\
             2026-11-28 pending 2026-11-28T06:00:00+00:00\n\
             2026-11-29 failed 2026-11-29T06:00:00+00:00 class=rejected reason=\"HTTP 422\"\n",
        ),
        other => panic!("no fixture `{other}` in tests/docs/console.rs"),
    }
}

/// The README's first example: a blog endpoint that names its posts 4812, 4813, …; the
/// 28th published by an earlier morning, the 29th due, the 30th written for tomorrow.
fn intro() -> Setup {
    let next = Arc::new(Mutex::new(4812u32));
    let posts: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let server = Server::start(move |req| {
        let mut posts = posts.lock().unwrap();
        match req.method.as_str() {
            "POST" => {
                let mut id = next.lock().unwrap();
                let post = json!({
                    "id": id.to_string(),
                    "url": format!("https://example.com/p/{id}"),
                    "key": req.json()["key"],
                    "fingerprint": req.json()["fingerprint"],
                });
                *id += 1;
                posts.push(post.clone());
                Reply::json(201, post)
            }
            _ => {
                let key = req.query("key").unwrap_or_default();
                let mine: Vec<_> = posts.iter().filter(|p| p["key"] == key).cloned().collect();
                Reply::json(200, json!(mine))
            }
        }
    });
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"Europe/Berlin\"\n\n[targets.blog]\nkind = \"http\"\nurl = \"{}\"\nlist_url = \"{}?key={{key}}\"\n",
            server.url("/posts"),
            server.url("/posts")
        ),
    );
    p.file(
        "content/2026-11-28.md",
        "# Yesterday's post\n\nPublished by an earlier morning.\n",
    )
    .file(
        "content/2026-11-29.md",
        "# Why the date is the key\n\nOne key per day.\n",
    )
    .file("content/2026-11-30.md", "# Tomorrow\n\nWritten tonight.\n");
    p.file(
        "state/blog.state",
        format!(
            "2026-11-28 done 2026-11-28T07:00:03+01:00 id=4790 url=https://example.com/p/4790 fp={} published=2026-11-28T07:00:03+01:00 payload={}\n",
            "a".repeat(64),
            "b".repeat(16)
        ),
    );
    Setup {
        project: p,
        env: vec![("DAYRUN_NOW".into(), "2026-11-29T06:00:02Z".into())],
        _server: Some(server),
        _masto: None,
    }
}

/// The morning log: the intro's blog, and a Mastodon target whose token was revoked; two
/// drafts written ahead.
fn morning() -> Setup {
    let mut setup = intro();
    let masto = crate::fakes::fake_mastodon::FakeMastodon::start(500);
    let p = &setup.project;
    let config = p.read("dayrun.toml");
    p.file("dayrun.toml", format!("{config}\n{}", masto.config("")));
    p.secret("secrets/masto.token", "a-revoked-token");
    p.file(
        "state/masto.state",
        "2026-11-28 done 2026-11-28T07:00:03+01:00 id=109384 url=https://mastodon.social/@me/109384\n",
    );
    for day in ["2026-12-01", "2026-12-02"] {
        p.file(
            &format!("content/{day}.md"),
            "---\ndraft: true\n---\n# Not yet\n\nSoon.\n",
        );
    }
    setup._masto = Some(masto);
    setup
}

/// docs/monitoring.md's check: a folder target with both posts out, and a script target whose
/// lines are `site`.
fn check(site: &str) -> Setup {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    )
    .script("publish.sh", "#!/bin/sh\ncat >/dev/null\necho id\n")
    .file(
        "state/outbox.state",
        "2026-11-28 done 2026-11-28T07:00:00+00:00 id=outbox/2026-11-28.html\n\
         2026-11-29 done 2026-11-29T07:00:00+00:00 id=outbox/2026-11-29.html\n",
    )
    .file("state/site.state", site)
    .post("2026-11-28", "Two")
    .post("2026-11-29", "Three");
    Setup {
        project: p,
        env: vec![("DAYRUN_NOW".into(), "2026-11-29T07:00:00Z".into())],
        _server: None,
        _masto: None,
    }
}

/// Run one command of a block as a shell would, with `dayrun` being this build.
fn shell(setup: &Setup, command: &str) -> Vec<String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_dayrun")).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let mut cmd = Command::new("sh");
    cmd.args(["-c", command])
        .current_dir(&setup.project.root)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &setup.project.root)
        .env("TZ", "UTC");
    for (name, value) in &setup.env {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines().map(str::to_string).collect()
}

#[test]
fn every_console_block_prints_what_the_docs_show() {
    let blocks = blocks();
    assert!(!blocks.is_empty());
    for block in blocks {
        let setup = setup(&block.fixture);
        for (command, want) in &block.steps {
            let got = shell(&setup, command);
            let (want_n, got_n): (Vec<String>, Vec<String>) = (
                want.iter().map(|l| normal(l)).collect(),
                got.iter().map(|l| normal(l)).collect(),
            );
            let same = want_n.len() == got_n.len()
                && want_n.iter().zip(&got_n).all(|(w, g)| matches(w, g));
            assert!(
                same,
                "{}: `$ {command}` prints something else than the docs show\n--- docs\n{}\n--- dayrun\n{}",
                block.place,
                want.join("\n"),
                got.join("\n")
            );
        }
    }
}

#[test]
fn the_comparison_takes_times_and_hashes_as_any_but_nothing_else() {
    assert!(matches(
        &normal("2026-11-29 done 2026-11-29T07:00:02+01:00 fp=…"),
        &normal(&format!(
            "2026-11-29 done 2026-11-30T08:00:00Z fp={}",
            "c".repeat(64)
        ))
    ));
    assert!(!matches(
        &normal("2026-11-29 blog published id=4812"),
        &normal("2026-11-29 blog published id=4813")
    ));
    assert!(matches(
        "create a new token (…) and put it",
        "create a new token (at x) and put it"
    ));
    assert!(!matches("a…c", "a b d"));
}
