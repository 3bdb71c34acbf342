//! `kind = "bluesky"`: an `app.bsky.feed.post` record created under a record key dayrun
//! chooses, so a repository holds at most one record per copy of a key, whatever happens.

use super::net::{Http, Reply, status_class};
use super::secret::Secret;
use super::{
    Attempts, Context, Find, Lookup, Media, Names, Outgoing, Retract, Secrets, Target, Update,
    Upload,
};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

mod edit;
mod facets;
mod media;
mod native;
mod records;
mod session;
mod text;
mod thread;
mod tid;

pub use text::{MAX_BYTES, MAX_GRAPHEMES, fit};
pub use tid::{is_tid, record_key};

const COLLECTION: &str = "app.bsky.feed.post";
/// Generations a lookup with no state behind it tries (a copy made after a retract is found
/// even when the state file was lost).
const PROBE_GENERATIONS: u32 = 4;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The PDS or entryway, e.g. `https://bsky.social`.
    service: String,
    /// The account's handle (or DID, or e-mail) to log in with.
    handle: String,
    /// File holding an App Password (Settings → Privacy and security → App passwords).
    app_password_file: PathBuf,
    /// Link template added at the end and as a link card; `{key}` and `{slug}` are filled in.
    link: Option<String>,
}

pub struct Bluesky {
    name: String,
    settings: Settings,
    client: session::Client,
    timeout: Duration,
    /// The run's survey of the records around its keys (`records.rs`).
    survey: Option<super::survey::Survey<records::Records>>,
    /// The post's text (`template`); without one, `text::fit` composes it.
    template: Option<crate::template::Template>,
    long: crate::thread::Long,
}

impl Bluesky {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Bluesky, Error> {
        let at = |key: &str, msg: String| {
            Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
                .at(ctx.config.show(&ctx.target.source))
                .at_line(ctx.target.line_of(key))
        };
        if !settings.service.starts_with("https://") && !settings.service.starts_with("http://") {
            return Err(at(
                "service",
                format!(
                    "service = `{}`: write the server's URL, e.g. \"https://bsky.social\"",
                    crate::outside::escape(&settings.service, 80)
                ),
            ));
        }
        if let Some(link) = &settings.link
            && !link.starts_with("https://")
            && !link.starts_with("http://")
        {
            return Err(at(
                "link",
                "link must start with https:// (Bluesky links are URLs)".into(),
            ));
        }
        if settings.handle.trim().is_empty() {
            return Err(at(
                "handle",
                "handle is empty: write the account's handle, e.g. \"alice.bsky.social\"".into(),
            ));
        }
        let long = super::shared::long(ctx)?;
        let password = Secret::read(ctx, &settings.app_password_file, "app password")?
            .one_line(ctx, "app password")?;
        let (timeout, connect) = super::shared::timeouts(ctx)?;
        let http = Http::new(connect, timeout, password.redactor());
        let client =
            session::Client::new(&settings.service, settings.handle.trim(), password, http);
        Ok(Bluesky {
            name: ctx.target.name.clone(),
            settings,
            client,
            timeout,
            survey: None,
            template: ctx.target.template.clone(),
            long,
        })
    }

    fn link(&self, post: &Post) -> Option<String> {
        let pattern = self.settings.link.as_ref()?;
        Some(crate::template::link(pattern, post))
    }

    /// The text the template makes, fitted to the limits, with a facet for each link and
    /// hashtag in it.
    fn templated(
        template: &crate::template::Template,
        post: &Post,
        link: Option<&str>,
    ) -> Result<text::Text, Error> {
        let vars = crate::template::Vars::new(post, link);
        let over = |t: &str| {
            format!(
                "{} graphemes ({} bytes); a Bluesky post holds {MAX_GRAPHEMES} graphemes and {MAX_BYTES} bytes",
                unicode_segmentation::UnicodeSegmentation::graphemes(t, true).count(),
                t.len()
            )
        };
        let text = template.fit_or_refuse(vars, &text::fits, &over)?;
        Ok(text::Text {
            facets: facets::found(&text),
            text,
        })
    }

    /// Where the record can be seen: the Bluesky app's address for it.
    fn receipt(&self, uri: &str) -> Receipt {
        let rkey = uri.rsplit('/').next().unwrap_or_default();
        Receipt {
            id: uri.to_string(),
            url: Some(format!(
                "https://bsky.app/profile/{}/post/{rkey}",
                self.client.handle()
            )),
            ..Default::default()
        }
    }

    fn failure(&self, what: &str, reply: &Reply) -> Error {
        self.client.failure(what, reply, false)
    }

