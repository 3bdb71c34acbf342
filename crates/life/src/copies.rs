//! A key's copies on one target as one set: every id its line holds (this generation's copy
//! and thread parts, its duplicates, earlier generations' copies, and copies ruled not ours),
//! what each is to the key, and the one rule that sifts what a lookup found for an attempt.

use super::Receipt;
use super::{Copies, KeyLine, Phase};

/// What an id on a key's line is to the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// This generation's copy (`id=`).
    Copy,
    /// Part `n` of this generation's thread (`parts=`; part 0 is the copy).
    Part(usize),
    /// A further copy of this generation (`copies=`): the post exists twice.
    Duplicate,
    /// A live copy of an earlier generation (`older=`).
    Older,
    /// A copy at this key's place that a person ruled not this post (`foreign=`).
    Foreign,
}

/// One id the line holds, and what it is to the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held<'a> {
    pub id: &'a str,
    pub role: Role,
}

impl Copies {
    /// Every id the set holds with each role it has there, in the line's order (an id may
    /// hold two: a thread's part 0 is the copy; a merge may list a part as a duplicate too).
    fn roles(&self) -> impl Iterator<Item = Held<'_>> {
        let parts = self.current.parts.iter().enumerate();
        let lists = [
            (&self.duplicates, Role::Duplicate),
            (&self.older, Role::Older),
            (&self.foreign, Role::Foreign),
        ];
        (self.current.id.iter().map(|id| (id, Role::Copy)))
            .chain(parts.map(|(n, part)| (&part.id, Role::Part(n))))
            .chain(
                lists
                    .into_iter()
                    .flat_map(|(list, role)| list.iter().map(move |id| (id, role))),
            )
            .map(|(id, role)| Held { id, role })
    }

    /// Every id the set holds, each once, with its first role (a thread's part 0 is the
    /// copy).
    pub fn held(&self) -> Vec<Held<'_>> {
        let mut all: Vec<Held> = Vec::new();
        for held in self.roles() {
            if !all.iter().any(|h| h.id == held.id) {
                all.push(held);
            }
        }
        all
    }
}

impl KeyLine {
    /// Every copy of the key that is live as far as the line knows: this generation's (unless
    /// it was retracted), its duplicates, and earlier generations' not yet retracted. A line
    /// that names one is never dropped: it is how `retract` finds the copy.
    pub fn live_ids(&self) -> Vec<String> {
        let mut ids = self.own_ids();
        for id in &self.copies.older {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }

    /// This generation's live copies: the line's `id=` and thread parts (unless retracted)
    /// and `copies=`. A lookup that finds one of them has found this key's copy, whatever it
    /// holds now (an edit since, by dayrun or by hand): dayrun took the id from its receipt.
    pub fn own_ids(&self) -> Vec<String> {
        let retracted = matches!(self.phase, Phase::Retracted { .. });
        let mut ids: Vec<String> = Vec::new();
        for held in self.copies.roles() {
            let live = match held.role {
                Role::Copy | Role::Part(_) => !retracted,
                Role::Duplicate => true,
                Role::Older | Role::Foreign => false,
            };
            if live && !ids.iter().any(|id| id == held.id) {
                ids.push(held.id.to_string());
            }
        }
        ids
    }
}

impl KeyLine {
    /// Before a published line's `fp=` and `payload=` move on to what its copy does not hold
    /// (a person puts it aside, a send of the same copy starts): keep what the copy holds in
    /// `holds=`. Only a done line speaks for its copy, and the first keep stands.
    pub fn keep_what_the_copy_holds(&mut self) {
        let recorded = self.copies.current.id.is_some() || !self.copies.current.parts.is_empty();
        if self.phase == Phase::Done && recorded && self.copies.current.holds.is_none() {
            self.copies.current.holds = self.fp.clone().map(|fp| crate::Holds {
                fp,
                payload: self.edits.payload.clone(),
            });
        }
    }

