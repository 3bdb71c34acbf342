//! `dayrun run` and `dayrun retry`: decide per target and key, publish, record, trace.

use crate::clock::{Clock, stamp};
use crate::config::{Config, Policy, TargetConfig};
use crate::content::Catalog;
use crate::error::{Class, Error, code};
use crate::lock;
use crate::post::Post;
use crate::progress::Progress;
use crate::state::{Record, StateFile, Status};
use crate::target::{self, Context, Receipt, Target};
use crate::trace::Trace;
use jiff::civil::Date;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// What the command line asked for.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Print every decision; write nothing, send nothing.
    pub dry_run: bool,
    /// Publish stale keys too.
    pub backfill: bool,
    /// Only these keys (empty: all). Named keys are never stale.
    pub keys: Vec<Date>,
    /// Only these targets (empty: all).
    pub targets: Vec<String>,
    /// `dayrun retry`: a human asks to re-attempt failed keys now.
    pub retry: bool,
    /// With `retry`: publish done keys again.
    pub force: bool,
}

/// What happened, for the exit code and the summary.
#[derive(Debug, Default)]
struct Outcome {
    auth: bool,
    needs_human: bool,
    retry_later: bool,
}

impl Outcome {
    fn merge(&mut self, other: &Outcome) {
        self.auth |= other.auth;
        self.needs_human |= other.needs_human;
        self.retry_later |= other.retry_later;
    }

    fn code(&self) -> i32 {
        if self.auth {
            code::AUTH
        } else if self.needs_human {
            code::NEEDS_HUMAN
        } else if self.retry_later {
            code::TEMPFAIL
        } else {
            code::OK
        }
    }
}

/// Run the plan; returns the exit code. Errors that stop the whole run are printed here.
pub fn run(config: &Config, clock: &Clock, plan: &Plan) -> i32 {
    match execute(config, clock, plan) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dayrun: {err}");
            err.code()
        }
    }
}

fn execute(config: &Config, clock: &Clock, plan: &Plan) -> Result<i32, Error> {
    let selected = config.select(&plan.targets)?;
    let catalog = Catalog::scan(&config.content, &config.root)?;
    let mut built = Vec::new();
    for cfg in &selected {
        built.push(target::build(&Context {
            config,
            target: cfg,
            clock,
        })?);
    }
    let shown_state = config.show(&config.state);
    let _lock = match plan.dry_run {
        true => None,
        false => Some(lock::acquire(&config.state, &shown_state, clock)?),
    };
    let mut states = Vec::new();
    for cfg in &selected {
        let state = StateFile::load(&config.state, &cfg.name, &shown_state)?;
        if let Some(torn) = &state.torn {
            eprintln!("dayrun: note: {torn}");
        }
        states.push(state);
    }
    if !plan.dry_run {
        for state in &mut states {
            state.compact()?;
        }
    }

    let mut outcome = Outcome::default();
    if plan.keys.is_empty() {
        for problem in &catalog.problems {
            eprintln!("{problem}");
            outcome.needs_human = true;
        }
    }
    let mut posts = Posts {
        catalog: &catalog,
        current: None,
    };
    let today = clock.today();
    let quiet = Progress::none();
    let mut runs: Vec<TargetRun> = selected
        .iter()
        .zip(built.iter_mut())
        .zip(states.iter_mut())
        .map(|((cfg, target), state)| TargetRun {
            cfg,
            policy: &cfg.policy,
            target: target.as_mut(),
            state,
            trace: Trace::new(&config.state, &cfg.name),
            clock,
            plan,
            today,
            catchup_days: config.catchup_days,
            stopped: None,
            last_write: None,
            outcome: Outcome::default(),
            tally: BTreeMap::new(),
            stale: Vec::new(),
            progress: &quiet,
        })
        .collect();
    // Key by key, every target in turn: each post is read once and dropped after its key, so
    // memory does not grow with the number of posts.
    let keys: Vec<BTreeSet<Date>> = runs.iter_mut().map(|run| run.keys(&catalog)).collect();
    let all: BTreeSet<Date> = keys.iter().flatten().copied().collect();
    let progress = match Progress::wanted(plan.dry_run) {
        true => Progress::new(work(&mut runs, &keys, &all, &mut posts)),
        false => Progress::none(),
    };
    for run in &mut runs {
        run.progress = &progress;
    }
    let result = (|| {
        for &key in &all {
            for (run, keys) in runs.iter_mut().zip(&keys) {
                if keys.contains(&key) {
                    run.step(key, &mut posts)?;
                }
            }
        }
        Ok::<(), Error>(())
    })();
    progress.finish();
    for run in &mut runs {
        run.finish();
        outcome.merge(&run.outcome);
    }
    drop(runs);
    // Fold the journal back even when a state write failed midway: what was recorded stays.
    if !plan.dry_run {
        for state in &mut states {
            if let Err(e) = state.compact() {
                eprintln!("dayrun: {e}");
            }
        }
    }
    result?;
    Ok(outcome.code())
}

