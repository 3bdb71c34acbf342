//! The target trait: what every target does, and the capabilities only some have (look up,
//! update, retract, upload media, batch, name records), each a trait of its own that a target
//! hands out when it has it. The optional ones have a provided `None` default, so a target
//! writes only the ones it has. Updating and retracting have no default: a target that lacks
//! one says so when asked for it, naming the setting that would give it one. A send sees the
//! key's pending line through `Noting`.

use super::{Attempts, Lookup, Media, Outgoing, Thread};
use crate::error::{Class, Error};
use crate::images::Image;
use crate::post::Post;
use crate::redact::Redactor;
use jiff::Timestamp;
use life::Key;
use life::Receipt;
use std::path::Path;
use std::time::Duration;

/// A place posts are published to. Errors carry their failure class (`Error::class`).
pub trait Target {
    /// Build what would be sent for the post now. Fails (classed) before anything is sent.
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error>;

    /// Send it once. Retrying and confirming are the runner's job, not the target's.
    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error>;

    /// `publish`, with the key's pending line at hand (`Noting`): what the target makes
    /// mid-send that a resend must reuse (a Threads container) is noted there before the
    /// request that uses it goes. The runner publishes through this; the default is `publish`,
    /// which notes nothing.
    fn publish_noting(
        &mut self,
        post: &Post,
        out: &Outgoing,
        line: &mut Noting,
    ) -> Result<Receipt, Error> {
        let _ = line;
        self.publish(post, out)
    }

    /// What publishing does with `image` (`--dry-run`): "upload 1.2 MB", "copy as …".
    fn image_plan(&self, post: &Post, image: &Image, media: &Media) -> String;

    /// How long one request (or script) may run before dayrun gives up on it.
    fn timeout(&self) -> Duration;

    /// How long after dayrun gave up on a request the target may still make it visible (PHP
    /// still running, a list that lags); `settle_secs` overrides it.
    fn settle(&self) -> Duration;

    /// Where a human should look for the key, for the advice printed when dayrun cannot tell.
    fn where_to_look(&self, key: Key) -> String;

    /// The target's secrets: what it masks, and the credential it sends.
    fn secrets(&self) -> Secrets<'_>;

    /// When the credential it sends stops working, when known (a LinkedIn token's expiry,
    /// written beside it): `check`, `status --check` and the metrics warn before then.
    fn credential_expiry(&self) -> Option<Timestamp> {
        None
    }

    /// Looking its copies up, updating and retracting them, for a target that always does all
    /// three (every platform): the three accessors below read it, so such a target writes
    /// this one (`Some(self)`) and none of them.
    fn as_manage(&mut self) -> Option<&mut dyn Manage> {
        None
    }

    /// Its lookup, when its kind has one. Whether a configured target uses it is its settings'
    /// to say (`Capabilities::can_find`, from `kinds::Settings`): the runner and `check` ask
    /// for it only then, so the rules of a key's life and the lookup cannot disagree.
    fn as_find(&mut self) -> Option<&mut dyn Find> {
        self.as_manage().map(|m| m as &mut dyn Find)
    }

    /// Updating a published copy in place; `Err` says what the target lacks. A kind whose
    /// updates hang on a setting says which (`update_url`, `update = [...]`).
    fn as_update(&mut self) -> Result<&mut dyn Update, Error> {
        let manage = self
            .as_manage()
            .ok_or_else(|| lacks("update a published copy"))?;
        Ok(manage as &mut dyn Update)
    }

    /// Taking a published copy back; `Err` says what the target lacks (a setting).
    fn as_retract(&mut self) -> Result<&mut dyn Retract, Error> {
        let manage = self
            .as_manage()
            .ok_or_else(|| lacks("take a published copy back"))?;
        Ok(manage as &mut dyn Retract)
    }

