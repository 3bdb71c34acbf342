//! The copies a template links to: what another target's line for the key says about its copy
//! (there, coming, or never coming), the one home of the waiting rule. A key is never sent with
//! a copy missing: it waits while the copy may still come, and fails, saying why, once it
//! cannot come without a human.

use super::Need;
use crate::error::Class;
use crate::post::CopyRef;
use life::{KeyLine, Looked, Op, Phase};

/// How a template names target `name`: `-` is `_` (`copies.my_site.url` for `my-site`), since
/// `-` in a template is a minus.
pub fn template_name(name: &str) -> String {
    name.replace('-', "_")
}

/// Where a needed copy stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    /// There: what the template gets.
    There(CopyRef),
    /// Not there, and it may still come by itself: the key waits (the text says for what).
    Coming(String),
    /// It cannot come without a human: the key fails (the text says why).
    Never(String),
}

/// What target `name`'s `line` for a key says about the copy a template needs (`need`).
/// `held`: the key's date is past the catch-up window for this run, so a failed copy there is
/// held back, not sent.
pub fn judge(name: &str, line: Option<&KeyLine>, need: Need, held: bool) -> Upstream {
    let Some(line) = line else {
        return Upstream::Coming(format!("{name} has not published it yet"));
    };
    let said = || {
        line.reason
            .as_deref()
            .map(|r| format!(": {}", crate::outside::escape(r, 200)))
            .unwrap_or_default()
    };
    match line.phase {
        Phase::Done | Phase::Pending(Op::Update) => {
            match (&line.copies.current.id, &line.copies.current.url) {
                (None, _) => Upstream::Never(format!(
                    "{name}'s copy has no id (it was marked done without one): `dayrun mark {} done --id ID --target {name}` records it",
                    line.key
                )),
                (Some(_), None) if need.url => Upstream::Never(format!(
                    "{name}'s copy has no URL: its target names none (a folder target does with `url = \"https://…\"`)"
                )),
                (Some(id), url) => Upstream::There(CopyRef {
                    id: id.clone(),
                    url: url.clone(),
                }),
            }
        }
        Phase::Pending(Op::Publish) => Upstream::Coming(format!(
            "{name}'s attempt is pending: the next run looks it up there"
        )),
        Phase::Pending(Op::Retract) | Phase::Retracted { .. } => {
            Upstream::Never(format!("{name}'s copy was retracted"))
        }
        Phase::Failed(..) if line.by_hand => Upstream::Never(format!(
            "{name}'s copy was put aside by hand (`dayrun mark … failed`)"
        )),
        Phase::Failed(class, looked) => {
            let transient = matches!(
                (class, looked),
                (Class::RetrySafe, _) | (Class::Unknown, Looked::Absent | Looked::Error)
            );
            match (transient, class) {
                (true, _) if held => Upstream::Never(format!(
                    "{name}'s copy is held back (it failed, and the key is past the catch-up window)"
                )),
                (true, _) | (false, Class::Auth) => Upstream::Coming(format!(
                    "{name} failed ({class}{}) and retries by itself",
                    said()
                )),
                (false, _) => Upstream::Never(format!(
                    "{name} failed ({class}{}) and waits for a human",
                    said()
                )),
            }
        }
    }
}

/// Where each copy `template` links to stands for `key`, from each linked target's line
/// (`line_of`: by target name). `held`: as in `judge`. The run and `status` ask this.
pub fn upstream(
    template: &super::Template,
    line_of: impl Fn(&str) -> Option<KeyLine>,
    held: bool,
) -> Vec<(String, Upstream)> {
    template
        .uses()
        .copies
        .iter()
        .map(|(name, need)| {
            (
                name.clone(),
                judge(name, line_of(name).as_ref(), *need, held),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> KeyLine {
        let record = life::Record::parse(text).unwrap().unwrap();
        KeyLine::of(&record)
    }

    const URL: Need = Need {
        url: true,
        id: false,
    };

    #[test]
    fn each_line_says_there_coming_or_never() {
        let at = "2026-11-29T07:00:00+00:00";
        let cases = [
            (
                format!("2026-11-29 done {at} id=7 url=https://x.test/7"),
                "there",
            ),
            (format!("2026-11-29 done {at} id=7"), "never"),
            (format!("2026-11-29 done {at}"), "never"),
            (format!("2026-11-29 pending {at} sent=maybe"), "coming"),
            (
                format!("2026-11-29 failed {at} class=retry-safe reason=x"),
                "coming",
            ),
            (
                format!("2026-11-29 failed {at} class=unknown lookup=error"),
                "coming",
            ),
            (
                format!("2026-11-29 failed {at} class=auth reason=401"),
                "coming",
            ),
            (
                format!("2026-11-29 failed {at} class=rejected reason=no"),
                "never",
            ),
            (
                format!("2026-11-29 failed {at} class=unknown reason=?"),
                "never",
            ),
            (
                format!("2026-11-29 failed {at} class=local reason=bad"),
                "never",
            ),
            (
                format!("2026-11-29 failed {at} class=retry-safe by=hand"),
                "never",
            ),
            (format!("2026-11-29 retracted {at} id=7"), "never"),
        ];
        for (text, want) in cases {
            let got = match judge("site", Some(&line(&text)), URL, false) {
                Upstream::There(_) => "there",
                Upstream::Coming(_) => "coming",
                Upstream::Never(_) => "never",
            };
            assert_eq!(got, want, "{text}");
        }
        assert!(matches!(
            judge("site", None, URL, false),
            Upstream::Coming(_)
        ));
        // An id is enough where only the id is used.
        let id_only = Need {
            url: false,
            id: true,
        };
        let text = format!("2026-11-29 done {at} id=7");
        assert_eq!(
            judge("site", Some(&line(&text)), id_only, false),
            Upstream::There(CopyRef {
                id: "7".into(),
                url: None
            })
        );
        // A failure the next run retries is held back past the window: it cannot come.
        let text = format!("2026-11-29 failed {at} class=retry-safe reason=x");
        assert!(matches!(
            judge("site", Some(&line(&text)), URL, true),
            Upstream::Never(_)
        ));
    }
}
