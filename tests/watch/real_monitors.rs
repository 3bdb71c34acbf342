//! The real monitors read what dayrun made: Debian's node_exporter serves every series of the
//! metrics file through its textfile collector, promtool finds the file, the alert rules and
//! their tests clean, and headless Chromium renders the calendar (its DOM checked, its
//! screenshot kept in the target folder for a person to look at). Ignored without the
//! packages; `.ci/run` installs them and runs these.

use super::calendar;
use crate::support::util::Project;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The program, or a failure naming the Debian package that has it.
fn tool(name: &str, package: &str) -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|path| path.is_file());
    found.unwrap_or_else(|| panic!("{name} is missing: `apt-get install {package}` (.ci/run does)"))
}

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A project whose run wrote `textfile/NAME.prom` as project `name`.
fn metrics_project(name: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "project = \"{name}\"\nmetrics_file = \"textfile/{name}.prom\"\n\
             [targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
             [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n"
        ),
    )
    .script(
        "publish.sh",
        "#!/bin/sh\ncat >/dev/null\n[ \"$DAYRUN_KEY\" = 2026-11-29 ] && exit 65\necho id\n",
    )
    .file(
        "state/outbox.state",
        "2026-11-28 pending 2026-11-28T10:00:00+00:00\n",
    )
    .post("2026-11-28", "Two")
    .post("2026-11-29", "Three");
    std::fs::create_dir_all(p.path("textfile")).unwrap();
    p.run_at("2026-11-29T07:00:00Z", &["run"]).code(1);
    p
}

/// The series (`name{labels}`) of a text-format body whose names start with `prefix`, with
/// the labels sorted (node_exporter sorts them).
fn series(text: &str, prefix: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| {
            let series = l.rsplit_once(' ').unwrap().0;
            let (name, labels) = series.split_once('{').unwrap_or((series, "}"));
            let mut labels: Vec<&str> = labels
                .trim_end_matches('}')
                .split(',')
                .filter(|l| !l.is_empty())
                .collect();
            labels.sort_unstable();
            format!("{name}{{{}}}", labels.join(","))
        })
        .collect()
}

/// node_exporter's /metrics on `port`, once it answers (10 s at most).
fn scrape(port: u16) -> String {
    let started = Instant::now();
    loop {
        let url = format!("http://127.0.0.1:{port}/metrics");
        if let Ok(mut reply) = ureq::get(&url).call() {
            return reply.body_mut().read_to_string().unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "node_exporter did not answer"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[ignore = "needs prometheus-node-exporter (Debian): .ci/run runs it"]
fn node_exporter_serves_every_series_of_two_projects() {
    let exporter = tool("prometheus-node-exporter", "prometheus-node-exporter");
    let (blog, notes) = (metrics_project("blog"), metrics_project("notes"));
    // One textfile folder for both projects, as on a host that runs two.
    let folder = blog.path("textfile");
    std::fs::copy(notes.path("textfile/notes.prom"), folder.join("notes.prom")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _exporter = Running(
        Command::new(exporter)
            .args(["--collector.disable-defaults", "--collector.textfile"])
            .arg(format!(
                "--collector.textfile.directory={}",
                folder.display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let served = scrape(port);
    assert!(
        served.lines().any(|l| l == "node_textfile_scrape_error 0"),
        "{served}"
    );
    let mut written = series(&blog.read("textfile/blog.prom"), "dayrun_");
    written.extend(series(&notes.read("textfile/notes.prom"), "dayrun_"));
    let got = series(&served, "dayrun_");
    assert_eq!(got, written, "every series written is served, and no other");
    assert!(
        got.iter().any(|s| s.contains("project=\"notes\""))
            && got.iter().any(|s| s.contains("project=\"blog\""))
    );
}

#[test]
#[ignore = "needs promtool (Debian's prometheus): .ci/run runs it"]
fn promtool_finds_the_metrics_and_the_rules_clean_and_the_rule_tests_pass() {
    let promtool = tool("promtool", "prometheus");
    let p = metrics_project("blog");
    let file = std::fs::File::open(p.path("textfile/blog.prom")).unwrap();
    let out = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "promtool check metrics: {said}"
    );
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/prometheus");
    for args in [
        ["check", "rules", "dayrun-alerts.yml"],
        ["test", "rules", "dayrun-alerts.test.yml"],
    ] {
        let out = Command::new(&promtool)
            .args(args)
            .current_dir(&examples)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "promtool {args:?}: {said}");
        assert!(said.contains("SUCCESS"), "promtool {args:?}: {said}");
    }
}

/// Chromium, headless, on `page` with `args`; what it printed on stdout.
fn chromium(page: &Path, args: &[&str]) -> String {
    let chromium = tool("chromium", "chromium");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[ignore = "needs chromium (Debian): .ci/run runs it"]
fn chromium_renders_the_calendar_with_a_mark_per_key_and_target() {
    let p = calendar::project();
    p.run_at(calendar::NOW, &["status", "--html", "calendar.html"]);
    let page = p.path("calendar.html");
    let dom = chromium(&page, &["--dump-dom"]);
    // The DOM as the browser built it: 9 keys × 3 targets, and the legend's 8.
    assert_eq!(dom.matches("class=\"m ").count(), 27 + 8, "{dom}");
    assert_eq!(
        dom.matches("<a class=\"m done\" href=\"https://site.example/p/")
            .count(),
        7,
        "{dom}"
    );
    // The hostile title is text: no element came of it.
    assert!(!dom.contains("<script") && !dom.contains("<img"), "{dom}");
    assert!(
        dom.contains("&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{dom}"
    );
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calendar.png");
    let _ = std::fs::remove_file(&shot);
    chromium(
        &page,
        &[
            "--window-size=1200,1000",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
    eprintln!("the calendar's screenshot: {}", shot.display());
}
