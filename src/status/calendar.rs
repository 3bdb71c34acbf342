//! `status --html FILE`: the calendar, for a person who looks once a week. Every key's mark on
//! every target, judged as `status` judges it (`judge.rs`), laid out by day (`calendar/page.rs`
//! draws it); the problems first, each with the command that fixes it.

mod page;

use super::judge::{self, Judged, Sink};
use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::life::{self, Key};
use crate::tally::Count;
use std::path::Path;

/// One key on one target, as the calendar shows it.
pub(crate) struct Mark {
    pub(crate) key: Key,
    /// The target's place among the targets shown.
    pub(crate) target: usize,
    pub(crate) state: Count,
    /// Where its copy can be opened (a web URL only).
    pub(crate) url: Option<String>,
    /// What a person must do, when one must (`fix`).
    pub(crate) problem: Option<Problem>,
}

/// A key that needs a person, or that the next run goes on with.
pub(crate) struct Problem {
    /// What is wrong, in a few words.
    pub(crate) what: String,
    /// The line's reason, for a key that needs a person (escaped when drawn).
    pub(crate) reason: Option<String>,
    /// What a person does, in words.
    pub(crate) step: String,
    /// The command that fixes it, when one does.
    pub(crate) command: Option<String>,
    /// A person must act (a run exits 1 or 3 for it); otherwise the next run goes on by itself.
    pub(crate) urgent: bool,
}

/// Every mark, by target in order.
#[derive(Default)]
struct Collect {
    targets: Vec<String>,
    marks: Vec<Mark>,
}

impl Sink for Collect {
    fn target(&mut self, cfg: &TargetConfig, _: &life::Rules) -> Result<(), Error> {
        self.targets.push(cfg.name.clone());
        Ok(())
    }

    fn key(&mut self, judged: &Judged) -> Result<(), Error> {
        let row = judged.row;
        let target = self.targets.len() - 1;
        self.marks.push(Mark {
            key: judged.key,
            target,
            state: row.status,
            url: crate::outside::web_url(row.url.as_deref()),
            problem: fix(judged, &self.targets[target]),
        });
        Ok(())
    }

    fn end(&mut self, _: &TargetConfig) -> Result<(), Error> {
        Ok(())
    }
}

/// Judge every key, write the page to `file` (relative to the project folder) in one piece,
/// say where; the exit a run would leave, as plain `status`.
pub(crate) fn run(
    config: &Config,
    clock: &Clock,
    names: &[String],
    file: &Path,
) -> Result<i32, Error> {
    let path = config.output("--html", file)?;
    let mut collect = Collect::default();
    let judged = judge::judge(config, clock, names, false, &mut collect)?;
    let catalog = crate::content::Catalog::scan(&config.sources())?;
    let title = |key: Key| catalog.text(key).ok().map(|post| post.title);
    let page = page::Page {
        project: &config.watch.project,
        today: clock.today(),
        stamp: &clock.stamp(),
        targets: &collect.targets,
        marks: &collect.marks,
        said: &judged.said,
    };
    let html = page.html(&title);
    std::fs::create_dir_all(crate::fsutil::folder_of(&path))
        .and_then(|()| crate::fsutil::write_atomic(&path, html.as_bytes()))
        .map_err(|e| Error::io(crate::error::Kind::Usage, file, "write the calendar", &e))?;
    let problems = collect.marks.iter().filter(|m| m.problem.is_some()).count();
    crate::say::out(&format!(
        "wrote {}: {} mark(s) on {} target(s), {problems} problem(s)",
        config.show(&path).display(),
        collect.marks.len(),
        collect.targets.len()
    ));
    Ok(judged.exit.code())
}

/// What needs doing about a key, in the words `status` uses for it, and the command that does
/// it; `None` when nothing does.
fn fix(judged: &Judged, target: &str) -> Option<Problem> {
    let row = judged.row;
    let key = &row.key;
    let urgent = matches!(
        row.exit,
        crate::error::code::NEEDS_HUMAN | crate::error::code::AUTH
    );
    let retry = format!("dayrun retry {key} --target {target}");
    let failed = row.status == Count::Failed;
    let (what, step, command) = match () {
        _ if row.held_back => (
            "held back: it failed and is past the catch-up window".to_string(),
            "send it now (or put it aside: dayrun mark KEY failed)",
            Some(retry),
        ),
        _ if row.edit_failed => (
            "the target refused the edit".to_string(),
            "fix the post, or send it as it is (or accept the copy: dayrun mark KEY done)",
            Some(format!("{retry} --force")),
        ),
        _ if row.blocked.is_some() => (
            format!(
                "cannot be sent: {}",
                row.blocked.as_deref().unwrap_or_default()
            ),
            "fix the post or the template; the next run sends it",
            None,
        ),
        _ if failed && row.class.as_deref() == Some("auth") => (
            "the credentials were refused".to_string(),
            "renew the target's credential, then",
            Some(retry),
        ),
        _ if failed && urgent => (
            format!("failed ({})", row.class.as_deref().unwrap_or("unknown")),
            "fix what the reason says, then",
            Some(retry),
        ),
        _ if row.status == Count::Pending && (urgent || row.stuck) => (
            "pending: its outcome is not known".to_string(),
            "the next run looks it up; if it cannot, look on the target and record it: dayrun mark KEY done --id ID",
            None,
        ),
        _ if urgent => (
            format!("{} needs a person", row.status.word()),
            "read why:",
            Some(format!("dayrun status --target {target}")),
        ),
        _ if row.exit == crate::error::code::TEMPFAIL => (
            match &row.class {
                Some(class) => format!("{} ({class})", row.status.word()),
                None => row.status.word().to_string(),
            },
            "nothing: the next run goes on with it",
            None,
        ),
        _ => return None,
    };
    let reason = row.reason.clone().filter(|_| urgent);
    Some(Problem {
        what,
        reason,
        step: step.replace("KEY", key),
        command,
        urgent,
    })
}
