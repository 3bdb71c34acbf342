//! `kind = "ghost"` against the fake Ghost (`fake_ghost.rs`): publish once, lost answers found
//! by the key's slug and the words sent, copies that are not ours, the 409 that keeps a hand
//! edit, failed lookups, a wrong key, the cover, and retract.

use crate::fakes::fake_ghost::{FakeGhost, KEY_ID, SECRET};
use crate::fakes::fake_posts::Fault;
use crate::support::image_gen as pics;
use crate::support::util::Project;

const KEY: &str = "2026-11-29";
const TODAY: &str = "--today=2026-11-29";
const SLUG: &str = "2026-11-29-why-the-date-is-the-key";

fn project(ghost: &FakeGhost, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", ghost.config(extra));
    p.secret("secrets/ghost.key", format!("{KEY_ID}:{SECRET}\n"));
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [Rust, Ops & Tools]\n---\n# Why the Date is the Key\n\nFirst *paragraph* & more.\n",
    );
    p
}

/// The value of `name=` on the key's state line.
fn field(p: &Project, name: &str) -> Option<String> {
    let line = p
        .state_lines("ghost")
        .into_iter()
        .find(|l| l.starts_with(KEY))?;
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(&format!("{name}=")))
        .map(str::to_string)
}

fn printed(out: &crate::support::util::Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn publishes_html_with_tags_and_a_key_slug_once_and_emails_nobody() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    let out = p.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} ghost published id="));
    let posts = ghost.posts();
    assert_eq!(posts.len(), 1);
    let post = &posts[0];
    assert_eq!(post["slug"], SLUG);
    assert_eq!(post["status"], "published");
    assert_eq!(post["title"], "Why the Date is the Key");
    assert_eq!(post["html"], "<p>First <em>paragraph</em> &amp; more.</p>");
    let tags: Vec<&str> = post["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["Rust", "Ops & Tools"]);
    assert_eq!(field(&p, "id").as_deref(), post["id"].as_str());
    assert_eq!(
        field(&p, "version").as_deref(),
        post["updated_at"].as_str(),
        "{:?}",
        p.state_lines("ghost")
    );

    let before = ghost.state.lock().unwrap().log.len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        ghost.state.lock().unwrap().log.len(),
        before,
        "the re-run sent nothing"
    );
    assert_eq!(ghost.posts().len(), 1);
    let s = ghost.state.lock().unwrap();
    assert!(!s.newsletter_asked, "{:?}", s.log);
    assert!(!printed(&out).contains(SECRET));
    assert!(!p.read("state/ghost.log").contains(SECRET));
}

#[test]
fn a_backfilled_post_carries_its_key_as_its_date() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    p.run(&["run", "--today=2026-12-09", "--key", KEY]).code(0);
    assert_eq!(ghost.posts()[0]["published_at"], "2026-11-29T12:00:00.000Z");
    assert!(!ghost.state.lock().unwrap().newsletter_asked);
}

#[test]
fn a_lost_create_answer_is_found_by_slug_and_words_not_resent() {
    for fault in [
        Fault::CommitHang,
        Fault::CommitStatus(502),
        Fault::CommitClose,
    ] {
        let ghost = FakeGhost::start();
        ghost.state.lock().unwrap().faults.push_back(fault);
        let p = project(&ghost, "");
        let out = p.run(&["run", TODAY]);
        let posts = ghost.posts();
        assert_eq!(posts.len(), 1, "{fault:?}: {}", printed(&out));
        out.code(0).stdout_has(&format!(
            "{KEY} ghost confirmed id={}",
            posts[0]["id"].as_str().unwrap()
        ));
        assert_eq!(ghost.state.lock().unwrap().create_requests, 1, "{fault:?}");
        // Found: its version is the copy's, so a later edit can be sent.
        assert_eq!(
            field(&p, "version").as_deref(),
            posts[0]["updated_at"].as_str()
        );
        p.run(&["run", TODAY]).code(0);
        assert_eq!(ghost.posts().len(), 1, "{fault:?}");
    }
}

