//! Threads on the fake PDS: one record per part under its derived key, replies naming root and
//! parent by URI and CID (the fake refuses anything else), resumed after a lost answer or a
//! kill, retracted last part first, edited in place.

use super::{KEY, TODAY, field, kill_when, latest, long_body, write_post};
use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky, Stored};
use crate::fakes::fake_bluesky_rules::{derived_rkey, graphemes};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

const CREATE: &str = "com.atproto.repo.createRecord";
const THREAD: &str = "long = \"thread\"\nlink = \"https://blog.test/{key}\"";

fn project(api: &FakeBluesky, extra: &str) -> Project {
    let p = Project::new();
    let config = api.config("sky", extra);
    // A request may take this long (the kill test holds one open).
    let config = match extra.contains("slow") {
        true => config.replace("\ntimeout_secs = 0.3\n", "\ntimeout_secs = 30\n"),
        false => config,
    };
    p.file("dayrun.toml", config);
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    write_post(&p, "Why the date is the key", &long_body());
    p
}

fn line(p: &Project) -> String {
    latest(p, "sky").expect("a line")
}

/// The thread's records in reply order (root first), checked: one root, every other record a
/// reply whose root is the root and whose parent is the record before it, by URI and CID.
fn thread(api: &FakeBluesky) -> Vec<Stored> {
    let records = api.records();
    let root = records
        .iter()
        .find(|r| r.value["reply"].is_null())
        .expect("a root")
        .clone();
    assert_eq!(
        records
            .iter()
            .filter(|r| r.value["reply"].is_null())
            .count(),
        1,
        "one thread: {records:#?}"
    );
    let mut chain = vec![root.clone()];
    while let Some(next) = records.iter().find(|r| {
        let last = chain.last().unwrap();
        r.value["reply"]["parent"]["uri"] == last.uri.as_str()
    }) {
        // (Each CID was the record's when the reply was made: the fake refuses any other. An
        // edit in place gives a record a new CID; the replies keep the one they answered.)
        assert_eq!(next.value["reply"]["root"]["uri"], root.uri.as_str());
        chain.push(next.clone());
    }
    assert_eq!(chain.len(), records.len(), "every record in one chain");
    chain
}

#[test]
fn a_long_post_is_a_root_and_its_replies_each_within_300_graphemes() {
    let api = FakeBluesky::start();
    let p = project(&api, THREAD);
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has(&format!("{KEY} sky published id=at://"));
    let chain = thread(&api);
    let n = chain.len();
    assert!(n >= 4, "{n} parts");
    // Part 0 is today's record key: lookups and existing lines keep working.
    assert_eq!(chain[0].rkey, derived_rkey("sky", KEY, 0));
    assert!(
        chain[0]
            .text()
            .starts_with("Why the date is the key\nhttps://blog.test/2026-11-29\n\n")
    );
    assert_eq!(
        chain[0].value["embed"]["external"]["uri"],
        "https://blog.test/2026-11-29"
    );
    for (i, record) in chain.iter().enumerate() {
        assert!(graphemes(record.text()) <= 300, "{}", record.text());
        assert!(
            record.text().ends_with(&format!("\n\n{}/{n}", i + 1)),
            "{}",
            record.text()
        );
        assert!(i == 0 || record.value["embed"].is_null());
    }
    assert!(chain[n - 1].text().contains("#rust #ops"));
    // The link and hashtags are facets at the part's own byte offsets.
    let with_link = chain
        .iter()
        .find(|r| r.text().contains("https://example.test/docs"))
        .unwrap();
    let facet = with_link.value["facets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["features"][0]["$type"] == "app.bsky.richtext.facet#link")
        .unwrap();
    let (s, e) = (
        facet["index"]["byteStart"].as_u64().unwrap() as usize,
        facet["index"]["byteEnd"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &with_link.text()[s..e],
        "https://example.test/docs/exactly-once"
    );
    let l = line(&p);
    assert_eq!(field(&l, "id").as_deref(), Some(chain[0].uri.as_str()));
    let parts = field(&l, "parts").unwrap();
    assert_eq!(parts.split(',').count(), n, "{l}");
    assert!(
        parts.starts_with(&format!("{};{}", chain[0].uri, chain[0].cid)),
        "{l}"
    );
    assert!(
        !p.exists("state/sky.sent"),
        "the kept parts go once the thread is out"
    );
    // Again: nothing is sent.
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.count(CREATE), n);
}

#[test]
fn the_lost_answer_of_part_2_is_found_with_its_cid_and_not_sent_again() {
    let api = FakeBluesky::start();
    api.create_faults(&[Fault::Normal, Fault::CommitHang]);
    let p = project(&api, THREAD);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let chain = thread(&api);
    // One createRecord per part: part 2 was found (getRecord gave its cid), not resent.
    assert_eq!(api.count(CREATE), chain.len());
    assert!(api.state.lock().unwrap().got.contains(&chain[1].rkey));
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.count(CREATE), chain.len());
}

