//! A key's line as a typed value: parsed once from the state file's text, printed by one
//! printer in one order. Fields dayrun does not know are kept as they are, so notes added by
//! hand survive every rewrite.

use super::list;
use super::{Record, Status};
use crate::Class;
use crate::Key;
use jiff::Timestamp;
use jiff::civil::Date;

/// Where a key is in its life, with what only that place carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Written durably before a side effect; found later, its outcome is unknown.
    Pending(Op),
    /// Published; the line names the copy.
    Done,
    /// The last attempt failed, in this class; `Looked` is what the last lookup said.
    Failed(Class, Looked),
    /// Taken back by `dayrun retract`; `verified`: a lookup showed it gone.
    Retracted { verified: bool },
}

/// The side effect a pending line is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Publish,
    Update,
    Retract,
}

/// What the last lookup of a failed key said, when it decides what comes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looked {
    /// Nothing that decides: the class does.
    Nothing,
    /// Proved absent: the next run looks once more and then sends (`lookup=absent`).
    Absent,
    /// The lookup itself failed (a 503, a timeout): the next run looks again (`lookup=error`).
    Error,
}

/// One key's line, typed. Stamps stay as written (RFC 3339 with the zone's offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyLine {
    pub key: Key,
    /// When the line was written.
    pub at: String,
    pub phase: Phase,
    /// What happened in the last attempt (failed lines; a pending line after a failed lookup).
    pub reason: Option<String>,
    /// Put aside or marked by hand (`by=hand`): quiet until the post changes or a human acts.
    pub by_hand: bool,
    /// A fingerprint of the credential that was refused (`cred=`).
    pub cred: Option<String>,
    /// The post's content fingerprint at the last attempt (`fp=`).
    pub fp: Option<String>,
    /// The key whose place on the target this line's copies keep (`place=`): a renamed post's
    /// line carried over to its new key (`carried_to`) still finds, edits and removes its
    /// copies where they are (a file name, a slug, a record key made from the old key).
    /// `None`: the key's own place.
    pub place: Option<Key>,
    /// The day a run first saw the key's post file gone while no new post could be it
    /// renamed (`gone=`): from then on a new post is asked about this line only by its day or
    /// slug (`store::gone`). `None`: the post is there, or its file went since the last run.
    pub gone: Option<Date>,
    /// Every copy the key has on the target, as one set (`copies.rs` holds its rules).
    pub copies: Copies,
    /// What attempts of this copy may have left on the target.
    pub tried: Tried,
    /// How many sends of this copy were started (`attempt=`).
    pub attempt: u32,
    /// When the key first failed (`first_failure=`), kept until it goes out or a person
    /// decides (`mark`): a failure that lasts escalates from there.
    pub first_failure: Option<String>,
    /// Found on the target before any send (`dedup=1`).
    pub dedup: bool,
    /// Edits after publishing.
    pub edits: Edits,
    /// Fields dayrun does not know, in their order (kept through every rewrite).
    pub extra: Vec<(String, String)>,
}

/// A key's copies on one target, as one set: this generation's copy (with its thread's parts),
/// the further copies of it a lookup or a merge found, earlier generations' live copies, and
/// copies ruled not this post. Parsed and printed with the line (`id= url= parts= copies=
/// older= foreign=` …), merged by union (`merge.rs`), and read through one view (`held`) by
/// every rule that asks whose a copy is (`copies.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copies {
    /// This generation's copy: which one, where, its uploads and its parts.
    pub current: Copy,
    /// Further copies of this generation a lookup or a merge found (`copies=`): duplicates.
    pub duplicates: Vec<String>,
    /// Live copies of earlier generations (`older=`): kept until retracted.
    pub older: Vec<String>,
    /// Copies at this key's place that a human ruled not this post (`foreign=`).
    pub foreign: Vec<String>,
}

/// Which copy of the key, and where it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copy {
    /// 0 for the first copy; a retracted key published again, or `retry --new`, is the next.
    pub generation: u32,
    /// The receipt id (`id=`) and link (`url=`).
    pub id: Option<String>,
    pub url: Option<String>,
    /// The images uploaded for this copy (`media=`).
    pub media: Option<String>,
    /// What only its platform reads of this copy (Bluesky's record key, Ghost's version),
    /// each a field of its own on the line (`native.rs`).
    pub native: super::Native,
    /// A thread's parts that landed, in order (`parts=`); the first is the copy (`id=`).
    pub parts: Vec<super::Part>,
    /// A hash of the parts a thread is sent as (`split=`, `thread::hash`), written before its
    /// first part goes: a resumed thread sends parts that hash the same, or none.
    pub split: Option<String>,
    /// What this copy holds while the line's `fp=` and `payload=` speak of something else
    /// (`holds=FP,PAYLOAD`): written when a person puts a published copy aside or a send of
    /// the same copy starts, so that a lookup that finds this copy again records what it
    /// holds, not what the attempt sent, and the edit still goes out.
    pub holds: Option<Holds>,
}

