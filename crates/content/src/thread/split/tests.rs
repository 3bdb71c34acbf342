//! The splitting rules, on examples and on any text a generator makes.

use super::*;
use proptest::prelude::*;

fn graphemes(text: &str) -> usize {
    text.graphemes(true).count()
}

fn bluesky() -> Limit<'static> {
    Limit {
        max: 300,
        max_bytes: Some(3000),
        count: &graphemes,
    }
}

fn small(max: usize) -> impl Fn(&dyn Fn(&Limit)) {
    move |f| {
        f(&Limit {
            max,
            max_bytes: None,
            count: &graphemes,
        })
    }
}

#[test]
fn a_text_that_fits_is_one_part_without_a_number() {
    let parts = split("Title\n\nA body.", 5, &bluesky(), true, 10).unwrap();
    assert_eq!(parts, ["Title\n\nA body."]);
}

#[test]
fn paragraphs_go_first_then_sentences_then_words() {
    small(40)(&|limit| {
        let text = "First paragraph is here.\n\nSecond one. It has two sentences.";
        let parts = split(text, 0, limit, false, 10).unwrap();
        assert_eq!(
            parts,
            [
                "First paragraph is here.",
                "Second one. It has two sentences."
            ]
        );
        let text = "One sentence that is long. Another sentence that is very much longer.";
        let parts = split(text, 0, limit, false, 10).unwrap();
        assert_eq!(
            parts,
            [
                "One sentence that is long.",
                "Another sentence that is very much",
                "longer."
            ]
        );
    });
}

#[test]
fn numbering_counts_in_the_limit_and_grows_with_the_count() {
    small(20)(&|limit| {
        let text = "aaaa bbbb cccc dddd eeee ffff gggg hhhh";
        let parts = split(text, 0, limit, true, 10).unwrap();
        assert_eq!(parts[0], "aaaa bbbb cccc\n\n1/3");
        assert!(parts.iter().all(|p| graphemes(p) <= 20), "{parts:?}");
        let long = "word ".repeat(60);
        let parts = split(&long, 0, limit, true, 50).unwrap();
        assert!(parts.len() >= 10, "{}", parts.len());
        assert!(parts[0].ends_with(&format!("\n\n1/{}", parts.len())));
        assert!(parts.iter().all(|p| graphemes(p) <= 20), "{parts:?}");
    });
}

#[test]
fn urls_hashtags_mentions_and_the_head_are_never_cut() {
    small(30)(&|limit| {
        let text = "Title here\n\nsee https://example.test/a/b/c #rusty @bob@m.test ok";
        let parts = split(text, 10, limit, false, 10).unwrap();
        assert_eq!(
            parts,
            [
                "Title here",
                "see https://example.test/a/b/c",
                "#rusty @bob@m.test ok"
            ]
        );
        let err = split(
            &format!("x https://{}", "p".repeat(40)),
            0,
            limit,
            false,
            10,
        );
        assert!(matches!(err, Err(Refused::Unbreakable(ref w)) if w.starts_with("https://")));
        let err = split(&"T".repeat(31), 31, limit, false, 10);
        assert!(matches!(err, Err(Refused::Unbreakable(_))), "{err:?}");
    });
}

#[test]
fn past_the_cap_the_text_is_refused() {
    small(10)(&|limit| {
        let text = "word ".repeat(30);
        assert_eq!(
            split(&text, 0, limit, false, 3),
            Err(Refused::TooManyParts { cap: 3 })
        );
    });
}

#[test]
fn bytes_bind_before_graphemes() {
    let family = "👨‍👩‍👧‍👦"; // one grapheme, 25 bytes
    let text = format!("{family} ").repeat(200);
    let parts = split(&text, 0, &bluesky(), true, 10).unwrap();
    assert!(parts.len() >= 2);
    for part in &parts {
        assert!(
            part.len() <= 3000 && graphemes(part) <= 300,
            "{}",
            part.len()
        );
    }
}

/// Words of every kind the rules name, with what separates them.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}",
        1 => "[a-z]{1,8}[.!?]",
        1 => "https://[a-z]{1,10}\\.test/[a-z0-9/]{0,40}",
        1 => "#[a-z]{1,12}",
        1 => "@[a-z]{1,8}(@[a-z]{1,6}\\.test)?",
        1 => Just("👨‍👩‍👧‍👦".to_string()),
        1 => Just("e\u{301}\u{302}".to_string()),
        1 => Just("🇩🇪".to_string()),
        1 => "[日本語文章です。]{1,30}",
    ]
}

fn gap() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(" "), 1 => Just("\n"), 1 => Just("\n\n")]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec((word(), gap()), 0..200)
        .prop_map(|words| words.into_iter().map(|(w, g)| format!("{w}{g}")).collect())
}

/// The whitespace-separated words that must never be cut.
fn guarded_words(text: &str) -> Vec<Range<usize>> {
    guarded(text, 0).into_iter().skip(1).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_part_fits_and_together_they_are_the_text(
        text in text(),
        max in 40usize..400,
        bytes in prop::option::of(200usize..3000),
        cap in 1usize..30,
        numbered in any::<bool>(),
    ) {
        let limit = Limit { max, max_bytes: bytes, count: &graphemes };
        match split(&text, 0, &limit, numbered, cap) {
            Ok(parts) => {
                prop_assert!(parts.len() <= cap);
                let n = parts.len();
                let mut bare = Vec::new();
                for (i, part) in parts.iter().enumerate() {
                    prop_assert!(graphemes(part) <= max, "{} > {max}: {part:?}", graphemes(part));
                    prop_assert!(bytes.is_none_or(|b| part.len() <= b));
                    let body = match numbered && n > 1 {
                        true => part.strip_suffix(&numbering(i + 1, n)).expect("numbered"),
                        false => part.as_str(),
                    };
                    prop_assert!(!body.is_empty());
                    bare.push(body.to_string());
                }
                // Only whitespace was left out, at the joins (`ranges` is checked for where).
                let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
                prop_assert_eq!(squeeze(&bare.concat()), squeeze(&text));
            }
            Err(Refused::TooManyParts { cap: c }) => prop_assert_eq!(c, cap),
            Err(Refused::Unbreakable(_)) => {}
        }
    }

    #[test]
    fn no_cut_inside_a_url_hashtag_mention_or_grapheme(
        text in text(),
        max in 40usize..300,
    ) {
        let limit = Limit { max, max_bytes: None, count: &graphemes };
        let Ok(parts) = ranges(&text, 0, &limit, &Reserve::default(), 100) else {
            return Ok(());
        };
        let bounds: Vec<usize> = text.grapheme_indices(true).map(|(i, _)| i)
            .chain(std::iter::once(text.len())).collect();
        let guarded = guarded_words(&text);
        for pair in parts.windows(2) {
            let (end, next) = (pair[0].end, pair[1].start);
            prop_assert!(text[end..next].chars().all(char::is_whitespace));
            for cut in [end, next] {
                prop_assert!(bounds.contains(&cut), "cut at {cut} inside a grapheme");
                for g in &guarded {
                    prop_assert!(!(g.start < cut && cut < g.end), "cut inside {:?}", &text[g.clone()]);
                }
            }
        }
        if let (Some(first), Some(last)) = (parts.first(), parts.last()) {
            prop_assert!(text[..first.start].trim().is_empty());
            prop_assert!(text[last.end..].trim().is_empty());
        }
    }
}