#[test]
fn a_part_found_whose_record_cannot_be_read_back_is_looked_for_a_bounded_number_of_times() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
    let api = FakeBluesky::start();
    // Part 2's answer is lost (it is stored). From then on every look for it finds its record
    // (the first getRecord of a look) and cannot read it back to tell what it replies to (the
    // second: 503), so the look fails each time, however often it is made.
    let creates = Arc::new(AtomicU32::new(0));
    let gets = Arc::new(AtomicU32::new(0));
    {
        let mut s = api.state.lock().unwrap();
        let made = creates.clone();
        s.create_chooser = Some(Box::new(move || match made.fetch_add(1, SeqCst) {
            1 => Fault::CommitHang,
            _ => Fault::Normal,
        }));
        let (made, got) = (creates.clone(), gets.clone());
        s.get_chooser = Some(Box::new(move || {
            match made.load(SeqCst) >= 2 && got.fetch_add(1, SeqCst) % 2 == 1 {
                true => 503,
                false => 200,
            }
        }));
    }
    let p = project(&api, THREAD);
    let child = (p.command(&["run", TODAY]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, said) =
        crate::support::util::wait_or_kill(child, || false, std::time::Duration::from_secs(60));
    // The run ends (it does not look until it is killed), and nothing is sent over part 2.
    assert_eq!(code, Some(75), "{said}");
    assert_eq!(api.count(CREATE), 2, "{said}");
    let reads = gets.load(SeqCst);
    assert!((2..=12).contains(&reads), "{reads} reads\n{said}");
    // Part 2 may be out: the line says so, and that the next run looks again.
    let l = line(&p);
    assert!(
        l.contains("sent=maybe") && l.contains("lookup=error"),
        "{l}"
    );
    // Once the record can be read, the next run finds part 2 and sends only the rest.
    api.state.lock().unwrap().get_chooser = None;
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    let chain = thread(&api);
    assert_eq!(api.count(CREATE), chain.len());
}

#[test]
fn a_kill_between_parts_resumes_at_the_first_part_not_out_with_the_parts_kept() {
    for fault in [Fault::CommitHang, Fault::Hang] {
        let api = FakeBluesky::start();
        api.state.lock().unwrap().hang = std::time::Duration::from_secs(15);
        api.create_faults(&[Fault::Normal, Fault::Normal, fault]);
        let p = project(&api, &format!("{THREAD}\n# slow"));
        // Killed while part 3 is in flight (stored, or not, with no answer).
        kill_when(&p, || api.count(CREATE) == 3);
        let l = line(&p);
        assert!(l.contains(" pending "), "{l}");
        assert_eq!(field(&l, "parts").unwrap().split(',').count(), 2, "{l}");
        assert!(p.exists(&format!("state/sky.sent/{KEY}.thread.json")));
        // The file is edited before the next run: the thread goes on as it was split.
        let sent: Vec<String> = api
            .state
            .lock()
            .unwrap()
            .creates
            .iter()
            .map(|c| c["record"]["text"].as_str().unwrap().to_string())
            .collect();
        write_post(
            &p,
            "Why the date is the key",
            "Edited since: one short line.",
        );
        p.run(&["run", TODAY]).code(0).stdout_has("published");
        let chain = thread(&api);
        assert!(chain.len() > 3, "{fault:?}");
        for (record, text) in chain.iter().zip(&sent) {
            assert_eq!(
                record.text(),
                text,
                "{fault:?}: the kept parts, not a fresh split"
            );
        }
        // Each part's key was created once (a stored part 3 was found, not sent again).
        let creates = api.state.lock().unwrap().creates.clone();
        let stored = usize::from(fault == Fault::CommitHang);
        assert_eq!(creates.len(), chain.len() + 1 - stored, "{fault:?}");
        p.run(&["run", TODAY]).code(0);
        assert_eq!(api.count(CREATE), creates.len());
    }
}

