//! Looking a key up on Mastodon: the account's statuses, newest first, back past where a copy
//! could be, each read back as its source text and compared with the texts sent. Live, one
//! walk per lookup; or from the run's survey: one walk back to the earliest key's eve, read
//! before the pass. Each status's source is read once per run, whichever asks first.

use super::{Mastodon, normal};
use crate::error::Error;
use crate::net::pages::{Flow, Walked, walk};
use crate::net::{encode, id_text};
use crate::outside::web_url;
use crate::survey::Survey;
use crate::text::mark;
use crate::{Attempts, Lookup, items};
use jiff::{SignedDuration, Timestamp};
use life::Key;
use life::Receipt;

/// Pages of 40 statuses read before the lookup gives up (cannot tell).
const MAX_PAGES: u32 = 25;
/// Statuses created this long before the attempt still count (clocks differ).
const SKEW: SignedDuration = SignedDuration::from_secs(300);

/// What a walk back read: the statuses, newest first, and why it stopped short of where it
/// was asked to reach (`None`: it got there, or to the timeline's end).
type Walk = (Vec<Listed>, Option<String>);

/// A status as the timeline lists it.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    id: String,
    created: Timestamp,
    url: Option<String>,
    /// The status it replies to (`in_reply_to_id`).
    parent: Option<String>,
}

/// The statuses created since `reach`, newest first, each with the mark of its source text
/// (`None`: it has none).
#[derive(Debug)]
pub(super) struct Timeline {
    reach: Timestamp,
    statuses: Vec<(Listed, Option<String>)>,
}

impl Mastodon {
    /// The key's copies among the statuses created since the first attempt (or the key's eve).
    pub(super) fn look(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let reach = attempts.reach_back() - SKEW;
        if let Some(timeline) = self
            .survey
            .as_ref()
            .and_then(|s| s.for_lookup(attempts))
            .filter(|t| t.reach <= reach)
        {
            let newer = timeline.statuses.iter().filter(|(s, _)| s.created >= reach);
            return Ok(judge(newer.map(|(s, m)| (s, m.clone())), attempts, None));
        }
        let (listed, cut) = match self.walk_back(reach)? {
            Ok(walked) => walked,
            Err(why) => return Ok(Lookup::CannotTell(why)),
        };
        let mut seen = Vec::new();
        for status in listed.iter().filter(|s| s.created >= reach) {
            let text = self.source_mark(&status.id)?;
            let missing = text.is_none();
            seen.push((status, text));
            if missing {
                break; // cannot tell, whatever comes after
            }
        }
        Ok(judge(seen.into_iter(), attempts, cut))
    }

    /// The statuses created since the first attempt that reply to `parent`, whatever their
    /// text (`Thread::replies_to`).
    pub(super) fn replies(&mut self, attempts: &Attempts, parent: &str) -> Result<Lookup, Error> {
        let reach = attempts.reach_back() - SKEW;
        let surveyed = (self.survey.as_ref())
            .and_then(|s| s.for_lookup(attempts))
            .filter(|t| t.reach <= reach)
            .map(|t| {
                t.statuses
                    .iter()
                    .map(|(s, _)| s.clone())
                    .collect::<Vec<_>>()
            });
        let (listed, cut) = match surveyed {
            Some(listed) => (listed, None),
            None => match self.walk_back(reach)? {
                Ok(walked) => walked,
                Err(why) => return Ok(Lookup::CannotTell(why)),
            },
        };
        let found: Vec<Receipt> = (listed.iter().rev())
            .filter(|s| s.created >= reach && s.parent.as_deref() == Some(parent))
            .map(|s| Receipt {
                id: s.id.clone(),
                url: s.url.clone(),
                ..Receipt::default()
            })
            .collect();
        Ok(match (found.is_empty(), cut) {
            (false, _) => Lookup::Found(found),
            (true, Some(why)) => Lookup::CannotTell(why),
            (true, None) => Lookup::Absent,
        })
    }

    /// The run's survey: one walk back to the eve of the first key, and the source of every
    /// status since. A walk that cannot be trusted or does not get that far proves nothing
    /// (and no source is read for it).
    pub(super) fn survey_timeline(
        &mut self,
        keys: &[Key],
        now: Timestamp,
    ) -> Result<String, Error> {
        let Some(first) = keys.first() else {
            return Ok("no keys".into());
        };
        let reach = Attempts::none_yet(*first, &[], &serde_json::Value::Null).reach_back() - SKEW;
        let listed = match self.walk_back(reach)? {
            Ok((listed, None)) => listed,
            Ok((_, Some(why))) | Err(why) => return Ok(format!("none ({why})")),
        };
        let mut statuses = Vec::new();
        for status in listed.into_iter().filter(|s| s.created >= reach) {
            let text = self.source_mark(&status.id)?;
            statuses.push((status, text));
        }
        let said = format!(
            "statuses since {reach}: {}, each source read",
            statuses.len()
        );
        self.survey = Some(Survey::new(now, Timeline { reach, statuses }));
        Ok(said)
    }