/// What a copy holds: the post's fingerprint and edit hash when it was made or last updated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holds {
    pub fp: String,
    pub payload: Option<String>,
}

impl Holds {
    /// `FP` or `FP,PAYLOAD`, as the line holds it.
    pub fn encode(&self) -> String {
        match &self.payload {
            Some(payload) => format!("{},{payload}", self.fp),
            None => self.fp.clone(),
        }
    }

    /// The value of a `holds=` field.
    pub fn decode(value: &str) -> Holds {
        let (fp, payload) = match value.split_once(',') {
            Some((fp, payload)) => (fp, Some(payload.to_string())),
            None => (value, None),
        };
        Holds {
            fp: fp.to_string(),
            payload: payload.filter(|p| !p.is_empty()),
        }
    }
}

/// What attempts that may have reached the target left: `sent=maybe`, when the first such
/// attempt started, and short hashes of what each sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tried {
    pub maybe: bool,
    pub since: Option<String>,
    pub marks: Vec<String>,
}

/// What a published copy has been through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits {
    /// The first publish: the edit window counts from here.
    pub published: Option<String>,
    /// A hash of what the copy says: a post that hashes otherwise is edited.
    pub payload: Option<String>,
    /// How many updates landed.
    pub updated: u32,
    /// The payload whose update was refused: not sent again until the post changes again,
    /// and every run exits 1 until then (or until `retry --force` or `mark done`). The line's
    /// `reason` says what was refused and what to do.
    pub edit_failed: Option<String>,
    /// The fingerprint of an edit made after the edit window that a run has said it does not
    /// send (`edit_late=`): said once per edit, not every morning.
    pub edit_late: Option<String>,
}

/// At most this many marks are kept (the newest).
pub const MAX_MARKS: usize = 8;

impl KeyLine {
    /// A new line with nothing on it but its key, time and phase.
    pub fn new(key: Key, at: &str, phase: Phase) -> KeyLine {
        KeyLine {
            key,
            at: at.to_string(),
            phase,
            reason: None,
            by_hand: false,
            cred: None,
            fp: None,
            place: None,
            gone: None,
            copies: Copies::default(),
            tried: Tried::default(),
            attempt: 0,
            first_failure: None,
            dedup: false,
            edits: Edits::default(),
            extra: Vec::new(),
        }
    }

