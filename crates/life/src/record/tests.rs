//! The state line parser against a copy of the one before it, and its own cases.

use super::*;
use jiff::civil::Date;

#[test]
fn lines_parse_and_print_back() {
    let line = "2026-11-29 failed 2026-11-29T09:00:04+08:00 class=rejected reason=\"HTTP 422: title \\\"x\\\" taken\" fp=ab12";
    let record = Record::parse(line).unwrap().unwrap();
    assert_eq!(record.status, Status::Failed);
    assert_eq!(record.get("class").as_deref(), Some("rejected"));
    assert_eq!(
        record.get("reason").as_deref(),
        Some("HTTP 422: title \"x\" taken")
    );
    assert_eq!(record.to_line(), line);
}

#[test]
fn hand_edits_are_tolerated() {
    for line in ["", "   ", "# a comment", "  # indented comment\r"] {
        assert_eq!(Record::parse(line), Ok(None), "{line:?}");
    }
    let crlf = Record::parse("2026-11-29 done 2026-11-29T09:00:04Z id=x  \r")
        .unwrap()
        .unwrap();
    assert_eq!(crlf.get("id").as_deref(), Some("x"));
}

#[test]
fn malformed_lines_say_why() {
    let cases = [
        ("2026-02-30 done 2026-11-29T09:00:04Z", "not a key"),
        ("20261129 done 2026-11-29T09:00:04Z", "not a key"),
        ("2026-11-29 donee 2026-11-29T09:00:04Z", "unknown status"),
        ("2026-11-29 done", "missing timestamp"),
        ("2026-11-29 done yesterday", "not an RFC 3339"),
        (
            "2026-11-29 done 2026-11-29T09:00:04Z id",
            "expected name=value",
        ),
        (
            "2026-11-29 done 2026-11-29T09:00:04Z id=\"open",
            "unterminated",
        ),
        ("2026-11-29 done 2026-11-29T09:00:04Z id=a id=b", "twice"),
        (
            "2026-11-29 failed 2026-11-29T09:00:04Z class=fatal",
            "unknown class",
        ),
        ("garbage", "not a key"),
    ];
    for (line, needle) in cases {
        let err = Record::parse(line).unwrap_err();
        assert!(err.contains(needle), "{line:?}: {err}");
    }
}

#[test]
fn the_stamp_is_found_however_the_line_is_spaced() {
    for line in [
        "2026-11-29 done 2026-11-29T09:00:04Z id=x",
        "2026-11-29  done 2026-11-29T09:00:04Z",
        "2026-11-29       done   2026-11-29T09:00:04Z id=x",
        "2026-11-29\tdone\t2026-11-29T09:00:04Z",
    ] {
        let record = Record::parse(line).unwrap().unwrap();
        assert_eq!(record.at(), "2026-11-29T09:00:04Z", "{line:?}");
    }
}

#[test]
fn the_quick_stamp_check_accepts_only_what_jiff_accepts() {
    let cases = [
        ("2026-11-29T07:00:03+01:00", true),
        ("2026-11-29T07:00:03Z", true),
        ("2026-11-29T07:00:03-09:30", true),
        ("2024-02-29T23:59:59+00:00", true),
        ("2026-02-29T07:00:03Z", false),
        ("2026-11-29T24:00:03Z", false),
        ("2026-11-29T07:60:03Z", false),
        ("2026-11-29T07:00:03+24:00", false),
        ("2026-11-29 07:00:03+01:00", false),
        ("2026-11-29T07:00:03.5Z", false),
        ("2026-11-29T07:00:03", false),
        ("é026-11-29T07:00:03Z", false),
    ];
    for (at, plain) in cases {
        assert_eq!(plain_stamp(at), plain, "{at}");
        if plain {
            assert!(at.parse::<jiff::Timestamp>().is_ok(), "{at}");
        }
    }
}

