//! `long = "thread"` on Bluesky: the post's text split into records of at most 300 graphemes
//! and 3000 bytes, each created under a record key derived from (target, key, generation,
//! part), each part after the first a reply naming the thread's root and its parent by URI and
//! CID. Facets are found per part, at the part's own byte offsets.

use super::{Bluesky, MAX_BYTES, MAX_GRAPHEMES, text, tid};
use crate::error::{Class, Error};
use crate::post::Post;
use crate::text::mark;
use crate::thread::{Long, Piece, Turn, split::Limit};
use crate::{Attempts, Lookup, Media, Thread};
use life::Key;
use life::Part;
use life::Receipt;
use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;

fn graphemes(text: &str) -> usize {
    text.graphemes(true).count()
}

impl Thread for Bluesky {
    fn pieces(&mut self, post: &Post) -> Result<Vec<Piece>, Error> {
        let Long::Thread(shape) = self.long else {
            return Err(Error::failure(
                Class::Local,
                "long = \"cut\" sends no thread",
            ));
        };
        let link = self.link(post);
        let tags: Vec<String> = text::tags(post).iter().map(|t| format!("#{t}")).collect();
        let (whole, head) =
            crate::thread::source(self.template.as_ref(), post, link.as_deref(), &tags)?;
        let limit = Limit {
            max: MAX_GRAPHEMES,
            max_bytes: Some(MAX_BYTES),
            count: &graphemes,
        };
        let parts = crate::thread::cut(post, &whole, head, &limit, shape)?;
        Ok(parts
            .into_iter()
            .enumerate()
            .map(|(n, part)| {
                // The link card on the first part (unless it carries images).
                let facets = super::facets::found(&part);
                let record = Self::record(&part, &facets, post, link.as_deref().filter(|_| n == 0));
                Piece {
                    mark: mark(&part),
                    count: graphemes(&part),
                    text: part,
                    body: record,
                }
            })
            .collect())
    }

    fn send_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        media: &Media,
    ) -> Result<(Part, Option<String>), Error> {
        let rkey = tid::part_key(&self.name, turn.key, turn.generation, turn.n);
        let mut record = match turn.n {
            0 => Self::embed(&turn.piece.body, post, media)?,
            _ => turn.piece.body.clone(),
        };
        if turn.n > 0 {
            record["reply"] = reply(turn)?;
        }
        let doc = self.create(&rkey, record)?;
        let uri = doc["uri"].as_str().unwrap_or_default();
        let Some(cid) = cid(&doc) else {
            return Err(Error::failure(
                Class::Unknown,
                format!("createRecord: {uri} was created without a usable cid"),
            ));
        };
        let url = self.receipt(uri).url;
        Ok((super::native::part(uri.to_string(), cid), url))
    }

    fn part_native(&self, key: Key, generation: u32, n: usize) -> life::Native {
        super::native::chosen(tid::part_key(&self.name, key, generation, n))
    }

    /// The record under the part's own record key (chosen for it, in `attempts.native`),
    /// whatever its text: the client names each part's record, so that is where it would be.
    fn replies_to(&mut self, attempts: &Attempts, _parent: &Part) -> Result<Lookup, Error> {
        let Some(rkey) = super::native::rkey(attempts.native) else {
            return Ok(Lookup::CannotTell("the part has no record key".into()));
        };
        Ok(match self.get_record(rkey)? {
            Some(doc) => match doc["uri"].as_str() {
                Some(uri) => Lookup::Found(vec![self.receipt(uri)]),
                None => Lookup::CannotTell(format!("getRecord {rkey}: no uri")),
            },
            None => Lookup::Absent,
        })
    }

    /// `getRecord`: the record's CID, which a lost answer did not bring, and the record it
    /// replies to (`reply.parent.uri`; no `reply`: none).
    fn part_of(&mut self, found: &Receipt) -> Result<(Part, Option<String>), Error> {
        let rkey = self.rkey_of(&found.id)?.to_string();
        let Some(doc) = self.get_record(&rkey)? else {
            return Err(Error::failure(
                Class::Unknown,
                format!("record {rkey} was found, then not"),
            ));
        };
        let Some(cid) = cid(&doc) else {
            return Err(Error::failure(
                Class::Unknown,
                format!("getRecord {rkey}: no usable cid"),
            ));
        };
        let parent = match &doc["value"]["reply"] {
            Value::Null => None,
            reply => match reply["parent"]["uri"].as_str() {
                Some(uri) => Some(uri.to_string()),
                None => {
                    return Err(Error::failure(
                        Class::Unknown,
                        format!("getRecord {rkey}: a reply without its parent's uri"),
                    ));
                }
            },
        };
        Ok((super::native::part(found.id.clone(), cid), parent))
    }

    /// `putRecord` under the part's key, keeping its `createdAt`, its reply references and,
    /// for part 0, its images.
    fn update_part(
        &mut self,
        post: &Post,
        turn: &Turn,
        part: &Part,
        media: &Media,
    ) -> Result<(), Error> {
        let rkey = self.rkey_of(&part.id)?.to_string();
        let Some(old) = self.get_record(&rkey)? else {
            return Err(Error::failure(
                Class::Rejected,
                format!("part {} ({rkey}) is no longer on the server", turn.n + 1),
            ));
        };
        // The first part carries the post's images as they are now (uploaded or reused
        // blobs), as a single record's update does.
        let record = match turn.n {
            0 => Self::embed(&turn.piece.body, post, media)?,
            _ => turn.piece.body.clone(),
        };
        self.put_record(&rkey, &old, record)
    }

    fn holds(&mut self, turn: &Turn, part: &Part) -> Result<bool, Error> {
        let rkey = self.rkey_of(&part.id)?.to_string();
        Ok(self
            .get_record(&rkey)?
            .is_some_and(|doc| doc["value"]["text"] == turn.piece.body["text"]))
    }
}

/// `reply`: the thread's root (part 0) and this part's parent (the part before it), each by
/// URI and CID.
fn reply(turn: &Turn) -> Result<Value, Error> {
    let strong = |part: Option<&Part>| match part
        .and_then(|p| Some((&p.id, super::native::cid(p)?)))
    {
        Some((id, cid)) => Ok(json!({"uri": id, "cid": cid})),
        None => Err(Error::failure(
            Class::Local,
            format!(
                "part {} cannot reply: the parts before it are not all on the line with their cid",
                turn.n + 1
            ),
        )),
    };
    Ok(json!({
        "root": strong(turn.landed.first())?,
        "parent": strong(turn.landed.get(turn.n - 1).filter(|_| turn.landed.len() == turn.n))?,
    }))
}

/// A document's `cid`, when it is one a line can keep.
fn cid(doc: &Value) -> Option<String> {
    doc["cid"]
        .as_str()
        .filter(|c| (8..=128).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(str::to_string)
}