    /// What a copy that answers as `id` holds, when the line knows it holds something other
    /// than the line's `fp=` and `payload=`: the copy this line recorded before the attempt.
    pub fn holds_of(&self, id: &str) -> Option<&crate::Holds> {
        self.copies
            .current
            .holds
            .as_ref()
            .filter(|_| self.copies.current.id.as_deref() == Some(id))
    }
}

/// Why a copy a lookup found does not answer for this attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOurs {
    /// Another key's line holds it.
    OtherKey,
    /// It is an earlier generation's copy of this key.
    Older,
    /// A person ruled it not this post.
    Foreign,
}

/// What the other keys say about the copies a lookup found: their lines, read by the runner
/// from the state file, and their posts, read from the content catalog.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elsewhere<'a> {
    /// The ids found that another key's line holds.
    pub held: &'a [String],
    /// Other keys whose attempt may be out and sent a text this attempt sent too (a mark in
    /// common): a copy on no line may be theirs.
    pub twins: &'a [crate::Key],
    /// Other keys of the catalog whose post this target would be sent with a text this attempt
    /// sent too (a mark in common): a copy on no line may be theirs, made by another runner
    /// whose lines this state has not seen. Read only when a copy found is on no line.
    pub alike: &'a [crate::Key],
}

/// Why the copy `id` cannot be this attempt's, if it cannot. `elsewhere`: another key's line
/// holds it. An id this generation's own line records is always its own (even if a 0.5.0 line
/// of another key took it too).
pub fn not_ours(line: Option<&KeyLine>, id: &str, elsewhere: bool) -> Option<NotOurs> {
    let roles: Vec<Role> = line
        .map(|l| {
            l.copies
                .roles()
                .filter(|h| h.id == id)
                .map(|h| h.role)
                .collect()
        })
        .unwrap_or_default();
    let own = roles
        .iter()
        .find(|r| matches!(r, Role::Copy | Role::Part(_) | Role::Duplicate));
    match own.or(roles.first()) {
        Some(Role::Copy | Role::Part(_) | Role::Duplicate) => None,
        Some(Role::Older) => Some(NotOurs::Older),
        Some(Role::Foreign) => Some(NotOurs::Foreign),
        None if elsewhere => Some(NotOurs::OtherKey),
        None => None,
    }
}

/// What a lookup's copies are to one attempt, once sifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sifted {
    /// These may be the attempt's copy.
    Found(Vec<Receipt>),
    /// Every copy found is another key's, an earlier generation's or ruled foreign, and the
    /// lookup lists every copy it matches: the attempt's is not there.
    Absent,
    /// Every copy found is not ours, and the lookup answers one copy at most (a `confirm`
    /// script): it says nothing of the attempt's own.
    CannotTell(String),
    /// A copy found is on no line, and another key sent (or would send) the same text: whose
    /// copy it is cannot be told. Unlike a lookup that cannot tell, it saw a copy that may be
    /// this key's, so not even a first send goes past it: a person says whose it is.
    Whose(String),
}