    /// The account's statuses, newest first, until a page holds one created before `reach`
    /// or the timeline ends. `Ok(Err(why))`: a page cannot be trusted. `Some(why)` beside the
    /// statuses: the pages ran out before `reach`.
    fn walk_back(&mut self, reach: Timestamp) -> Result<Result<Walk, String>, Error> {
        let account = self.account()?;
        let mut listed = Vec::new();
        let mut bad = None;
        let walked = walk(None::<String>, MAX_PAGES, "statuses", |max_id| {
            let mut path = format!(
                "/api/v1/accounts/{}/statuses?limit=40&exclude_reblogs=true",
                encode(&account)
            );
            if let Some(max_id) = &max_id {
                path.push_str(&format!("&max_id={}", encode(max_id)));
            }
            let reply = self.http.get(&self.url(&path), &self.headers())?;
            let reply = reply.success(|r| self.failure("list statuses", r))?;
            let page = match page(&reply.body) {
                Ok(page) => page,
                Err(why) => {
                    bad = Some(why.clone());
                    return Ok(Flow::Cannot(why));
                }
            };
            let older = page.iter().any(|s| s.created < reach);
            let last = page.last().map(|s| s.id.clone());
            listed.extend(page);
            Ok(match (older, last) {
                (false, Some(last)) => Flow::Next(Some(last)),
                _ => Flow::End,
            })
        })?;
        Ok(match (bad, walked) {
            (Some(why), _) => Err(why),
            (None, Walked::Cannot(_)) => Ok((
                listed,
                Some(format!(
                    "more than {} statuses since the attempt",
                    40 * MAX_PAGES
                )),
            )),
            (None, _) => Ok((listed, None)),
        })
    }

    /// The mark of a status's source text (`normal`, then `mark`), read once per run.
    fn source_mark(&mut self, id: &str) -> Result<Option<String>, Error> {
        if let Some(known) = self.sources.get(id) {
            return Ok(known.clone());
        }
        let text = self.source(id)?.map(|t| mark(&normal(&t)));
        self.sources.insert(id.to_string(), text.clone());
        Ok(text)
    }
}

/// One timeline page: at most the 40 statuses asked for, each with an id and a time.
fn page(body: &str) -> Result<Vec<Listed>, String> {
    let mut statuses = Vec::new();
    let walk = items::each(body, "", &mut |status| {
        if statuses.len() <= 40 {
            statuses.push(status);
        }
    });
    match walk {
        Err(e) => return Err(format!("status list is {e}")),
        Ok(items::Walk::NotArray) => return Err("status list is not a list".into()),
        Ok(items::Walk::Array) if statuses.len() > 40 => {
            return Err("the instance answered more than the 40 statuses asked for".into());
        }
        Ok(items::Walk::Array) => {}
    }
    statuses
        .iter()
        .map(|status| {
            let id = id_text(&status["id"]).ok_or("a listed status has no id")?;
            let created = status["created_at"]
                .as_str()
                .and_then(|t| t.parse::<Timestamp>().ok())
                .ok_or_else(|| format!("status {id} has no created_at"))?;
            let url = web_url(status["url"].as_str());
            let parent = id_text(&status["in_reply_to_id"]);
            Ok(Listed {
                id,
                created,
                url,
                parent,
            })
        })
        .collect()
}

/// The answer from the statuses a lookup reaches (newest first, with their source marks):
/// found when one holds a text an attempt sent (oldest first: the one to keep); a status
/// without source text cannot tell; `cut`: the statuses did not reach back far enough.
fn judge<'a>(
    statuses: impl Iterator<Item = (&'a Listed, Option<String>)>,
    attempts: &Attempts,
    cut: Option<String>,
) -> Lookup {
    let mut found = Vec::new();
    for (status, text) in statuses {
        let Some(text) = text else {
            return Lookup::CannotTell(format!(
                "status {} has no source text (Mastodon before 3.5?)",
                status.id
            ));
        };
        if attempts.marks.contains(&text) {
            found.push(Receipt {
                id: status.id.clone(),
                url: status.url.clone(),
                ..Receipt::default()
            });
        }
    }
    found.reverse();
    match (found.is_empty(), cut) {
        (false, _) => Lookup::Found(found),
        (true, Some(why)) => Lookup::CannotTell(why),
        (true, None) => Lookup::Absent,
    }
}
