//! One target's pass over the keys: which keys it looks at, what their life says to do with
//! each, and the summary it prints.

use super::{Posts, TargetRun};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::Key;
use crate::life::{self, Act, Decision, Event, Facts, Lever, Mode, Pass, Seen, Skip, Why};
use crate::life::{Exit, Status};
use crate::tally::Count;
use crate::tell;

impl TargetRun<'_> {
    /// The keys this target looks at besides the posts (every run looks at every post): keys
    /// whose line is not done and that have no post. Notes done keys whose post is gone.
    pub(crate) fn keys_without_post(&mut self, catalog: &Catalog) -> Vec<Key> {
        // Both are in key order: one walk side by side, no lookup per key.
        let mut posts = catalog.files.keys().peekable();
        let (mut deleted, mut other) = (Vec::new(), Vec::new());
        for record in self.state.records() {
            while posts.next_if(|k| **k < record.key).is_some() {}
            if posts.peek() == Some(&&record.key) {
                continue;
            }
            // Published posts whose file is gone: never retracted by themselves, but said.
            match record.status {
                Status::Done => deleted.push(record.key),
                Status::Retracted => {}
                _ => other.push(record.key),
            }
        }
        self.outcome.deleted = deleted;
        other
    }

    /// Whether this target looks at `key` (`life::looks_at`).
    pub(crate) fn looks_at(&self, key: Key, has_post: bool) -> bool {
        life::looks_at(self.state.get(key), &self.run.plan.mode, has_post)
    }

    /// The post as the rules see it, read only when a rule asks; `facts`: what the rules
    /// compare of a readable post (`Post::facts`, and whether it can be sent here).
    fn seen(
        posts: &Posts,
        key: Key,
        has_post: bool,
        facts: &dyn Fn(&crate::post::Post) -> Facts,
    ) -> Seen {
        if !has_post {
            return Seen::Gone;
        }
        match &*posts.get(key) {
            Err(err) => Seen::Broken(err.reason()),
            Ok(post) if post.draft => Seen::Draft,
            Ok(post) => Seen::Ready(facts(post)),
        }
    }

    /// Whether the key's visit compares the post's edit hash (`life::compares_payload`): it
    /// is made only then (it needs the post's images).
    fn refused(&self, key: Key) -> bool {
        life::compares_payload(self.line(key).as_ref())
    }

    /// What the key's life says to do with it now (no line changes: for the progress count).
    pub(crate) fn sends(&mut self, key: Key, has_post: bool, posts: &Posts) -> bool {
        if self.quick_done(key) {
            return false;
        }
        let (template, refused) = (self.template_mark(), self.refused(key));
        let facts = |post: &crate::post::Post| post.facts(template, refused);
        let get = || Self::seen(posts, key, has_post, &facts);
        let line = self.line(key);
        let ctx = self.ctx(key);
        let next = |seen: Option<&Seen>| {
            Ok::<_, std::convert::Infallible>(life::next(line.as_ref(), &Event::Visit(seen), &ctx))
        };
        let Ok((step, _)) = super::apply::visit(next, get);
        matches!(step.then, life::Then::Decide(d) if d.publishes())
    }

    /// A done line the run can pass over without reading its post (`life::pass`): nothing a
    /// visit could do with it sends or looks anything up.
    pub(super) fn quick_done(&self, key: Key) -> bool {
        self.pass(key).may()
    }

    /// How the key's line may be passed over without reading its post (`life::pass`).
    fn pass(&self, key: Key) -> Pass {
        let mode = &self.run.plan.mode;
        life::pass(self.state.get(key), mode, &self.here.rules, self.run.today)
    }

    /// One visit of the key's life on this target, and what it decides, done.
    pub(crate) fn step(&mut self, key: Key, has_post: bool, posts: &Posts) -> Result<(), Error> {
        let quick = match self.pass(key) {
            Pass::Yes => true,
            Pass::Untouched(at) => !posts.touched_after(key, at),
            Pass::No => false,
        };
        if quick {
            self.count(Count::Done, key, "skip", "done");
            return Ok(());
        }
        self.not_ours_first(key)?;
        let step = self.visit(key, has_post, posts)?;
        let life::Then::Decide(decision) = step.then else {
            unreachable!("a visit decides")
        };
        let sends = decision.reaches_target();
        // A key that sends or looks leaves what the attempt records; any other leaves what its
        // line implies. A broken post: the implied exit stands (1 in its window or after an
        // attempt); recording a new error says so again. A dry run, or a target stopped for
        // this run: the key leaves what its line implies, and what the run then records for it
        // (not tried) is folded in too.
        if !sends || self.run.plan.dry_run || self.pace.stopped.is_some() {
            self.outcome.exit.merge(step.exit);
        }
        if sends || matches!(decision, Decision::Broken(_)) {
            return self.act(key, has_post, posts, decision);
        }
        self.say_decision(key, decision);
        Ok(())
    }

    /// The key's life, visited: the post read only if a rule asks, with the copies its text
    /// links to as gathered for this key (`gather`).
    fn visit(&mut self, key: Key, has_post: bool, posts: &Posts) -> Result<life::Step, Error> {
        let template = self.template_mark();
        let (cfg, upstream) = (self.cfg, self.upstream(key));
        let blocked =
            |post: &crate::post::Post| crate::targets::preview::blocked(cfg, post, &upstream);
        let refused = self.refused(key);
        let facts = |post: &crate::post::Post| Facts {
            blocked: blocked(post),
            ..post.facts(template, refused)
        };
        let get = || Self::seen(posts, key, has_post, &facts);
        let (step, _) = super::apply::visit(|seen| self.apply(key, &Event::Visit(seen)), get)?;
        Ok(step)
    }

    /// A decision that sends nothing and looks nothing up: said, counted and traced.
    fn say_decision(&mut self, key: Key, decision: Decision) {
        match decision {
            Decision::Skip(skip) => self.skip(key, skip),
            Decision::Wait(why) => {
                self.outcome.tally.add(Count::Failed);
                self.say(key, "waiting", &why);
                let line = self.line(key);
                if let Some(hint) = self.hints(key).hint(line.as_ref(), None) {
                    self.say_under(&hint);
                }
            }
            Decision::EditFailed(why) => {
                self.outcome.tally.add(Count::EditFailed);
                self.say(key, "edit failed", &tell::skip::edit_failed(&why));
            }
            Decision::Hold => {
                self.outcome.held.push(key);
                self.outcome.tally.add(Count::HeldBack);
            }
            Decision::Drop => {
                self.say(key, "forgotten", tell::skip::DROPPED);
                self.trace(key, "forget", "done", tell::skip::DROPPED);
            }
            // A published copy with no id: the retract fails for it, naming what to do.
            Decision::NothingToRetract(why)
                if self.line(key).is_some_and(|l| l.phase == life::Phase::Done) =>
            {
                self.outcome.tally.add(Count::Failed);
                self.say(key, "failed", &tell::skip::cannot_retract(&why));
            }
            Decision::NothingToRetract(why) => self.count(Count::Skip, key, "skip", &why),
            _ => unreachable!("sent or looked up by `act`"),
        }
    }

    /// `retry --not-ours ID`: the human's word first, so the lookup that follows leaves that
    /// copy out.
    fn not_ours_first(&mut self, key: Key) -> Result<(), Error> {
        if let Mode::Retry(Lever::NotOurs(id)) = &self.run.plan.mode
            && !self.run.plan.dry_run
            && self.state.get(key).is_some()
        {
            let here = self
                .target
                .as_names()
                .and_then(|n| n.copy_of(key, id))
                .is_some_and(|(g, _)| {
                    Some(g) == self.line(key).map(|l| l.copies.current.generation)
                });
            let act = Act::NotOurs {
                id: id.clone(),
                here,
            };
            self.apply(key, &Event::Human(&act))?;
            self.trace(key, "mark", "not-ours", &format!("id={id} (by hand)"));
        }
        Ok(())
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
            Decision::Publish {
                why,
                look_first,
                new_copy,
            } => {
                self.run.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, why, look_first, new_copy)?;
                self.run.progress.advance();
            }
            Decision::Confirm => {
                self.run.progress.start(&key.to_string(), &self.cfg.name);
                match has_post {
                    true => self.attempt(key, posts, Why::Pending, true, false)?,
                    false => self.look_only(key)?,
                }
                self.run.progress.advance();
            }
            // A done copy looked for beside: nothing is ever sent for it.
            Decision::LookBeside => {
                self.run.progress.start(&key.to_string(), &self.cfg.name);
                self.look_only(key)?;
                self.run.progress.advance();
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

    /// A skip: counted and said as `tell::skip` words it; a late edit is said whatever the
    /// run, and traced.
    fn skip(&mut self, key: Key, skip: Skip) {
        let has_id = skip == Skip::CannotUpdate
            && self
                .line(key)
                .is_some_and(|l| l.copies.current.id.is_some());
        let at = tell::skip::Skipping {
            key,
            target: &self.cfg.name,
            rules: &self.here.rules,
            has_id,
        };
        let said = tell::skip::skip(&skip, at);
        match skip {
            Skip::LateEdit => {
                self.outcome.tally.add(said.tally);
                self.say(key, said.word, &said.detail);
                self.trace(key, "edit", "late", &said.detail);
                return;
            }
            Skip::Stale => self.outcome.stale.push(key),
            Skip::Draft => self.outcome.drafts.push(key),
            _ => {}
        }
        self.count(said.tally, key, said.word, &said.detail);
    }

    /// The target's one summary line (`tell::summary`); deleted keys are counted here, where
    /// their range and advice are known. The exit of the pass.
    pub(crate) fn finish(&mut self) -> Exit {
        if self.run.plan.dry_run {
            return self.outcome.exit;
        }
        for _ in &self.outcome.deleted {
            self.outcome.tally.add(Count::Deleted);
        }
        let outcome = &self.outcome;
        let ranges = tell::summary::Ranges {
            stale: &outcome.stale,
            drafts: &outcome.drafts,
            held: &outcome.held,
            deleted: &outcome.deleted,
        };
        let catchup_days = self.here.rules.catchup_days;
        let line = tell::summary::pass(&self.cfg.name, &outcome.tally, ranges, catchup_days);
        crate::say::out(&line);
        self.outcome.exit
    }
}