/// The answer is lost and the lookups fail (503): the next run looks again by itself (75). The
/// title is edited meanwhile; the post is still found by the key's slug and the words sent.
#[test]
fn a_failed_lookup_is_looked_again_and_a_retitled_post_is_found() {
    let ghost = FakeGhost::start();
    {
        let mut s = ghost.state.lock().unwrap();
        s.faults.push_back(Fault::CommitHang);
        s.lookups_fail = Some(503);
    }
    let p = project(&ghost, "");
    let out = p.run(&["run", TODAY]);
    out.code(75).stdout_has("the next run looks again");
    let line = &p.state_lines("ghost")[0];
    assert!(line.contains("sent=maybe"), "{line}");
    assert_eq!(ghost.posts().len(), 1);

    p.file(
        &format!("content/{KEY}.md"),
        "# A better title\n\nFirst *paragraph* & more.\n",
    );
    ghost.state.lock().unwrap().lookups_fail = None;
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("confirmed id=");
    let posts = ghost.posts();
    assert_eq!(posts.len(), 1, "{}", printed(&out));
    assert_eq!(posts[0]["slug"], SLUG, "found at the old title's slug");
    assert_eq!(ghost.state.lock().unwrap().create_requests, 1);
    assert_eq!(p.statuses("ghost"), [format!("{KEY} done")]);
}

/// A post made by hand at the key's place with other words is not this post: never `done`,
/// named; `retry --not-ours` publishes beside it (Ghost makes the slug `-2`).
#[test]
fn a_hand_made_post_at_the_keys_slug_is_not_ours() {
    let ghost = FakeGhost::start();
    let hand = ghost.seed(
        SLUG,
        "Why the Date is the Key",
        "<p>Other words.</p>",
        "2026-11-29T09:00:00.000Z",
    );
    let hand_id = hand["id"].as_str().unwrap();
    let p = project(&ghost, "");
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("is not this post")
        .stdout_has(hand_id);
    assert_eq!(ghost.state.lock().unwrap().create_requests, 0);
    assert!(p.state_lines("ghost")[0].contains(" failed "));

    p.run(&["retry", KEY, "--not-ours", hand_id])
        .code(0)
        .stdout_has("published");
    let posts = ghost.posts();
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[1]["slug"], format!("{SLUG}-2"));
    assert_eq!(field(&p, "foreign").as_deref(), Some(hand_id));
    assert_eq!(posts[0]["html"], "<p>Other words.</p>", "never touched");
    p.run(&["run", TODAY]).code(0);
    assert_eq!(ghost.posts().len(), 2);
}

/// Two copies of this post, the second made by hand with the same words (`-2`): a duplicate,
/// both named, nothing sent.
#[test]
fn a_hand_made_copy_with_the_same_words_is_a_duplicate() {
    let ghost = FakeGhost::start();
    let html = "<p>First <em>paragraph</em> &amp; more.</p>\n";
    let first = ghost.seed(
        SLUG,
        "Why the Date is the Key",
        html,
        "2026-11-29T09:00:00.000Z",
    );
    let copy = ghost.seed(
        SLUG,
        "Why the Date is the Key",
        html,
        "2026-11-29T09:05:00.000Z",
    );
    assert_eq!(copy["slug"], format!("{SLUG}-2"));
    let p = project(&ghost, "");
    let out = p.run(&["run", TODAY]);
    out.code(1);
    let text = printed(&out);
    let line = text
        .lines()
        .find(|l| l.contains("DUPLICATE"))
        .unwrap_or_else(|| panic!("{text}"));
    for post in [&first, &copy] {
        assert!(line.contains(post["id"].as_str().unwrap()), "{line}");
    }
    assert_eq!(ghost.state.lock().unwrap().create_requests, 0);
    assert_eq!(field(&p, "id").as_deref(), first["id"].as_str());
}

