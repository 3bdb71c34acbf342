//! The record dayrun makes of a post (issue 12, "The record"): title, summary, hashtags and link
//! fitted to 300 grapheme clusters and 3000 UTF-8 bytes (summary cut first, then hashtags
//! dropped, the title and link never cut), facets by UTF-8 byte offsets, `langs`, and the
//! external embed card. The fake PDS refuses what the real one refuses, so a record that is
//! stored at all passed the PDS's limits.

use super::{CREATE, KEY, LOGIN, TODAY, field, line, project, shown};
use crate::fakes::fake_bluesky::FakeBluesky;
use crate::fakes::fake_bluesky_rules::graphemes;
use crate::support::util::Project;
use serde_json::{Value, json};

const LINK: &str = "https://blog.test/2026-11-29";

/// A project whose post is `text` and whose target links to `https://blog.test/{key}`.
fn post(api: &FakeBluesky, text: &str) -> Project {
    let p = project(api, "link = \"https://blog.test/{key}\"");
    p.file(&format!("content/{KEY}.md"), text);
    p
}

/// The one record the PDS holds, after a successful run.
#[track_caller]
fn published(api: &FakeBluesky, p: &Project) -> Value {
    let out = p.run(&["run", TODAY]);
    let records = api.records();
    assert_eq!(records.len(), 1, "{}", shown(&out));
    out.code(0);
    records[0].value.clone()
}

/// What each facet's byte range cuts out of the text, with its feature: `#tag` or `link URI`.
fn facets(record: &Value) -> Vec<(String, String)> {
    let text = record["text"].as_str().unwrap().as_bytes();
    let empty = Vec::new();
    let facets = record["facets"].as_array().unwrap_or(&empty);
    facets
        .iter()
        .map(|f| {
            let start = f["index"]["byteStart"].as_u64().unwrap() as usize;
            let end = f["index"]["byteEnd"].as_u64().unwrap() as usize;
            let slice = String::from_utf8(text[start..end].to_vec()).unwrap();
            let feature = &f["features"][0];
            let what = match feature["$type"].as_str().unwrap() {
                "app.bsky.richtext.facet#tag" => format!("#{}", feature["tag"].as_str().unwrap()),
                "app.bsky.richtext.facet#link" => {
                    format!("link {}", feature["uri"].as_str().unwrap())
                }
                other => other.to_string(),
            };
            (slice, what)
        })
        .collect()
}

#[test]
fn title_summary_hashtags_and_link_with_facets_on_utf8_bytes() {
    let api = FakeBluesky::start();
    let p = post(
        &api,
        "---\ntitle: \"Café ☕ and 日本語\"\ntags: [rust, web-dev, café-crème]\nsummary: \"Émoji 👩‍💻 and 漢字 in the summary.\"\n---\nBody.\n",
    );
    let record = published(&api, &p);
    let text = "Café ☕ and 日本語\n\nÉmoji 👩‍💻 and 漢字 in the summary.\n\n#rust #webdev #cafécrème\nhttps://blog.test/2026-11-29";
    assert_eq!(record["text"], text);
    assert_eq!(record["$type"], "app.bsky.feed.post");
    assert!(record.get("langs").is_none(), "no `lang`, no langs");
    let mut got = facets(&record);
    got.sort();
    let mut want: Vec<(String, String)> = ["#rust", "#webdev", "#cafécrème"]
        .iter()
        .map(|t| (t.to_string(), t.to_string()))
        .collect();
    want.push((LINK.into(), format!("link {LINK}")));
    want.sort();
    assert_eq!(got, want, "each facet slices exactly its #tag or link");
    assert_eq!(
        record["embed"],
        json!({"$type": "app.bsky.embed.external", "external": {
            "uri": LINK, "title": "Café ☕ and 日本語",
            "description": "Émoji 👩‍💻 and 漢字 in the summary."}})
    );
}

#[test]
fn without_a_link_there_is_no_card_and_no_link_facet() {
    let api = FakeBluesky::start();
    let p = project(&api, "");
    let record = published(&api, &p);
    assert_eq!(
        record["text"],
        "Why the date is the key\n\nOne key per day.\n\n#rust"
    );
    assert!(record.get("embed").is_none());
    assert_eq!(
        facets(&record),
        [("#rust".to_string(), "#rust".to_string())]
    );
}

#[test]
fn lang_becomes_langs() {
    for (lang, want) in [
        ("en", json!(["en"])),
        ("[en, de-AT]", json!(["en", "de-AT"])),
    ] {
        let api = FakeBluesky::start();
        let p = post(
            &api,
            &format!("---\nlang: {lang}\n---\n# Hello\n\nWorld.\n"),
        );
        assert_eq!(published(&api, &p)["langs"], want, "lang: {lang}");
    }
}

#[test]
fn a_bad_lang_is_a_local_error_naming_the_file_and_line() {
    for lang in ["[en, de, fr, es]", "english", "en_US"] {
        let api = FakeBluesky::start();
        let p = post(
            &api,
            &format!("---\nlang: {lang}\n---\n# Hello\n\nWorld.\n"),
        );
        let out = p.run(&["run", TODAY]);
        assert!(api.calls().is_empty(), "lang: {lang}: {:?}", api.calls());
        out.code(1)
            .stdout_has("failed (local)")
            .stdout_has(&format!("content/{KEY}.md:2:"));
        assert!(line(&p, KEY).contains("class=local"));
    }
}