/// `Record::parse` as it was before the one-pass field check (e1752af): the reference the
/// new parser is compared with, result for result and message for message.
fn parse_before(line: &str) -> Result<Option<Record>, String> {
    let body = line.trim();
    if body.is_empty() || body.starts_with('#') {
        return Ok(None);
    }
    let mut words = Words { rest: body };
    let key_word = words.next_bare().ok_or("missing key")?;
    let key = crate::Key::parse(key_word)
        .ok_or_else(|| format!("`{key_word}` is not a key (YYYY-MM-DD, a real date)"))?;
    let status = match words.next_bare() {
        Some("pending") => Status::Pending,
        Some("done") => Status::Done,
        Some("failed") => Status::Failed,
        Some("retracted") => Status::Retracted,
        Some(other) => {
            return Err(format!(
                "unknown status `{other}` (pending, done, failed or retracted)"
            ));
        }
        None => return Err("missing status after the key".into()),
    };
    let at = words
        .next_bare()
        .ok_or("missing timestamp after the status")?;
    if !plain_stamp(at) && at.parse::<jiff::Timestamp>().is_err() {
        return Err(format!("`{at}` is not an RFC 3339 timestamp with offset"));
    }
    let mut seen: [&str; 8] = [""; 8];
    let mut more: HashSet<&str> = HashSet::new();
    let mut count = 0;
    while let Some((name, value)) = words.next_field()? {
        if seen[..count.min(8)].contains(&name) || more.contains(name) {
            return Err(format!("field `{name}` appears twice"));
        }
        crate::check_field(name, &value)?;
        match seen.get_mut(count) {
            Some(slot) => *slot = name,
            None => {
                more.insert(name);
            }
        }
        count += 1;
    }
    Ok(Some(Record {
        key,
        status,
        line: body.into(),
    }))
}

#[test]
fn the_one_pass_check_agrees_with_the_old_parser() {
    let head = "2026-11-29 done 2026-11-29T09:00:04Z";
    let tails = [
        "",
        " ",
        "\x0b",
        " \x0b",
        "\u{3000}",
        " id=x\u{a0}",
        "\x0bid=x",
        " id=x\x0b",
        " id=",
        " id= fp=",
        " id=x fp=y id=z",
        " a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 a=0",
        " a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=1 i=2",
        " class=rejected",
        " class=\"auth\"",
        " class=nope",
        " class=",
        " Id=x",
        " id",
        " =x",
        " id=\"x\"y",
        " id=x\"",
        " id=\"x",
        " id=\"a\\u{41}b\"",
        " id=\"\\u{d800}\"",
        " id=\"\\u{}\"",
        " id=\"\\q\"",
        " id=é fp=ü",
        " é=x",
        " id=x\tfp=y",
        " id=x\r",
        " id=x=y",
        " -=_ _=-",
        " id==",
    ];
    for tail in tails {
        for line in [format!("{head}{tail}"), format!(" {head}{tail}\r\n")] {
            assert_eq!(Record::parse(&line), parse_before(&line), "{line:?}");
        }
    }
}

