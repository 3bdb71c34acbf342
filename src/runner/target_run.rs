//! One target's pass over the keys: which keys it looks at, what their life says to do with
//! each, and the summary it prints.

use super::{Posts, TargetRun};
use crate::content::Catalog;
use crate::error::Error;
use crate::life::Exit;
use crate::life::Key;
use crate::life::{self, Act, Decision, Event, Facts, Lever, Mode, Pass, Seen, Why};
use crate::tally::Count;

impl TargetRun<'_> {
    /// The keys this target looks at besides the posts (every run looks at every post): keys
    /// whose line is not done and that have no post (`store::gone::without_post`). Notes done
    /// keys whose post is gone, and the lines the rename rule may note gone (`renamed.rs`).
    pub(crate) fn keys_without_post(&mut self, catalog: &Catalog) -> Vec<Key> {
        let keys = catalog.files.keys().copied();
        let lines = store::gone::without_post(self.state, keys, catalog.slugged());
        self.voice.outcome.deleted = lines.deleted;
        self.known.unstamped = lines.unstamped;
        lines.other
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
        let (step, _) = self.decide(key, has_post, posts, false);
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
            self.voice.count(Count::Done, key, "skip", "done");
            return Ok(());
        }
        self.not_ours_first(key)?;
        let (step, carried) = self.visit(key, has_post, posts)?;
        let life::Then::Decide(decision) = step.then else {
            unreachable!("a visit decides")
        };
        let sends = decision.reaches_target();
        // A dry run's carried line is not written: what comes after is the next run's.
        if carried && self.run.plan.dry_run {
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

    /// The key's life, visited (`decide`), its line recorded or carried over from a renamed
    /// post's. `true`: the key took a renamed post's line over (`renamed.rs`).
    fn visit(
        &mut self,
        key: Key,
        has_post: bool,
        posts: &Posts,
    ) -> Result<(life::Step, bool), Error> {
        let line = self.line(key);
        match (&line, self.decide(key, has_post, posts, true)) {
            (
                None,
                (
                    step,
                    Some(Seen::Ready(Facts {
                        carry: Some(from), ..
                    })),
                ),
            ) => {
                self.carry(key, &from, &step)?;
                Ok((step, true))
            }
            (_, (step, _)) => self
                .record(key, &Event::Visit(None), &step)
                .map(|()| (step, false)),
        }
    }

    /// What the key's life decides on a visit, nothing recorded: the post read only if a rule
    /// asks; `visiting`: with the copies its text links to as gathered for this key (`gather`)
    /// and what the rename rule finds (`crate::rename`). What was read comes back too.
    fn decide(
        &mut self,
        key: Key,
        has_post: bool,
        posts: &Posts,
        visiting: bool,
    ) -> (life::Step, Option<Seen>) {
        if visiting {
            self.read_gone(key);
        }
        let template = self.template_mark();
        // The linked copies are judged only for a visit (the progress count never reads them).
        let upstream = match visiting {
            true => self.copies(key),
            false => crate::known::Copies::default(),
        };
        let cfg = self.cfg;
        let (line, plan, gone) = (self.line(key), self.run.plan, self.known.gone.take());
        let refused = self.refused(key);
        let asked = std::cell::RefCell::new(Vec::new());
        let facts = |post: &crate::post::Post| {
            let facts = post.facts(template, refused);
            if !visiting {
                return facts;
            }
            let mut renamed =
                crate::rename::renamed(gone.as_ref(), &plan.mode, post, line.as_ref(), &cfg.name);
            asked.borrow_mut().append(&mut renamed.asked);
            let blocked = crate::targets::preview::blocked(cfg, post, upstream.all());
            renamed.facts(blocked, facts)
        };
        let get = || Self::seen(posts, key, has_post, &facts);
        let ctx = self.ctx(key);
        let next = |seen: Option<&Seen>| {
            Ok::<_, std::convert::Infallible>(life::next(line.as_ref(), &Event::Visit(seen), &ctx))
        };
        let Ok(decided) = super::apply::visit(next, get);
        self.known.gone = gone;
        if let Some(Seen::Ready(Facts { due: Some(due), .. })) = &decided.1 {
            self.known.due.insert(key, *due);
        }
        // Only a post the run would send now (not one scheduled later) is asked about.
        if matches!(decided.0.then, life::Then::Decide(Decision::Publish { .. })) {
            self.known.asked.extend(asked.into_inner());
        }
        decided
    }

    /// A decision that sends nothing and looks nothing up, told (`Voice::decision`).
    fn say_decision(&mut self, key: Key, decision: Decision) {
        let line = self.line(key);
        let target = &*self.target;
        let look = |k| target.where_to_look(k);
        self.voice.decision(key, decision, line.as_ref(), &look);
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
                .and_then(|n| n.copy_of(self.place(key), id))
                .is_some_and(|(g, _)| {
                    Some(g) == self.line(key).map(|l| l.copies.current.generation)
                });
            let act = Act::NotOurs {
                id: id.clone(),
                here,
            };
            self.apply(key, &Event::Human(&act))?;
            self.voice
                .trace(key, "mark", "not-ours", &format!("id={id} (by hand)"));
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
        self.voice.finish()
    }
}