/// The post was edited on Ghost since dayrun wrote it: Ghost answers 409 to the `updated_at`
/// dayrun sends, the edit is refused with advice, and the hand edit stays. Following the
/// advice sends the file.
#[test]
fn a_hand_edit_on_ghost_is_never_overwritten() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    p.run(&["run", TODAY]).code(0);
    let id = ghost.posts()[0]["id"].as_str().unwrap().to_string();
    ghost.edit_by_hand(&id, "Edited on Ghost");
    p.file(
        &format!("content/{KEY}.md"),
        "# Why the Date is the Key\n\nEdited in the file.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("409 UpdateCollisionError")
        .stdout_has("nothing was overwritten")
        .stdout_has(&format!("dayrun retry {KEY} --force --target ghost"));
    assert_eq!(ghost.posts()[0]["title"], "Edited on Ghost");
    let requests = ghost.state.lock().unwrap().update_requests;
    p.run(&["run", TODAY]);
    assert_eq!(
        ghost.state.lock().unwrap().update_requests,
        requests,
        "not sent again"
    );

    let current = ghost.posts()[0]["updated_at"].as_str().unwrap().to_string();
    assert!(
        printed(&out).contains(&format!("version={current}")),
        "{}",
        printed(&out)
    );
    let state = p.read("state/ghost.state");
    let old = field(&p, "version").unwrap();
    p.file(
        "state/ghost.state",
        state.replace(&format!("version={old}"), &format!("version={current}")),
    );
    p.run(&["retry", KEY, "--force", "--target", "ghost"])
        .code(0)
        .stdout_has("updated");
    assert_eq!(ghost.posts()[0]["html"], "<p>Edited in the file.</p>");
    assert_eq!(
        field(&p, "version").as_deref(),
        ghost.posts()[0]["updated_at"].as_str()
    );
}

/// A line without a version (`mark done --id`): dayrun cannot tell a hand edit from its own,
/// so it sends no update.
#[test]
fn an_update_without_a_recorded_version_sends_nothing() {
    let ghost = FakeGhost::start();
    let hand = ghost.seed(
        SLUG,
        "Why the Date is the Key",
        "<p>Old words.</p>",
        "2026-11-29T09:00:00.000Z",
    );
    let p = project(&ghost, "");
    p.run(&[
        "mark",
        KEY,
        "done",
        "--id",
        hand["id"].as_str().unwrap(),
        "--target",
        "ghost",
    ])
    .code(0);
    // The first run records what the file holds as published, sending nothing.
    p.run(&["run", TODAY]).code(0);
    p.file(
        &format!("content/{KEY}.md"),
        "# Why the Date is the Key\n\nNew words.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(1)
        .stdout_has("no record of the version it last wrote");
    assert_eq!(ghost.state.lock().unwrap().update_requests, 0);
    assert_eq!(ghost.posts()[0]["html"], "<p>Old words.</p>");
}

/// The update landed but its answer was lost: the copy is read back, the edit found, and the
/// copy's new version recorded, so the next edit goes through.
#[test]
fn a_lost_update_answer_is_read_back_and_the_next_edit_goes_through() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    p.run(&["run", TODAY]).code(0);
    ghost
        .state
        .lock()
        .unwrap()
        .update_faults
        .push_back(Fault::CommitHang);
    p.file(
        &format!("content/{KEY}.md"),
        "# Why the Date is the Key\n\nSecond version.\n",
    );
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    assert_eq!(ghost.state.lock().unwrap().update_requests, 1);
    assert_eq!(
        field(&p, "version").as_deref(),
        ghost.posts()[0]["updated_at"].as_str()
    );
    p.file(
        &format!("content/{KEY}.md"),
        "# Why the Date is the Key\n\nThird version.\n",
    );
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    assert_eq!(ghost.posts()[0]["html"], "<p>Third version.</p>");
}