#[test]
fn the_plain_head_agrees_with_the_word_by_word_reading() {
    let long = format!("2026-11-29-{}", "a".repeat(95));
    let keys = [
        "2026-11-29",
        "2026-02-30",
        "2026-11-2x",
        "2026-11-299",
        "2026-11-29-my-post",
        "2026-11-29-My-post",
        "2026-11-29-",
        "2026-11-29--x",
        &long[..100],
        &long,
    ];
    let blanks = [" ", "  ", "\t", ""];
    let statuses = [
        "done",
        "pending",
        "failed",
        "retracted",
        "donee",
        "pend",
        "retract",
    ];
    let stamps = [
        "2026-11-29T09:00:04Z",
        "2026-11-29T09:00:04+01:00",
        "2026-11-29T09:00:04.5Z",
        "2026-11-29T25:00:04Z",
        "2026-11-29T09:00:04+01:00x",
        "2026-11-29T09:00:04Zx",
        "2026-11-29T09:00:04",
        "",
    ];
    let tails = ["", " id=x", "id=x", "\tfp=y", " ", " id=\"a b\""];
    let mut checked = 0;
    for key in keys {
        for blank in blanks {
            for status in statuses {
                for stamp in stamps {
                    for tail in tails {
                        for second in [" ", blank] {
                            let line = format!("{key}{blank}{status}{second}{stamp}{tail}");
                            assert_eq!(Record::parse(&line), parse_before(&line), "{line:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 5000);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn record() -> impl Strategy<Value = Record> {
        let key =
            (2000i16..2100, 1i8..=12, 1i8..=28).prop_map(|(y, m, d)| Date::new(y, m, d).unwrap());
        let status = prop_oneof![
            Just(Status::Pending),
            Just(Status::Done),
            Just(Status::Failed),
            Just(Status::Retracted)
        ];
        let at = prop_oneof![
            Just("2026-11-29T09:00:04+08:00"),
            Just("2026-11-29T01:00:04Z")
        ];
        let fields = proptest::collection::btree_map("[a-z][a-z0-9_-]{0,8}", any::<String>(), 0..5);
        (key, status, at, fields).prop_map(|(key, status, at, fields)| {
            let mut record = Record::new(crate::Key::of_day(key), status, at.to_string());
            for (name, value) in fields
                .into_iter()
                // Fields with a type of their own are checked by it (`life::check_field`).
                .filter(|(n, v)| {
                    ![
                        "class",
                        "op",
                        "lookup",
                        "sent",
                        "generation",
                        "attempt",
                        "updated",
                    ]
                    .contains(&n.as_str())
                        && !v.is_empty()
                })
            {
                record = record.with(&name, value);
            }
            record
        })
    }

    proptest! {
        #[test]
        fn lines_round_trip(record in record()) {
            let line = record.to_line();
            prop_assert!(!line.contains('\n'), "{line:?}");
            let parsed = Record::parse(line).unwrap().unwrap();
            let fields: Vec<(String, String)> = record.fields().map(|(n, v)| (n.to_string(), v.into_owned())).collect();
            let again: Vec<(String, String)> = parsed.fields().map(|(n, v)| (n.to_string(), v.into_owned())).collect();
            prop_assert_eq!(fields, again);
            prop_assert_eq!(parsed, record);
        }

        #[test]
        fn values_read_back_as_written(value in any::<String>().prop_filter("non-empty", |v| !v.is_empty())) {
            let record = Record::new(crate::Key::of_day(Date::new(2026, 11, 29).unwrap()), Status::Failed, "2026-11-29T01:00:04Z".into())
                .with("reason", value.clone());
            let parsed = Record::parse(record.to_line()).unwrap().unwrap();
            let got = parsed.get("reason").map(|v| v.into_owned());
            prop_assert_eq!(got, Some(value));
        }

        #[test]
        fn quick_stamps_are_jiff_stamps(at in "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})") {
            if plain_stamp(&at) {
                prop_assert!(at.parse::<jiff::Timestamp>().is_ok(), "{}", at);
            }
        }

        #[test]
        fn parses_as_before_on_near_valid_lines(
            lead in "[ \t\x0b\u{a0}]{0,2}",
            tail in "([ \t\x0b\u{3000}]{1,2}[a-zA-Z_=é-]{0,4}(=|=\"|\\\\|\"|[a-z0-9é\\\\u{}\"]){0,6}){0,12}[ \r\n\x0b]{0,2}",
        ) {
            let line = format!("{lead}2026-11-29 failed 2026-11-29T01:00:04Z{tail}");
            prop_assert_eq!(Record::parse(&line), parse_before(&line), "{:?}", line);
        }

        #[test]
        fn parses_as_before_on_fields_of_known_names(
            fields in proptest::collection::vec(("(id|fp|class|reason|x)", "(\"?[a-z0-9 \\\\\"]{0,6}\"?|rejected|auth)"), 0..12),
            blank in "[ \t\x0b]{1,2}",
        ) {
            let mut line = "2026-11-29 done 2026-11-29T01:00:04+01:00".to_string();
            for (name, value) in fields {
                line.push_str(&blank);
                line.push_str(&name);
                line.push('=');
                line.push_str(&value);
            }
            prop_assert_eq!(Record::parse(&line), parse_before(&line), "{:?}", line);
        }

        #[test]
        fn parses_as_before_on_arbitrary_text(text in any::<String>()) {
            prop_assert_eq!(Record::parse(&text), parse_before(&text));
        }

        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let _ = Record::parse(&text);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = Record::parse(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn near_valid_lines_never_panic(tail in "[ a-z=\"\\\\{}0-9u]{0,40}") {
            let _ = Record::parse(&format!("2026-11-29 done 2026-11-29T01:00:04Z {tail}"));
        }
    }
}

#[test]
fn has_names_a_field_not_text_inside_a_value() {
    let line = r#"2026-11-29 failed 2026-11-29T07:00:00Z class=rejected reason="the server said \" id=7 edit_failed=x\" no" fp=f"#;
    let record = Record::parse(line).unwrap().unwrap();
    assert!(record.has("class") && record.has("reason") && record.has("fp"));
    assert!(!record.has("id") && !record.has("edit_failed"));
    let done = Record::parse("2026-11-29 done 2026-11-29T07:00:00Z id=7 url=https://x.test/7")
        .unwrap()
        .unwrap();
    assert!(done.has("id") && done.has("url") && !done.has("fp"));
    // The key, status and time are not fields.
    assert!(!done.has("2026-11-29") && !done.has("done"));
}
