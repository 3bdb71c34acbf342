//! A per-key reference merge written from the contract (/work/notes/contract-issue13.md),
//! never from src/merge.rs. A line's fields are plain `name=value` words here, which is all
//! the generator writes.

use super::generate::FORMAT;
use jiff::Timestamp;
use std::collections::{BTreeMap, BTreeSet};

/// A line as the generator writes it: single spaces, bare values.
pub fn render(key: &str, status: &str, at: &str, fields: &[(String, String)]) -> String {
    let mut out = format!("{key} {status} {at}");
    for (n, v) in fields {
        out.push_str(&format!(" {n}={v}"));
    }
    out
}

/// A line split into key, status, time and fields.
pub struct Line {
    pub key: String,
    pub status: String,
    pub at: String,
    pub fields: Vec<(String, String)>,
}

impl Line {
    pub fn read(text: &str) -> Line {
        let mut words = text.split_whitespace();
        let mut next = || words.next().unwrap().to_string();
        let (key, status, at) = (next(), next(), next());
        let fields = words
            .map(|w| {
                let (n, v) = w.split_once('=').unwrap();
                (n.to_string(), v.to_string())
            })
            .collect();
        Line {
            key,
            status,
            at,
            fields,
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Set a field: it moves to the end; an empty value leaves the line as it is.
    pub fn set(&mut self, name: &str, value: String) {
        if !value.is_empty() {
            self.fields.retain(|(n, _)| n != name);
            self.fields.push((name.to_string(), value));
        }
    }

    pub fn text(&self) -> String {
        render(&self.key, &self.status, &self.at, &self.fields)
    }

    pub fn generation(&self) -> u32 {
        self.get("generation")
            .and_then(|g| g.parse().ok())
            .unwrap_or(0)
    }

    fn rank(&self) -> u8 {
        match (self.status.as_str(), self.get("op")) {
            ("retracted", _) => 5,
            ("pending", Some("retract")) => 4,
            ("done", _) => 3,
            ("pending", Some("update")) => 2,
            ("pending", _) => 1,
            _ => 0,
        }
    }

    pub fn list(&self, name: &str) -> Vec<String> {
        let value = self.get(name).unwrap_or("");
        value
            .split(',')
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect()
    }
}
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Anchor {
    Key(String),
    End,
}

struct Parsed {
    lines: BTreeMap<String, String>,
    comments: BTreeMap<Anchor, Vec<String>>,
}

fn parse(text: &str) -> Parsed {
    let (mut lines, mut comments, mut held) = (BTreeMap::new(), BTreeMap::new(), Vec::new());
    for raw in text.lines() {
        let body = raw.trim();
        if body.starts_with("# dayrun state format ") {
            continue;
        }
        if body.is_empty() || body.starts_with('#') {
            held.push(raw.trim_end().to_string());
            continue;
        }
        let key = body.split_whitespace().next().unwrap().to_string();
        if !held.is_empty() {
            comments.insert(Anchor::Key(key.clone()), std::mem::take(&mut held));
        }
        lines.insert(key, body.to_string());
    }
    if !held.is_empty() {
        comments.insert(Anchor::End, held);
    }
    Parsed { lines, comments }
}

/// A line as dayrun 0.5 reads it: a pending publish always counts as maybe sent (since its own
/// time when it names none).
fn read(text: &str) -> Line {
    let mut l = Line::read(text);
    if l.status == "pending" && l.get("op").is_none() && l.get("sent").is_none() {
        l.set("sent", "maybe".into());
        l.set("since", l.at.clone());
    }
    l
}

/// One key, by the contract (issue 20 row 9): the winner of the total order; every live id of
/// the same copy survives (`copies=`, a conflict when two differ, whatever the statuses); the
/// live ids of an earlier copy are kept as history (`older=`, no conflict); and what the
/// loser's attempts of the same copy may have left, whatever the winner says.
fn merge_line(x: &str, y: &str) -> (String, Option<(String, [String; 2])>) {
    let order = |t: &str| {
        let l = read(t);
        let at: Option<Timestamp> = l.at.parse().ok();
        (l.generation(), l.rank(), at, printed(&l))
    };
    let (win, lose) = match order(x).cmp(&order(y)) {
        std::cmp::Ordering::Less => (read(y), read(x)),
        std::cmp::Ordering::Greater => (read(x), read(y)),
        // Equal up to the bytes of the line as dayrun prints it: the same line.
        std::cmp::Ordering::Equal => (read(x), read(y)),
    };
    let mut out = read(&win.text());
    let same = win.generation() == lose.generation();
    let live = |l: &Line| l.status != "retracted";
    let mut conflict = None;
    let mut copies = win.list("copies");
    let mut older = win.list("older");
    let push = |list: &mut Vec<String>, id: &str, own: Option<&str>| {
        if Some(id) != own && !list.iter().any(|c| c == id) && list.len() < 8 {
            list.push(id.to_string());
        }
    };
    let own = win.get("id");
    if same {
        if let (Some(w), Some(l)) = (own, lose.get("id"))
            && w != l
            && (live(&win) || live(&lose))
        {
            if live(&lose) {
                push(&mut copies, l, own);
            }
            let mut ids = [w.to_string(), l.to_string()];
            ids.sort();
            conflict = Some((win.key.clone(), ids));
        }
        for c in lose.list("copies") {
            push(&mut copies, &c, own);
        }
    } else {
        if let Some(l) = lose.get("id").filter(|_| live(&lose)) {
            push(&mut older, l, own);
        }
        for c in lose.list("copies") {
            push(&mut older, &c, own);
        }
    }
    for c in lose.list("older") {
        push(&mut older, &c, own);
    }
    out.set("copies", copies.join(","));
    out.set("older", older.join(","));
    // What the other side may have sent of this copy stays, whatever the winner's status (a
    // done or retracted line too: the next run looks for it, issue 28).
    if same && lose.get("sent") == Some("maybe") {
        let since = [win.get("since"), lose.get("since")]
            .into_iter()
            .flatten()
            .min_by_key(|s| (s.parse::<Timestamp>().ok(), s.to_string()));
        let mut marks = win.list("marks");
        for m in lose.list("marks") {
            if !marks.contains(&m) {
                marks.push(m);
            }
        }
        let marks = marks[marks.len().saturating_sub(8)..].join(",");
        out.set("sent", "maybe".into());
        out.set("since", since.unwrap_or("").to_string());
        out.set("marks", marks);
    }
    (out.text(), conflict)
}

/// The order a state line's fields are written in (README, "The state file"); fields it does
/// not name follow in their own order.
const ORDER: [&str; 27] = [
    "op",
    "class",
    "lookup",
    "verified",
    "by",
    "reason",
    "id",
    "url",
    "older",
    "copies",
    "foreign",
    "fp",
    "cred",
    "dedup",
    "generation",
    "rkey",
    "media",
    "attempt",
    "first_failure",
    "sent",
    "since",
    "marks",
    "published",
    "payload",
    "updated",
    "edit_failed",
    "edit_late",
];

/// The line as dayrun writes it: its bytes break a tie between two lines of one time.
fn printed(l: &Line) -> String {
    let mut fields = l.fields.clone();
    fields.sort_by_key(|(n, _)| ORDER.iter().position(|o| o == n).unwrap_or(ORDER.len()));
    render(&l.key, &l.status, &l.at, &fields)
}

/// A merged file with each key's fields in one order (by name): what it says, whatever order a
/// printer puts the fields in (dayrun's own order is checked by its unit tests).
pub fn canonical(text: &str) -> String {
    let mut out = String::new();
    for raw in text.lines() {
        let body = raw.trim();
        if body.is_empty() || body.starts_with('#') {
            out.push_str(raw);
        } else {
            let mut l = read(body);
            l.fields.sort();
            out.push_str(&l.text());
        }
        out.push('\n');
    }
    out
}

/// Comments at one anchor. Beyond the contract's words: when both sides made the same change,
/// that change (the contract's rule would re-sort lines both added in the same order). A base
/// line counts as kept when each side still has a line like it (one of two blank lines deleted
/// on one side comes back: see merge-findings.md).
fn merge_comments(o: &[String], a: &[String], b: &[String]) -> Vec<String> {
    if a == o {
        return b.to_vec();
    }
    if b == o || a == b {
        return a.to_vec();
    }
    let kept = o.iter().filter(|l| a.contains(l) && b.contains(l)).cloned();
    let new: BTreeSet<&String> = a.iter().chain(b).filter(|l| !o.contains(l)).collect();
    kept.chain(new.into_iter().cloned()).collect()
}

/// The whole file: the format line, each key of either side in date order with its comments,
/// then the comments at the end. Returns the text and the conflicts (key, both ids).
pub fn merge(o: &str, a: &str, b: &str) -> (String, Vec<(String, [String; 2])>) {
    let (o, a, b) = (parse(o), parse(a), parse(b));
    let none = Vec::new();
    let comments = |anchor: &Anchor| {
        let get = |p: &Parsed| p.comments.get(anchor).unwrap_or(&none).clone();
        merge_comments(&get(&o), &get(&a), &get(&b))
    };
    let mut out = format!("{FORMAT}\n");
    let mut conflicts = Vec::new();
    let keys: BTreeSet<&String> = a.lines.keys().chain(b.lines.keys()).collect();
    for key in keys {
        for c in comments(&Anchor::Key(key.clone())) {
            out.push_str(&format!("{c}\n"));
        }
        let line = match (a.lines.get(key), b.lines.get(key)) {
            (Some(x), Some(y)) => {
                let (line, conflict) = merge_line(x, y);
                conflicts.extend(conflict);
                line
            }
            (Some(x), None) | (None, Some(x)) => read(x).text(),
            (None, None) => unreachable!(),
        };
        out.push_str(&format!("{line}\n"));
    }
    for c in comments(&Anchor::End) {
        out.push_str(&format!("{c}\n"));
    }
    (out, conflicts)
}

/// The keys of a state file's text.
pub fn keys(text: &str) -> BTreeSet<String> {
    parse(text).lines.into_keys().collect()
}