    /// Read a line the state file holds. The record was checked when it was read (every field
    /// dayrun knows has a value of its type), so this cannot fail.
    pub fn of(record: &Record) -> KeyLine {
        let mut op = Op::Publish;
        let mut class = Class::Unknown;
        let mut looked = Looked::Nothing;
        let mut verified = true;
        let mut line = KeyLine::new(record.key, record.at(), Phase::Done);
        let mut sent = false;
        for (name, value) in record.fields() {
            let text = || value.clone().into_owned();
            match name {
                "op" => op = op_of(&value),
                "class" => class = Class::parse(&value).unwrap_or(Class::Unknown),
                "lookup" => looked = looked_of(&value),
                "verified" => verified = &*value != "no",
                "by" => line.by_hand = &*value == "hand",
                "reason" => line.reason = Some(text()),
                "cred" => line.cred = Some(text()),
                "fp" => line.fp = Some(text()),
                "place" => line.place = Key::parse(&value),
                "gone" => line.gone = crate::day::parse_key(&value),
                "generation" => line.copies.current.generation = value.parse().unwrap_or(0),
                "id" => line.copies.current.id = Some(text()),
                "url" => line.copies.current.url = Some(text()),
                "media" => line.copies.current.media = Some(text()),
                "parts" => line.copies.current.parts = super::parts::decode(&value),
                "split" => line.copies.current.split = Some(text()),
                "holds" => line.copies.current.holds = Some(Holds::decode(&value)),
                "older" => line.copies.older = list::decode(&value),
                "copies" => line.copies.duplicates = list::decode(&value),
                "foreign" => line.copies.foreign = list::decode(&value),
                "sent" => sent = &*value == "maybe",
                "since" => line.tried.since = Some(text()),
                "marks" => {
                    line.tried.marks = value
                        .split(',')
                        .filter(|m| !m.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                "attempt" => line.attempt = value.parse().unwrap_or(0),
                "first_failure" => line.first_failure = Some(text()),
                "dedup" => line.dedup = true,
                "published" => line.edits.published = Some(text()),
                "payload" => line.edits.payload = Some(text()),
                "updated" => line.edits.updated = value.parse().unwrap_or(0),
                "edit_failed" => line.edits.edit_failed = Some(text()),
                "edit_late" => line.edits.edit_late = Some(text()),
                _ if super::native::is_field(name) => line.copies.current.native.set(name, text()),
                _ => line.extra.push((name.to_string(), text())),
            }
        }
        line.phase = match record.status {
            Status::Pending => Phase::Pending(op),
            Status::Done => Phase::Done,
            Status::Failed => Phase::Failed(class, looked),
            Status::Retracted => Phase::Retracted { verified },
        };
        let pending_publish = record.status == Status::Pending && op == Op::Publish;
        line.mark_maybe_sent(sent, pending_publish);
        line
    }

    /// Mark the line as maybe sent when its record says so, or when it cannot prove otherwise.
    fn mark_maybe_sent(&mut self, sent: bool, pending_publish: bool) {
        // A pending line always counts as maybe sent: its attempt may have landed. A line of an
        // older dayrun has no `since`: its own time stands in. So does a dayrun 0.1 retry-safe
        // line that says "confirmed absent": that lookup could not prove it.
        let old_absent = !sent
            && self
                .reason
                .as_deref()
                .is_some_and(|r| r.contains(OLD_CONFIRMED_ABSENT));
        if sent || pending_publish || old_absent {
            self.tried.maybe = true;
            if self.tried.since.is_none() {
                self.tried.since = Some(self.at.clone());
            }
        }
    }

    /// The record the state file holds, printed in the one order dayrun writes.
    pub fn record(&self) -> Record {
        let status = match self.phase {
            Phase::Pending(_) => Status::Pending,
            Phase::Done => Status::Done,
            Phase::Failed(..) => Status::Failed,
            Phase::Retracted { .. } => Status::Retracted,
        };
        let mut fields: Vec<(&str, String)> = self.phase_fields();
        let mut put = |name, value: Option<String>| {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                fields.push((name, value));
            }
        };
        put("by", self.by_hand.then(|| "hand".into()));
        put("reason", self.reason.clone());
        put("place", self.place.map(|k| k.to_string()));
        put("gone", self.gone.map(|d| d.to_string()));
        let copy = &self.copies.current;
        put("id", copy.id.clone());
        put("url", copy.url.clone());
        put("older", Some(list::encode(&self.copies.older)));
        put("copies", Some(list::encode(&self.copies.duplicates)));
        put("foreign", Some(list::encode(&self.copies.foreign)));
        put("fp", self.fp.clone());
        put("cred", self.cred.clone());
        put("dedup", self.dedup.then(|| "1".into()));
        let generation = (copy.generation > 0).then(|| copy.generation.to_string());
        put("generation", generation);
        put("media", copy.media.clone());
        // The platform's fields come here, after what is shared of the copy.
        for (name, value) in copy.native.fields() {
            put(name, Some(value.to_string()));
        }
        put("parts", Some(super::parts::encode(&copy.parts)));
        put("split", copy.split.clone());
        put("holds", copy.holds.as_ref().map(Holds::encode));
        put(
            "attempt",
            (self.attempt > 0).then(|| self.attempt.to_string()),
        );
        put("first_failure", self.first_failure.clone());
        if self.tried.maybe {
            put("sent", Some("maybe".into()));
            put("since", self.tried.since.clone());
            put("marks", Some(self.tried.marks.join(",")));
        }
        put("published", self.edits.published.clone());
        put("payload", self.edits.payload.clone());
        put(
            "updated",
            (self.edits.updated > 0).then(|| self.edits.updated.to_string()),
        );
        put("edit_failed", self.edits.edit_failed.clone());
        put("edit_late", self.edits.edit_late.clone());
        let mut record = Record::new(self.key, status, self.at.clone());
        for (name, value) in fields {
            record = record.push(name, &value);
        }
        for (name, value) in &self.extra {
            record = record.push(name, value);
        }
        record
    }

    /// The fields only a phase has: an update's or retract's `op`, a failure's class and what
    /// its lookup said, an unverified retract.
    fn phase_fields(&self) -> Vec<(&'static str, String)> {
        let op = |op: &str| vec![("op", op.to_string())];
        match self.phase {
            Phase::Pending(Op::Update) => op("update"),
            Phase::Pending(Op::Retract) => op("retract"),
            Phase::Failed(class, looked) => {
                let mut fields = vec![("class", class.as_str().to_string())];
                match looked {
                    Looked::Nothing => {}
                    Looked::Absent => fields.push(("lookup", "absent".into())),
                    Looked::Error => fields.push(("lookup", "error".into())),
                }
                fields
            }
            Phase::Retracted { verified: false } => vec![("verified", "no".into())],
            _ => Vec::new(),
        }
    }

    /// The line's time, parsed.
    pub fn time(&self) -> Option<Timestamp> {
        self.at.parse().ok()
    }

    /// Whether this line records an attempt: something was sent or tried (a failed send, a
    /// send that may have landed, a copy). A key with no attempt on record (a broken post in
    /// the archive) is never a human's business after its window.
    pub fn attempted(&self) -> bool {
        self.tried.maybe
            || self.copies.current.id.is_some()
            || !self.copies.current.parts.is_empty()
            || !self.copies.older.is_empty()
            || self.attempt > 0
            || matches!(
                self.phase,
                Phase::Failed(
                    Class::RetrySafe | Class::Rejected | Class::Auth | Class::Unknown,
                    _
                )
            )
    }

    /// Whether the line proves nothing of the key ever reached the target: no attempt that may
    /// have landed, no copy, nothing published. Such a line may go when its post goes.
    pub fn proves_nothing_sent(&self) -> bool {
        matches!(self.phase, Phase::Failed(..))
            && !self.tried.maybe
            && self.copies.current.id.is_none()
            && self.copies.current.parts.is_empty()
            && self.copies.older.is_empty()
            && self.copies.duplicates.is_empty()
    }

    pub fn since(&self) -> Option<Timestamp> {
        self.tried.since.as_deref().and_then(|s| s.parse().ok())
    }

    pub fn first_failure_time(&self) -> Option<Timestamp> {
        self.first_failure.as_deref().and_then(|s| s.parse().ok())
    }

    /// These marks and `more`, without repeats (what a lookup compares).
    pub fn marks_and(&self, more: &[String]) -> Vec<String> {
        let mut all = self.tried.marks.clone();
        all.extend(
            more.iter()
                .filter(|m| !self.tried.marks.contains(m))
                .cloned(),
        );
        all
    }
}

/// What dayrun 0.1 wrote on a `retry-safe` line after lookups it took for proof of absence.
const OLD_CONFIRMED_ABSENT: &str = "; confirmed absent after ";

/// Whether `name=value` is a value of the field's type, for the fields dayrun knows (the state
/// file's reader refuses a line that fails this, naming it, before any command runs).
pub fn check_field(name: &str, value: &str) -> Result<(), String> {
    let number = |what: &str| match value.parse::<u32>() {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("field `{name}`: `{value}` is not {what}")),
    };
    let one_of = |allowed: &[&str]| match allowed.contains(&value) {
        true => Ok(()),
        false => Err(format!(
            "field `{name}`: `{value}` is not {}",
            allowed.join(" or ")
        )),
    };
    match name {
        "class" => match Class::parse(value) {
            Some(_) => Ok(()),
            None => Err(format!("unknown class `{value}`")),
        },
        "generation" | "attempt" | "updated" => number("a whole number"),
        "op" => one_of(&["update", "retract"]),
        "lookup" => one_of(&["absent", "error"]),
        "sent" => one_of(&["maybe"]),
        "parts" => super::parts::check(value),
        "place" => match Key::parse(value) {
            Some(_) => Ok(()),
            None => Err(format!("field `place`: `{value}` is not a key")),
        },
        "gone" => match crate::day::parse_key(value) {
            Some(_) => Ok(()),
            None => Err(format!(
                "field `gone`: `{value}` is not a date (YYYY-MM-DD)"
            )),
        },
        "holds" => match Holds::decode(value).fp.is_empty() {
            true => Err(format!("field `holds`: `{value}` names no fingerprint")),
            false => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The operation an `op` field names; anything else is a publish.
fn op_of(value: &str) -> Op {
    match value {
        "update" => Op::Update,
        "retract" => Op::Retract,
        _ => Op::Publish,
    }
}

/// What a failed line's `lookup` field says the lookup found.
fn looked_of(value: &str) -> Looked {
    match value {
        "absent" => Looked::Absent,
        "error" => Looked::Error,
        _ => Looked::Nothing,
    }
}