    /// Uploading images before the post, when the target takes them that way.
    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        None
    }

    /// Grouping publishes (`book/batch.rs`), when its lookup is exact and immediate and a
    /// publish is files written with `stage`.
    fn as_batch(&mut self) -> Option<&mut dyn Batch> {
        None
    }

    /// Choosing what a copy is sent with before its first send (a record key), for a target
    /// where the client names its records.
    fn as_names(&self) -> Option<&dyn Names> {
        None
    }

    /// Sending a long post as a thread of parts (`long = "thread"`); `None` when it sends one
    /// post (the default `long = "cut"`, or a kind without threads).
    fn as_thread(&mut self) -> Option<&mut dyn Thread> {
        None
    }

    /// Edit the published `copy` in place (never a second copy) to what `out` holds, as it was
    /// sent: a thread, every part (`Thread::update_parts`: each part told to `updated` as it
    /// holds the edit; `Splits` when the post no longer splits into as many parts), else the
    /// one copy (`Update::update`).
    fn edit_copy(
        &mut self,
        copy: &life::Copy,
        (post, out): (&Post, &Outgoing),
        updated: &mut dyn FnMut(usize),
    ) -> Result<super::Edited, Error> {
        if self.as_thread().is_none() {
            let id = copy.id.as_deref().unwrap_or_default();
            let receipt = self.as_update()?.update(id, post, out);
            return Ok(super::Edited::Updated(receipt));
        }
        let thread = self.as_thread().expect("a thread target");
        thread.update_parts((post, &out.media), copy, updated)
    }

    /// Read the published `copy` back after an edit: `Found` when it holds what `out` holds (a
    /// thread: when every part holds its piece of `post`), `Absent` when it does not yet.
    fn read_back_copy(
        &mut self,
        copy: &life::Copy,
        (post, out): (&Post, &Outgoing),
    ) -> Result<Lookup, Error> {
        if self.as_thread().is_none() {
            let id = copy.id.as_deref().unwrap_or_default();
            return self.as_update()?.read_back(id, out);
        }
        let thread = self.as_thread().expect("a thread target");
        thread.read_back_parts(post, &copy.published_parts(), copy.generation)
    }
}

/// What a target that cannot do `what` answers when asked to.
fn lacks(what: &str) -> Error {
    Error::config(format!("this target cannot {what}"))
}

/// A target that looks its copies up, updates and retracts them (`Target::as_manage`).
pub trait Manage: Find + Update + Retract {}

impl<T: Find + Update + Retract> Manage for T {}

/// Looking a key up on the target.
pub trait Find {
    /// Look the key up. `Err` is a failed lookup (transient, or auth: the target stops).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error>;

    /// Read once what the lookups of a pass over `keys` (ascending, two or more) will need, so
    /// that `find` answers them from it where it provably reaches (`survey::Survey` decides
    /// when it may). `now`: the run's clock before the first request. Returns what was read
    /// and how far it reaches, for the trace; `None`: a target whose lookup is exact and cheap
    /// reads nothing (and leaves no trace): the default. `Err`: the listing failed, every
    /// lookup stays live.
    fn survey(&mut self, keys: &[Key], now: Timestamp) -> Result<Option<String>, Error> {
        let _ = (keys, now);
        Ok(None)
    }

    /// Whether `find` sees a finished publish at once (a folder does; a web API may lag), so
    /// confirmation needs one look and no waiting. The default: it may lag.
    fn immediate(&self) -> bool {
        false
    }

    /// Whether lookups need the exact document an attempt sent, kept in `state/<target>.sent/`.
    /// The default: they do not.
    fn keeps_payload(&self) -> bool {
        false
    }

    /// Whether `find` answers every copy it matches (a listing, an exact query), so that when
    /// each is another key's or an earlier generation's, this attempt's copy is provably not
    /// there. A lookup that answers one copy at most (a `confirm` script) says `false`.
    fn lists_every_match(&self) -> bool {
        true
    }

    /// The marks a send of `post` would carry (`Outgoing::marks`), worked out with no request:
    /// for a lookup that matches by text, whether a copy found may be another key's post.
    /// `None`: not worked out (a lookup that matches by key, or marks that need the server).
    fn marks_of(&mut self, _post: &Post) -> Option<Vec<String>> {
        None
    }
}

/// Replacing a published copy.
pub trait Update {
    /// Replace the published copy `id` with what `out` holds, in place (never a second copy).
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error>;

    /// Read the copy `id` back: `Found` when it holds what `out` holds (the update landed),
    /// `Absent` when it holds something else (an older version), or cannot tell.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error>;
}

/// Taking a published copy back (`dayrun retract`).
pub trait Retract {
    /// Remove the copy `id`. Errors are classed as for `publish`.
    fn retract(&mut self, key: Key, id: &str, post: Option<&Post>) -> Result<(), Error>;

