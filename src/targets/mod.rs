//! The target trait, and the one place that builds a target from its configured kind.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::images::Image;
use crate::post::Post;
use jiff::Timestamp;
use jiff::civil::Date;
pub use media::Media;
pub use payload::{ImageLinks, copy_name, outgoing, payload, payload_key};
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::time::Duration;

pub mod bluesky;
pub mod command;
pub mod compare;
pub mod devto;
pub mod folder;
pub mod ghost;
pub mod http;
pub mod items;
pub mod mastodon;
pub mod media;
pub mod net;
pub mod payload;
pub mod secret;
pub mod wordpress;

/// What the target answered: the id to record (and a link, where it gives one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receipt {
    pub id: String,
    pub url: Option<String>,
    /// Anything the human should know about how it was sent (e.g. tags that were cleaned).
    pub note: Option<String>,
    /// The copy's version as written (Ghost's `updated_at`), for targets that refuse an update
    /// made against another version; kept on the line and handed back in `Outgoing::version`.
    pub version: Option<String>,
}

impl Receipt {
    pub fn id(id: impl Into<String>) -> Receipt {
        Receipt {
            id: id.into(),
            ..Receipt::default()
        }
    }
}

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
    pub key: Date,
    /// Short hashes of what the attempts sent (and of what would be sent now); see `mark`.
    pub marks: &'a [String],
    /// When the first attempt that may have landed started; `None` before any attempt
    /// (pre-submit dedup), when only the key's own day bounds where a copy could be.
    pub since: Option<Timestamp>,
    /// When the attempt being confirmed started (the latest one), if any.
    pub last: Option<Timestamp>,
    /// The document that attempt sent (or would send now), for targets that hand it over.
    pub sent: &'a serde_json::Value,
    /// The record key chosen for the copy being looked for (see `Target::record_key`); `None`
    /// when no attempt chose one (a lookup with no state behind it).
    pub rkey: Option<&'a str>,
}

impl<'a> Attempts<'a> {
    /// A lookup with no attempt behind it (pre-submit dedup, a read-back, `check --online`):
    /// only the key's own day bounds where a copy could be.
    pub fn none_yet(key: Date, marks: &'a [String], sent: &'a serde_json::Value) -> Attempts<'a> {
        Attempts {
            key,
            marks,
            since: None,
            last: None,
            sent,
            rkey: None,
        }
    }

    /// The earliest time a copy of this key could have been created on the target.
    pub fn reach_back(&self) -> Timestamp {
        self.since.unwrap_or_else(|| {
            self.key
                .yesterday()
                .unwrap_or(self.key)
                .to_zoned_datetime(jiff::tz::TimeZone::UTC)
                .map_or(Timestamp::UNIX_EPOCH, |z| z.timestamp())
        })
    }

    /// Whether `text` (hashed with `mark`) is what one of the attempts sent.
    pub fn sent_text(&self, text: &str) -> bool {
        self.marks.iter().any(|m| *m == mark(text))
    }
}

/// What one attempt will send: the exact document, and the marks a lookup will compare.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub body: serde_json::Value,
    pub marks: Vec<String>,
    /// Which copy of the key this is: 0 for the first; `retry --force --new` makes the next.
    /// Mixed into the idempotency key, so a server that dedups on it makes a new copy.
    pub generation: u32,
    /// The record key this copy is created under, for targets that let the client choose it
    /// (`Target::record_key`); set by the runner, from the key's state line when it has one.
    pub rkey: Option<String>,
    /// The post's images as uploaded (`Target::upload`); set by the runner before it sends.
    pub media: Media,
    /// For an update: the copy's version as dayrun last wrote it (`Receipt::version`), set by
    /// the runner from the key's line.
    pub version: Option<String>,
}

impl Outgoing {
    /// The idempotency key of this copy of the key on `target`.
    pub fn idempotency_key(&self, target: &str, key: Date) -> String {
        match self.generation {
            0 => net::idempotency_key(target, &key.to_string()),
            n => net::idempotency_key(target, &format!("{key}#{n}")),
        }
    }
}

/// A short hash of something sent (a status text, a body, a fingerprint): 16 hex digits, kept on
/// the state line so that a later lookup compares with what was sent, not with the file now.
pub fn mark(text: &str) -> String {
    crate::post::hex(&Sha256::digest(text.as_bytes())[..8])
}

/// A place posts are published to. Errors carry their failure class (`Error::class`).
pub trait Target {
    /// Build what would be sent for the post now. Fails (classed) before anything is sent.
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error>;

