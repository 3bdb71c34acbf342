//! The run's survey on Bluesky: one `com.atproto.repo.listRecords` walk down each stretch of
//! the run's keys, from just above the last key's hour to below the first key's, in place of
//! `getRecord` probes per key. The reference PDS lists a collection by record key, descending,
//! each page the records below the cursor asked for (`listRecordsForCollection`: `rkey <
//! cursor ORDER BY rkey DESC LIMIT n`, its cursor the last key of the page; `limit` at most
//! 100), so a walk knows every record from where it started down to the last key it read. Each
//! page is checked for exactly that: a page whose keys are not strictly descending below the
//! cursor, that names another repository or collection, or whose cursor is not its last key
//! proves nothing, and the stretch's keys are probed with `getRecord` as before.

use super::{Bluesky, COLLECTION, tid};
use crate::error::Error;
use crate::net::pages::{Flow, Walked, walk};
use crate::survey::{Survey, stretches};
use crate::text::mark;
use jiff::Timestamp;
use life::Key;
use serde_json::Value;
use std::collections::BTreeMap;

/// Records a page asks for: the most `listRecords` gives.
const PAGE: usize = 100;
/// Pages read per stretch; a walk cut short knows the records down to where it stopped.
const MAX_PAGES: u32 = 10;
/// Keys more days apart than this are walked separately.
const GAP_DAYS: i64 = 7;

/// A record as a listing showed it.
#[derive(Debug)]
pub(super) struct Listed {
    pub uri: String,
    /// `mark` of its text, when it has one.
    pub text: Option<String>,
}

/// What the run's walks read: every record whose key is in one of `reaches`.
#[derive(Debug, Default)]
pub(super) struct Records {
    /// Record keys read completely, `(low, high)`: from `low` (included; `None`: from the
    /// start of the collection) up to `high` (not included).
    reaches: Vec<(Option<String>, String)>,
    records: BTreeMap<String, Listed>,
}

impl Records {
    /// Whether a record under `rkey` would have been read.
    pub fn covers(&self, rkey: &str) -> bool {
        self.reaches
            .iter()
            .any(|(low, high)| low.as_deref().is_none_or(|low| low <= rkey) && rkey < high.as_str())
    }

    pub fn get(&self, rkey: &str) -> Option<&Listed> {
        self.records.get(rkey)
    }
}

impl Bluesky {
    /// One walk per stretch of `keys`, into the run's survey.
    pub(super) fn survey_records(&mut self, keys: &[Key], now: Timestamp) -> Result<String, Error> {
        let did = self.client.did()?;
        let mut records = Records::default();
        let mut said = Vec::new();
        let mut failed = None;
        for (first, last) in stretches(keys, GAP_DAYS) {
            let (Some((bottom, _)), Some((_, top))) =
                (tid::hour(Key::of_day(first)), tid::hour(Key::of_day(last)))
            else {
                said.push(format!("{first}..{last}: none (no record key time)"));
                continue;
            };
            match self.walk_down(&did, &top, &bottom, &mut records) {
                Ok(text) => said.push(format!("{first}..{last}: {text}")),
                Err(err) => {
                    failed = Some(err);
                    break;
                }
            }
        }
        self.survey = Some(Survey::new(now, records));
        match failed {
            Some(err) => Err(err),
            None => Ok(said.join("; ")),
        }
    }

    /// Read the records below `top`, newest key first, until one is below `bottom` or the
    /// collection ends; what a trusted walk read goes into `records`.
    fn walk_down(
        &mut self,
        did: &str,
        top: &str,
        bottom: &str,
        records: &mut Records,
    ) -> Result<String, Error> {
        let mut read: Vec<(String, Listed)> = Vec::new();
        let mut lowest: Option<String> = None;
        let mut trusted = true;
        let limit = PAGE.to_string();
        let walked = walk(top.to_string(), MAX_PAGES, "records", |cursor| {
            let query = [
                ("repo", did),
                ("collection", COLLECTION),
                ("limit", limit.as_str()),
                ("cursor", cursor.as_str()),
            ];
            let reply = self.client.get("com.atproto.repo.listRecords", &query)?;
            let reply = reply.success(|r| self.client.failure("listRecords", r, false))?;
            let page = match page(&reply.body, did, &cursor) {
                Ok(page) => page,
                Err(why) => {
                    trusted = false;
                    return Ok(Flow::Cannot(why));
                }
            };
            let Some(last) = page.last().map(|(rkey, _)| rkey.clone()) else {
                return Ok(Flow::End);
            };
            read.extend(page);
            lowest = Some(last.clone());
            Ok(match last.as_str() < bottom {
                true => Flow::Stop,
                false => Flow::Next(last),
            })
        })?;
        let (low, said) = match (walked, trusted) {
            (Walked::Cannot(why), false) => return Ok(format!("none ({why})")),
            (Walked::End, _) => (None, "every record below the stretch".to_string()),
            (Walked::Stopped, _) => (lowest, "every record of the stretch".to_string()),
            (Walked::Cannot(why), true) => match lowest.clone() {
                Some(low) => (Some(low.clone()), format!("down to record {low} ({why})")),
                None => return Ok(format!("none ({why})")),
            },
        };
        records.reaches.push((low, top.to_string()));
        let count = read.len();
        records.records.extend(read);
        Ok(format!("{said}, {count} read"))
    }
}

