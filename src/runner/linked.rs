//! A target whose template links to other targets' copies (`copies.NAME.url`): their lines for
//! the key, gathered just before the key is visited (those targets come first in the run's
//! order, their queued keys published first), and the key's wait while a copy is not there.
//! Whether a copy is there, coming or never coming is `template::judge`'s to say.

use super::TargetRun;
use crate::config::TargetConfig;
use crate::error::{Class, Error};
use crate::life::Key;
use crate::life::{self, Answer, Event, KeyLine};
use crate::post::Post;
use crate::state::StateFile;
use crate::tally::Count;
use crate::tell;
use crate::template::Upstream;
use std::collections::BTreeMap;
use std::path::Path;

/// The state of each target a selected target's template links to that is not in this run
/// (not selected with `--target`, or its setup broken): read once, never written.
pub(crate) fn others(
    config: &crate::config::Config,
    running: &[&TargetConfig],
    shown: &Path,
) -> Result<BTreeMap<String, StateFile>, Error> {
    let mut others = BTreeMap::new();
    let linked = running
        .iter()
        .filter_map(|cfg| cfg.template.as_ref())
        .flat_map(|t| t.uses().copies.keys());
    for name in linked {
        if !running.iter().any(|c| &c.name == name) && !others.contains_key(name) {
            others.insert(name.clone(), StateFile::load(&config.state, name, shown)?);
        }
    }
    Ok(others)
}

/// The state of each target `cfg`'s template links to, read only (for `status`).
pub fn linked_states(
    config: &crate::config::Config,
    cfg: &TargetConfig,
    shown: &Path,
) -> Result<BTreeMap<String, StateFile>, Error> {
    others(config, &[cfg], shown)
}

impl TargetRun<'_> {
    /// Before the key is visited: the lines of the targets this one's template links to,
    /// from the runs before it in this run (`before`), or from `others`.
    pub(crate) fn gather(
        &mut self,
        key: Key,
        before: &mut [TargetRun],
        others: &BTreeMap<String, StateFile>,
    ) -> Result<(), Error> {
        self.known.upstream.clear();
        let cfg = self.cfg;
        let Some(template) = &cfg.template else {
            return Ok(());
        };
        if template.uses().copies.is_empty() || self.quick_done(key) {
            return Ok(());
        }
        for name in template.uses().copies.keys() {
            let line = match before.iter_mut().find(|run| &run.cfg.name == name) {
                Some(run) => {
                    // Its queued keys go out now, so that this one sees their lines.
                    run.flush()?;
                    run.line(key)
                }
                None => others.get(name).and_then(|s| s.get(key)).map(KeyLine::of),
            };
            self.known.upstream.insert(name.clone(), line);
        }
        Ok(())
    }

    /// Where each copy the template needs stands, by target name.
    pub(super) fn upstream(&self, key: Key) -> Vec<(String, Upstream)> {
        let Some(template) = &self.cfg.template else {
            return Vec::new();
        };
        let held = life::past_window(key, &self.ctx(key));
        let line_of = |name: &str| self.known.upstream.get(name).and_then(Option::clone);
        crate::template::upstream(template, line_of, held)
    }

    /// The post with the copies its template uses that are there (an update renders with
    /// what it has; a missing one fails its render).
    pub(super) fn with_copies(&self, mut post: Post) -> Post {
        for (name, upstream) in self.upstream(post.key) {
            if let Upstream::There(copy) = upstream {
                post.copies.insert(name, copy);
            }
        }
        post
    }

    /// `--dry-run`: the post with the copies there, and a stand-in for each still coming (a
    /// copy that will never come stays missing, so its render fails as the run's would).
    pub(super) fn with_stand_ins(&self, mut post: Post) -> Post {
        for (name, upstream) in self.upstream(post.key) {
            match upstream {
                Upstream::There(copy) => drop(post.copies.insert(name, copy)),
                Upstream::Coming(_) => crate::targets::preview::stand_in(&mut post, &name),
                Upstream::Never(_) => {}
            }
        }
        post
    }

    /// `--dry-run`: where the copies the key's text links to stand.
    pub(super) fn say_copies(&self, key: Key) {
        for (name, upstream) in self.upstream(key) {
            self.voice
                .say(key, "note", &tell::dry::copy(&name, upstream));
        }
    }

    /// `--dry-run`: the text the template makes for `post`, and how long it is.
    pub(super) fn say_text(&self, post: &Post) {
        let post = self.with_copies(post.clone());
        let text = match crate::targets::preview::preview(self.cfg, &post) {
            Ok(None) => return,
            Ok(Some(text)) => tell::dry::text(&text),
            Err(err) => tell::dry::cannot_render(&err.message),
        };
        self.voice.say(post.key, "text", &text);
    }

    /// The post with every copy its text links to, or `None` when one is missing: then the
    /// key waits (a retry-safe failure that says what for: the next run sends it once the copy
    /// is there) or, when a copy cannot come without a human, fails (local) saying why.
    /// Nothing is sent either way. `line`: the key's line before this attempt.
    pub(super) fn linked(
        &mut self,
        post: Post,
        line: Option<&KeyLine>,
    ) -> Result<Option<Post>, Error> {
        let key = post.key;
        let (mut coming, mut never) = (Vec::new(), Vec::new());
        for (name, upstream) in self.upstream(key) {
            match upstream {
                Upstream::There(_) => {}
                Upstream::Coming(why) => coming.push(format!("{name}'s copy ({why})")),
                Upstream::Never(why) => never.push((name, why)),
            }
        }
        if coming.is_empty() && never.is_empty() {
            return Ok(Some(self.with_copies(post)));
        }
        let name = &self.cfg.name;
        let err = match never.is_empty() {
            true => Error::failure(
                Class::RetrySafe,
                format!(
                    "waits for {}: the text links to it; the next run sends it once it is there",
                    coming.join(" and ")
                ),
            ),
            false => {
                let why: Vec<String> = never.iter().map(|(_, why)| why.clone()).collect();
                let first = &never[0].0;
                Error::failure(
                    Class::Local,
                    format!(
                        "not sent: the text links to a copy that will not come by itself: {}",
                        why.join("; ")
                    ),
                )
                .hint(format!(
                    "once {first} has it, the next run sends this one (`dayrun retry {key}` sends both, in order); `dayrun mark {key} failed --target {name}` puts this one aside"
                ))
            }
        };
        let failed = self.failed(&err, Some(&post));
        let step = self.apply(
            key,
            &Event::Answered {
                answer: Answer::Failed(failed.borrow()),
                before: line,
                sends: u32::MAX,
            },
        )?;
        self.voice
            .trace(key, "wait", "failed", &tell::failure::detail(&err));
        match err.class() {
            Some(Class::RetrySafe) => {
                self.voice.outcome.tally.add(Count::Failed);
                let text = step
                    .written()
                    .and_then(|l| l.reason.clone())
                    .unwrap_or_else(|| err.message.clone());
                self.voice.say(key, "waiting", &text);
            }
            _ => self.report(key, &step, Some(&err))?,
        }
        Ok(None)
    }
}
