//! Row 10: terminal control sequences (ESC, OSC, a C1 CSI, DEL, bidi overrides) in a state
//! line, a folder name or a config value never reach stdout, stderr or the trace raw.

use crate::hostile::round_one::{TODAY, table};
use crate::support::util::{Output, Project};

/// An OSC that sets the terminal title, a screen clear, a C1 CSI, DEL, and a bidi override.
const NASTY: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{7f}\u{202e}\u{2067}";

/// The characters that must never be printed raw: C0 but the line end, DEL, C1, bidi controls.
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

#[track_caller]
fn clean(what: &str, outputs: &[(&str, &Output)], p: &Project) {
    let mut texts: Vec<(String, String)> = Vec::new();
    for (name, out) in outputs {
        texts.push((format!("{name} stdout"), out.stdout.clone()));
        texts.push((format!("{name} stderr"), out.stderr.clone()));
    }
    for trace in ["state/outbox.log", "state/site.log"] {
        if p.exists(trace) {
            texts.push((trace.into(), p.read(trace)));
        }
    }
    for (place, text) in texts {
        let raw = raw_controls(&text);
        assert!(raw.is_empty(), "{what}: {raw:?} raw in {place}:\n{text:?}");
    }
}

/// `run --dry-run`, `run`, `status`, `status --json` and `check`, in that order.
fn commands(p: &Project) -> Vec<(&'static str, Output)> {
    [
        ("run --dry-run", &["run", "--dry-run", TODAY][..]),
        ("run", &["run", TODAY]),
        ("status", &["status", TODAY]),
        ("status --json", &["status", "--json", TODAY]),
        ("check", &["check"]),
    ]
    .into_iter()
    .map(|(name, args)| (name, p.run(args)))
    .collect()
}

#[test]
fn row10_control_sequences_from_files_and_config_are_escaped_everywhere() {
    type Setup = Box<dyn Fn(&Project)>;
    let rows: Vec<(String, Setup)> = vec![
        (
            "a state line's reason".into(),
            Box::new(|p: &Project| {
                p.file(
                    "state/outbox.state",
                    format!("2026-11-28 failed 2026-11-28T07:00:00+00:00 class=rejected reason=\"{NASTY}\"\n"),
                );
            }),
        ),
        (
            "a state line's id".into(),
            Box::new(|p: &Project| {
                p.file(
                    "state/outbox.state",
                    format!("2026-11-28 done 2026-11-28T07:00:00+00:00 id=\"{NASTY}\"\n"),
                );
            }),
        ),
        (
            "a malformed state line".into(),
            Box::new(|p: &Project| {
                p.file("state/outbox.state", format!("2026-11-28 {NASTY} x\n"));
            }),
        ),
        (
            "a folder name (a tag)".into(),
            Box::new(|p: &Project| {
                p.file(
                    &format!("content/{NASTY}/2026-11-29.md"),
                    "# Today\n\nBody.\n",
                );
            }),
        ),
        (
            "a misnamed post in a folder".into(),
            Box::new(|p: &Project| {
                p.file(&format!("content/{NASTY}/2026-02-30.md"), "# Bad\n");
            }),
        ),
        (
            "a front matter tag".into(),
            Box::new(|p: &Project| {
                let tag = NASTY.replace('\u{7}', "").replace('\u{1b}', "\\e");
                p.file(
                    "content/2026-11-29.md",
                    format!("---\ntags: [\"{tag}\"]\n---\n# Today\n"),
                );
            }),
        ),
        (
            "the time zone".into(),
            Box::new(|p: &Project| {
                p.file(
                    "dayrun.toml",
                    format!("timezone = \"{}\"\n", toml_escape(NASTY)),
                );
            }),
        ),
        (
            "a target's kind".into(),
            Box::new(|p: &Project| {
                p.file(
                    "dayrun.toml",
                    format!("[targets.x]\nkind = \"{}\"\n", toml_escape(NASTY)),
                );
            }),
        ),
        (
            "a target's name".into(),
            Box::new(|p: &Project| {
                p.file(
                    "dayrun.toml",
                    format!("[targets.\"{}\"]\nkind = \"folder\"\n", toml_escape(NASTY)),
                );
            }),
        ),
        (
            "a script's path".into(),
            Box::new(|p: &Project| {
                p.file(
                    "dayrun.toml",
                    format!(
                        "[targets.site]\nkind = \"command\"\nrun = [\"./{}\"]\n",
                        toml_escape(NASTY)
                    ),
                );
            }),
        ),
        (
            "an unknown key".into(),
            Box::new(|p: &Project| {
                p.file(
                    "dayrun.toml",
                    format!(
                        "[targets.x]\nkind = \"folder\"\n\"{}\" = 1\n",
                        toml_escape(NASTY)
                    ),
                );
            }),
        ),
    ];
    table(rows, |setup| {
        let p = Project::new();
        p.post("2026-11-28", "Yesterday");
        setup(&p);
        let outs = commands(&p);
        let named: Vec<(&str, &Output)> = outs.iter().map(|(n, o)| (*n, o)).collect();
        clean("", &named, &p);
    });
}

/// `text` as the inside of a TOML basic string.
fn toml_escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            c if c.is_control() => format!("\\u{:04X}", c as u32),
            '"' => "\\\"".into(),
            '\\' => "\\\\".into(),
            c => c.to_string(),
        })
        .collect()
}
