//! What a key's life decides on a visit, asked with the facts the run has: its line, the post
//! (read only when a rule asks), the copies its text links to and what the rename rule finds.
//! Nothing here sends, looks or writes but the line the visit records (or carries over).

use super::Book;
use crate::content::Catalog;
use crate::error::Error;
use crate::life::{self, Decision, Facts, Key, Pass, Seen};
use crate::posts::Posts;

impl Book<'_> {
    /// The keys this target looks at besides the posts (every run looks at every post): of
    /// the keys with a line and no post (`store::gone::without_post`), those the pass looks at
    /// (`looks_at`, the one rule: a line not done nor retracted, or one that says `sent=maybe`,
    /// looked beside whatever its post); and the done keys whose post is gone. Notes the lines
    /// the rename rule may note gone (`renamed.rs`).
    pub(crate) fn keys_without_post(&mut self, catalog: &Catalog) -> (Vec<Key>, Vec<Key>) {
        let keys = catalog.files.keys().copied();
        let lines = store::gone::without_post(self.state, keys, catalog.slugged());
        self.known.unstamped = lines.unstamped;
        let looked = (lines.lines.into_iter())
            .filter(|key| self.looks_at(*key, false))
            .collect();
        (looked, lines.deleted)
    }

    /// Whether this target looks at `key` (`life::looks_at`).
    pub(crate) fn looks_at(&self, key: Key, has_post: bool) -> bool {
        life::looks_at(self.state.get(key), &self.run.plan.mode, has_post)
    }

    /// Whether a visit of `key` will look it up on the target (`life::will_look`): never a key
    /// the pass does not look at, or passes over.
    pub(crate) fn will_look(&self, key: Key, has_post: bool) -> bool {
        self.looks_at(key, has_post)
            && !self.quick_done(key)
            && life::will_look(self.line(key).as_ref(), has_post, &self.ctx(key))
    }

    /// Whether the pass passes over the key's line without reading its post (`life::pass`):
    /// a done line nothing could send or look up for, and one whose post is untouched since.
    pub(crate) fn passes_over(&self, key: Key, posts: &Posts) -> bool {
        match self.pass(key) {
            Pass::Yes => true,
            Pass::Untouched(at) => !posts.touched_after(key, at),
            Pass::No => false,
        }
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
    pub(crate) fn quick_done(&self, key: Key) -> bool {
        self.pass(key).may()
    }

    /// How the key's line may be passed over without reading its post (`life::pass`).
    pub(crate) fn pass(&self, key: Key) -> Pass {
        let mode = &self.run.plan.mode;
        life::pass(self.state.get(key), mode, &self.rules, self.run.today)
    }

    /// One visit of the key's life (`decide`), its line recorded, or carried over from a
    /// renamed post's (`renamed.rs`): the step, and the key whose line it took over, if any.
    pub(crate) fn visit(
        &mut self,
        key: Key,
        has_post: bool,
        posts: &Posts,
    ) -> Result<(life::Step, Option<Key>), Error> {
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
                Ok((step, Some(from.key)))
            }
            (_, (step, _)) => {
                (self.record(key, &life::Event::Visit(None), &step)).map(|()| (step, None))
            }
        }
    }

    /// What the key's life decides on a visit, nothing recorded: the post read only if a rule
    /// asks; `visiting`: with the copies its text links to as gathered for this key (`gather`)
    /// and what the rename rule finds (`crate::rename`). What was read comes back too.
    pub(crate) fn decide(
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
        // The edit hash is compared (it needs the post's images) only when the line asks.
        let refused = life::compares_payload(line.as_ref());
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
            Ok::<_, std::convert::Infallible>(life::next(
                line.as_ref(),
                &life::Event::Visit(seen),
                &ctx,
            ))
        };
        let Ok(decided) = super::visit(next, get);
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
}
