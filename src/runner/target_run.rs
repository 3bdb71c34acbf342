//! One target's pass over the keys: which keys it looks at (and surveys), what their life says
//! to do with each, and the summary it prints.

use super::{Posts, TargetRun};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::Exit;
use crate::life::Key;
use crate::life::{self, Decision, Why};
use crate::tally::Count;

impl TargetRun<'_> {
    /// The keys this target looks at besides the posts (`Book::keys_without_post`); notes done
    /// keys whose post is gone.
    pub(crate) fn keys_without_post(&mut self, catalog: &Catalog) -> Vec<Key> {
        let (other, deleted) = self.book.keys_without_post(catalog);
        self.voice.outcome.deleted = deleted;
        other
    }

    /// Before the pass: the keys of `keys` (the run's walk) that it will look up, surveyed
    /// with one read of the target (`look::survey`), traced.
    pub(crate) fn survey(&mut self, keys: impl Iterator<Item = (Key, bool)>) {
        if self.run.plan.dry_run || !self.book.rules.can_find {
            return;
        }
        let wanted: Vec<Key> = keys
            .filter(|&(key, has_post)| self.book.will_look(key, has_post))
            .map(|(key, _)| key)
            .collect();
        let now = self.run.clock.instant();
        let surveyed = self
            .finder()
            .and_then(|f| crate::look::survey(f, &wanted, now));
        if let Some((first, result, detail)) = surveyed {
            self.voice.trace(first, "survey", result, &detail);
        }
    }

    /// One visit of the key's life on this target, and what it decides, done.
    pub(crate) fn step(&mut self, key: Key, has_post: bool, posts: &Posts) -> Result<(), Error> {
        if self.book.passes_over(key, posts) {
            self.voice.count(Count::Done, key, "skip", "done");
            return Ok(());
        }
        // `retry --not-ours ID`: the human's word first, so the lookup that follows leaves
        // that copy out.
        if let Some(id) = self.book.not_ours(key, self.target.as_names())? {
            let detail = format!("id={id} (by hand)");
            self.voice.trace(key, "mark", "not-ours", &detail);
        }
        let (step, carried) = self.book.visit(key, has_post, posts)?;
        if let Some(old) = carried {
            self.voice.carried(key, old, self.book.place(key));
        }
        let life::Then::Decide(decision) = step.then else {
            unreachable!("a visit decides")
        };
        let sends = decision.reaches_target();
        // A dry run's carried line is not written: what comes after is the next run's.
        if carried.is_some() && self.run.plan.dry_run {
            self.voice.outcome.exit.merge(step.exit);
            return Ok(());
        }
        // A key that sends or looks leaves what the attempt records; any other leaves what its
        // line implies. A broken post: the implied exit stands (1 in its window or after an
        // attempt); recording a new error says so again. A dry run, or a target stopped for
        // this run: the key leaves what its line implies, and what the run then records for it
        // (not tried) is folded in too.
        if !sends || self.run.plan.dry_run || self.pace.stopped.is_some() {
            self.voice.outcome.exit.merge(step.exit);
        }
        if sends || matches!(decision, Decision::Broken(_)) {
            return self.act(key, has_post, posts, decision);
        }
        self.say_decision(key, decision);
        Ok(())
    }

    /// A decision that sends nothing and looks nothing up, told (`Voice::decision`).
    fn say_decision(&mut self, key: Key, decision: Decision) {
        let line = self.book.line(key);
        let target = &*self.target;
        let look = |k| target.where_to_look(k);
        self.voice.decision(key, decision, line.as_ref(), &look);
    }

    /// Do what the decision says.
    fn act(
        &mut self,
        key: Key,
        has_post: bool,
        posts: &Posts,
        decision: Decision,
    ) -> Result<(), Error> {
        match decision {
            Decision::Publish { .. } | Decision::Confirm | Decision::LookBeside => {
                self.voice.start(key);
                let done = match decision {
                    Decision::Publish {
                        why,
                        look_first,
                        new_copy,
                    } => self.attempt(key, posts, why, look_first, new_copy),
                    Decision::Confirm if has_post => {
                        self.attempt(key, posts, Why::Pending, true, false)
                    }
                    // A pending key whose post is gone, or a done copy looked for beside:
                    // nothing is ever sent for it.
                    _ => self.look_only(key),
                };
                self.voice.advance();
                done?;
            }
            Decision::FinishUpdate => self.finish_update(key, has_post, posts)?,
            Decision::FinishRetract | Decision::Retract => self.retract(key, posts)?,
            Decision::CheckEdit { forced } => self.check_edit(key, posts, forced)?,
            Decision::Broken(_) => {
                let err = match &*posts.get(key) {
                    Err(err) => err.clone(),
                    Ok(_) => unreachable!("a broken post"),
                };
                self.local_error(key, err)?;
            }
            _ => unreachable!("said by `say_decision`"),
        }
        Ok(())
    }

    /// The target's one summary line (`Voice::finish`); the exit of the pass.
    pub(crate) fn finish(&mut self) -> Exit {
        self.voice.outcome.exit.merge(self.book.exit);
        self.voice.finish()
    }
}
