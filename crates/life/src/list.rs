//! A list of ids in one field (`older=`, `copies=`, `foreign=`): comma-separated, with `%` and
//! `,` inside an id written `%25` and `%2C`, so an id of any text comes back as it went in. A
//! list written before this rule (no `%` in it) reads the same.

/// The field's value for `ids` (empty for none).
pub fn encode(ids: &[String]) -> String {
    let items: Vec<String> = ids
        .iter()
        .map(|id| id.replace('%', "%25").replace(',', "%2C"))
        .collect();
    items.join(",")
}

/// The ids a field holds (empty items are left out).
pub fn decode(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(unescape)
        .collect()
}

/// One item, its escapes read in one pass (`%2C`, `%3B` as `parts=` writes a `;` in an id,
/// either case, and `%25`; any other `%` is itself).
pub(super) fn unescape(item: &str) -> String {
    let mut out = String::with_capacity(item.len());
    let mut rest = item;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3);
        match code {
            Some("2C" | "2c") => out.push(','),
            Some("3B" | "3b") => out.push(';'),
            Some("25") => out.push('%'),
            _ => {
                out.push('%');
                rest = &rest[at + 1..];
                continue;
            }
        }
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lists_written_before_the_rule_read_the_same() {
        assert_eq!(decode("7,9"), ["7", "9"]);
        assert_eq!(decode(""), Vec::<String>::new());
        assert_eq!(
            decode("at://did:plc:x/app.bsky.feed.post/3k"),
            ["at://did:plc:x/app.bsky.feed.post/3k"]
        );
    }

    proptest! {
        #[test]
        fn any_ids_come_back_as_they_went_in(ids in proptest::collection::vec("[^\\s]{1,12}", 0..5)) {
            prop_assert_eq!(decode(&encode(&ids)), ids);
        }
    }
}
