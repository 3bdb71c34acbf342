//! The redactor's cases, and properties: no listed form of a secret survives, wherever it
//! stands; text without a secret comes back unchanged; arbitrary input never panics.

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
        assert_eq!(STANDARD.encode(input), want, "{input:?}");
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
        STANDARD.encode(secret),
        STANDARD.encode(b"editor:abcd EFGH ijkl/MNOP"),
        STANDARD.encode(b"editor:abcdEFGHijkl/MNOP"),
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

    /// Percent-encoding of all but RFC 3986's unreserved bytes, hex in `upper` case or not,
    /// `plus`: space as `+`.
    fn percent(text: &str, upper: bool, plus: bool) -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                b' ' if plus => "+".into(),
                b if upper => format!("%{b:02X}"),
                b => format!("%{b:02x}"),
            })
            .collect()
    }

    /// JSON string content; `all`: every character as `\uXXXX` (else only non-ASCII).
    fn json_u(text: &str, all: bool) -> String {
        let json = serde_json::to_string(text).unwrap();
        let inner = &json[1..json.len() - 1];
        let mut out = String::new();
        let source: String = if all {
            text.to_string()
        } else {
            inner.to_string()
        };
        for c in source.chars() {
            if c.is_ascii() && !all {
                out.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out
    }

    fn b64(bytes: &[u8], url: bool, pad: bool) -> String {
        match (url, pad) {
            (false, true) => STANDARD.encode(bytes),
            (false, false) => STANDARD_NO_PAD.encode(bytes),
            (true, true) => URL_SAFE.encode(bytes),
            (true, false) => URL_SAFE_NO_PAD.encode(bytes),
        }
    }

    /// The secret in form `how`, with `cut` used where a form is split by whitespace.
    fn encode(secret: &str, how: u8, cut: usize) -> String {
        let split = |s: &str| {
            let at = s
                .char_indices()
                .nth(cut % s.chars().count().max(1))
                .map_or(0, |(i, _)| i);
            format!("{}\r\n  {}", &s[..at], &s[at..])
        };
        match how % 14 {
            0 => secret.to_string(),
            1 => json_u(secret, false).replace('/', "\\/"),
            2 => json_u(secret, true),
            3 => percent(secret, true, false),
            4 => percent(secret, false, false),
            5 => percent(secret, false, true),
            6 => b64(secret.as_bytes(), false, true),
            7 => b64(secret.as_bytes(), true, false),
            8 => b64(format!("Bearer {secret}").as_bytes(), false, true),
            9 => b64(format!("Bearer {secret}").as_bytes(), true, false),
            10 => b64(format!("user:{secret}").as_bytes(), false, false),
            11 => split(secret),
            12 => split(&b64(format!("Bearer {secret}").as_bytes(), false, true)),
            _ => secret.split_whitespace().collect(),
        }
    }

    /// The parts of `text` that give the secret away: the form itself, and every run of 8
    /// characters of the raw secret.
    fn leaks(out: &str, secret: &str, form: &str) -> Vec<String> {
        let squeezed: String = out.split_whitespace().collect();
        let form: String = form.split_whitespace().collect();
        let mut found = Vec::new();
        if squeezed.contains(&form) {
            found.push(format!("the form {form:?}"));
        }
        let chars: Vec<char> = secret.chars().filter(|c| !c.is_whitespace()).collect();
        for w in chars.windows(8) {
            let w: String = w.iter().collect();
            if out.contains(&w) {
                found.push(format!("{w:?}"));
            }
        }
        found
    }

    proptest! {
        #[test]
        fn no_listed_form_of_the_secret_survives(
            secret in prop_oneof!["[!-~]{8,40}", "[a-zA-Z0-9]{4}( [a-zA-Z0-9]{4}){1,5}", "[a-z0-9/éü€😀+=]{8,24}"],
            before in "[ -~]{0,300}",
            after in "[ -~]{0,300}",
            how in 0u8..14,
            cut in 1usize..40,
        ) {
            let mut r = Redactor::default();
            r.add_pair("user", &secret);
            let form = encode(secret.trim(), how, cut);
            let text = format!("{before} {form} {after}");
            let out = r.redact(&text);
            let left = leaks(&out, secret.trim(), &form);
            prop_assert!(left.is_empty(), "{left:?} survive in {out:?}");
            let (cut, _) = r.excerpt(&text, 200);
            let left = leaks(&cut, secret.trim(), &form);
            prop_assert!(left.is_empty(), "{left:?} survive in the excerpt {cut:?}");
        }

        #[test]
        fn text_without_the_secret_is_unchanged(secret in "[a-z]{12,20}", text in "[A-Z0-9 ]{0,200}") {
            let mut r = Redactor::default();
            r.add(&secret);
            prop_assert_eq!(r.redact(&text), text);
        }

        #[test]
        fn arbitrary_text_never_panics(secret in "\\PC{1,30}", text in "\\PC{0,400}") {
            let mut r = Redactor::default();
            r.add_header_value(&secret);
            let _ = r.redact(&text);
            let _ = r.excerpt(&text, 50);
        }
    }
}

#[test]
fn a_secret_that_looks_like_an_escape_is_found_as_written_and_escaped() {
    // `%Aa` is a percent-escape and `\"` a JSON one: each decoding is searched on its own.
    let mut r = Redactor::default();
    r.add("%Aa\"Aa!a");
    assert_eq!(r.redact("x %Aa\\\"Aa!a y"), "x *** y");
    assert_eq!(r.redact("x %Aa\"Aa!a y"), "x *** y");
    assert_eq!(r.redact("x %25Aa%22Aa%21a y"), "x *** y");
}

#[test]
fn a_secret_of_one_run_is_masked_by_every_redactor() {
    let mut cmd = Redactor::default();
    cmd.add("env-Secret-only-the-script-has");
    let mut other = Redactor::default();
    other.add("Run-wide-T0ken-9f8e7d");
    other.register();
    assert_eq!(
        cmd.redact("printed Run-wide-T0ken-9f8e7d and env-Secret-only-the-script-has"),
        "printed *** and ***"
    );
    assert_eq!(Redactor::default().redact("Run-wide-T0ken-9f8e7d"), "***");
}

#[test]
fn a_token_made_per_request_is_masked_whole_by_its_start() {
    let mut r = Redactor::default();
    r.add_token_start("eyJhbGciOiJIUzI1NiJ9");
    let text =
        "auth: Ghost eyJhbGciOiJIUzI1NiJ9.eyJpYXQiOjF9.c2ln-_x, then eyJhbGciOiJIUzI1NiJ9.b.c";
    assert_eq!(r.redact(text), "auth: Ghost ***, then ***");
    assert_eq!(r.redact("nothing here"), "nothing here");
}

#[test]
fn an_escaped_copy_right_after_a_raw_one_is_masked_too() {
    // The raw copy's trailing `%` and the escaped copy's first `0` read as `%A0` when decoded.
    let mut r = Redactor::default();
    r.add("0!0a aaa%");
    for text in [
        "0!0a aaa%A0%210a%20aaa%25",
        "0!0a aaa%A0%210a+aaa%25",
        "x0%210a%20aaa%25",
    ] {
        let out = r.redact(text);
        assert!(!out.contains("0%210a"), "{text} -> {out}");
    }
    let mut r = Redactor::default();
    r.add("pass\\word/x1");
    let out = r.redact("pass\\word/x1npass\\\\word\\/x1");
    assert!(!out.contains("word\\/x1"), "{out}");
}
