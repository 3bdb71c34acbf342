//! A fortnight of mornings, as a person reads them: daily runs from a timer (with a gap), posts
//! written the night before, a draft, a broken post, an edit and a deletion after publishing,
//! and a publish script that answers with every exit code of its contract. The whole log is
//! compared with `tests/docs/fortnight.expected`, so any change to what people read is a diff.
//! `DAYRUN_BLESS=1 cargo test fortnight` rewrites the expected transcript.

use crate::support::util::Project;

/// The publish script: its answer for a key is in `answers/KEY` (default: published).
const PUBLISH: &str = r#"#!/bin/sh
cat > /dev/null
answer=$(cat "answers/$DAYRUN_KEY" 2>/dev/null)
rm -f "answers/$DAYRUN_KEY"
case "${answer:-ok}" in
  ok) echo "$DAYRUN_KEY" >> published.txt; echo "{\"id\":\"site-$DAYRUN_KEY\"}" ;;
  75) echo "the site is down for maintenance" >&2; exit 75 ;;
  77) echo "the deploy token has expired" >&2; exit 77 ;;
  65) echo "the site refuses titles with a colon" >&2; exit 65 ;;
  lost) echo "$DAYRUN_KEY" >> published.txt; echo "connection reset while uploading" >&2; exit 3 ;;
esac
"#;

const CONFIRM: &str = r#"#!/bin/sh
cat > /dev/null
grep -qx "$DAYRUN_KEY" published.txt 2>/dev/null && { echo "site-$DAYRUN_KEY"; exit 0; }
exit 1
"#;

const CONFIG: &str = r#"timezone = "UTC"
catchup_days = 3

[targets.outbox]
kind = "folder"
dir = "outbox"

[targets.site]
kind = "command"
run = ["./scripts/publish.sh"]
confirm = ["./scripts/confirm.sh"]
timeout_secs = 5
backoff_secs = 0
retries = 0
"#;

/// What happens before the morning run of each day.
fn evening(p: &Project, day: &str) {
    let post = |key: &str, title: &str| {
        p.post(key, title);
    };
    match day {
        "2026-11-16" => {
            // The first morning: two old posts already written (stale), today's post.
            post("2026-11-01", "An old note");
            post("2026-11-02", "Another old note");
            post("2026-11-16", "Monday");
        }
        "2026-11-17" => {
            post("2026-11-17", "Tuesday");
            p.file("answers/2026-11-17", "75");
        }
        "2026-11-18" => {
            post("2026-11-18", "Wednesday");
            p.file(
                "content/2026-11-19.md",
                "---\ndraft: true\n---\n# Thursday, not ready\n",
            );
        }
        "2026-11-19" => {
            p.file("answers/2026-11-19", "77");
        }
        "2026-11-20" => {
            // The deploy token was renewed: the waiting key is retried by hand.
            p.file("content/2026-11-19.md", "# Thursday\n\nReady now.\n");
            post("2026-11-20", "Friday");
        }
        "2026-11-23" => {
            // Back after a weekend without runs; Saturday's post was written, Sunday's not.
            post("2026-11-21", "Saturday");
            post("2026-11-23", "Monday: a colon");
            p.file("answers/2026-11-23", "65");
        }
        "2026-11-24" => {
            p.file(
                "content/2026-11-24.md",
                "---\ntitle: [unclosed\n---\n# Broken\n",
            );
        }
        "2026-11-25" => {
            p.file("content/2026-11-24.md", "# Tuesday, fixed\n\nBody.\n");
            post("2026-11-25", "Wednesday again");
            p.file("answers/2026-11-25", "lost");
            // Monday's post, edited after it was published.
            p.file("content/2026-11-16.md", "# Monday\n\nA typo fixed.\n");
        }
        "2026-11-26" => {
            post("2026-11-26", "Thursday again");
            std::fs::remove_file(p.path("content/2026-11-18.md")).unwrap();
        }
        "2026-11-27" | "2026-11-28" => post(day, "Another day"),
        _ => {}
    }
}

/// Times, durations and the temp folder vary from run to run: masked.
fn normalise(text: &str, root: &str) -> String {
    let mut out = text.replace(root, "<DIR>");
    let stamp = |s: &str| {
        s.len() >= 25
            && s.as_bytes()[4] == b'-'
            && s.as_bytes()[10] == b'T'
            && s[..25].parse::<jiff::Timestamp>().is_ok()
    };
    let mut masked = String::new();
    let mut rest = out.as_str();
    while let Some(i) = rest.find("2026-") {
        masked.push_str(&rest[..i]);
        if stamp(&rest[i..]) {
            masked.push_str("<TIME>");
            rest = &rest[i + 25..];
        } else {
            masked.push_str("2026-");
            rest = &rest[i + 5..];
        }
    }
    masked.push_str(rest);
    out = masked;
    let mut result = String::new();
    let age = |w: &str| {
        let w = w.trim_end();
        w.len() > 1
            && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit())
            && w.ends_with(['s', 'm', 'h', 'd'])
    };
    for word in out.split_inclusive(' ') {
        if age(word) && out.contains(&format!("{word}ago")) {
            result.push_str("<AGE> ");
            continue;
        }
        match word.strip_prefix("duration_ms=") {
            Some(rest) => {
                let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                result.push_str("duration_ms=<N>");
                result.push_str(digits);
            }
            None => result.push_str(word),
        }
    }
    // `retry` has no --today: its header (`== … retry KEY, today DATE;`) shows the real date.
    let result: String = result
        .split_inclusive('\n')
        .map(
            |line| match (line.starts_with("== "), line.contains(" retry ")) {
                (true, true) => match line.find(", today ") {
                    Some(at) => {
                        let date = at + ", today ".len();
                        format!("{}<TODAY>{}", &line[..date], &line[date + 10..])
                    }
                    None => line.to_string(),
                },
                _ => line.to_string(),
            },
        )
        .collect();
    result.replace(env!("CARGO_PKG_VERSION"), "<VERSION>")
}

#[test]
fn a_fortnight_of_mornings_reads_as_the_transcript_says() {
    let p = Project::new();
    p.file("dayrun.toml", CONFIG);
    p.script("scripts/publish.sh", PUBLISH);
    p.script("scripts/confirm.sh", CONFIRM);
    let mut log = String::new();
    let mut say = |args: &[&str]| {
        let out = p.run(args);
        log.push_str(&format!(
            "$ dayrun {}  # exit {}\n",
            args.join(" "),
            out.code
        ));
        log.push_str(&out.stdout);
        log.push_str(&out.stderr);
        log.push('\n');
    };
    for day in 16..=29 {
        let day = format!("2026-11-{day}");
        evening(&p, &day);
        if ["2026-11-21", "2026-11-22"].contains(&day.as_str()) {
            continue; // the machine was off over the weekend
        }
        say(&["run", &format!("--today={day}")]);
        match day.as_str() {
            "2026-11-20" => say(&["retry", "2026-11-19"]),
            "2026-11-27" => say(&["mark", "2026-11-23", "failed", "--target", "site"]),
            _ => {}
        }
    }
    say(&["status", "--today=2026-11-29"]);
    let got = normalise(&log, &p.root.display().to_string());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/docs/fortnight.expected");
    if std::env::var_os("DAYRUN_BLESS").is_some() {
        std::fs::write(path, &got).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "the morning log changed (first difference at line {}); if that is intended, run `DAYRUN_BLESS=1 cargo test fortnight` and review the diff of tests/docs/fortnight.expected\n--- got\n{got}",
            first + 1
        );
    }
}