    /// Send it once. Retrying and confirming are the runner's job, not the target's.
    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error>;

    /// Upload the images of `post` that `media` does not hold yet. Each answer goes into
    /// `media` and is handed to `keep` at once (the runner writes it on the key's pending line)
    /// before the next upload starts, so that a resend reuses it. Errors are classed as for
    /// `publish`; an upload whose outcome is unknown is `unknown`.
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error> {
        let _ = (post, media, keep);
        Ok(())
    }

    /// The most images one post can carry here, and who says so (for the warning about the
    /// rest); `None`: no limit. `ask`: the target may ask the server (never in a dry run).
    fn image_limit(&mut self, ask: bool) -> Option<(usize, String)> {
        let _ = ask;
        None
    }

    /// What publishing does with `image` (`--dry-run`): "upload 1.2 MB", "copy as …".
    fn image_plan(&self, post: &Post, image: &Image, media: &Media) -> String {
        let _ = (post, image, media);
        "sent with the post".into()
    }

    /// Look the key up. `Err` is a failed lookup (cannot tell; an auth error stops the target).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error>;

    /// The record key of copy `generation` of `key`, for a target where the client names the
    /// record and the server keeps one record per name: the same for every attempt, so a
    /// resend can never make a second copy. `None`: the server names its records.
    fn record_key(&self, key: Date, generation: u32) -> Option<String> {
        let _ = (key, generation);
        None
    }

    /// Which copy a found `id` is (its generation and record key), for a target that names its
    /// records (`record_key`), so that a copy found after a lost state file is recorded as the
    /// copy it is. `None`: not one of the keys it would derive.
    fn copy_of(&self, key: Date, id: &str) -> Option<(u32, String)> {
        let _ = (key, id);
        None
    }

    /// Whether `find` can answer at all (an http target without `list_url` cannot).
    fn can_find(&self) -> bool {
        true
    }

    /// Whether `find` sees a finished publish at once (a folder does; a web API may lag), so
    /// confirmation needs one look and no waiting.
    fn immediate(&self) -> bool {
        false
    }

    /// Whether a run may group this target's publishes (`runner/batch.rs`): its lookup is exact
    /// and immediate, and a publish is files written with `stage`, made durable for many keys
    /// at once. Chosen per target, not by kind; the default publishes one key at a time.
    fn batches(&self) -> bool {
        false
    }

    /// For a target that `batches`: write what `publish` would, into `files`, without making
    /// anything durable or visible; the batch does that for all its keys together.
    fn stage(
        &mut self,
        post: &Post,
        out: &Outgoing,
        files: &mut crate::fsutil::Staged,
    ) -> Result<Receipt, Error> {
        let _ = (post, out, files);
        Err(Error::config(
            "this kind of target cannot group its publishes",
        ))
    }

    /// How long one request (or script) may run before dayrun gives up on it.
    fn timeout(&self) -> Duration;

    /// How long after dayrun gave up on a request the target may still make it visible (PHP
    /// still running, a list that lags); `settle_secs` overrides it.
    fn settle(&self) -> Duration {
        Duration::from_secs(30)
    }

    /// Whether lookups need the exact document an attempt sent, kept in `state/<target>.sent/`.
    fn keeps_payload(&self) -> bool {
        false
    }

    /// Where a human should look for the key, for the advice printed when dayrun cannot tell.
    fn where_to_look(&self, key: Date) -> String;

    /// Whether edits go to the published copy unless `on_edit` says otherwise: kinds that edit
    /// in place without telling anyone (a folder, a blog) do; a timeline does not.
    fn updates(&self) -> bool {
        false
    }

    /// Replace the published copy `id` with what `out` holds, in place (never a second copy).
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let _ = (id, post, out);
        Err(Error::config(
            "this kind of target cannot update a published post",
        ))
    }

    /// Read the copy `id` back: `Found` when it holds what `out` holds (the update landed),
    /// `Absent` when it holds something else (an older version), or cannot tell.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let _ = (id, out);
        Ok(Lookup::CannotTell(
            "this kind of target cannot read a post back".into(),
        ))
    }

    /// Take a published post back (`dayrun retract`). Errors are classed as for `publish`.
    fn retract(&mut self, key: Date, id: &str, post: Option<&Post>) -> Result<(), Error> {
        let _ = (key, id, post);
        Err(Error::config("this kind of target cannot retract posts"))
    }

    /// After a retract: whether the post with `id` is still there (`Found`) or gone (`Absent`).
    fn still_there(&mut self, key: Date, id: &str) -> Result<Lookup, Error> {
        let _ = (key, id);
        Ok(Lookup::CannotTell(
            "this kind of target cannot look a post up by id".into(),
        ))
    }

    /// Mask every form of this target's secrets, and of every secret loaded in the run, in a
    /// text from outside (a server's body, a script's output) before it is stored or printed.
    fn redact(&self, text: &str) -> String {
        crate::redact::Redactor::new().redact(text)
    }

    /// Where the credential lives, for the advice after an auth failure ("renew X").
    fn credential_file(&self) -> Option<std::path::PathBuf> {
        None
    }

    /// A non-secret fingerprint of the credential in use, so that an auth failure is
    /// re-attempted by itself once the credential file is renewed.
    fn credential(&self) -> Option<String> {
        None
    }
}

