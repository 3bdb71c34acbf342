//! LinkedIn's "little" text format: a post's commentary is text in which some characters
//! make mentions, hashtags and templates. The docs say every reserved character must be
//! escaped with a backslash to stay plain text, even where it would start no element; an
//! unescaped one may cut the commentary or make a mention of text from the post.

/// The characters little reserves (little-text-format, "Text": `| { } @ [ ] ( ) < > # \ * _ ~`).
const RESERVED: &[char] = &[
    '|', '{', '}', '@', '[', ']', '(', ')', '<', '>', '#', '\\', '*', '_', '~',
];

/// `text` as little text that shows it as written: each reserved character after a backslash.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if RESERVED.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What `escape` was given: the text a little commentary shows.
#[cfg(test)]
pub fn unescape(little: &str) -> String {
    let mut out = String::with_capacity(little.len());
    let mut chars = little.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next)) if RESERVED.contains(&next) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reserved_character_is_escaped_and_comes_back() {
        let hostile = r"@[Acme](urn:li:organization:1) {hashtag|#|x} a\b <i>*_~_*</i> #tag";
        let little = escape(hostile);
        assert_eq!(
            little,
            r"\@\[Acme\]\(urn:li:organization:1\) \{hashtag\|\#\|x\} a\\b \<i\>\*\_\~\_\*\</i\> \#tag"
        );
        assert_eq!(unescape(&little), hostile);
        // Nothing a reader could take for an element is left unescaped.
        let mut prev = ' ';
        for c in little.chars() {
            if RESERVED.contains(&c) && c != '\\' {
                assert_eq!(prev, '\\', "{little}");
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        assert_eq!(
            escape("plain text, ünïcode: 1+1=2."),
            "plain text, ünïcode: 1+1=2."
        );
    }
}
