//! Issue 20, "One key lifecycle": one test per row of its table, as a user meets each case
//! (row 4, a copy at the key's place that is not ours, is tested with the lookups of each
//! target). Each runs the real binary on real files against the strict fakes; time moves with
//! `DAYRUN_NOW`, as a daily timer would move it.

use crate::fakes::fake_posts::PostsApi;
use crate::support::util::{Output, Project};

mod copies;
mod lines;
mod lookups;
mod time;

const KEY: &str = "2026-11-29";

/// `hh:mm` UTC on `day`, as `DAYRUN_NOW` takes it.
fn at(day: &str, hhmm: &str) -> String {
    format!("{day}T{hhmm}:00Z")
}

/// The key `n` days after `key`.
fn plus(key: &str, n: i64) -> String {
    let day: jiff::civil::Date = key.parse().unwrap();
    day.checked_add(jiff::Span::new().days(n))
        .unwrap()
        .to_string()
}

/// `dayrun run ARGS…` as the timer starts it at `now`: today is that day. (`--today` says the
/// same thing, for a dayrun that does not read `DAYRUN_NOW`.)
fn morning(p: &Project, now: &str, args: &[&str]) -> Output {
    timed(p, now, "run", args)
}

/// `dayrun status` at `now`.
fn status(p: &Project, now: &str) -> Output {
    timed(p, now, "status", &[])
}

fn timed(p: &Project, now: &str, command: &str, args: &[&str]) -> Output {
    let today = format!("--today={}", &now[..10]);
    let mut all = vec![command, today.as_str()];
    all.extend_from_slice(args);
    p.run_at(now, &all)
}

/// A `[targets.NAME]` table for `api` whose lookup is an exact query by key (`list_url …?key=
/// {key}`, the README's recommended setup), with fast retries and looks and no settling.
fn http_table(api: &PostsApi, name: &str, extra: &str) -> String {
    let list = api.server.url("/posts");
    api.config(name, &format!("settle_secs = 0\n{extra}"))
        .replace(
            &format!("list_url = \"{list}\""),
            &format!("list_url = \"{list}?key={{key}}\""),
        )
}

/// A project whose one target is `blog`, an http target on `api` (see `http_table`), and the
/// post of `KEY`.
fn blog(api: &PostsApi, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", http_table(api, "blog", extra));
    p.post(KEY, "Today");
    p
}

/// The state line of `key` on `target`.
#[track_caller]
fn line_of(p: &Project, target: &str, key: &str) -> String {
    let lines = p.state_lines(target);
    lines
        .iter()
        .find(|l| l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no line for {key} on {target}: {lines:#?}"))
        .clone()
}

/// The value of `name=` on a state line (a quoted value without its quotes and escapes).
fn field(line: &str, name: &str) -> Option<String> {
    let at = line.find(&format!(" {name}="))? + name.len() + 2;
    let rest = &line[at..];
    let Some(quoted) = rest.strip_prefix('"') else {
        return Some(rest.split(' ').next().unwrap_or("").to_string());
    };
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => break,
            c => value.push(c),
        }
    }
    Some(value)
}

/// What the command printed, both streams.
fn printed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

/// Assert that nothing printed holds `needle`.
#[track_caller]
fn never_said(out: &Output, needle: &str) {
    assert!(
        !printed(out).contains(needle),
        "printed {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}