/// Where a target hands each upload's answer: the media so far, and a line for the trace.
pub type Keep<'a> = dyn FnMut(&Media, &str) -> Result<(), Error> + 'a;

/// Everything a target may need besides its own settings.
pub struct Context<'a> {
    pub config: &'a Config,
    pub target: &'a TargetConfig,
    pub clock: &'a Clock,
}

/// Build the configured target. The only `match` on the kind: a new platform is one file and
/// one arm here. Reads credential files but sends nothing.
pub fn build(ctx: &Context) -> Result<Box<dyn Target>, Error> {
    Ok(match ctx.target.kind.as_str() {
        "folder" => Box::new(folder::Folder::new(ctx, settings(ctx)?)?),
        "http" => Box::new(http::HttpTarget::new(ctx, settings(ctx)?)?),
        "command" => Box::new(command::CommandTarget::new(ctx, settings(ctx)?)?),
        "wordpress" => Box::new(wordpress::WordPress::new(ctx, settings(ctx)?)?),
        "devto" => Box::new(devto::Devto::new(ctx, settings(ctx)?)?),
        "mastodon" => Box::new(mastodon::Mastodon::new(ctx, settings(ctx)?)?),
        "bluesky" => Box::new(bluesky::Bluesky::new(ctx, settings(ctx)?)?),
        "ghost" => Box::new(ghost::Ghost::new(ctx, settings(ctx)?)?),
        other => {
            return Err(Error::config(format!(
                "[targets.{}]: unknown kind `{other}` (known: folder, http, command, wordpress, devto, mastodon, bluesky, ghost)",
                ctx.target.name
            ))
            .at(ctx.config.show(&ctx.target.source))
            .at_line(ctx.target.line_of("kind")));
        }
    })
}

/// What a configured target can do, read from its table alone (no credential is read): whether
/// it can look a key up, and whether edits go to its copies. For `status`, which judges every
/// key as a run would without building any target; a built target answers the same
/// (`Target::can_find`, `Target::updates`).
pub fn capabilities(cfg: &TargetConfig) -> (bool, bool) {
    let has = |key: &str| cfg.settings.contains_key(key);
    let can_find = match cfg.kind.as_str() {
        "http" => has("list_url"),
        "command" => has("confirm"),
        _ => true,
    };
    let updates = cfg.policy.on_edit.unwrap_or(match cfg.kind.as_str() {
        "folder" | "wordpress" | "devto" | "ghost" => true,
        "http" => has("update_url"),
        "command" => has("update"),
        _ => false,
    });
    (can_find, updates)
}

/// The target's own settings from its table; errors name the table, file and line, and an
/// unknown key lists every key the table may hold.
fn settings<T: DeserializeOwned>(ctx: &Context) -> Result<T, Error> {
    let target = ctx.target;
    T::deserialize(target.settings.clone()).map_err(|e| {
        let message = e.message().trim();
        let err = |msg: String, line: Option<usize>| {
            Error::config(format!("[targets.{}]: {msg}", target.name))
                .at(ctx.config.show(&target.source))
                .at_line(line)
        };
        // serde: "unknown field `x`, expected `a`" / "… one of `a`, `b`" / "… there are no fields"
        let Some((key, expected)) = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split_once('`'))
        else {
            return err(message.to_string(), target.line);
        };
        let own: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let guess =
            crate::config::closest(key, own.iter().copied().chain(crate::config::POLICY_KEYS))
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
        let own = match own.is_empty() {
            true => String::new(),
            false => format!("a {} target takes {}; ", target.kind, own.join(", ")),
        };
        err(format!("unknown field `{key}`{guess}"), target.line_of(key)).hint(format!(
            "{own}every target takes {}",
            crate::config::POLICY_KEYS.join(", ")
        ))
    })
}
