//! Where dayrun publishes: the target trait, the network layer, one folder per platform, and the
//! one place that builds a target from its configured kind.
#![cfg_attr(test, allow(clippy::too_many_lines))]

use crate::clock::Clock;
use crate::error::Error;
use crate::text::mark;
use base::{clock, error, fsutil, redact, say, signals, text};
use config::{Capabilities, Config, TargetConfig};
use content::{images, post, template, thread};
use jiff::Timestamp;
use life::Key;
use life::Receipt;
use life::outside;
pub use media::Media;
pub use payload::{ImageLinks, copy_name, outgoing, payload, payload_key};
use serde::de::DeserializeOwned;
pub use target::{
    Batch, Find, Keep, Manage, Names, Noting, Removal, Removed, Retract, Secrets, Target, Update,
    Upload,
};
pub use threading::{Edited, Owned, Thread};

pub mod bluesky;
pub mod command;
pub mod compare;
pub mod devto;
pub mod folder;
pub mod ghost;
pub mod http;
pub mod items;
pub mod kinds;
pub mod linkedin;
pub mod mastodon;
pub mod matrix;
pub mod media;
pub mod meta_threads;
pub mod net;
pub mod nostr;
pub mod payload;
pub mod place;
pub mod placeholder;
pub mod preview;
pub mod secret;
pub mod shared;
pub mod survey;
pub mod target;
#[cfg(test)]
mod template_tests;
pub mod threading;
pub mod wordpress;

/// What a lookup on the target found. Absent is a claim the target must be able to prove: its
/// lookup covers every place the post could be (an exact query, or a listing that reaches back
/// past the attempt). Everything else is `CannotTell`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The post is there: one receipt per copy, the one to record first. Two or more mean the
    /// post exists twice.
    Found(Vec<Receipt>),
    /// Provably not there, at the time of the lookup.
    Absent,
    /// The lookup cannot say; the text says why.
    CannotTell(String),
    /// Copies at this key's place (its record key, slug, key field) whose content is not what
    /// any attempt sent: a marker is not identity, so none of them is provably this post.
    Foreign(Vec<Receipt>),
}

/// What a lookup compares: what the earlier attempts of a key sent.
#[derive(Debug, Clone)]
pub struct Attempts<'a> {
    /// The key whose place holds the copy: the key's own, or the one its line was carried
    /// over from (`KeyLine::place_key`).
    pub key: Key,
    /// Short hashes of what the attempts sent (and of what would be sent now); see `mark`.
    pub marks: &'a [String],
    /// When the first attempt that may have landed started; `None` before any attempt
    /// (pre-submit dedup), when only the key's own day bounds where a copy could be.
    pub since: Option<Timestamp>,
    /// When the attempt being confirmed started (the latest one), if any.
    pub last: Option<Timestamp>,
    /// The document that attempt sent (or would send now), for targets that hand it over.
    pub sent: &'a serde_json::Value,
    /// What the platform chose for the copy being looked for (`Names::choose`: a record key);
    /// empty when no attempt chose anything (a lookup with no state behind it). Only the
    /// platform reads it.
    pub native: &'a life::Native,
    /// Which copy of the key is looked for (0 for the first): a lookup matches its own
    /// idempotency key, never an earlier generation's.
    pub generation: u32,
    /// When the attempts can no longer land (the runner's deadline: dayrun gave up on the last
    /// one, plus the target's settle time); `None` before any attempt. A survey read before it
    /// says nothing of where they land (`Survey::for_lookup`).
    pub deadline: Option<Timestamp>,
}

/// No platform data: what a lookup with no attempt behind it carries.
const NONE: &life::Native = &life::Native::new();

impl<'a> Attempts<'a> {
    /// A lookup with no attempt behind it (pre-submit dedup, a read-back, `check --online`):
    /// only the key's own day bounds where a copy could be.
    pub fn none_yet(key: Key, marks: &'a [String], sent: &'a serde_json::Value) -> Attempts<'a> {
        Attempts {
            key,
            marks,
            since: None,
            last: None,
            sent,
            native: NONE,
            generation: 0,
            deadline: None,
        }
    }

    /// The idempotency key of the copy looked for, as its send carried it.
    pub fn idempotency_key(&self, target: &str) -> String {
        idempotency_key(target, self.key, self.generation)
    }

    /// The earliest time a copy of this key could have been created on the target.
    pub fn reach_back(&self) -> Timestamp {
        self.since.unwrap_or_else(|| {
            let day = self.key.day();
            day.yesterday()
                .unwrap_or(day)
                .to_zoned_datetime(jiff::tz::TimeZone::UTC)
                .map_or(Timestamp::UNIX_EPOCH, |z| z.timestamp())
        })
    }

    /// Whether `text` (hashed with `mark`) is what one of the attempts sent.
    pub fn sent_text(&self, text: &str) -> bool {
        self.marks.iter().any(|m| *m == mark(text))
    }
}

