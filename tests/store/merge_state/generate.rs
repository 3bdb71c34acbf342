//! Random divergent state files from one base: a base of random lines and comments, and two
//! sides that each change it as runners and people do (a runner's next step for a key, a hand
//! edit or `mark`, a deleted line, comments added or removed, the format line dropped).

use super::reference::{Line, render};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

pub const FORMAT: &str = "# dayrun state format 3";
const END: u8 = 99;

/// A time of the one day every line is stamped on: hours and offsets chosen so that equal
/// instants with different bytes (`07:00+01:00` and `06:00Z`) come up often.
#[derive(Debug, Clone, Copy)]
pub struct At(u8, bool, bool);

impl At {
    fn text(self) -> String {
        let (minute, zone) = (
            if self.1 { "30" } else { "00" },
            if self.2 { "+01:00" } else { "Z" },
        );
        format!("2026-11-29T{:02}:{minute}:00{zone}", self.0)
    }
}

fn at() -> impl Strategy<Value = At> {
    (6u8..=8, any::<bool>(), any::<bool>()).prop_map(|(h, m, z)| At(h, m, z))
}

/// A line's shape. `kind`: 0 failed, 1 pending, 2 pending op=update, 3 done, 4 pending
/// op=retract, 5 retracted (the contract's ranks).
#[derive(Debug, Clone)]
pub struct Spec {
    kind: u8,
    generation: u8,
    at: At,
    id: u8,
    sent: Option<(At, Vec<u8>)>,
    extra: u8,
}

fn spec() -> impl Strategy<Value = Spec> {
    let generation = prop_oneof![6 => Just(0u8), 2 => Just(1), 1 => Just(2)];
    let sent = proptest::option::of((at(), proptest::collection::vec(0u8..12, 0..5)));
    (0u8..6, generation, at(), 1u8..=3, sent, any::<u8>()).prop_map(
        |(kind, generation, at, id, sent, extra)| Spec {
            kind,
            generation,
            at,
            id,
            sent,
            extra,
        },
    )
}

fn line(day: u8, s: &Spec) -> String {
    let status = [
        "failed",
        "pending",
        "pending",
        "done",
        "pending",
        "retracted",
    ][s.kind as usize];
    let mut f: Vec<(String, String)> = Vec::new();
    let mut put = |n: &str, v: String| f.push((n.to_string(), v));
    let id = s.id.to_string();
    match s.kind {
        0 => {
            put(
                "class",
                ["unknown", "retry-safe", "rejected"][s.extra as usize % 3].into(),
            );
            put("reason", "HTTP_502".into());
        }
        1 => put("attempt", (s.extra % 3 + 1).to_string()),
        2 | 4 => {
            put("id", id);
            put("op", if s.kind == 2 { "update" } else { "retract" }.into());
        }
        _ => {
            put("id", id);
            if s.extra.is_multiple_of(3) {
                put("dedup", "1".into());
            }
            if s.extra % 4 == 1 {
                put("copies", format!("{},9", s.id % 3 + 1));
            }
        }
    }
    put("fp", format!("f{}", s.extra % 4));
    if s.generation > 0 {
        put("generation", s.generation.to_string());
    }
    if let (Some((since, marks)), 0..=2) = (&s.sent, s.kind) {
        put("sent", "maybe".into());
        put("since", since.text());
        // Marks never repeat on a line (each attempt's mark moves to the end).
        let mut seen = BTreeSet::new();
        let marks: Vec<String> = (marks.iter().rev().filter(|m| seen.insert(**m)))
            .map(|m| format!("m{m}"))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !marks.is_empty() {
            put("marks", marks.join(","));
        }
    }
    if s.extra & 8 != 0 {
        f.rotate_left(1);
    }
    render(&format!("2026-11-{day:02}"), status, &s.at.text(), &f)
}

/// A side as written: lines by day, comment lines before each day (or `END`).
#[derive(Debug, Clone, Default)]
pub struct File {
    lines: BTreeMap<u8, String>,
    comments: BTreeMap<u8, Vec<String>>,
    bare: bool,
}

impl File {
    pub fn text(&self) -> String {
        let mut out = if self.bare {
            String::new()
        } else {
            format!("{FORMAT}\n")
        };
        let anchors: BTreeSet<u8> = self
            .lines
            .keys()
            .chain(self.comments.keys())
            .copied()
            .collect();
        for day in anchors {
            for c in self.comments.get(&day).into_iter().flatten() {
                out.push_str(&format!("{c}\n"));
            }
            if let Some(line) = self.lines.get(&day) {
                out.push_str(&format!("{line}\n"));
            }
        }
        out
    }

