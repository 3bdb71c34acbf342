//! Threads' own data on a key's line, carried by the shared types as `life::Native` and read
//! only here: `threads.container=ID:MADE:FOR`, the media container made for the send in flight
//! (for a thread, the part in flight), noted before its publish is sent: its id, when it was
//! made (Unix seconds, by the run's clock) and `FOR`, a short hash of the send it holds (the
//! key's place, the copy's generation, the mark of its text, the post it replies to). Only a
//! send of that same copy, text and parent reuses it.

use crate::text::mark;
use jiff::Timestamp;
use life::{Key, Native};

/// Its field on the line.
const FIELD: &str = "threads.container";

/// The send a container holds: copy `generation` of `key`'s place, the text of mark `text`,
/// replying to `reply_to`.
pub(super) fn slot(key: Key, generation: u32, text: &str, reply_to: Option<&str>) -> String {
    let parent = reply_to.unwrap_or_default();
    mark(&format!("{key}/{generation}/{text}/{parent}"))
}

/// The note of container `id`, made at `made` for the send `slot`.
pub(super) fn noted(id: &str, made: Timestamp, slot: &str) -> Native {
    Native::one(FIELD, format!("{id}:{}:{slot}", made.as_second()))
}

/// The container the line keeps for the send `slot`: its id and when it was made. `None`:
/// the line has none (a line written before containers were kept), or one made for another
/// send.
pub(super) fn kept(native: &Native, slot: &str) -> Option<(String, Timestamp)> {
    let mut fields = native.get(FIELD)?.rsplitn(3, ':');
    let (held, made, id) = (fields.next()?, fields.next()?, fields.next()?);
    let made = Timestamp::from_second(made.parse().ok()?).ok()?;
    (held == slot && !id.is_empty()).then(|| (id.to_string(), made))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_is_kept_for_its_own_send_only() {
        assert!(life::native::is_field(FIELD));
        let key: Key = "2026-11-29".parse().unwrap();
        let made = Timestamp::from_second(1_764_400_000).unwrap();
        let post = slot(key, 0, "0123456789abcdef", None);
        let line = noted("17889615691921648", made, &post);
        assert_eq!(
            line.get(FIELD),
            Some(format!("17889615691921648:1764400000:{post}").as_str())
        );
        assert_eq!(kept(&line, &post), Some(("17889615691921648".into(), made)));
        assert!(line.checked() == line, "a real id fits the line");
        let others = [
            slot(key, 1, "0123456789abcdef", None),
            slot(key, 0, "fedcba9876543210", None),
            slot(key, 0, "0123456789abcdef", Some("1790")),
            slot("2026-11-28".parse().unwrap(), 0, "0123456789abcdef", None),
        ];
        for other in &others {
            assert_eq!(kept(&line, other), None, "another send");
        }
        assert_eq!(kept(&Native::default(), &post), None, "an old line");
        for bad in ["x", "c1:soon:{post}", ":1764400000:{post}"] {
            let odd = Native::one(FIELD, bad.replace("{post}", &post));
            assert_eq!(kept(&odd, &post), None, "{bad}");
        }
    }
}