/// What one attempt will send: the exact document, and the marks a lookup will compare. A
/// target's `prepare` writes these two (`..Outgoing::default()`); the runner sets the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outgoing {
    pub body: serde_json::Value,
    pub marks: Vec<String>,
    /// Which copy of the key this is: 0 for the first; `retry --force --new` makes the next.
    /// Mixed into the idempotency key, so a server that dedups on it makes a new copy.
    pub generation: u32,
    /// What only the platform reads of the copy: for a publish, what it chose for the copy
    /// (`Names::choose`: the record key it is created under) or the line kept of it; for an
    /// update, the copy's as the line keeps it (the version it sends back). Set by the runner.
    pub native: life::Native,
    /// The post's images as uploaded (`Target::upload`); set by the runner before it sends.
    pub media: Media,
}

impl Outgoing {
    /// The idempotency key of this copy of the key on `target`.
    pub fn idempotency_key(&self, target: &str, key: Key) -> String {
        idempotency_key(target, key, self.generation)
    }
}

/// The idempotency key of copy `generation` of `key` on `target`: each generation has its own,
/// so a server that dedups on it makes a new copy, and a lookup finds that copy only.
pub fn idempotency_key(target: &str, key: Key, generation: u32) -> String {
    match generation {
        0 => net::idempotency_key(target, &key.to_string()),
        n => net::idempotency_key(target, &format!("{key}#{n}")),
    }
}

/// Everything a target may need besides its own settings.
pub struct Context<'a> {
    pub config: &'a Config,
    pub target: &'a TargetConfig,
    pub clock: &'a Clock,
}

/// A configured target, built, and what its settings say it can do.
pub struct Built {
    pub target: Box<dyn Target>,
    pub can: Capabilities,
}

impl Built {
    /// Its lookup, when its settings give it one (`can.can_find`).
    pub fn finder(&mut self) -> Option<&mut dyn Find> {
        match self.can.can_find {
            true => self.target.as_find(),
            false => None,
        }
    }
}

/// Build the configured target, by its kind in the registry (`kinds::KINDS`), with what it can
/// do. Reads credential files but sends nothing.
pub fn build(ctx: &Context) -> Result<Built, Error> {
    let kind = kind_of(ctx.config, ctx.target)?;
    Ok(Built {
        can: (kind.capabilities)(ctx)?,
        target: (kind.build)(ctx)?,
    })
}

/// The registry's entry for a configured target, or a config error naming the known kinds.
pub fn kind_of(config: &Config, cfg: &TargetConfig) -> Result<&'static kinds::Kind, Error> {
    kinds::find(&cfg.kind).ok_or_else(|| {
        let known: Vec<&str> = kinds::names().collect();
        let guess = crate::text::closest(&cfg.kind, kinds::names())
            .map(|k| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        Error::config(format!(
            "[targets.{}]: unknown kind `{}`{guess}; known: {}",
            cfg.name,
            cfg.kind,
            known.join(", ")
        ))
        .at(config.show(&cfg.source))
        .at_line(cfg.line_of("kind"))
    })
}

/// What a configured target can do, derived once from its settings by its kind (no credential
/// is read): whether it can look a key up, and whether edits go to its copies unless `on_edit`
/// says otherwise (`Config::rules`). `status`, `check` and the runner all read it.
pub fn capabilities(ctx: &Context) -> Result<Capabilities, Error> {
    (kind_of(ctx.config, ctx.target)?.capabilities)(ctx)
}

/// The target's own settings from its table; errors name the table, file and line, and an
/// unknown key lists every key the table may hold.
pub(crate) fn settings<T: DeserializeOwned>(ctx: &Context) -> Result<T, Error> {
    let (config, target) = (ctx.config, ctx.target);
    let kind = kinds::find(&target.kind);
    let shared: Vec<&str> = kind.map(|k| k.takes.concat()).unwrap_or_default();
    let mut own_table = target.settings.clone();
    own_table.retain(|key, _| !shared.contains(&key));
    T::deserialize(own_table).map_err(|e| {
        let message = e.message().trim();
        let err = |msg: String, line: Option<usize>| {
            Error::config(format!("[targets.{}]: {msg}", target.name))
                .at(config.show(&target.source))
                .at_line(line)
        };
        // serde: "unknown field `x`, expected `a`" / "… one of `a`, `b`" / "… there are no fields"
        let Some((key, expected)) = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split_once('`'))
        else {
            return err(message.to_string(), target.line);
        };
        let mut own: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        // Read by `config::templates` and by `shared`, not by the kind's settings.
        if kind.is_some_and(|k| k.template.is_some()) {
            own.extend(["template", "template_file"]);
        }
        own.extend(&shared);
        let guess = crate::text::closest(key, own.iter().copied().chain(config::POLICY_KEYS))
            .map(|k| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        let own = match own.is_empty() {
            true => String::new(),
            false => format!("a {} target takes {}; ", target.kind, own.join(", ")),
        };
        err(format!("unknown field `{key}`{guess}"), target.line_of(key)).hint(format!(
            "{own}every target takes {}",
            config::POLICY_KEYS.join(", ")
        ))
    })
}
