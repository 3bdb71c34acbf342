//! The examples of the README and of docs/ run here, so the docs cannot drift from the binary.

use crate::support::util::Project;

/// README.md and every page of docs/, one after the other.
fn readme() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut pages = Vec::new();
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
    for page in pages {
        text.push_str(&std::fs::read_to_string(page).unwrap());
    }
    text
}

/// The fenced blocks of one language, in order.
fn blocks(lang: &str) -> Vec<String> {
    let text = readme();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start() == format!("```{lang}") => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                out.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    out
}

fn with_example_script(p: &Project) {
    let script = blocks("sh")
        .into_iter()
        .find(|b| b.starts_with("#!/bin/sh"))
        .expect("example publish.sh");
    p.script("scripts/publish.sh", script);
}

#[test]
fn every_toml_example_is_a_valid_config() {
    let examples = blocks("toml");
    assert!(examples.len() >= 3, "{examples:?}");
    for example in examples {
        let p = Project::new();
        p.post("2026-11-29", "Today");
        // Every credential file the example names, as a user would create it.
        for line in example.lines().filter(|l| !l.trim_start().starts_with('#')) {
            if let Some((key, value)) = line.split_once(" = ")
                && key.trim().ends_with("_file")
            {
                let file = value.split('"').nth(1).unwrap();
                // Ghost's Admin API key has a shape dayrun checks before any request.
                let secret = match key.trim() {
                    "admin_key_file" => "6489f2d1c3a4b5e6f7a8b9c0:0123456789abcdef0123456789abcdef",
                    // So has a Nostr secret key (nsec or 64 hex digits).
                    "secret_key_file" => {
                        "0000000000000000000000000000000000000000000000000000000000000003"
                    }
                    _ => "s3cret",
                };
                p.secret(file, secret);
            }
            // Every static folder it names, as a Hugo site has them.
            if let Some(("static_dirs", list)) = line.split_once(" = ") {
                for folder in list.split('"').skip(1).step_by(2) {
                    std::fs::create_dir_all(p.path(folder)).unwrap();
                }
            }
        }
        with_example_script(&p);
        p.file("dayrun.toml", &example);
        p.run(&["check"])
            .code(0)
            .stdout_has("1 post(s), 0 problem(s)");
    }
}

#[test]
fn the_example_script_publishes_and_confirms() {
    let p = Project::new();
    with_example_script(&p);
    let config = blocks("toml")
        .into_iter()
        .find(|b| b.contains("kind = \"command\""))
        .unwrap();
    p.file("dayrun.toml", config);
    p.post("2026-11-29", "Today");
    p.run(&["run", "--today=2026-11-29"])
        .code(0)
        .stdout_has("2026-11-29 site published id=2026-11-29");
    let posted: serde_json::Value =
        serde_json::from_str(&p.read("site/posts/2026-11-29.json")).unwrap();
    assert_eq!(posted["title"], "Today");
    assert!(p.state_lines("site")[0].contains("url=/posts/2026-11-29.json"));
    // The confirm half: a pending key is found by `--find`, not published again.
    let pending = p.read("state/site.state").replace(" done ", " pending ");
    p.file("state/site.state", pending);
    std::fs::remove_file(p.path("site/posts/2026-11-29.json")).unwrap();
    p.file("site/posts/2026-11-29.json", "{}");
    p.run(&["run", "--today=2026-11-29"])
        .code(0)
        .stdout_has("2026-11-29 site confirmed id=2026-11-29");
    assert_eq!(
        p.read("site/posts/2026-11-29.json"),
        "{}",
        "confirmed post was rewritten"
    );
}

#[test]
fn the_quick_start_publishes_the_sample_posts() {
    let p = Project::new();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/content");
    copy(std::path::Path::new(sample), &p.path("content"));
    p.run(&["run", "--backfill"])
        .code(0)
        .stdout_has("outbox: 2 published, 1 draft 2026-01-07");
    assert!(p.exists("outbox/2026-01-05.html"));
    p.run(&["run"]).code(0).stdout_has("outbox: 2 done");
}

#[test]
fn the_status_json_example_has_the_real_schema() {
    let example = blocks("json")
        .into_iter()
        .find(|b| b.contains("\"schema\""))
        .unwrap();
    let example: serde_json::Value = serde_json::from_str(&example).unwrap();
    let p = Project::new();
    p.post("2026-11-29", "Today");
    p.run(&["run", "--today=2026-11-29"]).code(0);
    let real: serde_json::Value =
        serde_json::from_str(&p.run(&["status", "--json"]).stdout).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&example), keys(&real));
    assert_eq!(keys(&example["targets"][0]), keys(&real["targets"][0]));
    assert_eq!(
        keys(&example["targets"][0]["counts"]),
        keys(&real["targets"][0]["counts"])
    );
    assert_eq!(
        keys(&example["targets"][0]["keys"][0]),
        keys(&real["targets"][0]["keys"][0])
    );
}

#[test]
fn the_http_body_example_has_the_real_fields() {
    let example = blocks("json")
        .into_iter()
        .find(|b| b.contains("\"fingerprint\"") && !b.contains("schema"))
        .unwrap();
    let example: serde_json::Value = serde_json::from_str(&example).unwrap();
    let p = Project::new();
    p.file("content/2026-11-29.md", "# T\n\nx\n");
    let post = dayrun_payload_keys(&p);
    let mut want: Vec<String> = example.as_object().unwrap().keys().cloned().collect();
    want.sort();
    assert_eq!(want, post);
}

/// The keys of the JSON the command target receives on stdin.
fn dayrun_payload_keys(p: &Project) -> Vec<String> {
    p.script("scripts/dump.sh", "#!/bin/sh\ncat > input.json\necho ok\n");
    p.file(
        "dayrun.toml",
        "[targets.dump]\nkind = \"command\"\nrun = [\"./scripts/dump.sh\"]\n",
    );
    p.run(&["run", "--today=2026-11-29"]).code(0);
    let input: serde_json::Value = serde_json::from_str(&p.read("input.json")).unwrap();
    let mut keys: Vec<String> = input.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every usage line of the README and docs/ (`dayrun [-C DIR] CMD …`) names exactly the
/// options that `dayrun CMD --help` lists.
#[test]
fn every_usage_line_names_the_options_the_binary_has() {
    let flags = |text: &str| -> std::collections::BTreeSet<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2 && *w != "--help")
            .map(str::to_string)
            .collect()
    };
    let mut seen = 0;
    for line in readme().lines() {
        let Some(rest) = line.strip_prefix("dayrun [-C DIR] ") else {
            continue;
        };
        let rest = rest.split(" #").next().unwrap();
        let rest = rest.strip_prefix("[--config FILE] ").unwrap_or(rest);
        let command = rest.split_whitespace().next().unwrap();
        let help = Project::new().run(&[command, "--help"]);
        let usage = help.stdout.lines().next().unwrap_or_default().to_string();
        assert_eq!(flags(rest), flags(&usage), "`{line}` against `{usage}`");
        seen += 1;
    }
    assert!(seen >= 14, "found only {seen} usage lines");
}