    /// `getRecord` by record key: `Some(record)` when it exists, `None` on `RecordNotFound`.
    /// A post record: its text and facets, the post's languages, and the link card (`card`)
    /// unless the post has images, which it carries instead (`Bluesky::embed`).
    fn record(text: &str, facets: &[Value], post: &Post, card: Option<&str>) -> Value {
        let mut record = json!({ "$type": COLLECTION, "text": text });
        if !facets.is_empty() {
            record["facets"] = json!(facets);
        }
        if !post.lang.is_empty() {
            record["langs"] = json!(post.lang);
        }
        if let Some(link) = card.filter(|_| post.images.is_empty()) {
            record["embed"] = json!({
                "$type": "app.bsky.embed.external",
                "external": {
                    "uri": link,
                    "title": post.title,
                    "description": text::first_graphemes(&post.summary, MAX_GRAPHEMES),
                },
            });
        }
        record
    }

    fn get_record(&mut self, rkey: &str) -> Result<Option<Value>, Error> {
        let did = self.client.did()?;
        let reply = self.client.get(
            "com.atproto.repo.getRecord",
            &[("repo", &did), ("collection", COLLECTION), ("rkey", rkey)],
        )?;
        if status_class(reply.status).is_none() {
            let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
            if doc["uri"].is_string() && doc["value"].is_object() {
                return Ok(Some(doc));
            }
            return Err(Error::failure(
                Class::Unknown,
                format!("getRecord {rkey}: HTTP {} without a record", reply.status),
            ));
        }
        if reply.status == 400 && session::error_name(&reply).as_deref() == Some("RecordNotFound") {
            return Ok(None);
        }
        Err(self.failure(&format!("getRecord {rkey}"), &reply))
    }

    /// The record key of a recorded id: `at://DID/app.bsky.feed.post/RKEY`, or a bare TID.
    fn rkey_of<'a>(&self, id: &'a str) -> Result<&'a str, Error> {
        let rkey = match id.strip_prefix("at://") {
            Some(rest) => match rest.split('/').collect::<Vec<_>>()[..] {
                [_, COLLECTION, rkey] => rkey,
                _ => "",
            },
            None => id,
        };
        if tid::is_tid(rkey) {
            return Ok(rkey);
        }
        Err(Error::failure(
            Class::Local,
            format!(
                "id `{}` is not a post's at:// URI (at://DID/{COLLECTION}/RKEY) or record key",
                crate::outside::escape(id, 120)
            ),
        )
        .hint(format!(
            "correct the id with `dayrun mark KEY done --id at://… --target {}`",
            self.name
        )))
    }

    /// The time of sending as atproto writes it: UTC with milliseconds.
    fn now() -> String {
        jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }
}

/// `kind = "bluesky"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "bluesky",
    publishes_to: "a Bluesky post on your PDS",
    needs: "an App Password",
    build: |ctx| Ok(Box::new(Bluesky::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::TIMELINE),
    template: Some("the post's text"),
    takes: &[super::shared::TIMEOUTS, super::shared::LONG],
    undrillable: None,
};

impl Target for Bluesky {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        let link = self.link(post);
        let text = match &self.template {
            Some(template) => Self::templated(template, post, link.as_deref())?,
            None => text::fit(post, link.as_deref())?,
        };
        let record = Self::record(&text.text, &text.facets, post, link.as_deref());
        Ok(Outgoing {
            marks: vec![mark(&text.text)],
            body: record,
            ..Outgoing::default()
        })
    }

    fn image_plan(&self, _: &Post, image: &crate::images::Image, media: &Media) -> String {
        Self::plan(image, media)
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let rkey = native::rkey(&out.native)
            .map(str::to_string)
            .ok_or_else(|| {
                Error::failure(Class::Local, "no record key was chosen for this copy")
            })?;
        let record = Self::embed(&out.body, post, &out.media)?;
        let doc = self.create(&rkey, record)?;
        match doc["uri"].as_str() {
            Some(uri) if uri.ends_with(&format!("/{COLLECTION}/{rkey}")) => Ok(self.receipt(uri)),
            Some(uri) => Ok(Receipt {
                note: Some(format!(
                    "the server named the record {uri} instead of using record key {rkey}"
                )),
                ..self.receipt(uri)
            }),
            None => Err(Error::failure(Class::Unknown, "createRecord without a uri")),
        }
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    /// None needed: a late landing of an earlier attempt and a resend name the same record.
    fn settle(&self) -> Duration {
        Duration::ZERO
    }

    fn where_to_look(&self, key: Key) -> String {
        format!(
            "the post for {key} on the profile of {} ({})",
            self.client.handle(),
            self.settings.service
        )
    }

    fn secrets(&self) -> Secrets<'_> {
        Secrets::sending(self.client.http().redactor(), self.client.password())
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }

    fn as_names(&self) -> Option<&dyn Names> {
        Some(self)
    }

    fn as_thread(&mut self) -> Option<&mut dyn super::Thread> {
        match self.long {
            crate::thread::Long::Thread(_) => Some(self),
            crate::thread::Long::Cut => None,
        }
    }
}