/// The one rule for what a lookup found: a copy answers for an attempt only when it is not
/// another key's, not an earlier generation's, and not ruled foreign; and while another key
/// sent or would send the same text (`Elsewhere::twins`, `Elsewhere::alike`), only a copy this
/// key's line already records does: a copy is known by what was sent, for which key, never by
/// its text alone. `exhaustive`: the lookup lists every copy it matches
/// (`Find::lists_every_match`), so with all of them left out, the attempt's copy is provably
/// absent.
pub fn sift(
    line: Option<&KeyLine>,
    found: Vec<Receipt>,
    elsewhere: Elsewhere,
    exhaustive: bool,
) -> Sifted {
    let (ours, left): (Vec<Receipt>, Vec<Receipt>) = found
        .into_iter()
        .partition(|r| not_ours(line, &r.id, elsewhere.held.contains(&r.id)).is_none());
    let mut others: Vec<crate::Key> = elsewhere.twins.to_vec();
    for key in elsewhere.alike {
        if !others.contains(key) {
            others.push(*key);
        }
    }
    if !others.is_empty() && !ours.is_empty() {
        let own = line.map(KeyLine::own_ids).unwrap_or_default();
        let (recorded, unknown): (Vec<Receipt>, Vec<Receipt>) =
            ours.into_iter().partition(|r| own.contains(&r.id));
        // A done line that looks for further copies (a merge kept another runner's attempt):
        // a copy on no line beside its own is what it looks for, and may be the other key's.
        let further = line.is_some_and(|l| l.phase == Phase::Done && l.tried.maybe);
        if !recorded.is_empty() && (unknown.is_empty() || !further) {
            return Sifted::Found(recorded);
        }
        return Sifted::Whose(whose(&unknown, elsewhere, &others));
    }
    match (ours.is_empty(), exhaustive) {
        (false, _) => Sifted::Found(ours),
        (true, true) => Sifted::Absent,
        (true, false) => {
            let ids: Vec<&str> = left.iter().map(|r| r.id.as_str()).collect();
            Sifted::CannotTell(format!(
                "the lookup answered {}, which is not this attempt's copy (another key's, an earlier generation's, or ruled not ours)",
                ids.join(", ")
            ))
        }
    }
}