/// A kill while part 3 is stored and its answer not back, then the post edited into another
/// split and the kept parts gone: the thread cannot go on, and a person is asked; but first the
/// part that may be out unrecorded is looked for under its record key, whatever its text, and
/// put on the line, so that `retract` (the advice) takes it back too. Nothing is sent.
#[test]
fn a_thread_cut_off_keeps_its_stored_part_on_the_line_before_it_asks_a_person() {
    let api = FakeBluesky::start();
    api.state.lock().unwrap().hang = std::time::Duration::from_secs(15);
    api.create_faults(&[Fault::Normal, Fault::Normal, Fault::CommitHang]);
    let p = project(&api, &format!("{THREAD}\n# slow"));
    kill_when(&p, || api.count(CREATE) == 3);
    assert_eq!(field(&line(&p), "parts").unwrap().split(',').count(), 2);
    std::fs::remove_dir_all(p.path("state/sky.sent")).unwrap();
    write_post(
        &p,
        "Why the date is the key",
        "Edited since: one short line.",
    );
    let out = p.run(&["run", TODAY]);
    out.code(1).stdout_has("failed (rejected)");
    assert_eq!(api.count(CREATE), 3, "nothing sent");
    let l = line(&p);
    let chain = thread(&api);
    assert_eq!(chain.len(), 3);
    let parts = field(&l, "parts").unwrap();
    for record in &chain {
        assert!(parts.contains(&record.uri), "{} not on {l}", record.uri);
    }
    assert!(l.contains("3 of its parts are out"), "{l}");
    p.run(&["retract", KEY, "--yes"]).code(0);
    assert!(api.records().is_empty(), "{:#?}", api.records());
}

#[test]
fn retract_removes_every_part_last_first_and_checks_each() {
    let api = FakeBluesky::start();
    let p = project(&api, THREAD);
    p.run(&["run", TODAY]).code(0);
    let chain = thread(&api);
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has("retracted");
    assert!(api.records().is_empty());
    let deleted: Vec<String> = api
        .state
        .lock()
        .unwrap()
        .deleted
        .iter()
        .map(|r| r.rkey.clone())
        .collect();
    let expected: Vec<String> = chain.iter().rev().map(|r| r.rkey.clone()).collect();
    assert_eq!(deleted, expected);
    let l = line(&p);
    assert!(l.contains(" retracted ") && !l.contains(" parts="), "{l}");
}

#[test]
fn the_dry_run_shows_every_part_with_its_grapheme_count() {
    let api = FakeBluesky::start();
    let p = project(&api, THREAD);
    let out = p.run(&["run", TODAY, "--dry-run"]);
    out.code(0).stdout_has("a thread of").stdout_has("1/");
    assert!(
        out.stdout.contains("graphemes, would send"),
        "{}",
        out.stdout
    );
    assert!(api.calls().iter().all(|c| !c.ends_with(CREATE)));
    assert!(p.state_lines("sky").is_empty());
}

#[test]
fn a_post_past_max_parts_is_rejected_before_anything_is_sent() {
    let api = FakeBluesky::start();
    let p = project(&api, &format!("{THREAD}\nmax_parts = 2"));
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("needs more than 2 parts")
        .stdout_has("raise max_parts");
    assert_eq!(api.count(CREATE), 0);
    assert!(line(&p).contains("class=rejected"));
}

#[test]
fn an_edit_updates_each_part_in_place_or_is_refused_when_the_count_changes() {
    let api = FakeBluesky::start();
    let p = project(&api, &format!("{THREAD}\non_edit = \"update\""));
    p.run(&["run", TODAY]).code(0);
    let before = thread(&api);
    // Same number of parts: every part in place, replies intact.
    write_post(
        &p,
        "Why the date is the key",
        &long_body().replace("decides", "chooses"),
    );
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    let after = thread(&api);
    assert_eq!(after.len(), before.len());
    assert!(after.iter().any(|r| r.text().contains("chooses")));
    assert!(after.iter().zip(&before).all(|(a, b)| a.rkey == b.rkey));
    // Fewer parts: refused, the thread as it was.
    write_post(&p, "Why the date is the key", "Short now.");
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("splits into 1 parts and the thread has")
        .stdout_has("then `dayrun retry 2026-11-29 --force");
    let texts: Vec<String> = thread(&api).iter().map(|r| r.text().to_string()).collect();
    let kept: Vec<String> = after.iter().map(|r| r.text().to_string()).collect();
    assert_eq!(texts, kept);
}

