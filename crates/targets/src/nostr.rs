//! `kind = "nostr"`: each post one signed event (a short note, or a NIP-23 long-form article)
//! sent to every relay named. The event's id is the hash of what it says, and its
//! `created_at` is chosen and kept on the pending line before the first send, so a resend after
//! a lost answer is the same event: a relay that got it already holds it once. A post is out
//! when every relay holds it (`relays.rs` is that rule).

use super::{Attempts, Context, Find, Lookup, Media, Names, Outgoing, Secrets, Target};
use crate::clock::Clock;
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use event::Event;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;
use text::Note;

mod edit;
mod event;
mod key;
mod listing;
mod lookup;
mod native;
mod relays;
mod text;
mod thread;
mod wire;

/// Generations a lookup with no state behind it tries for a long note's `d` tag.
const PROBE_GENERATIONS: u32 = 4;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// File holding the secret key: `nsec1…` or 64 hex digits.
    secret_key_file: PathBuf,
    /// The relays the post must be on: `wss://…` (or `ws://` on loopback).
    relays: Vec<String>,
    /// `"short"` (kind 1, the default) or `"long"` (NIP-23, kind 30023).
    #[serde(default)]
    note: Option<String>,
    /// Link template (`{key}`, `{slug}`) added to a short note, and as an `r` tag of a long one.
    link: Option<String>,
    /// The public key (`npub1…` or hex) the posts are from: a key file holding another key
    /// is refused before anything is sent.
    npub: Option<String>,
}

pub struct Nostr {
    name: String,
    note: Note,
    keys: key::Keys,
    relays: Vec<wire::Relay>,
    link: Option<String>,
    template: Option<crate::template::Template>,
    timeout: Duration,
    clock: Clock,
    /// `npub` when it is not the key's: every send is refused (auth) with this text.
    wrong_key: Option<String>,
    long: crate::thread::Long,
    /// Each thread's `created_at` chosen this run (`Thread::part_native`, which has `&self`),
    /// for its part 0.
    started: std::cell::RefCell<std::collections::HashMap<(Key, u32), u64>>,
    /// The run's listing of the author's notes (`listing.rs`).
    survey: Option<super::survey::Survey<listing::Listing>>,
}