    /// After a retract: whether the copy `id` is still there (`Found`) or gone (`Absent`).
    fn still_there(&mut self, key: Key, id: &str) -> Result<Lookup, Error>;

    /// Remove the copy `id`, then look whether it is gone: a removal is known by the lookup,
    /// not by its answer. `resume`: a retract an earlier run left half way looks first, since
    /// a copy already gone needs no second removal.
    fn remove(&mut self, key: Key, id: &str, post: Option<&Post>, resume: bool) -> Removal {
        if resume && matches!(self.still_there(key, id), Ok(Lookup::Absent)) {
            return Removal::of(None, Removed::Gone);
        }
        let removed = self.retract(key, id, post);
        let lost = match &removed {
            Err(err) if err.class() == Some(Class::Unknown) => Some(err.clone()),
            _ => None,
        };
        let outcome = match (removed, self.still_there(key, id)) {
            (_, Ok(Lookup::Absent)) => Removed::Gone,
            // Refused: a copy already gone (removed by hand, an earlier retract) is what was
            // asked for; anything else leaves the copy published.
            (Err(err), _) if lost.is_none() => Removed::Refused(err),
            (_, Ok(Lookup::Found(_))) => Removed::StillThere,
            // The target said it removed it, and no lookup can show it.
            (Ok(()), _) => Removed::Accepted,
            (_, Ok(Lookup::CannotTell(why))) => Removed::Unsure(why),
            (_, Ok(Lookup::Foreign(_))) => Removed::Unsure("the lookup shows another copy".into()),
            (_, Err(err)) => Removed::Unsure(err.reason()),
        };
        Removal::of(lost, outcome)
    }
}

/// What became of a removal (`Retract::remove`), and the failure of a removal whose answer was
/// lost (the lookup after it says what became of the copy).
pub struct Removal {
    pub lost: Option<Error>,
    pub outcome: Removed,
}

impl Removal {
    fn of(lost: Option<Error>, outcome: Removed) -> Removal {
        Removal { lost, outcome }
    }
}

/// What the lookup after a removal shows.
pub enum Removed {
    /// Gone.
    Gone,
    /// The target said it removed it, and no lookup can show it.
    Accepted,
    /// Refused (not an unknown outcome), and not gone.
    Refused(Error),
    /// Still there after the removal.
    StillThere,
    /// The outcome is unknown and the lookup cannot tell (why).
    Unsure(String),
}

/// Uploading a post's images before the post.
pub trait Upload {
    /// Upload the images of `post` that `media` does not hold yet. Each answer goes into
    /// `media` and is handed to `keep` at once (the runner writes it on the key's pending line)
    /// before the next upload starts, so that a resend reuses it. Errors are classed as for
    /// `publish`; an upload whose outcome is unknown is `unknown`.
    fn upload(&mut self, post: &Post, media: &mut Media, keep: &mut Keep) -> Result<(), Error>;

    /// `upload`, before the post that uses the images: an upload whose outcome is unknown left
    /// nothing of the post itself on the target, so the send is retried like a request that
    /// provably did not land (the target makes sure a second upload does not make a second
    /// image where the platform lets it: README).
    fn upload_before_post(
        &mut self,
        post: &Post,
        media: &mut Media,
        keep: &mut Keep,
    ) -> Result<(), Error> {
        self.upload(post, media, keep)
            .map_err(|err| match err.class() {
                Some(Class::Unknown) => Error::failure(
                    Class::RetrySafe,
                    format!(
                        "an image upload's answer was lost ({}); the post itself was not sent",
                        err.reason()
                    ),
                ),
                _ => err,
            })
    }

    /// The most images one post can carry here, and who says so (for the warning about the
    /// rest); `None`: no limit (the default). `ask`: the target may ask the server (never in
    /// a dry run).
    fn image_limit(&mut self, ask: bool) -> Option<(usize, String)> {
        let _ = ask;
        None
    }