/// Why copies on no line cannot be told to be this key's: the other keys with the same text.
fn whose(unknown: &[Receipt], elsewhere: Elsewhere, others: &[crate::Key]) -> String {
    let ids: Vec<&str> = unknown.iter().map(|r| r.id.as_str()).collect();
    let keys: Vec<String> = others.iter().map(ToString::to_string).collect();
    let how = match elsewhere.twins.is_empty() {
        false => "sent the same text and may be out too",
        true => "would be sent with the same text (another runner may have published it)",
    };
    format!(
        "the lookup found {}, on no line; {} {how}, so whose copy it is cannot be told: look on the target, then `dayrun mark KEY done --id ID` on the key each copy is",
        ids.join(", "),
        keys.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Copy, Part};

    fn line() -> KeyLine {
        let mut line = KeyLine::new(
            "2026-11-29".parse().unwrap(),
            "2026-11-29T07:00:00Z",
            Phase::Done,
        );
        line.copies.current = Copy {
            generation: 1,
            id: Some("a".into()),
            parts: vec![
                Part {
                    id: "a".into(),
                    native: None,
                },
                Part {
                    id: "b".into(),
                    native: None,
                },
            ],
            ..Copy::default()
        };
        line.copies.duplicates = vec!["c".into()];
        line.copies.older = vec!["o".into()];
        line.copies.foreign = vec!["f".into()];
        line
    }

    #[test]
    fn every_id_is_held_once_with_its_role() {
        let line = line();
        let roles: Vec<(&str, Role)> = line.copies.held().iter().map(|h| (h.id, h.role)).collect();
        assert_eq!(
            roles,
            [
                ("a", Role::Copy),
                ("b", Role::Part(1)),
                ("c", Role::Duplicate),
                ("o", Role::Older),
                ("f", Role::Foreign)
            ]
        );
        assert_eq!(line.own_ids(), ["a", "b", "c"]);
        assert_eq!(line.live_ids(), ["a", "b", "c", "o"]);
    }

    #[test]
    fn only_this_generations_copies_or_unknown_ones_answer_for_an_attempt() {
        let line = line();
        let held = ["x".to_string(), "a".to_string()];
        let other = Elsewhere {
            held: &held,
            ..Elsewhere::default()
        };
        let found = |ids: &[&str]| ids.iter().map(|id| Receipt::id(*id)).collect::<Vec<_>>();
        // Its own copy, even when a (0.5.0) line of another key took the id too.
        assert_eq!(
            sift(Some(&line), found(&["a", "x"]), other, true),
            Sifted::Found(found(&["a"]))
        );
        assert_eq!(
            sift(Some(&line), found(&["o", "f", "x"]), other, true),
            Sifted::Absent
        );
        assert!(matches!(
            sift(Some(&line), found(&["o"]), other, false),
            Sifted::CannotTell(_)
        ));
        assert_eq!(
            sift(Some(&line), found(&["new"]), other, false),
            Sifted::Found(found(&["new"]))
        );
        assert_eq!(sift(None, found(&["x"]), other, true), Sifted::Absent);
    }

    #[test]
    fn while_a_same_text_attempt_of_another_key_may_be_out_only_a_recorded_copy_answers() {
        let line = line();
        let twins = ["2026-11-30".parse().unwrap()];
        let twin = Elsewhere {
            twins: &twins,
            ..Elsewhere::default()
        };
        let found = |ids: &[&str]| ids.iter().map(|id| Receipt::id(*id)).collect::<Vec<_>>();
        assert!(matches!(
            sift(Some(&line), found(&["new"]), twin, true),
            Sifted::Whose(why) if why.contains("2026-11-30") && why.contains("may be out")
        ));
        assert_eq!(
            sift(Some(&line), found(&["new", "a"]), twin, true),
            Sifted::Found(found(&["a"]))
        );
        assert!(matches!(
            sift(None, found(&["new"]), twin, true),
            Sifted::Whose(_)
        ));
    }

    /// Issue 28: a second runner's state has no line of the other key at all; its post, in the
    /// catalog, would be sent with the same text, so a copy on no line may be its.
    #[test]
    fn while_another_key_of_the_catalog_would_send_the_same_text_only_a_recorded_copy_answers() {
        let line = line();
        let (alike, held) = (["2026-11-30".parse().unwrap()], ["x".to_string()]);
        let catalog = Elsewhere {
            held: &held,
            alike: &alike,
            ..Elsewhere::default()
        };
        let found = |ids: &[&str]| ids.iter().map(|id| Receipt::id(*id)).collect::<Vec<_>>();
        assert!(matches!(
            sift(None, found(&["new", "x"]), catalog, true),
            Sifted::Whose(why) if why.contains("2026-11-30") && why.contains("found new, on no line")
        ));
        assert_eq!(
            sift(Some(&line), found(&["new", "a"]), catalog, true),
            Sifted::Found(found(&["a"]))
        );
        // Copies every one of which a line holds: the same text elsewhere changes nothing.
        assert_eq!(
            sift(Some(&line), found(&["x", "o"]), catalog, true),
            Sifted::Absent
        );
        // With no other key of that text, a copy on no line is this key's.
        let none = Elsewhere {
            held: &held,
            ..Elsewhere::default()
        };
        assert_eq!(
            sift(None, found(&["new", "x"]), none, true),
            Sifted::Found(found(&["new"]))
        );
    }

    /// A done line that looks for further copies (a merge kept another runner's attempt): a
    /// copy on no line beside its own, while another key has the same text, may be either's.
    #[test]
    fn a_done_copy_looking_for_more_cannot_take_a_copy_on_no_line_while_a_twin_has_its_text() {
        let mut line = line();
        line.tried.maybe = true;
        let alike = ["2026-11-30".parse().unwrap()];
        let catalog = Elsewhere {
            alike: &alike,
            ..Elsewhere::default()
        };
        let found = |ids: &[&str]| ids.iter().map(|id| Receipt::id(*id)).collect::<Vec<_>>();
        assert!(matches!(
            sift(Some(&line), found(&["a", "new"]), catalog, true),
            Sifted::Whose(why) if why.contains("new")
        ));
        assert_eq!(
            sift(Some(&line), found(&["a"]), catalog, true),
            Sifted::Found(found(&["a"]))
        );
        line.tried.maybe = false;
        assert_eq!(
            sift(Some(&line), found(&["a", "new"]), catalog, true),
            Sifted::Found(found(&["a"]))
        );
    }
}
