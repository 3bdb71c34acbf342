//! Every `dayrun` command the examples run exists in the binary and in the README.

use super::*;

/// One word of a shell script, or the end of a command (`;`, `|`, `&`, a parenthesis, a line
/// end). Quotes are removed; `quoted` says there were some.
#[derive(Debug, PartialEq)]
enum Word {
    Text { text: String, quoted: bool },
    End,
}

/// A shell script split as the shell would, closely enough for these examples: quotes,
/// backslashes, comments, and the characters that end a command.
fn shell_words(script: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let (mut word, mut quoted, mut started) = (String::new(), false, false);
    let mut chars = script.chars().peekable();
    let mut flush = |word: &mut String, quoted: &mut bool, started: &mut bool, end: bool| {
        if *started {
            words.push(Word::Text {
                text: std::mem::take(word),
                quoted: *quoted,
            });
        }
        (*quoted, *started) = (false, false);
        if end {
            words.push(Word::End);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                (quoted, started) = (true, true);
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                (quoted, started) = (true, true);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(c) => {
                    started = true;
                    word.push(c);
                }
            },
            '#' if !started => {
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
                flush(&mut word, &mut quoted, &mut started, true);
            }
            ';' | '|' | '&' | '(' | ')' | '\n' => flush(&mut word, &mut quoted, &mut started, true),
            c if c.is_whitespace() => flush(&mut word, &mut quoted, &mut started, false),
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    flush(&mut word, &mut quoted, &mut started, true);
    words
}

/// The subcommand of every `dayrun` a script runs: as a command of its own, or in the merge
/// driver string that git runs (`git config merge.x.driver "dayrun merge-state …"`).
pub(super) fn invocations(script: &str) -> Vec<String> {
    let words = shell_words(script);
    let mut subs = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let Word::Text { text, quoted } = word else {
            continue;
        };
        let after_driver =
            i > 0 && matches!(&words[i - 1], Word::Text { text, .. } if text.ends_with(".driver"));
        if after_driver {
            subs.extend(invocations(text));
        } else if text == "dayrun" && !quoted {
            let mut rest = words[i + 1..].iter().map_while(|w| match w {
                Word::Text { text, .. } => Some(text.as_str()),
                Word::End => None,
            });
            while let Some(next) = rest.next() {
                match next {
                    "-C" | "--dir" | "--config" => {
                        rest.next();
                    }
                    sub if sub.starts_with('-') => {
                        if sub.starts_with("--config=") || sub.starts_with("--dir=") {
                            continue;
                        }
                        break;
                    }
                    sub => {
                        if !sub.is_empty()
                            && sub.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                        {
                            subs.push(sub.to_string());
                        }
                        break;
                    }
                }
            }
        }
    }
    subs
}

/// The scripts a file runs: GitHub's `run`, GitLab's `script` lines, a container's `command`
/// and `args` (as one command line).
fn scripts(pod: &Pod, out: &mut Vec<String>) {
    match pod {
        Pod::Hash(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("run", Pod::String(s)) => out.push(s.clone()),
                    ("script" | "before_script" | "after_script", Pod::Array(lines)) => {
                        out.extend(lines.iter().filter_map(text).map(str::to_string));
                    }
                    ("command" | "args", Pod::Array(words)) => {
                        let words = words.iter().filter_map(text).collect::<Vec<_>>();
                        out.push(words.join(" "));
                    }
                    _ => scripts(value, out),
                }
            }
        }
        Pod::Array(items) => items.iter().for_each(|item| scripts(item, out)),
        _ => {}
    }
}

/// The subcommands README.md's command list documents.
fn readme_commands() -> BTreeSet<String> {
    let readme = read("README.md");
    let list = readme
        .split("## Commands")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("README.md: a ``` block under ## Commands");
    list.lines()
        .filter_map(|line| {
            line.split_whitespace()
                .skip(1)
                .find(|w| !w.starts_with(['[', '-']) && !w.ends_with(']'))
        })
        .map(str::to_string)
        .collect()
}

/// The subcommands the binary's own `--help` lists.
fn binary_commands() -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_dayrun"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let list = help
        .split("Commands:")
        .nth(1)
        .expect("--help lists commands");
    list.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_dayrun_command_in_the_examples_is_real_and_documented() {
    let mut used = BTreeSet::new();
    for file in [
        "examples/github-actions.yml",
        "examples/gitlab-ci.yml",
        "examples/kubernetes-cronjob.yaml",
    ] {
        let mut found = Vec::new();
        for doc in documents(file) {
            scripts(&doc, &mut found);
        }
        let subs = found
            .iter()
            .flat_map(|s| invocations(s))
            .collect::<Vec<_>>();
        assert!(subs.contains(&"run".to_string()), "{file}: {subs:?}");
        used.extend(subs);
    }
    assert!(used.contains("merge-state"), "{used:?}");

    let (readme, binary) = (readme_commands(), binary_commands());
    assert!(
        readme.contains("run") && readme.contains("retract"),
        "{readme:?}"
    );
    for sub in &used {
        assert!(
            binary.contains(sub),
            "`dayrun {sub}`: not in --help {binary:?}"
        );
        assert!(
            readme.contains(sub),
            "`dayrun {sub}` is used in examples/ but not in README.md's command list {readme:?}"
        );
    }
    let help = Command::new(env!("CARGO_BIN_EXE_dayrun"))
        .args(["merge-state", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "{help:?}");
    assert!(
        text.contains("Usage: dayrun merge-state") && text.contains("%O"),
        "{text}"
    );
}

#[test]
fn the_invocation_scanner_sees_commands_not_words() {
    let script = r#"
        dayrun run || code=$? # not `dayrun retry` in a comment
        command -v dayrun > /dev/null || cargo install --locked dayrun
        fi
        git config merge.dayrun.name "dayrun state"
        git config merge.dayrun.driver "dayrun merge-state %O %A %B %P"
        echo "dayrun check is only text"; (cd x && dayrun -C /data --config a.toml status)
    "#;
    assert_eq!(invocations(script), ["run", "merge-state", "status"]);
}

// The GitHub workflow's commit-and-push step, run against a bare repository that another run
// pushed to in the meantime.
