//! `long = "thread"` (issue 24) on Bluesky and Mastodon against the strict fakes: a long post
//! goes out as a root and its self-replies, each part a side effect of its own, recorded on the
//! key's line as it lands; a lost answer or a kill between parts resumes at the first part not
//! yet out, never sends a part twice, never starts a second thread. Counted on the fakes.

use crate::support::util::Project;

mod bluesky;
mod edges;
mod found;
mod mastodon;
mod split;

pub const TODAY: &str = "--today=2026-11-29";
pub const KEY: &str = "2026-11-29";

/// About 1,000 graphemes of body in paragraphs and sentences, with a link and a hashtag.
pub fn long_body() -> String {
    let sentence = "Every morning the timer runs dayrun, and the date decides what goes out. ";
    let para = sentence.repeat(3);
    format!(
        "{para}\n\nSee https://example.test/docs/exactly-once for the rules. {para}\n\n{para}\n\n{para}\n\nThat is all #today."
    )
}

/// `content/KEY.md` with this title and body.
pub fn write_post(p: &Project, title: &str, body: &str) {
    p.file(
        &format!("content/{KEY}.md"),
        format!("---\ntags: [rust, ops]\n---\n# {title}\n\n{body}\n"),
    );
}

/// The value of `name=` on a state line.
pub fn field(line: &str, name: &str) -> Option<String> {
    let prefix = format!("{name}=");
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&prefix))
        .map(|v| v.trim_matches('"').to_string())
}

/// The key's latest line on `target`: the journal's last, else the state file's.
pub fn latest(p: &Project, target: &str) -> Option<String> {
    latest_of(p, target, KEY)
}

/// `latest`, for any key.
pub fn latest_of(p: &Project, target: &str, key: &str) -> Option<String> {
    let journal =
        std::fs::read_to_string(p.path(&format!("state/{target}.journal"))).unwrap_or_default();
    journal
        .lines()
        .rev()
        .find(|l| l.starts_with(key))
        .map(str::to_string)
        .or_else(|| {
            p.state_lines(target)
                .into_iter()
                .find(|l| l.starts_with(key))
        })
}

/// Start `dayrun run` and SIGKILL it once `ready` says so (checked every 20 ms, for at most
/// a minute); panics if it ended first.
pub fn kill_when(p: &Project, ready: impl Fn() -> bool) {
    kill_when_at(p, TODAY, ready)
}

/// `kill_when`, for a run with this `--today=…`.
pub fn kill_when_at(p: &Project, today: &str, ready: impl Fn() -> bool) {
    let mut child = p
        .command(&["run", today])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..3000 {
        if ready() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(ready(), "the moment to kill never came");
    assert!(
        child.try_wait().unwrap().is_none(),
        "dayrun ended before the kill"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}
