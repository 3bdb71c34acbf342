//! The metrics file (`metrics_file`, `run --metrics FILE`): written whole at the end of every
//! run, a failed one too, with the facts `status` reads; only bounded labels.

use crate::support::util::Project;
use std::collections::BTreeMap;

/// 2026-11-29T07:00:00Z, the runs' clock.
const NOW: &str = "2026-11-29T07:00:00Z";
const NOW_SECS: i64 = 1_795_935_600;

/// The samples of a metrics file, by `name{labels}` as written.
fn samples(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("a sample line");
            (series.to_string(), value.to_string())
        })
        .collect()
}

/// A project with a folder target (`outbox`) and a script target (`site`) that refuses the
/// post of 2026-11-29 (exit 65: rejected). `outbox` already holds a copy found before its
/// first send (dedup) and a line pending since 21 hours (past the 20 h deadline).
fn project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "project = \"blog\"\nmetrics_file = \"textfile/dayrun.prom\"\n\
         [targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    )
    .script(
        "publish.sh",
        "#!/bin/sh\ncat >/dev/null\n[ \"$DAYRUN_KEY\" = 2026-11-29 ] && { echo 'no such tag' >&2; exit 65; }\necho \"https://site.example/$DAYRUN_KEY\"\n",
    )
    .file(
        "state/outbox.state",
        "2026-11-27 done 2026-11-27T07:00:00+00:00 id=outbox/2026-11-27.html dedup=1\n\
         2026-11-28 pending 2026-11-28T10:00:00+00:00\n",
    )
    .post("2026-11-27", "One")
    .post("2026-11-28", "Two")
    .post("2026-11-29", "Three");
    std::fs::create_dir_all(p.path("textfile")).unwrap();
    p
}

#[test]
fn a_failed_run_writes_every_fact_with_bounded_labels() {
    let p = project();
    p.run_at(NOW, &["run"]).code(1);
    let text = p.read("textfile/dayrun.prom");
    let s = samples(&text);
    let at = |series: &str| {
        s.get(series)
            .unwrap_or_else(|| panic!("{series} missing:\n{text}"))
            .clone()
    };
    let outbox = "project=\"blog\",target=\"outbox\"";
    let site = "project=\"blog\",target=\"site\"";
    assert_eq!(at(&format!("dayrun_keys{{{site},state=\"done\"}}")), "2");
    assert_eq!(at(&format!("dayrun_keys{{{site},state=\"failed\"}}")), "1");
    assert_eq!(
        at(&format!("dayrun_failed_keys{{{site},class=\"rejected\"}}")),
        "1"
    );
    assert_eq!(
        at(&format!("dayrun_failed_keys{{{site},class=\"auth\"}}")),
        "0"
    );
    assert_eq!(at(&format!("dayrun_needs_person_keys{{{site}}}")), "1");
    assert_eq!(at(&format!("dayrun_dedup_hits_total{{{outbox}}}")), "1");
    assert_eq!(at(&format!("dayrun_dedup_hits_total{{{site}}}")), "0");
    assert_eq!(
        at(&format!("dayrun_pending_deadline_seconds{{{outbox}}}")),
        "72000"
    );
    assert_eq!(
        at(&format!(
            "dayrun_failure_oldest_timestamp_seconds{{{site}}}"
        )),
        NOW_SECS.to_string()
    );
    assert_eq!(
        at(&format!(
            "dayrun_last_success_timestamp_seconds{{{outbox}}}"
        )),
        NOW_SECS.to_string()
    );
    assert_eq!(at("dayrun_run_exit_code{project=\"blog\"}"), "1");
    assert_eq!(
        at("dayrun_run_start_timestamp_seconds{project=\"blog\"}"),
        NOW_SECS.to_string()
    );
    assert_eq!(at("dayrun_run_requests{project=\"blog\"}"), "0");
    assert_eq!(at("dayrun_state_readable{project=\"blog\"}"), "1");
    let duration: f64 = at("dayrun_run_duration_seconds{project=\"blog\"}")
        .parse()
        .unwrap();
    assert!((0.0..60.0).contains(&duration), "{duration}");
    // Labels: project, target, state, class; never a key, an id or a text from outside.
    for series in s.keys() {
        let labels = series.split_once('{').map_or("", |(_, l)| l);
        for pair in labels.trim_end_matches('}').split(',') {
            let name = pair.split('=').next().unwrap();
            assert!(
                ["project", "target", "state", "class"].contains(&name),
                "{series}"
            );
        }
        assert!(!series.contains("2026-"), "a key in a label: {series}");
    }
    // Every family is named dayrun_…, typed, and `_total` only for the count from the lines.
    for line in text.lines().filter(|l| l.starts_with("# TYPE")) {
        let name = line.split_whitespace().nth(2).unwrap();
        assert!(name.starts_with("dayrun_"), "{line}");
        assert_eq!(
            name.ends_with("_total"),
            line.ends_with("counter"),
            "{line}"
        );
    }
    // Written whole: no temp file is left beside it.
    let names: Vec<_> = std::fs::read_dir(p.path("textfile"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["dayrun.prom"]);
}

#[test]
fn the_oldest_pending_line_is_its_time_and_the_deadline_is_escalate_after() {
    let p = project();
    // A run confirms pending lines: this one runs `outbox` only, and leaves `site`'s line. `site`
    // can look its copies up (`confirm`), so a lost answer waits for the next run.
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml").replace(
            "[targets.site]",
            "[targets.site]\nescalate_after = \"2h\"\nconfirm = [\"./find.sh\"]",
        ),
    );
    p.file(
        "state/site.state",
        "2026-11-29 pending 2026-11-29T06:30:00+00:00\n",
    );
    p.script("publish.sh", "#!/bin/sh\nexit 9\n");
    p.run_at(NOW, &["run", "--target", "outbox"]);
    let s = samples(&p.read("textfile/dayrun.prom"));
    let site = "project=\"blog\",target=\"site\"";
    assert_eq!(
        s[&format!("dayrun_pending_oldest_timestamp_seconds{{{site}}}")],
        (NOW_SECS - 1800).to_string()
    );
    assert_eq!(
        s[&format!("dayrun_pending_deadline_seconds{{{site}}}")],
        "7200"
    );
    // Half an hour is within the deadline: the next run goes on with it by itself.
    assert_eq!(s[&format!("dayrun_waiting_keys{{{site}}}")], "1");
    assert_eq!(s[&format!("dayrun_needs_person_keys{{{site}}}")], "0");
}