/// `kind = "nostr"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "nostr",
    publishes_to: "a signed note or NIP-23 article on every relay named",
    needs: "a secret key (nsec) and relays",
    build: |ctx| Ok(Box::new(Nostr::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| {
        let settings: Settings = super::settings(ctx)?;
        Ok(match note(ctx, &settings)? {
            Note::Long => config::Capabilities::IN_PLACE,
            Note::Short => config::Capabilities::TIMELINE,
        })
    },
    template: Some("a short note's text, or a long note's markdown"),
    takes: &[super::shared::TIMEOUTS, super::shared::LONG],
    undrillable: Some((
        "the drill's faults sit in the HTTP layer, and Nostr speaks WebSocket: a drill here would meet no fault and prove nothing",
        "the Nostr target's lost answers, kills and relays down are tested against both relay implementations (docs/targets/nostr.md)",
    )),
};

/// `note = …`, and what it refuses: `on_edit = "update"` on short notes (they cannot be
/// edited) and threads of long ones.
fn note(ctx: &Context, settings: &Settings) -> Result<Note, Error> {
    let note = match settings.note.as_deref() {
        None | Some("short") => Note::Short,
        Some("long") => Note::Long,
        Some(other) => {
            let other = crate::outside::escape(other, 40);
            return Err(bad(
                ctx,
                "note",
                format!("note = `{other}`: write \"short\" or \"long\""),
            ));
        }
    };
    if note == Note::Short && ctx.target.policy.on_edit == Some(true) {
        return Err(bad(
            ctx,
            "on_edit",
            "on_edit = \"update\": a short note (kind 1) cannot be edited; use note = \"long\" or on_edit = \"ignore\"".into(),
        ));
    }
    Ok(note)
}

/// A config error naming the target's table, its file and the key's line.
fn bad(ctx: &Context, key: &str, msg: String) -> Error {
    Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
        .at(ctx.config.show(&ctx.target.source))
        .at_line(ctx.target.line_of(key))
}

/// The relays (one or more, each a ws:// or wss:// URL, none twice) and the link.
fn check_urls(ctx: &Context, settings: &Settings) -> Result<(), Error> {
    if settings.relays.is_empty() {
        return Err(bad(
            ctx,
            "relays",
            "relays is empty: name at least one, e.g. [\"wss://relay.example\"]".into(),
        ));
    }
    for (n, url) in settings.relays.iter().enumerate() {
        if settings.relays[..n].contains(url) {
            let shown = crate::outside::escape(url, 80);
            return Err(bad(
                ctx,
                "relays",
                format!("relay `{shown}` is named twice"),
            ));
        }
        if wire::parse_url(url).is_none() {
            let shown = crate::outside::escape(url, 80);
            return Err(bad(
                ctx,
                "relays",
                format!("relay `{shown}` is not a ws:// or wss:// URL"),
            ));
        }
    }
    if let Some(link) = &settings.link
        && !link.starts_with("https://")
        && !link.starts_with("http://")
    {
        return Err(bad(ctx, "link", "link must start with https://".into()));
    }
    Ok(())
}

impl Nostr {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Nostr, Error> {
        let note = note(ctx, &settings)?;
        check_urls(ctx, &settings)?;
        let long = super::shared::long(ctx)?;
        if note == Note::Long && matches!(long, crate::thread::Long::Thread(_)) {
            return Err(bad(
                ctx,
                "long",
                "long = \"thread\" is for short notes; a long note is one article".into(),
            ));
        }
        let keys = key::Keys::read(ctx, &settings.secret_key_file)?;
        let wrong_key = match &settings.npub {
            None => None,
            Some(npub) => key::public_of(npub)
                .ok_or_else(|| {
                    bad(
                        ctx,
                        "npub",
                        "npub is not an npub1… key or 64 hex digits".into(),
                    )
                })?
                .ne(&keys.public)
                .then(|| npub.clone()),
        };
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let relays = settings
            .relays
            .iter()
            .map(|url| wire::Relay::new(url, connect, timeout, keys.redactor().clone()))
            .collect();
        Ok(Nostr {
            name: ctx.target.name.clone(),
            note,
            keys,
            relays,
            link: settings.link,
            template: ctx.target.template.clone(),
            timeout,
            clock: ctx.clock.clone(),
            wrong_key,
            long,
            started: std::cell::RefCell::default(),
            survey: None,
        })
    }

    fn link(&self, post: &Post) -> Option<String> {
        let pattern = self.link.as_ref()?;
        Some(crate::template::link(pattern, post))
    }

    /// The time of sending, in whole seconds.
    fn now(&self) -> u64 {
        u64::try_from(self.clock.instant().as_second()).unwrap_or(0)
    }

    /// Refused before anything is sent when the key file holds another key than `npub`.
    fn check_key(&self) -> Result<(), Error> {
        match &self.wrong_key {
            None => Ok(()),
            Some(npub) => Err(Error::failure(
                Class::Auth,
                format!(
                    "the secret key in {} is not the key of {npub}",
                    self.keys.file().display()
                ),
            )
            .hint(format!(
                "put the secret key (nsec) of {npub} in {}",
                self.keys.file().display()
            ))),
        }
    }

    /// What a copy is on the line: a short note by its event id; a long note by its address
    /// (`30023:PUBKEY:D`), which stays the same when it is edited.
    fn receipt(&self, event: &Event, answers: Option<String>) -> Receipt {
        let id = match self.note {
            Note::Short => event.id.clone(),
            Note::Long => address(&self.keys.public, text::d_of(&event.draft).unwrap_or("")),
        };
        Receipt {
            id,
            native: native::landed(event.created_at, answers),
            ..Receipt::default()
        }
    }
}

/// A long note's address (NIP-01 `a` tag): `30023:PUBKEY:D`.
fn address(public: &str, d: &str) -> String {
    format!("{}:{public}:{d}", event::LONG)
}

impl Target for Nostr {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        self.check_key()?;
        let link = self.link(post);
        let draft = text::draft(self.note, post, link.as_deref(), self.template.as_ref())?;
        Ok(Outgoing {
            marks: vec![mark(&draft.content)],
            body: draft.to_body(),
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, _: &Media) -> String {
        format!(
            "leave {} as the text has it (Nostr takes no uploads)",
            image.rel
        )
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        self.check_key()?;
        let created = native::created(&out.native).ok_or_else(|| {
            Error::failure(Class::Local, "no created_at was chosen for this copy")
        })?;
        let event = self.event_for(post.place(), out, created)?;
        let answers = self.everywhere(&event)?;
        Ok(self.receipt(&event, native::answers(&answers)))
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    /// None needed: a late landing of an earlier attempt and a resend are the same event.
    fn settle(&self) -> Duration {
        Duration::ZERO
    }

    fn where_to_look(&self, key: Key) -> String {
        let relays: Vec<&str> = self.relays.iter().map(|r| r.url.as_str()).collect();
        format!(
            "the note for {key} by pubkey {} on {}",
            self.keys.public,
            relays.join(", ")
        )
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.keys.redactor(), &self.keys.secret)
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_names(&self) -> Option<&dyn Names> {
        Some(self)
    }

    /// A short note's thread (`long = "thread"`); a long note is one article.
    fn as_thread(&mut self) -> Option<&mut dyn super::Thread> {
        let threaded = matches!(self.long, crate::thread::Long::Thread(_));
        threaded.then_some(self as &mut dyn super::Thread)
    }
}

impl Names for Nostr {
    /// The copy's `created_at`: the time of its first send, kept for every resend.
    fn choose(&self, _key: Key, _generation: u32) -> life::Native {
        native::chosen(self.now())
    }

    /// A long note's copy by its `d` tag; a short note's id says nothing of its generation.
    fn copy_of(&self, key: Key, id: &str) -> Option<(u32, life::Native)> {
        let d = id.strip_prefix(&format!("{}:{}:", event::LONG, self.keys.public))?;
        (0..PROBE_GENERATIONS)
            .find(|g| text::d_tag(key, *g) == d)
            .map(|g| (g, life::Native::default()))
    }
}

impl Find for Nostr {
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        self.look(attempts)
    }

    /// One `REQ` per relay for the author's notes since the first key's day, in place of a
    /// `REQ` per key per relay before each first attempt.
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.read_listing(keys, now)
    }

    fn immediate(&self) -> bool {
        true
    }

    /// A confirm rebuilds the event the attempt sent from its draft and `created_at`.
    fn keeps_payload(&self) -> bool {
        true
    }
}
