//! Secrets never leave dayrun: every text from outside (a server's body, a script's output, a
//! library's error) passes through a `Redactor` before it is cut, stored or printed.

use std::fmt::Write as _;

/// Forms shorter than this are never redacted (they would match ordinary words).
const MIN_FORM: usize = 4;
/// Forms shorter than this are redacted only as whole words.
const MIN_ANYWHERE: usize = 8;
const MASK: &str = "***";

/// Every form of every secret of one target: raw, JSON-escaped, URL-encoded, base64, spaceless.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Longest first, so that a longer form is masked before a part of it.
    forms: Vec<String>,
}

impl Redactor {
    /// A secret as it may come back: as sent, JSON-escaped, URL-encoded, base64, and without
    /// the spaces people paste with it (WordPress shows application passwords in groups).
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        let spaceless: String = secret.split_whitespace().collect();
        for text in [secret, spaceless.as_str()] {
            self.push(text.to_string());
            let json = serde_json::to_string(text).unwrap_or_default();
            let json = &json[1..json.len().saturating_sub(1).max(1)];
            self.push(json.to_string());
            self.push(json.replace('/', "\\/"));
            self.push(ascii_escaped(text));
            self.push(ascii_escaped(text).replace('/', "\\/"));
            self.push(url_encoded(text, false));
            self.push(url_encoded(text, true));
            self.base64(text.as_bytes());
        }
        self.sort();
    }

    /// An HTTP Basic pair: the password, and `user:password` in every form (base64 above all).
    pub fn add_pair(&mut self, user: &str, password: &str) {
        self.add(password);
        self.add(&format!("{user}:{password}"));
        let spaceless: String = password.split_whitespace().collect();
        self.add(&format!("{user}:{spaceless}"));
    }

    /// A header value: the whole, a credential after its scheme (`Bearer x`), and each part of
    /// a list of `name=value` pairs (a Cookie) with its value alone.
    pub fn add_header_value(&mut self, value: &str) {
        self.add(value);
        if let Some((_, credential)) = value.split_once(' ') {
            self.add(credential);
        }
        for part in value.split([';', ',']) {
            self.add(part);
            if let Some((_, v)) = part.split_once('=') {
                self.add(v.trim_matches('"'));
            }
        }
    }

    /// Every other redactor's forms too.
    pub fn extend(&mut self, other: &Redactor) {
        for form in &other.forms {
            self.push(form.clone());
        }
        self.sort();
    }

    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// The text with every form of every secret replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for form in &self.forms {
            if !out.contains(form.as_str()) {
                continue;
            }
            out = match form.len() >= MIN_ANYWHERE {
                true => out.replace(form.as_str(), MASK),
                false => replace_words(&out, form),
            };
        }
        out
    }

    /// The first `chars` characters of the redacted text (redacted first, then cut, so that no
    /// secret survives half-cut). Returns the cut text and whether anything was cut.
    pub fn excerpt(&self, text: &str, chars: usize) -> (String, bool) {
        // A secret that overlaps the first `chars` lies within `chars + longest form`.
        let longest = self.forms.first().map_or(0, |f| f.chars().count());
        let window: String = text.chars().take(chars + longest).collect();
        let redacted = self.redact(&window);
        let cut: String = redacted.chars().take(chars).collect();
        let more = cut.len() < redacted.len() || window.len() < text.len();
        (cut, more)
    }

    fn push(&mut self, form: String) {
        if form.len() >= MIN_FORM && !self.forms.contains(&form) {
            self.forms.push(form);
        }
    }

    fn base64(&mut self, bytes: &[u8]) {
        let standard = base64(bytes);
        let url = standard.replace('+', "-").replace('/', "_");
        for form in [standard, url] {
            self.push(form.trim_end_matches('=').to_string());
            self.push(form);
        }
    }

    fn sort(&mut self) {
        self.forms
            .sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    }
}

/// Replace `form` where it stands as a whole word (not inside a run of letters and digits).
fn replace_words(text: &str, form: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(form) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + form.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str(form);
        } else {
            out.push_str(MASK);
        }
        rest = &rest[at + form.len()..];
    }
    out.push_str(rest);
    out
}