impl Bluesky {
    /// `createRecord` of `record` (with `createdAt` now) under `rkey`: the answer's document,
    /// with a `uri` that is an `at://` URI of at most 512 bytes (else the outcome is unknown).
    fn create(&mut self, rkey: &str, mut record: Value) -> Result<Value, Error> {
        let did = self.client.did()?;
        record["createdAt"] = json!(Bluesky::now());
        let body = json!({
            "repo": did,
            "collection": COLLECTION,
            "rkey": rkey,
            "record": record,
        });
        let reply = self.client.post("com.atproto.repo.createRecord", &body)?;
        if status_class(reply.status).is_some() {
            let err = self.failure("createRecord", &reply);
            let refused_key = reply.status == 400
                && (reply.body.contains("record key") || reply.body.contains("rkey"));
            // A server that will not take this record key: a new one (the next generation) is
            // safe only once the old one is proven absent.
            if refused_key && matches!(self.get_record(rkey), Ok(None)) {
                return Err(err.hint(format!(
                    "the server refuses record key {rkey} and holds no record under it; `dayrun retry KEY --new --target {}` sends the post under the next record key",
                    self.name
                )));
            }
            return Err(err);
        }
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        match doc["uri"].as_str() {
            // Created, perhaps not under the key asked for: the caller records what the
            // server named (a lookup by our key would not find it, and sending again would
            // make a copy).
            Some(uri)
                if uri.starts_with("at://")
                    && uri.len() <= 512
                    && !uri.contains(|c: char| c.is_whitespace() || c.is_control()) =>
            {
                Ok(doc)
            }
            _ => Err(Error::failure(
                Class::Unknown,
                format!(
                    "createRecord: HTTP {} without the uri of record {rkey}{}",
                    reply.status,
                    self.client.http().excerpt(&reply.body)
                ),
            )),
        }
    }
}

impl Find for Bluesky {
    /// The record under the attempt's record key: there or not, exactly. With no attempt
    /// behind it (pre-submit dedup, a lost state file) the first generations' keys. From the
    /// run's survey when it may answer (`Survey::for_lookup`) and its walks read every one of
    /// those keys; else `getRecord` for each (`RecordNotFound`: not there). A record key says
    /// where the copy would be, not that the record there is this post (another tool on the
    /// account may have used it): a record is ours when its text is a text an attempt sent
    /// (the PDS keeps the text as sent).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let chosen = native::rkey(attempts.native).map(str::to_string);
        let mut rkeys: Vec<String> = chosen.into_iter().collect();
        if attempts.since.is_none() {
            for generation in 0..PROBE_GENERATIONS {
                let rkey = tid::record_key(&self.name, attempts.key, generation);
                if !rkeys.contains(&rkey) {
                    rkeys.push(rkey);
                }
            }
        }
        // Each record there: its uri, and whether its text is one an attempt sent.
        let mut there: Vec<(String, bool)> = Vec::new();
        let surveyed = self
            .survey
            .as_ref()
            .and_then(|s| s.for_lookup(attempts))
            .filter(|records| rkeys.iter().all(|rkey| records.covers(rkey)));
        match surveyed {
            Some(records) => {
                for listed in rkeys.iter().filter_map(|rkey| records.get(rkey)) {
                    let ours = listed
                        .text
                        .as_ref()
                        .is_some_and(|m| attempts.marks.contains(m));
                    there.push((listed.uri.clone(), ours));
                }
            }
            None => {
                for rkey in &rkeys {
                    if let Some(doc) = self.get_record(rkey)? {
                        let text = doc["value"]["text"].as_str();
                        let uri = doc["uri"].as_str().unwrap_or_default().to_string();
                        there.push((uri, text.is_some_and(|t| attempts.sent_text(t))));
                    }
                }
            }
        }
        let (found, foreign): (Vec<_>, Vec<_>) = there.into_iter().partition(|(_, ours)| *ours);
        let receipts = |list: Vec<(String, bool)>| -> Vec<Receipt> {
            list.iter().map(|(uri, _)| self.receipt(uri)).collect()
        };
        Ok(match (found.is_empty(), foreign.is_empty()) {
            (false, _) => Lookup::Found(receipts(found)),
            (true, false) => Lookup::Foreign(receipts(foreign)),
            (true, true) => Lookup::Absent,
        })
    }

    /// One `listRecords` walk down the record keys of the keys' hours (per stretch of keys a
    /// week or less apart), in place of `getRecord` probes per key.
    fn survey(&mut self, keys: &[Key], now: jiff::Timestamp) -> Result<Option<String>, Error> {
        self.survey_records(keys, now).map(Some)
    }

    fn immediate(&self) -> bool {
        true
    }
}

impl Names for Bluesky {
    /// The copy's record key.
    fn choose(&self, key: Key, generation: u32) -> life::Native {
        native::chosen(tid::record_key(&self.name, key, generation))
    }

    fn copy_of(&self, key: Key, id: &str) -> Option<(u32, life::Native)> {
        let rkey = self.rkey_of(id).ok()?;
        (0..PROBE_GENERATIONS)
            .find(|g| tid::record_key(&self.name, key, *g) == rkey)
            .map(|g| (g, native::chosen(rkey.to_string())))
    }
}
