//! Nostr's own data on a key's line, carried by the shared types as `life::Native` and read
//! only here: `nostr.created=` (the `created_at` chosen before a copy's first send: with the
//! draft the attempt sent, it rebuilds the same event, so a resend is the same event id) and
//! `nostr.relays=` (each relay's answer when the copy landed: `host:port:ok` for stored,
//! `:dup` for already held).

use life::Native;

const CREATED: &str = "nostr.created";
const RELAYS: &str = "nostr.relays";

/// A copy's `created_at`, chosen now.
pub(super) fn chosen(created_at: u64) -> Native {
    Native::one(CREATED, created_at.to_string())
}

/// The `created_at` chosen for a copy, if the line has one.
pub(super) fn created(native: &Native) -> Option<u64> {
    native.get(CREATED)?.parse().ok()
}

/// What a landing brings: the `created_at` of the event that landed and each relay's answer
/// (`None`: too many relays to keep within a field: the answers are in the trace only).
pub(super) fn landed(created_at: u64, answers: Option<String>) -> Native {
    let mut native = chosen(created_at);
    if let Some(answers) = answers {
        native.set(RELAYS, answers);
    }
    native
}

/// The answers as the line keeps them: `who:ok` or `who:dup` per relay, `who` its host and
/// port, or a short hash of its URL when the hosts do not fit in one field.
pub(super) fn answers(each: &[(String, bool)]) -> Option<String> {
    let word = |dup: bool| if dup { "dup" } else { "ok" };
    let by = |who: &dyn Fn(&str) -> String| {
        each.iter()
            .map(|(url, dup)| format!("{}:{}", who(url), word(*dup)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let host = |url: &str| {
        let (_, host, port, _) = super::wire::parse_url(url).unwrap_or_default();
        format!("{host}:{port}")
    };
    let hash = |url: &str| {
        use sha2::Digest;
        crate::text::hex(&sha2::Sha256::digest(url.as_bytes())[..3])
    };
    [by(&host), by(&hash)]
        .into_iter()
        .find(|text| text.len() <= life::native::MAX_VALUE && !text.contains('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_at_and_answers_are_kept_in_namespaced_fields() {
        assert_eq!(created(&chosen(1_764_000_000)), Some(1_764_000_000));
        assert_eq!(created(&Native::default()), None);
        assert!(life::native::is_field(CREATED) && life::native::is_field(RELAYS));
        let two = [
            ("ws://127.0.0.1:7447".to_string(), false),
            ("wss://relay.example".to_string(), true),
        ];
        assert_eq!(
            answers(&two).as_deref(),
            Some("127.0.0.1:7447:ok,relay.example:443:dup")
        );
        let many: Vec<_> = (0..5)
            .map(|n| (format!("wss://relay-{n}.example.org"), false))
            .collect();
        let short = answers(&many).unwrap();
        assert_eq!(short.split(',').count(), 5, "{short}");
        assert!(short.len() <= life::native::MAX_VALUE);
        let landed = landed(7, answers(&two));
        assert_eq!(landed.get(RELAYS), answers(&two).as_deref());
    }
}