/// JSON with every non-ASCII character as `\uXXXX` (PHP's json_encode does this).
fn ascii_escaped(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_default();
    let mut out = String::new();
    for c in json[1..json.len().saturating_sub(1).max(1)].chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// Percent-encoding of everything but RFC 3986's unreserved characters; `form`: space as `+`.
fn url_encoded(text: &str, form: bool) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' if form => out.push('+'),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Base64 (standard alphabet, padded), for HTTP Basic credentials and for redaction.
pub fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, want) in cases {
            assert_eq!(base64(input.as_bytes()), want, "{input:?}");
        }
    }

    #[test]
    fn every_form_is_masked() {
        let mut r = Redactor::default();
        r.add_pair("editor", "abcd EFGH ijkl/MNOP");
        let secret = "abcd EFGH ijkl/MNOP";
        let forms = [
            secret.to_string(),
            "abcdEFGHijkl/MNOP".to_string(),
            "abcd EFGH ijkl\\/MNOP".to_string(),
            "abcd%20EFGH%20ijkl%2FMNOP".to_string(),
            "abcd+EFGH+ijkl%2FMNOP".to_string(),
            base64(secret.as_bytes()),
            base64(b"editor:abcd EFGH ijkl/MNOP"),
            base64(b"editor:abcdEFGHijkl/MNOP"),
        ];
        for form in forms {
            let text = format!("{{\"error\":\"bad {form} here\"}}");
            let out = r.redact(&text);
            assert!(!out.contains(&form), "{form} survives in {out}");
            assert!(out.contains("***"), "{out}");
        }
    }

    #[test]
    fn short_values_are_masked_only_as_words() {
        let mut r = Redactor::default();
        r.add_header_value("v");
        r.add_header_value("session=ab12; theme=dark");
        assert_eq!(r.redact("invalid value v"), "invalid value v");
        assert_eq!(r.redact("theme dark, darker"), "theme ***, darker");
        assert_eq!(r.redact("cookie ab12 sent"), "cookie *** sent");
        assert_eq!(r.redact("xab12y"), "xab12y");
    }

    #[test]
    fn excerpts_are_redacted_before_they_are_cut() {
        let mut r = Redactor::default();
        r.add("SECRET-TOKEN-1234567890");
        let body = format!(
            "{}Bearer SECRET-TOKEN-1234567890 and the rest of the answer",
            "x".repeat(185)
        );
        let (cut, more) = r.excerpt(&body, 200);
        assert!(!cut.contains("SECRET"), "{cut}");
        assert!(more);
        assert_eq!(cut.chars().count(), 200);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn encode(secret: &str, how: u8) -> String {
            match how % 6 {
                0 => secret.to_string(),
                1 => {
                    let json = serde_json::to_string(secret).unwrap();
                    json[1..json.len() - 1].replace('/', "\\/")
                }
                2 => url_encoded(secret, false),
                3 => base64(secret.as_bytes()),
                4 => secret.split_whitespace().collect(),
                _ => ascii_escaped(secret),
            }
        }

        proptest! {
            #[test]
            fn no_form_of_the_secret_survives(
                secret in "[ -~]{8,40}".prop_filter("not blank", |s| s.split_whitespace().collect::<String>().len() >= 8),
                before in "[ -~]{0,300}",
                after in "[ -~]{0,300}",
                how in 0u8..6,
            ) {
                let mut r = Redactor::default();
                r.add(&secret);
                let form = encode(secret.trim(), how);
                let text = format!("{before}{form}{after}");
                let out = r.redact(&text);
                prop_assert!(!out.contains(&form), "{form:?} survives in {out:?}");
                let (cut, _) = r.excerpt(&text, 200);
                prop_assert!(!cut.contains(&form), "{form:?} survives in the excerpt");
            }

            #[test]
            fn text_without_the_secret_is_unchanged(secret in "[a-z]{12,20}", text in "[A-Z0-9 ]{0,200}") {
                let mut r = Redactor::default();
                r.add(&secret);
                prop_assert_eq!(r.redact(&text), text);
            }
        }
    }
}