/// How many keys the runs will publish or confirm (for the progress bar).
fn work(
    runs: &mut [TargetRun],
    keys: &[BTreeSet<Date>],
    all: &BTreeSet<Date>,
    posts: &mut Posts,
) -> u64 {
    let mut total = 0;
    for &key in all {
        for (run, keys) in runs.iter_mut().zip(keys) {
            if keys.contains(&key)
                && matches!(
                    run.decide(key, posts),
                    Decision::Publish(_) | Decision::Confirm
                )
            {
                total += 1;
            }
        }
    }
    total
}

/// The post of the key being worked on, read on demand, once, whatever the number of targets.
struct Posts<'a> {
    catalog: &'a Catalog,
    current: Option<(Date, Result<Post, Error>)>,
}

impl Posts<'_> {
    fn get(&mut self, key: Date) -> Result<&Post, &Error> {
        if self.current.as_ref().is_none_or(|(k, _)| *k != key) {
            self.current = Some((key, self.catalog.post(key)));
        }
        self.current.as_ref().expect("set above").1.as_ref()
    }
}

/// What to do with one key on one target.
#[derive(Debug, PartialEq)]
enum Decision {
    SkipDone,
    Scheduled,
    Stale,
    /// Failed earlier and nothing changed: a human decides (`retry`, `mark`).
    Waiting(String),
    /// Publish; the string says why (shown with the action).
    Publish(&'static str),
    /// A pending key (or a human retry of an unknown one): look on the target first.
    Confirm,
}

struct Confirmation {
    found: Option<Receipt>,
    /// Why the target could not tell, when it could not.
    unsure: Option<String>,
}

struct TargetRun<'a> {
    cfg: &'a TargetConfig,
    policy: &'a Policy,
    target: &'a mut dyn Target,
    state: &'a mut StateFile,
    trace: Trace,
    clock: &'a Clock,
    plan: &'a Plan,
    today: Date,
    catchup_days: i64,
    /// Set when the target must not be written to again in this run (auth, long rate limit).
    stopped: Option<String>,
    last_write: Option<Instant>,
    outcome: Outcome,
    tally: BTreeMap<&'static str, usize>,
    stale: Vec<Date>,
    progress: &'a Progress,
}