/// Issue 24: "A template's output is split the same way." A template whose text is over the
/// limit becomes a thread of the template's words, not a refusal and not the default text.
#[test]
fn a_template_over_the_limit_is_split_into_a_thread_of_its_own_words() {
    let api = FakeBluesky::start();
    let template = "template = \"\"\"New on the blog, {{ title }}.\n\n{{ body }}\n\nRead it at https://blog.test/{{ key }}\"\"\"";
    let p = project(&api, &format!("long = \"thread\"\n{template}"));
    p.run(&["run", TODAY]).code(0).stdout_has("sky published");
    let chain = thread(&api);
    assert!(chain.len() > 1, "a thread: {chain:#?}");
    let texts: Vec<&str> = chain
        .iter()
        .map(|r| r.value["text"].as_str().unwrap())
        .collect();
    assert!(
        texts[0].starts_with("New on the blog, Why the date is the key."),
        "{texts:?}"
    );
    assert!(
        texts
            .last()
            .unwrap()
            .contains(&format!("Read it at https://blog.test/{KEY}")),
        "{texts:?}"
    );
    for text in &texts {
        assert!(graphemes(text) <= 300, "{text}");
    }
    assert_eq!(
        field(&line(&p), "parts").map(|v| v.split(',').count()),
        Some(chain.len())
    );
}

/// A markdown link goes into a part as `text (url)`: the URL inside the brackets is a link
/// facet of its own, at the part's byte offsets (after multi-byte characters), without the
/// brackets or the full stop after them.
#[test]
fn a_markdown_link_in_a_part_is_a_link_facet_without_its_brackets() {
    let api = FakeBluesky::start();
    let p = project(&api, THREAD);
    let url = "https://example.test/rules?a=1";
    let body = format!("Grüße 🦀, read [the rules]({url}).\n\n{}", long_body());
    write_post(&p, "Why the date is the key", &body);
    p.run(&["run", TODAY]).code(0);
    let chain = thread(&api);
    assert!(chain.len() > 1, "a thread");
    let shown = format!("Grüße 🦀, read the rules ({url}).");
    let part = chain
        .iter()
        .find(|r| r.text().contains(&shown))
        .unwrap_or_else(|| panic!("{chain:#?}"));
    let start = part.text().find(url).unwrap();
    let links: Vec<_> = part.value["facets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["features"][0]["uri"] == url)
        .collect();
    assert_eq!(links.len(), 1, "{:#?}", part.value);
    let index = &links[0]["index"];
    assert_eq!(index["byteStart"].as_u64(), Some(start as u64), "{index}");
    assert_eq!(index["byteEnd"].as_u64(), Some((start + url.len()) as u64));
    assert_eq!(
        links[0]["features"][0]["$type"],
        "app.bsky.richtext.facet#link"
    );
}

/// An edit in place that changes the first part's image: part 1 shows the new image (with its
/// alt), not the old embed; the replies carry none.
#[test]
fn an_edit_that_changes_the_image_shows_the_new_one_on_part_1() {
    let api = FakeBluesky::start();
    let p = project(&api, &format!("{THREAD}\non_edit = \"update\""));
    p.file(
        "content/images/a.jpg",
        crate::support::image_gen::plain_jpeg(40, 30, [30, 30, 220]),
    );
    p.file(
        "content/images/b.jpg",
        crate::support::image_gen::plain_jpeg(40, 30, [220, 30, 30]),
    );
    let with = |image: &str, alt: &str| format!("{}\n\n![{alt}](images/{image})", long_body());
    write_post(&p, "Why the date is the key", &with("a.jpg", "A blue one"));
    p.run(&["run", TODAY]).code(0);
    let embed = |r: &Stored| r.value["embed"]["images"][0].clone();
    let before = thread(&api);
    assert!(before.len() > 1);
    assert_eq!(embed(&before[0])["alt"], "A blue one");
    write_post(&p, "Why the date is the key", &with("b.jpg", "A red one"));
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    let after = thread(&api);
    assert_eq!(after.len(), before.len());
    assert_eq!(embed(&after[0])["alt"], "A red one", "{:#?}", after[0]);
    assert_ne!(
        embed(&after[0])["image"]["ref"],
        embed(&before[0])["image"]["ref"],
        "a new blob"
    );
    assert!(
        after[1..].iter().all(|r| r.value["embed"].is_null()),
        "{after:#?}"
    );
}