    fn apply(&mut self, edit: &Edit) {
        let keys: Vec<u8> = self.lines.keys().copied().collect();
        let pick = |i: usize| keys.get(i % keys.len().max(1)).copied();
        match edit {
            Edit::Advance(i, choice, at) => {
                if let Some(day) = pick(*i) {
                    let next = advance(&self.lines[&day], *choice, *at);
                    self.lines.insert(day, next);
                }
            }
            Edit::Put(day, spec) => {
                // Past the month: a hand edit (or `mark`) of a key the side already holds.
                let day = match *day > 28 {
                    true => pick(*day as usize).unwrap_or(*day - 28),
                    false => *day,
                };
                self.lines.insert(day, line(day, spec));
            }
            Edit::Delete(i) => {
                if let Some(day) = pick(*i) {
                    self.lines.remove(&day);
                }
            }
            Edit::Comment(anchor, text) => {
                let day = match anchor % 4 {
                    0 => END,
                    _ => pick(*anchor as usize).unwrap_or(END),
                };
                let text = match text % 6 {
                    0 => String::new(),
                    n => format!("# note {n}{}", text % 3),
                };
                let at = self.comments.entry(day).or_default();
                at.insert(*anchor as usize % (at.len() + 1), text);
            }
            Edit::Uncomment(i) => {
                let all: Vec<(u8, usize)> = (self.comments.iter())
                    .flat_map(|(d, c)| (0..c.len()).map(move |n| (*d, n)))
                    .collect();
                if let Some((day, n)) = all.get(i % all.len().max(1)) {
                    self.comments.get_mut(day).unwrap().remove(*n);
                }
            }
            Edit::Bare => self.bare = !self.bare,
        }
    }
}

/// One change a side makes: a runner's next step for a key, a hand edit, a comment.
#[derive(Debug, Clone)]
pub enum Edit {
    Advance(usize, u8, At),
    Put(u8, Spec),
    Delete(usize),
    Comment(u8, u8),
    Uncomment(usize),
    Bare,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        8 => (any::<usize>(), any::<u8>(), at()).prop_map(|(i, c, a)| Edit::Advance(i, c, a)),
        4 => (1u8..=56, spec()).prop_map(|(d, s)| Edit::Put(d, s)),
        1 => any::<usize>().prop_map(Edit::Delete),
        3 => (any::<u8>(), any::<u8>()).prop_map(|(a, t)| Edit::Comment(a, t)),
        1 => any::<usize>().prop_map(Edit::Uncomment),
        1 => Just(Edit::Bare),
    ]
}

/// A base, and two sides each derived from it by its own edits: the texts O, A, B.
pub fn divergent() -> impl Strategy<Value = (String, String, String)> {
    let base = proptest::collection::btree_map(1u8..=28, spec(), 0..8);
    let notes = proptest::collection::vec((any::<u8>(), any::<u8>()), 0..4);
    let side = || proptest::collection::vec(edit(), 0..7);
    // Both sides publish one key the base lacks (two runners, one lost state): one copy, or two.
    let race = proptest::option::weighted(0.25, (1u8..=28, spec(), spec()));
    let all = (base, notes, any::<bool>(), side(), side(), race);
    all.prop_map(|(base, notes, bare, mut ea, mut eb, race)| {
        if let Some((day, mut x, mut y)) = race {
            (x.kind, y.kind, y.generation) = (3, 3, x.generation);
            ea.insert(0, Edit::Put(day, x));
            eb.insert(0, Edit::Put(day, y));
        }
        let mut o = File {
            bare,
            ..File::default()
        };
        for (day, s) in &base {
            o.apply(&Edit::Put(*day, s.clone()));
        }
        for (anchor, text) in notes {
            o.apply(&Edit::Comment(anchor, text));
        }
        let (mut a, mut b) = (o.clone(), o.clone());
        ea.iter().for_each(|e| a.apply(e));
        eb.iter().for_each(|e| b.apply(e));
        (o.text(), a.text(), b.text())
    })
}

/// A runner's next step for a key, from its line as it is.
fn advance(text: &str, choice: u8, at: At) -> String {
    let old = Line::read(text);
    let mut next = Line {
        key: old.key.clone(),
        status: "pending".into(),
        at: at.text(),
        fields: Vec::new(),
    };
    let id = (choice / 3 % 3 + 1).to_string();
    let keep = |next: &mut Line, names: &[&str]| {
        for n in names {
            if let Some(v) = old.get(n) {
                next.set(n, v.to_string());
            }
        }
    };
    match (old.status.as_str(), old.get("op"), choice % 3) {
        ("done", _, 0) => {
            keep(&mut next, &["id", "generation"]);
            next.set("op", "update".into());
        }
        ("done", _, 1) => {
            keep(&mut next, &["id", "generation"]);
            next.set("op", "retract".into());
        }
        ("done", _, _) | ("pending", Some("update"), _) => {
            next.status = "done".into();
            keep(&mut next, &["id", "generation"]);
        }
        ("pending", Some("retract"), _) => {
            next.status = "retracted".into();
            keep(&mut next, &["id", "generation"]);
        }
        ("retracted", _, _) => {
            next.set("attempt", "1".into());
            next.set("generation", (old.generation() + 1).to_string());
        }
        (_, _, 0) => {
            next.status = "done".into();
            next.set("id", id);
            keep(&mut next, &["generation"]);
        }
        (_, _, step) => {
            // Another attempt that may land: `sent=maybe` carried, one more mark.
            if step == 1 {
                next.status = "failed".into();
                next.set("class", "unknown".into());
            } else {
                next.set("attempt", (choice % 4 + 1).to_string());
            }
            keep(&mut next, &["generation"]);
            next.set("sent", "maybe".into());
            next.set("since", old.get("since").unwrap_or(&old.at).to_string());
            let (mut marks, mark) = (old.list("marks"), format!("m{}", choice % 12));
            marks.retain(|m| *m != mark);
            marks.push(mark);
            next.set("marks", marks.join(","));
        }
    }
    next.text()
}