impl TargetRun<'_> {
    /// The keys this target looks at: every post, and every key whose state is not done.
    fn keys(&mut self, catalog: &Catalog) -> BTreeSet<Date> {
        let mut keys: BTreeSet<Date> = catalog.files.keys().copied().collect();
        keys.extend(
            self.state
                .records()
                .filter(|r| r.status != Status::Done)
                .map(|r| r.key),
        );
        if !self.plan.keys.is_empty() {
            keys.retain(|k| self.plan.keys.contains(k));
            for key in &self.plan.keys {
                if !catalog.files.contains_key(key) && self.state.get(*key).is_none() {
                    self.say(*key, "error", &format!("no content file for {key}"));
                    self.outcome.needs_human = true;
                }
            }
        }
        keys
    }

    fn step(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let decision = self.decide(key, posts);
        match decision {
            Decision::SkipDone if self.plan.retry => self.count(
                "done",
                key,
                "skip",
                "done; `dayrun retry --force` publishes it again",
            ),
            Decision::SkipDone => self.count("done", key, "skip", "done"),
            Decision::Scheduled => self.count("scheduled", key, "scheduled", "not due yet"),
            Decision::Stale => {
                self.stale.push(key);
                self.count("stale", key, "stale", "");
            }
            Decision::Waiting(why) => {
                self.count("waiting", key, "waiting", &why);
                if self.in_window(key) {
                    self.outcome.needs_human = true;
                }
            }
            Decision::Publish(why) => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.attempt(key, posts, why)?;
                self.progress.advance();
            }
            Decision::Confirm => {
                self.progress.start(&key.to_string(), &self.cfg.name);
                self.confirm_pending(key, posts)?;
                self.progress.advance();
            }
        }
        Ok(())
    }

    /// The stale note and the per-target summary line.
    fn finish(&mut self) {
        if let (Some(first), Some(last)) = (self.stale.first(), self.stale.last())
            && !self.plan.dry_run
        {
            println!(
                "{} {}: {} stale key(s) skipped, {first}..{last}: older than {} days and never published; `dayrun run --backfill` publishes them, `dayrun adopt` records them as done",
                self.today,
                self.cfg.name,
                self.stale.len(),
                self.catchup_days
            );
        }
        if !self.plan.dry_run {
            let parts: Vec<String> = self.tally.iter().map(|(k, n)| format!("{n} {k}")).collect();
            println!(
                "{}: {}",
                self.cfg.name,
                if parts.is_empty() {
                    "nothing to do".into()
                } else {
                    parts.join(", ")
                }
            );
        }
    }

    /// After an auth failure or a long rate limit nothing more goes to this target in this run.
    fn skip_if_stopped(&mut self, key: Date) -> bool {
        let Some(why) = self.stopped.clone() else {
            return false;
        };
        self.count(
            "not attempted",
            key,
            "skip",
            &format!("target stopped for this run: {why}"),
        );
        true
    }

    fn in_window(&self, key: Date) -> bool {
        self.plan.keys.contains(&key) || !self.is_stale(key)
    }

    fn is_stale(&self, key: Date) -> bool {
        crate::clock::days_between(key, self.today) > self.catchup_days
    }

    fn decide(&self, key: Date, posts: &mut Posts) -> Decision {
        let record = self.state.get(key);
        let Some(record) = record else {
            if key > self.today {
                return Decision::Scheduled;
            }
            let named = self.plan.keys.contains(&key);
            if self.is_stale(key) && !self.plan.backfill && !named {
                return Decision::Stale;
            }
            return Decision::Publish("due");
        };
        match record.status {
            Status::Done if self.plan.force => Decision::Publish("forced"),
            Status::Done => Decision::SkipDone,
            Status::Pending => Decision::Confirm,
            Status::Failed => {
                let class = record.class().unwrap_or(Class::Unknown);
                let reason = record.get("reason").unwrap_or("no reason recorded".into());
                match class {
                    Class::RetrySafe => Decision::Publish("retry-safe failure earlier"),
                    Class::Local => Decision::Publish("re-read after a content error"),
                    _ if self.plan.retry && class == Class::Unknown => Decision::Confirm,
                    _ if self.plan.retry => Decision::Publish("retry asked"),
                    Class::Unknown => Decision::Waiting(format!(
                        "outcome unknown ({reason}); check {}, then `dayrun mark {key} done --id …` or `dayrun retry {key}`",
                        self.cfg.name
                    )),
                    Class::Rejected | Class::Auth => {
                        let changed = posts
                            .get(key)
                            .map(|p| Some(p.fingerprint.as_str()) != record.get("fp").as_deref())
                            .unwrap_or(false);
                        let renewed = class == Class::Auth
                            && self.target.credential().as_deref() != record.get("cred").as_deref();
                        if changed {
                            Decision::Publish("content changed since it failed")
                        } else if renewed {
                            Decision::Publish("credential changed since it failed")
                        } else {
                            Decision::Waiting(format!(
                                "failed ({class}: {reason}); fix and save the post, or `dayrun retry {key}`"
                            ))
                        }
                    }
                }
            }
        }
    }

    /// Publish one key, with in-run retries for retry-safe failures and confirmation for
    /// unknown outcomes. `Err` only when state cannot be recorded: the run must stop.
    fn attempt(&mut self, key: Date, posts: &mut Posts, why: &'static str) -> Result<(), Error> {
        let post = match posts.get(key) {
            Ok(post) => post.clone(),
            Err(err) => return self.local_error(key, err.clone()),
        };
        if post.draft {
            self.count("draft", key, "draft", "draft: true; not published");
            return Ok(());
        }
        if self.plan.dry_run {
            self.say(key, "publish", &format!("({why}) {}", describe(&post)));
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        if why != "due" {
            self.say(key, "retry", &format!("({why})"));
        }
        let first = self.state.get(key).is_none();
        if first && self.policy.dedup && self.target.can_find() {
            match self.target.find(&post) {
                Ok(Some(receipt)) => {
                    self.progress.err(&format!(
                        "dayrun: warning: {key} is already on {} (id={}); recorded as done, not sent again",
                        self.cfg.name, receipt.id
                    ));
                    return self.done(&post, receipt, "dedup", Instant::now());
                }
                Ok(None) => {}
                Err(err) if err.class() == Some(Class::Auth) => return self.fail(&post, err),
                Err(err) => self.progress.err(&format!(
                    "dayrun: warning: {key}: could not look for an existing copy on {}: {}; sending",
                    self.cfg.name,
                    err.reason()
                )),
            }
        }
        self.send(&post)
    }

    fn send(&mut self, post: &Post) -> Result<(), Error> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.pace();
            let pending = Record::new(post.key, Status::Pending, self.clock.stamp())
                .with("fp", &post.fingerprint)
                .with("attempt", attempt.to_string());
            self.state.set(pending)?;
            let started = Instant::now();
            let result = self.target.publish(post);
            self.last_write = Some(Instant::now());
            let err = match result {
                Ok(receipt) => return self.done(post, receipt, "publish", started),
                Err(err) => err,
            };
            let class = err.class().unwrap_or(Class::Unknown);
            let retries_left = attempt <= self.policy.retries;
            match class {
                Class::RetrySafe => {
                    let wait = match err.retry_after {
                        Some(wait) if wait > self.policy.retry_after_cap => {
                            self.stopped = Some(format!("rate limited for {} s", wait.as_secs()));
                            return self.fail(post, err);
                        }
                        Some(wait) => wait,
                        None => self.backoff(attempt),
                    };
                    if !retries_left {
                        return self.fail(post, err);
                    }
                    self.trace(
                        post.key,
                        "publish",
                        "retry-safe",
                        &format!("{} next_in_ms={}", detail(&err), wait.as_millis()),
                    );
                    std::thread::sleep(wait);
                }
                Class::Unknown => {
                    self.trace(post.key, "publish", "unknown", &detail(&err));
                    let confirmation = self.confirm(post, self.policy.confirm_polls, true);
                    if let Some(receipt) = confirmation.found {
                        return self.done(post, receipt, "confirm", started);
                    }
                    if let Some(unsure) = confirmation.unsure {
                        return self.fail(post, self.unknown(post.key, &err.reason(), &unsure));
                    }
                    if !retries_left {
                        let err = Error::failure(
                            Class::RetrySafe,
                            format!(
                                "{}; confirmed absent after {attempt} attempt(s)",
                                err.reason()
                            ),
                        );
                        return self.fail(post, err);
                    }
                    self.trace(
                        post.key,
                        "confirm",
                        "absent",
                        "confirmed absent; sending again",
                    );
                    std::thread::sleep(self.backoff(attempt));
                }
                Class::Rejected | Class::Local | Class::Auth => return self.fail(post, err),
            }
        }
    }

    /// A key found pending at start: the earlier attempt's outcome is unknown. Look first.
    fn confirm_pending(&mut self, key: Date, posts: &mut Posts) -> Result<(), Error> {
        let post = match posts.get(key) {
            Ok(post) => post.clone(),
            Err(err) => {
                let why = format!(
                    "its outcome is unknown and the post cannot be read to confirm it: {}",
                    err
                );
                self.count("waiting", key, "waiting", &why);
                self.outcome.needs_human = true;
                return Ok(());
            }
        };
        if self.plan.dry_run {
            self.say(
                key,
                "confirm",
                &format!(
                    "pending from an earlier run: would look on the target first; {}",
                    describe(&post)
                ),
            );
            return Ok(());
        }
        if self.skip_if_stopped(key) {
            return Ok(());
        }
        // A record older than the confirmation window needs one look; a fresh one the full wait.
        let record = self.state.get(key).expect("pending key has a record");
        let window = self.policy.confirm_delay * self.policy.confirm_polls;
        let age = record
            .at()
            .parse::<jiff::Timestamp>()
            .ok()
            .and_then(|at| jiff::Timestamp::now().duration_since(at).try_into().ok())
            .unwrap_or(Duration::MAX);
        let (polls, wait_first) = if age > window {
            (1, false)
        } else {
            (self.policy.confirm_polls, true)
        };
        let was = record
            .get("reason")
            .unwrap_or("earlier attempt interrupted".into())
            .to_string();
        let confirmation = self.confirm(&post, polls, wait_first);
        if let Some(receipt) = confirmation.found {
            return self.done(&post, receipt, "confirm", Instant::now());
        }
        if let Some(unsure) = confirmation.unsure {
            return self.fail(&post, self.unknown(key, &was, &unsure));
        }
        self.trace(
            key,
            "confirm",
            "absent",
            "pending from an earlier run; confirmed absent; sending",
        );
        self.send(&post)
    }

    fn confirm(&mut self, post: &Post, polls: u32, wait_first: bool) -> Confirmation {
        if !self.target.can_find() {
            return Confirmation {
                found: None,
                unsure: Some(format!("{} cannot look posts up", self.cfg.name)),
            };
        }
        let polls = if self.target.immediate() { 1 } else { polls };
        let wait_first = wait_first && !self.target.immediate();
        for poll in 0..polls {
            if wait_first || poll > 0 {
                std::thread::sleep(self.policy.confirm_delay);
            }
            match self.target.find(post) {
                Ok(Some(receipt)) => {
                    return Confirmation {
                        found: Some(receipt),
                        unsure: None,
                    };
                }
                Ok(None) => {}
                Err(err) => {
                    return Confirmation {
                        found: None,
                        unsure: Some(err.reason()),
                    };
                }
            }
        }
        Confirmation {
            found: None,
            unsure: None,
        }
    }

    fn unknown(&self, key: Date, what: &str, unsure: &str) -> Error {
        Error::failure(
            Class::Unknown,
            format!("outcome unknown ({what}) and could not confirm ({unsure}); not sent again"),
        )
        .hint(format!(
            "check {}, then `dayrun mark {key} done --id …` or `dayrun retry {key}`",
            self.cfg.name
        ))
    }

    fn done(
        &mut self,
        post: &Post,
        receipt: Receipt,
        action: &'static str,
        started: Instant,
    ) -> Result<(), Error> {
        let mut record = Record::new(post.key, Status::Done, self.clock.stamp())
            .with("id", &receipt.id)
            .with("fp", &post.fingerprint);
        if let Some(url) = &receipt.url {
            record = record.with("url", url);
        }
        if action == "dedup" {
            record = record.with("dedup", "1");
        }
        self.state.set(record)?;
        let mut detail = format!(
            "id={} duration_ms={}",
            receipt.id,
            started.elapsed().as_millis()
        );
        if let Some(note) = &receipt.note {
            detail.push_str(&format!(" note={note:?}"));
        }
        let word = match action {
            "publish" => "published",
            "confirm" => "confirmed",
            _ => "already there",
        };
        self.trace(post.key, action, "done", &detail);
        self.count(word, post.key, word, &format!("{detail} {:?}", post.title));
        Ok(())
    }

    fn fail(&mut self, post: &Post, err: Error) -> Result<(), Error> {
        let class = err.class().unwrap_or(Class::Unknown);
        let mut record = Record::new(post.key, Status::Failed, self.clock.stamp())
            .with("class", class.as_str())
            .with("reason", err.reason())
            .with("fp", &post.fingerprint);
        if class == Class::Auth
            && let Some(cred) = self.target.credential()
        {
            record = record.with("cred", cred);
        }
        self.state.set(record)?;
        self.trace(post.key, "publish", "failed", &detail(&err));
        self.report(post.key, &err, true);
        Ok(())
    }

    /// A post that cannot be read or derived: recorded once, reported every run until fixed.
    fn local_error(&mut self, key: Date, err: Error) -> Result<(), Error> {
        let same = self.state.get(key).is_some_and(|r| {
            r.status == Status::Failed && r.get("reason").as_deref() == Some(err.reason().as_str())
        });
        if !same && !self.plan.dry_run {
            let record = Record::new(key, Status::Failed, self.clock.stamp())
                .with("class", Class::Local.as_str())
                .with("reason", err.reason());
            self.state.set(record)?;
            self.trace(key, "read", "failed", &detail(&err));
        }
        self.report(key, &err, !same);
        Ok(())
    }

    /// Print a failure and fold it into the exit code. A failure seen before (`fresh` false)
    /// still needs a human while its key is within the catch-up window, as a waiting key does.
    fn report(&mut self, key: Date, err: &Error, fresh: bool) {
        let class = err.class().unwrap_or(Class::Unknown);
        match class {
            Class::Auth => {
                self.outcome.auth = true;
                self.stopped = Some(format!("credentials rejected: {}", err.message));
            }
            Class::RetrySafe => self.outcome.retry_later = true,
            _ => {
                if fresh || self.in_window(key) {
                    self.outcome.needs_human = true;
                }
            }
        }
        *self.tally.entry("failed").or_default() += 1;
        self.progress.err(&format!(
            "dayrun: {key} {}: failed ({class}): {err}",
            self.cfg.name
        ));
    }

    fn count(&mut self, tally: &'static str, key: Date, word: &str, detail: &str) {
        *self.tally.entry(tally).or_default() += 1;
        let quiet = matches!(tally, "done" | "stale" | "scheduled")
            && !self.plan.dry_run
            && !self.plan.retry;
        if !quiet {
            self.say(key, word, detail);
        }
    }

    fn say(&self, key: Date, word: &str, detail: &str) {
        if detail.is_empty() {
            self.progress
                .out(&format!("{key} {} {word}", self.cfg.name));
        } else {
            self.progress
                .out(&format!("{key} {} {word} {detail}", self.cfg.name));
        }
    }

    fn trace(&mut self, key: Date, action: &str, result: &str, detail: &str) {
        if !self.plan.dry_run {
            self.trace.line(
                &stamp(&self.clock.now()),
                &key.to_string(),
                action,
                result,
                detail,
            );
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.policy
            .backoff
            .saturating_mul(1 << (attempt - 1).min(10))
    }

    /// Keep `min_interval` between writes to this target.
    fn pace(&self) {
        if let Some(last) = self.last_write {
            let since = last.elapsed();
            if since < self.policy.min_interval {
                std::thread::sleep(self.policy.min_interval - since);
            }
        }
    }
}

fn detail(err: &Error) -> String {
    let class = err.class().map_or("error", Class::as_str);
    format!("class={class} reason={:?}", err.reason())
}

fn describe(post: &Post) -> String {
    format!(
        "{:?} tags={} summary={:?}",
        post.title,
        post.tags.join(","),
        post.summary
    )
}
