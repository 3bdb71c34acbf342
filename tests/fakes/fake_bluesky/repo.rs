//! The fake PDS's repo reads and writes besides createRecord: getRecord (missing → 400
//! RecordNotFound; its faults stand for a lookup that cannot tell), listRecords (newest first,
//! by cursor), deleteRecord (200 `{commit}`, again 200 `{}`) and putRecord (same rules as a
//! create; replaces the record in place).

use super::{DID, HANDLE, Pds, Stored, bearer};
use crate::fakes::fake_bluesky_rules::{self as rules, POST};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request};
use serde_json::{Value, json};

pub(super) fn get_record(s: &mut Pds, req: &Request) -> Reply {
    if bearer(req).is_some()
        && let Err(reply) = s.authorize(req, "com.atproto.repo.getRecord")
    {
        return reply;
    }
    s.got.push(req.query("rkey").unwrap_or_default());
    let confirm = match s.creates.is_empty() {
        true => None,
        false => s.confirm_faults.pop_front(),
    };
    let status = match confirm.or_else(|| s.get_faults.pop_front()) {
        Some(status) => status,
        None => s.get_chooser.as_mut().map_or(200, |f| f()),
    };
    match status {
        200 => {}
        502..=504 => {
            return Reply::raw(status, "text/html", "<html><body>Bad Gateway</body></html>");
        }
        _ => return s.error(req, status, "InternalServerError", "Internal Server Error"),
    }
    let (repo, collection) = (
        req.query("repo").unwrap_or_default(),
        req.query("collection").unwrap_or_default(),
    );
    let rkey = req.query("rkey").unwrap_or_default();
    if repo != DID && repo != HANDLE {
        return s.error(
            req,
            400,
            "InvalidRequest",
            &format!("Could not find repo: {repo}"),
        );
    }
    match s.records.get(&rkey).filter(|_| collection == POST) {
        Some(r) => Reply::json(200, json!({"uri": r.uri, "cid": r.cid, "value": r.value})),
        None => {
            let msg = format!("Could not locate record: at://{DID}/{collection}/{rkey}");
            s.error(req, 400, "RecordNotFound", &msg)
        }
    }
}

/// `com.atproto.repo.listRecords` as `@atproto/pds` answers it (`listRecordsForCollection`):
/// by record key, descending (ascending with `reverse=true`), the records below the cursor
/// (above it, reversed), `limit` 1 to 100 (default 50; anything else 400 InvalidRequest), and
/// the cursor is the last record key of every page that has one, the last page too. No auth.
/// `list_faults` stand for a PDS that pages otherwise (see `ListFault`).
pub(super) fn list_records(s: &mut Pds, req: &Request) -> Reply {
    s.listed.push(req.query("cursor").unwrap_or_default());
    let limit = match req.query("limit").map(|l| l.parse::<usize>()) {
        None => 50,
        Some(Ok(n)) if (1..=100).contains(&n) => n,
        Some(_) => {
            let msg = "Error: limit must be an integer between 1 and 100";
            return s.error(req, 400, "InvalidRequest", msg);
        }
    };
    let repo = req.query("repo").unwrap_or_default();
    if repo != DID && repo != HANDLE {
        let msg = format!("Could not find repo: {repo}");
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    let fault = s.list_faults.pop_front();
    if let Some(ListFault::Status(status)) = fault {
        return s.error(req, status, "InternalServerError", "Internal Server Error");
    }
    let reverse = req.query("reverse").as_deref() == Some("true");
    // A PDS that ignores the cursor answers from the start of the collection.
    let cursor = req
        .query("cursor")
        .filter(|_| fault != Some(ListFault::IgnoreCursor));
    let ours = req.query("collection").as_deref() == Some(POST);
    let mut all: Vec<&Stored> = s.records.values().filter(|_| ours).collect();
    if !reverse {
        all.reverse();
    }
    let page: Vec<&Stored> = all
        .into_iter()
        .filter(|r| match (&cursor, reverse) {
            (None, _) => true,
            (Some(c), false) => r.rkey < *c,
            (Some(c), true) => r.rkey > *c,
        })
        .take(limit)
        .collect();
    let mut items: Vec<Value> = page
        .iter()
        .map(|r| json!({"uri": r.uri, "cid": r.cid, "value": r.value}))
        .collect();
    if fault == Some(ListFault::Unordered) {
        items.reverse();
    }
    let mut answer = json!({ "records": items });
    if let Some(last) = page.last() {
        answer["cursor"] = json!(last.rkey);
    }
    Reply::json(200, answer)
}

/// What a `listRecords` meets instead of the reference PDS's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFault {
    /// An error status (500, 502, …).
    Status(u16),
    /// The cursor is ignored: the page starts at the newest record.
    IgnoreCursor,
    /// The page's records come in ascending order.
    Unordered,
}

pub(super) fn delete_record(s: &mut Pds, req: &Request, rkey: &str) -> Reply {
    let fault = s.delete_faults.pop_front().unwrap_or(Fault::Normal);
    match fault {
        Fault::Reject(status) => {
            return s.error(req, status, "InternalServerError", "Internal Server Error");
        }
        Fault::Hang => return Reply::Hang(s.hang),
        _ => {}
    }
    let Some(gone) = s.records.remove(rkey) else {
        return Reply::json(200, json!({}));
    };
    s.deleted.push(gone);
    let rev = s.rev();
    match fault {
        Fault::CommitHang => Reply::Hang(s.hang),
        Fault::CommitStatus(status) => {
            s.error(req, status, "InternalServerError", "Internal Server Error")
        }
        _ => Reply::json(
            200,
            json!({"commit": {"cid": rules::cid(&json!(rev)), "rev": rev}}),
        ),
    }
}

pub(super) fn put_record(s: &mut Pds, req: &Request, rkey: &str, record: &Value) -> Reply {
    if let Some(msg) = rules::bad_rkey(rkey) {
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    if let Err(msg) = rules::check_post(record) {
        return s.error(req, 400, "InvalidRequest", &msg);
    }
    if let Err(reply) = super::images::check_record(s, req, record, &super::uri(rkey)) {
        return reply;
    }
    let stored = s.commit(rkey, record.clone());
    let rev = s.rev();
    Reply::json(
        200,
        json!({"uri": stored.uri, "cid": stored.cid, "commit": {"cid": rules::cid(&json!(rev)), "rev": rev}, "validationStatus": "valid"}),
    )
}