    /// `post` with no more images than this target takes (the cover first, then the post's
    /// order), the images left out, and who says so ("Bluesky takes 4"); `ask` as for
    /// `image_limit`.
    fn within_limit(&mut self, post: &Post, ask: bool) -> (Post, Vec<Image>, String) {
        let limit = match post.images.is_empty() {
            true => None,
            false => self.image_limit(ask),
        };
        let Some((limit, who)) = limit.filter(|(limit, _)| post.images.len() > *limit) else {
            return (post.clone(), Vec::new(), String::new());
        };
        let mut post = post.clone();
        let rest = post.images.split_off(limit);
        post.left_out = rest.clone();
        (post, rest, format!("{who} takes {limit}"))
    }
}

/// Grouping publishes: files staged for many keys, made durable together.
pub trait Batch {
    /// Write what `publish` would, into `files`, without making anything durable or visible;
    /// the batch does that for all its keys together.
    fn stage(
        &mut self,
        post: &Post,
        out: &Outgoing,
        files: &mut crate::fsutil::Staged,
    ) -> Result<Receipt, Error>;
}

/// What the client chooses for each copy before it is sent (Bluesky: its record key), so that
/// a resend can never make a second. The shared code carries it as `life::Native` (on the
/// line, in `Outgoing::native` and `Attempts::native`); only the platform reads it.
pub trait Names {
    /// What copy `generation` of `key` is sent with: the same for every attempt.
    fn choose(&self, key: Key, generation: u32) -> life::Native;

    /// Which copy a found `id` is (its generation and what was chosen for it), so that a copy
    /// found after a lost state file is recorded as the copy it is. `None`: not one it chose.
    fn copy_of(&self, key: Key, id: &str) -> Option<(u32, life::Native)>;
}

/// Where a target hands each upload's answer: the media so far, and a line for the trace.
pub type Keep<'a> = dyn FnMut(&Media, &str) -> Result<(), Error> + 'a;

/// The key's pending line as a target sees it mid-send (`Target::publish_noting`,
/// `Thread::send_part_noting`): what the line keeps of the copy now, and where the target
/// notes what it made that a resend must reuse rather than make again (a Threads container).
/// The runner writes each note on the line at once (`life::Event::Noted`), so it outlives a
/// lost answer or a killed run. Only the platform reads its own fields.
pub struct Noting<'a> {
    kept: life::Native,
    note: Box<Note<'a>>,
}

/// Where `Noting` hands a note: the runner's writer of the key's line.
type Note<'a> = dyn FnMut(&life::Native) -> Result<(), Error> + 'a;

impl<'a> Noting<'a> {
    /// The line keeps `kept` of the copy; `note` writes a note on it.
    pub fn new(
        kept: life::Native,
        note: impl FnMut(&life::Native) -> Result<(), Error> + 'a,
    ) -> Noting<'a> {
        Noting {
            kept,
            note: Box::new(note),
        }
    }

    /// No line to note on (a send outside a run): nothing noted is kept.
    pub fn nowhere(kept: life::Native) -> Noting<'a> {
        Noting::new(kept, |_| Ok(()))
    }

    /// The copy's platform data as the line kept it when this send started (a new copy's
    /// starts empty).
    pub fn kept(&self) -> &life::Native {
        &self.kept
    }

    /// On the line before the target goes on; `Err`: it could not be written (then the target
    /// sends nothing that relies on it).
    pub fn note(&mut self, native: &life::Native) -> Result<(), Error> {
        (self.note)(native)
    }
}

/// A target's secrets: the redactor that masks them (and every secret loaded in the run), and
/// the credential it sends, if any.
pub struct Secrets<'a> {
    pub redactor: &'a Redactor,
    pub credential: Option<&'a super::secret::Secret>,
}

impl<'a> Secrets<'a> {
    /// The secrets of a target that sends `credential`, masked (with the run's) by `redactor`.
    pub fn sending(redactor: &'a Redactor, credential: &'a super::secret::Secret) -> Secrets<'a> {
        Secrets {
            redactor,
            credential: Some(credential),
        }
    }

    /// Mask every form of the run's secrets in a text from outside (a server's body, a
    /// script's output) before it is stored or printed.
    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact(text)
    }

    /// Where the credential lives, for the advice after an auth failure ("renew X").
    pub fn file(&self) -> Option<&Path> {
        self.credential.map(|c| c.file.as_path())
    }

    /// A non-secret fingerprint of the credential in use, so that an auth failure is
    /// re-attempted by itself once the credential file is renewed.
    pub fn fingerprint(&self) -> Option<String> {
        self.credential.map(|c| c.fingerprint.clone())
    }
}
