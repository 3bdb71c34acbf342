//! The trace line of one lookup's answer: its action, its result and its detail.

/// What a lookup answered, for its trace line (a copy found is traced where it is recorded).
#[derive(Debug)]
pub enum Answer<'a> {
    /// Absent; `sending`: the earlier attempt did not land, and the key is sent now.
    Absent {
        sending: bool,
    },
    /// Not there yet: what the rules said of it.
    NotYet(Option<&'a str>),
    CannotTell(&'a str),
    Transient(&'a str),
    /// Copies that are not ours: their ids.
    Foreign(Vec<&'a str>),
    /// Refused for good: the reason.
    Refused(String),
}

/// One trace line: `action` (`dedup` before the first send, else `confirm`), result, detail.
#[derive(Debug, PartialEq, Eq)]
pub struct Traced {
    pub action: &'static str,
    pub result: &'static str,
    pub detail: String,
}

/// The action of a look's trace line: `dedup` before the first send (`first`), else `confirm`.
pub fn action(first: bool) -> &'static str {
    match first {
        true => "dedup",
        false => "confirm",
    }
}

/// The trace line of `answer`, or `None` for a plain absent (nothing to say); `first`: the
/// look before the first send.
pub fn look(answer: Answer, first: bool) -> Option<Traced> {
    let action = action(first);
    let (result, detail) = match answer {
        Answer::Absent { sending: true } if !first => (
            "absent",
            "the earlier attempt did not land; sending".to_string(),
        ),
        Answer::Absent { .. } => return None,
        Answer::NotYet(say) => ("not-yet", say.unwrap_or_default().to_string()),
        Answer::CannotTell(why) => ("cannot-tell", why.to_string()),
        Answer::Transient(why) => ("lookup-error", why.to_string()),
        Answer::Foreign(ids) => ("not-ours", format!("ids={}", ids.join(","))),
        Answer::Refused(reason) => ("failed", reason),
    };
    Some(Traced {
        action,
        result,
        detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_absent_says_nothing_and_a_confirm_that_sends_again_says_why() {
        assert_eq!(look(Answer::Absent { sending: true }, true), None);
        assert_eq!(look(Answer::Absent { sending: false }, false), None);
        let again = look(Answer::Absent { sending: true }, false).expect("a line");
        assert_eq!((again.action, again.result), ("confirm", "absent"));
        let foreign = look(Answer::Foreign(vec!["a", "b"]), true).expect("a line");
        assert_eq!(foreign.detail, "ids=a,b");
    }
}
