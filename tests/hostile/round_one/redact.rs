//! The redaction property against the library, `dayrun::redact::Redactor` (256 cases each):
//! a text with a random secret in random forms at random places keeps no form of it, and a
//! text without the secret comes back unchanged. Not compiled until src/redact.rs lands: see
//! the commented-out `mod redact;` in tests/hostile/round_one.rs.

use super::prop::{ENCODINGS, body, filler, secret};
use super::{forms_and_parts, pair_forms};
use dayrun::redact::Redactor;
use proptest::prelude::*;

/// Every form of every secret that is still in `out`.
fn survivors(out: &str, forms: &[super::Form]) -> Vec<String> {
    forms
        .iter()
        .filter(|(_, form)| out.contains(form.as_str()))
        .map(|(what, form)| format!("{what}: {form:?}"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_form_of_a_secret_survives(
        s in secret(),
        pieces in prop::collection::vec((0..ENCODINGS, filler()), 1..6),
        tail in filler(),
    ) {
        let mut r = Redactor::default();
        r.add(&s);
        let text = body(&s, &pieces, &tail);
        let out = r.redact(&text);
        let left = survivors(&out, &forms_and_parts("secret", &s));
        prop_assert!(left.is_empty(), "{left:?}\nin:  {text:?}\nout: {out:?}");
        prop_assert!(out.contains("***"));
    }

    #[test]
    fn text_without_the_secret_is_unchanged(s in secret(), text in "[\\PC\n\t]{0,300}") {
        let forms = forms_and_parts("secret", &s);
        prop_assume!(survivors(&text, &forms).is_empty());
        let mut r = Redactor::default();
        r.add(&s);
        prop_assert_eq!(r.redact(&text), text);
    }

    #[test]
    fn no_form_of_a_basic_pair_survives(
        user in "[a-z][a-z0-9._-]{2,15}",
        password in secret(),
        before in filler(),
        after in filler(),
        how in 0..4usize,
    ) {
        let mut r = Redactor::default();
        r.add_pair(&user, &password);
        let pair = format!("{user}:{password}");
        let encoded = super::base64(pair.as_bytes(), how % 2 == 1, how < 2);
        let text = format!("{before}{encoded}{after}");
        let out = r.redact(&text);
        let mut forms = pair_forms(&user, &password);
        forms.extend(forms_and_parts("password", &password));
        let left = survivors(&out, &forms);
        prop_assert!(left.is_empty(), "{left:?}\nin:  {text:?}\nout: {out:?}");
    }

    #[test]
    fn every_significant_part_of_a_header_value_is_redacted(
        a in "[A-Za-z0-9]{8,24}",
        b in "[A-Za-z0-9]{8,24}",
        token in "[A-Za-z0-9._~+/-]{8,32}",
        before in filler(),
        after in filler(),
        which in 0..4usize,
    ) {
        let mut r = Redactor::default();
        r.add_header_value(&format!("session={a}; csrftoken={b}"));
        r.add_header_value(&format!("Bearer {token}"));
        let echoed = [a.clone(), b.clone(), format!("csrftoken={b}"), token.clone()];
        let text = format!("{before}{}{after}", echoed[which]);
        let out = r.redact(&text);
        let mut forms = forms_and_parts("session", &a);
        forms.extend(forms_and_parts("csrftoken", &b));
        forms.extend(forms_and_parts("bearer token", &token));
        let left = survivors(&out, &forms);
        prop_assert!(left.is_empty(), "{left:?}\nin:  {text:?}\nout: {out:?}");
    }
}

/// JSON with every non-ASCII character as `\uXXXX` (lowercase hex, UTF-16 surrogate pairs
/// beyond the BMP), as Python writes it; `slash` also writes `/` as `\/`, as PHP's
/// json_encode does by default (WordPress answers this way).
fn json_ascii(s: &str, slash: bool) -> String {
    let mut out = String::new();
    for c in super::json_escape(s, slash).chars() {
        if c.is_ascii() {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_non_ascii_secret_escaped_as_json_unicode_does_not_survive(
        s in "[a-zA-Z0-9/éüß€—😀]{8,24}",
        before in filler(),
        after in filler(),
    ) {
        let mut r = Redactor::default();
        r.add(&s);
        for (how, form) in [("Python", json_ascii(&s, false)), ("PHP", json_ascii(&s, true))] {
            let out = r.redact(&format!("{before}{form}{after}"));
            prop_assert!(!out.contains(&form), "{how} form {form:?} survives in {out:?}");
        }
    }
}

#[test]
fn short_values_are_never_redacted_inside_words() {
    let mut r = Redactor::default();
    r.add_header_value("v");
    r.add("abc");
    r.add("blue");
    assert_eq!(
        r.redact("invalid value v for abcde"),
        "invalid value v for abcde",
        "forms under 4 characters are never redacted"
    );
    assert_eq!(
        r.redact("team blue, see blueprint and bluex and x-blue-y"),
        "team ***, see blueprint and bluex and x-***-y",
        "forms of 4-7 characters only as whole words"
    );
}

#[test]
fn a_secret_is_redacted_before_a_cut_would_split_it() {
    let mut r = Redactor::default();
    r.add("Qx7tV2mK9pL4wR8sZ3n");
    let text = format!("{}Bearer Qx7tV2mK9pL4wR8sZ3n refused", "x".repeat(178));
    let out = r.redact(&text);
    assert!(!out.contains("Qx7tV2mK"), "{out}");
    assert_eq!(out, format!("{}Bearer *** refused", "x".repeat(178)));
}