#[test]
fn the_metrics_agree_with_status_json() {
    let p = project();
    p.run_at(NOW, &["run"]).code(1);
    let s = samples(&p.read("textfile/dayrun.prom"));
    let out = p.run_at(NOW, &["status", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    for target in json["targets"].as_array().unwrap() {
        let name = target["name"].as_str().unwrap();
        for (state, n) in target["counts"].as_object().unwrap() {
            let series =
                format!("dayrun_keys{{project=\"blog\",target=\"{name}\",state=\"{state}\"}}");
            if let Some(value) = s.get(&series) {
                assert_eq!(value, &n.to_string(), "{series}");
            }
        }
        let hits = format!("dayrun_dedup_hits_total{{project=\"blog\",target=\"{name}\"}}");
        assert_eq!(s[&hits], target["counts"]["dedup"].to_string());
    }
}

#[test]
fn a_confirmation_after_a_lost_answer_is_counted_for_the_run() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\nconfirm = [\"./find.sh\"]\n",
    )
    // The script publishes, then dies before it answers: the outcome is unknown.
    .script(
        "publish.sh",
        "#!/bin/sh\ncat >/dev/null\ntouch published\nexit 9\n",
    )
    .script(
        "find.sh",
        "#!/bin/sh\ncat >/dev/null\n[ -f published ] || exit 1\necho copy-1\n",
    )
    .post("2026-11-29", "Three");
    p.run_at(NOW, &["run", "--metrics", "dayrun.prom"])
        .code(0)
        .stdout_has("confirmed");
    let s = samples(&p.read("dayrun.prom"));
    // The project label is the folder's name when the config names none.
    let folder = p.root.file_name().unwrap().to_string_lossy().into_owned();
    let labels = format!("project=\"{folder}\",target=\"site\"");
    assert_eq!(s[&format!("dayrun_run_confirmed_keys{{{labels}}}")], "1");
    assert_eq!(s[&format!("dayrun_dedup_hits_total{{{labels}}}")], "0");
}

#[test]
fn a_project_label_is_escaped_and_a_dry_run_writes_nothing() {
    let p = project();
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml")
            .replace("project = \"blog\"", "project = 'my \"blog\" \\ 2'"),
    );
    p.run_at(NOW, &["run", "--dry-run"]);
    assert!(
        !p.exists("textfile/dayrun.prom"),
        "a dry run tells the monitors nothing"
    );
    p.run_at(NOW, &["run"]);
    let text = p.read("textfile/dayrun.prom");
    assert!(
        text.contains(r#"dayrun_run_exit_code{project="my \"blog\" \\ 2"} 1"#),
        "{text}"
    );
}

#[test]
fn a_metrics_file_in_the_state_folder_is_refused() {
    let p = project();
    let out = p.run_at(NOW, &["run", "--metrics", "state/outbox.state"]);
    out.code(2)
        .stderr_has("`--metrics state/outbox.state` is inside the state folder");
    assert!(
        p.read("state/outbox.state").contains("dedup=1"),
        "the state file is untouched"
    );
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml")
            .replace("textfile/dayrun.prom", "content/x.prom"),
    );
    p.run_at(NOW, &["run"])
        .code(2)
        .stderr_has("`metrics_file = \"content/x.prom\"` is inside the content folder");
}

#[test]
fn a_metrics_file_that_cannot_be_written_is_said_and_changes_no_exit() {
    let p = project();
    p.file(
        "dayrun.toml",
        p.read("dayrun.toml")
            .replace("textfile/dayrun.prom", "missing/dayrun.prom"),
    );
    p.file("state/outbox.state", "");
    p.script("publish.sh", "#!/bin/sh\ncat >/dev/null\necho id\n");
    let out = p.run_at(NOW, &["run"]);
    out.code(0)
        .stderr_has("dayrun: warning: cannot write the metrics missing/dayrun.prom");
}