#[test]
fn a_wrong_key_exits_3_naming_the_file_and_never_prints_the_secret() {
    let ghost = FakeGhost::start();
    ghost.state.lock().unwrap().secret = "00".repeat(32);
    let p = project(&ghost, "");
    let out = p.run(&["run", TODAY]);
    out.code(3)
        .stdout_has("HTTP 401")
        .stdout_has("secrets/ghost.key")
        .stdout_has("invalid signature");
    assert!(ghost.posts().is_empty());
    assert!(p.state_lines("ghost")[0].contains("class=auth"));
    assert!(!printed(&out).contains(SECRET) && !p.read("state/ghost.log").contains(SECRET));
    p.run(&["run", TODAY]).code(3);

    p.secret("secrets/ghost.key", "0123456789abcdef01234567\n");
    let out = p.run(&["run", TODAY]);
    out.code(2);
    let text = printed(&out);
    assert!(
        text.contains("secrets/ghost.key") && text.contains("Content API key"),
        "{text}"
    );
}

#[test]
fn the_cover_is_the_feature_image_with_its_alt_and_body_images_keep_theirs() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    p.file(
        "content/images/cover.jpg",
        pics::plain_jpeg(40, 30, [200, 30, 30]),
    );
    p.file("content/images/a.png", pics::png_with_text());
    p.file(
        &format!("content/{KEY}.md"),
        "---\nimage: images/cover.jpg\nimage_alt: \"The cover\"\n---\n# Pictures\n\nA day.\n\n![A red square](images/a.png)\n",
    );
    p.run(&["run", TODAY]).code(0);
    let (post, images) = {
        let s = ghost.state.lock().unwrap();
        (s.posts[0].clone(), s.images.clone())
    };
    assert_eq!(images.len(), 2);
    let cover = images.iter().find(|(u, _)| u.contains("/cover-")).unwrap();
    assert_eq!(post["feature_image"].as_str(), Some(cover.0.as_str()));
    assert_eq!(post["feature_image_alt"], "The cover");
    let body = images.iter().find(|(u, _)| u.contains("/a-")).unwrap();
    let html = post["html"].as_str().unwrap();
    assert!(
        html.contains(&format!("src=\"{}\"", body.0)) && html.contains("alt=\"A red square\""),
        "{html}"
    );
    assert!(!ghost.state.lock().unwrap().newsletter_asked);
}

#[test]
fn retract_deletes_the_post_and_checks_it_is_gone() {
    let ghost = FakeGhost::start();
    let p = project(&ghost, "");
    p.run(&["run", TODAY]).code(0);
    let id = ghost.posts()[0]["id"].as_str().unwrap().to_string();
    p.run(&["retract", KEY, "--yes"])
        .code(0)
        .stdout_has(&format!("{KEY} ghost retracted id={id}"));
    assert!(ghost.posts().is_empty());
    assert_eq!(p.statuses("ghost"), [format!("{KEY} retracted")]);
    assert!(
        ghost
            .state
            .lock()
            .unwrap()
            .log
            .iter()
            .any(|l| l.starts_with(&format!("GET /ghost/api/admin/posts/{id}/"))),
        "verified by a read"
    );
}

/// A busy week: a hundred other posts dated around the key fill the first page of the lookup;
/// the copy whose answer was lost is on the second, and is found there, not sent again.
#[test]
fn a_copy_on_the_lookups_second_page_is_found() {
    let ghost = FakeGhost::start();
    for n in 0..100 {
        ghost.seed(
            &format!("another-post-{n}"),
            &format!("Another post {n}"),
            "<p>Other words.</p>",
            "2026-11-28T10:00:00.000Z",
        );
    }
    ghost
        .state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::CommitHang);
    let p = project(&ghost, "");
    let out = p.run(&["run", "--today=2026-12-01", "--key", KEY]);
    out.code(0).stdout_has("confirmed id=");
    assert_eq!(ghost.posts().len(), 101, "{}", printed(&out));
    let s = ghost.state.lock().unwrap();
    assert_eq!(s.create_requests, 1);
    assert!(
        s.log.iter().any(|l| l.contains("page=2")),
        "the lookup read the second page: {:?}",
        s.log
    );
}