#[test]
fn a_long_summary_is_cut_at_a_word_with_an_ellipsis() {
    let api = FakeBluesky::start();
    let summary = "word ".repeat(100);
    let p = post(
        &api,
        &format!(
            "---\ntitle: A title\ntags: [rust, ops]\nsummary: \"{}\"\n---\nBody.\n",
            summary.trim()
        ),
    );
    let record = published(&api, &p);
    let text = record["text"].as_str().unwrap();
    let tail = format!("\n\n#rust #ops\n{LINK}");
    assert!(
        text.starts_with("A title\n\nword word") && text.ends_with(&tail),
        "{text}"
    );
    let cut = &text["A title\n\n".len()..text.len() - tail.len()];
    let kept = cut
        .strip_suffix('…')
        .unwrap_or_else(|| panic!("no … in {cut:?}"));
    assert!(
        summary.starts_with(kept) && kept.ends_with("word"),
        "{kept:?}"
    );
    let count = graphemes(text);
    assert!(
        (290..=300).contains(&count),
        "{count} graphemes: the longest cut that fits"
    );
    // The card's description is held to 300 graphemes as well.
    let description = record["embed"]["external"]["description"].as_str().unwrap();
    assert!(graphemes(description) <= 300, "{description}");
}

#[test]
fn hashtags_are_dropped_before_the_title_is_touched() {
    // 250 + 2 + 19 + 1 + 28 = 300: summary and two hashtags must go, the title stays whole.
    let api = FakeBluesky::start();
    let title = format!("{}!", "word ".repeat(50).trim_end());
    assert_eq!(graphemes(&title), 250);
    let p = post(
        &api,
        &format!(
            "---\ntitle: \"{title}\"\ntags: [alpha, beta, gamma, delta, epsilon]\nsummary: Short summary here.\n---\nBody.\n"
        ),
    );
    let record = published(&api, &p);
    assert_eq!(
        record["text"],
        format!("{title}\n\n#alpha #beta #gamma\n{LINK}")
    );
    let tags: Vec<String> = facets(&record).into_iter().map(|(s, _)| s).collect();
    assert!(tags.contains(&"#gamma".to_string()) && !tags.contains(&"#delta".to_string()));
}

#[test]
fn a_summary_without_room_for_ten_graphemes_is_dropped_whole() {
    // Title + link leave 5 graphemes for the summary: no "Lon…", no summary at all.
    let api = FakeBluesky::start();
    let title = "t".repeat(300 - 2 - 28 - 2 - 5);
    let p = post(
        &api,
        &format!("---\ntitle: {title}\nsummary: A long enough summary for any cut.\n---\nBody.\n"),
    );
    assert_eq!(published(&api, &p)["text"], format!("{title}\n\n{LINK}"));
}

#[test]
fn a_cut_summary_keeps_ten_graphemes_or_goes() {
    // Room for 12 graphemes and the "…": the last word boundary would leave only "abcdefg".
    let api = FakeBluesky::start();
    let title = "t".repeat(300 - 2 - 28 - 2 - 13);
    let p = post(
        &api,
        &format!(
            "---\ntitle: {title}\nsummary: abcdefg hijklmnopqrstuvwxyz and more words\n---\nB.\n"
        ),
    );
    let text = published(&api, &p)["text"].as_str().unwrap().to_string();
    let middle = text[title.len()..text.len() - LINK.len()].trim_matches('\n');
    let kept = middle.strip_suffix('…').unwrap_or(middle);
    assert!(
        middle.is_empty() || graphemes(kept) >= 10,
        "a summary cut to {} graphemes: {middle:?}",
        graphemes(kept)
    );
}

#[test]
fn emoji_and_cjk_are_cut_to_whole_graphemes_within_both_limits() {
    // 200 family emoji: 200 graphemes but 5000 bytes, so the byte limit binds.
    let family = "👨‍👩‍👧‍👦";
    assert_eq!((graphemes(family), family.len()), (1, 25));
    let api = FakeBluesky::start();
    let p = post(
        &api,
        &format!(
            "---\ntitle: Family\nsummary: \"{}\"\n---\nBody.\n",
            family.repeat(200)
        ),
    );
    let text = published(&api, &p)["text"].as_str().unwrap().to_string();
    assert!(
        text.len() <= 3000 && graphemes(&text) <= 300,
        "{} bytes",
        text.len()
    );
    assert!(
        text.len() > 2900,
        "the longest cut that fits: {} bytes",
        text.len()
    );
    let cut = text["Family\n\n".len()..].split('…').next().unwrap();
    assert_eq!(cut.len() % family.len(), 0, "an emoji was split: {cut:?}");
    assert!(text.ends_with(&format!("…\n\n{LINK}")), "{text}");
    // CJK: 3 bytes a character, so the grapheme limit binds.
    let api = FakeBluesky::start();
    let p = post(
        &api,
        &format!(
            "---\ntitle: 日記\nsummary: \"{}\"\n---\nBody.\n",
            "日本語の文章です。".repeat(50)
        ),
    );
    let text = published(&api, &p)["text"].as_str().unwrap().to_string();
    let count = graphemes(&text);
    assert!(
        (290..=300).contains(&count) && text.len() <= 3000,
        "{count}: {text}"
    );
}

#[test]
fn title_and_link_over_the_limit_fail_locally_before_any_request() {
    let api = FakeBluesky::start();
    let title = "t".repeat(280);
    let p = post(&api, &format!("---\ntitle: {title}\n---\nBody.\n"));
    let out = p.run(&["run", TODAY]);
    assert_eq!(api.count(LOGIN) + api.count(CREATE), 0, "{:?}", api.calls());
    out.code(1)
        .stdout_has("failed (local)")
        .stdout_has(&format!("content/{KEY}.md"))
        .stdout_has("the title and link alone are 310 graphemes (310 bytes); a Bluesky post holds 300 graphemes and 3000 bytes")
        .stdout_has("shorten the title");
    let failed = line(&p, KEY);
    assert_eq!(
        field(&failed, "class").as_deref(),
        Some("local"),
        "{failed}"
    );
    assert!(api.records().is_empty());
}