/// The records of one page, checked: this repository's posts, keys strictly descending below
/// `cursor`, and the page's cursor (when it gives one) its last key. `Err` says what is wrong.
fn page(body: &str, did: &str, cursor: &str) -> Result<Vec<(String, Listed)>, String> {
    let doc: Value = serde_json::from_str(body).map_err(|_| "a page that is not JSON")?;
    let list = doc["records"]
        .as_array()
        .ok_or("a page without a list of records")?;
    if list.len() > PAGE {
        return Err(format!("{} records on a page of {PAGE}", list.len()));
    }
    let prefix = format!("at://{did}/{COLLECTION}/");
    let mut above = cursor.to_string();
    let mut out = Vec::with_capacity(list.len());
    for record in list {
        let uri = record["uri"].as_str().unwrap_or_default();
        let rkey = uri
            .strip_prefix(&prefix)
            .filter(|k| !k.is_empty() && !k.contains('/') && k.len() <= 512)
            .ok_or("a record of another repository or collection")?;
        if rkey >= above.as_str() {
            return Err("record keys that are not descending below the cursor".into());
        }
        if !record["value"].is_object() {
            return Err("a record without a value".into());
        }
        above = rkey.to_string();
        let text = record["value"]["text"].as_str().map(mark);
        out.push((
            rkey.to_string(),
            Listed {
                uri: uri.to_string(),
                text,
            },
        ));
    }
    match doc.get("cursor") {
        Some(given) if out.last().is_none_or(|(last, _)| given != last.as_str()) => {
            Err("a page whose cursor is not its last record key".into())
        }
        _ => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DID: &str = "did:plc:abc";

    fn record(rkey: &str) -> Value {
        json!({"uri": format!("at://{DID}/{COLLECTION}/{rkey}"), "cid": "x", "value": {"text": rkey}})
    }

    fn body(rkeys: &[&str], cursor: Option<&str>) -> String {
        let mut doc = json!({"records": rkeys.iter().map(|k| record(k)).collect::<Vec<_>>()});
        if let Some(cursor) = cursor {
            doc["cursor"] = json!(cursor);
        }
        doc.to_string()
    }

    #[test]
    fn a_page_is_trusted_only_when_it_lists_below_its_cursor_in_order() {
        let ok = page(&body(&["3k", "3j"], Some("3j")), DID, "3m").unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].1.text, Some(mark("3k")));
        assert!(page(&body(&[], None), DID, "3m").unwrap().is_empty());
        for (rkeys, cursor, why) in [
            (vec!["3j", "3k"], Some("3k"), "ascending"),
            (vec!["3k", "3k"], Some("3k"), "a key twice"),
            (vec!["3m"], Some("3m"), "the cursor itself"),
            (vec!["3z"], Some("3z"), "above the cursor"),
            (
                vec!["3k", "3j"],
                Some("3k"),
                "a cursor that is not the last key",
            ),
            (vec!["3k"], Some("3j"), "a cursor below the page"),
        ] {
            assert!(page(&body(&rkeys, cursor), DID, "3m").is_err(), "{why}");
        }
        let other =
            json!({"records": [{"uri": "at://did:plc:other/app.bsky.feed.post/3k", "value": {}}]});
        assert!(page(&other.to_string(), DID, "3m").is_err(), "another repo");
        let many: Vec<String> = (0..101).map(|i| format!("3k{:03}", 999 - i)).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(
            page(&body(&many, None), DID, "3m").is_err(),
            "over the limit"
        );
    }

    #[test]
    fn what_a_walk_read_covers_the_keys_between_its_ends() {
        let records = Records {
            reaches: vec![(Some("3c".into()), "3m".into()), (None, "2z".into())],
            records: BTreeMap::new(),
        };
        for (rkey, covered) in [
            ("3c", true),
            ("3l", true),
            ("3m", false),
            ("3b", false),
            ("2a", true),
            ("2z", false),
        ] {
            assert_eq!(records.covers(rkey), covered, "{rkey}");
        }
    }
}
