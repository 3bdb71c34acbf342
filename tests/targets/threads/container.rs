//! The container on the key's line (issue 39): noted (`threads.container=`) the moment Threads
//! answers, before its publish is sent, and reused by a later attempt at the same send (a
//! later run) while it is young and ready; never for another copy, another text or another
//! part, never published twice, and a line without it behaves as before.

use super::{KEY, TODAY, counts, killed_at_publish, killed_at_publish_n, project};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_threads::FakeThreads;
use crate::support::util::{Project, hours_from_now};

/// The key's latest line: the journal's last one after a kill, else the state file's.
fn line(p: &Project) -> String {
    let key = format!("{KEY} ");
    let journal = match p.exists("state/th.journal") {
        true => p.read("state/th.journal"),
        false => String::new(),
    };
    let lines = journal.lines().map(str::to_string);
    (lines.rev().find(|l| l.starts_with(&key)))
        .or_else(|| {
            p.state_lines("th")
                .into_iter()
                .find(|l| l.starts_with(&key))
        })
        .unwrap_or_default()
}

/// The line's `threads.container=` (its id first).
fn container(p: &Project) -> Option<String> {
    let line = line(p);
    let field = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("threads.container="));
    field.map(str::to_string)
}

/// The status the fake gives container `id`.
fn status(api: &FakeThreads, id: &str) -> &'static str {
    api.state.lock().unwrap().containers[id].status
}

#[test]
fn a_published_container_is_never_published_again_by_the_next_run() {
    // The publish landed and the process died before its answer; the listing lags, so the
    // next run's lookup finds nothing. The container on the line says PUBLISHED: nothing is
    // published again, and the key waits for a lookup that shows the post.
    let api = FakeThreads::start();
    api.state.lock().unwrap().hide = true;
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::CommitHang);
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900001:")));
    let out = p.run(&["run", TODAY]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        counts(&api),
        (1, 1, 1),
        "one publish, one post\n{}",
        out.stdout
    );
    let read = api
        .state
        .lock()
        .unwrap()
        .requests
        .iter()
        .any(|r| r == "GET /v1.0/c17900001");
    assert!(read, "the container's status was read");
    api.state.lock().unwrap().hide = false;
    p.run(&["run", TODAY]).code(0).stdout_has("confirmed");
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn a_container_past_the_reuse_window_is_replaced_and_never_published() {
    // A day on by the run's clock: past the 23 hours a container is reused, though the fake
    // still calls it FINISHED (it would expire within the hour).
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    let out = p.run_at(&hours_from_now(24), &["run", TODAY]);
    out.code(0).stdout_has("published");
    assert_eq!(counts(&api), (2, 2, 1), "one new container, one post");
    assert_eq!(
        status(&api, "c17900001"),
        "FINISHED",
        "the old one never published"
    );
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900002:")));
}

#[test]
fn an_expired_container_is_replaced_by_the_next_run() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    // As Threads does with a container not published within 24 hours.
    let expired = "EXPIRED";
    (api.state
        .lock()
        .unwrap()
        .containers
        .get_mut("c17900001")
        .unwrap())
    .status = expired;
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (2, 2, 1), "one new container, one post");
    assert_eq!(status(&api, "c17900002"), "PUBLISHED");
}

#[test]
fn a_new_copy_never_uses_the_container_of_the_copy_before() {
    // Copy 0 is out, and its done line still names its container. `retry --force --new`
    // publishes copy 1, which starts with nothing of copy 0's: a container of its own.
    let api = FakeThreads::start();
    let p = project(&api, "");
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900001:")));
    let out = p.run(&["retry", KEY, "--force", "--new"]);
    out.code(0).stdout_has("published");
    assert_eq!(
        counts(&api),
        (2, 2, 2),
        "two copies, each its own container"
    );
    let line = line(&p);
    assert!(line.contains(" generation=1 "), "{line}");
    assert!(line.contains(" threads.container=c17900003:"), "{line}");
}

#[test]
fn a_container_kept_for_another_copy_is_not_used() {
    // A line of copy 1 that still holds copy 0's container (a hand edit, a merge): the
    // container names the copy it was made for, so copy 1 makes its own.
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    let journal = p.read("state/th.journal");
    let edited = journal.replace(" threads.container=", " generation=1 threads.container=");
    assert_ne!(edited, journal);
    p.file("state/th.journal", edited);
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (2, 2, 1));
    assert_eq!(
        status(&api, "c17900001"),
        "FINISHED",
        "copy 0's never published"
    );
}

#[test]
fn an_edited_post_does_not_publish_the_container_of_its_old_text() {
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    p.file(
        "content/2026-11-29.md",
        "---\ntags: [rust, ops]\n---\n# Why the date is the key\n\nOne key per day, edited.\n",
    );
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (2, 2, 1));
    assert_eq!(
        status(&api, "c17900001"),
        "FINISHED",
        "the old text never published"
    );
    assert!(api.texts()[0].contains("edited"), "{:?}", api.texts());
}

#[test]
fn a_line_written_before_containers_were_kept_behaves_as_before() {
    // Without `threads.container=` the rerun looks, finds nothing and makes a container of its
    // own (the one made before expires unseen): one post, as before.
    let api = FakeThreads::start();
    let p = project(&api, "");
    killed_at_publish(&api, &p, Fault::Hang);
    let journal = p.read("state/th.journal");
    let old: Vec<String> = (journal.lines())
        .map(|l| {
            let words = l
                .split(' ')
                .filter(|w| !w.starts_with("threads.container="));
            words.collect::<Vec<_>>().join(" ")
        })
        .collect();
    assert_ne!(old.join("\n") + "\n", journal);
    p.file("state/th.journal", old.join("\n") + "\n");
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (2, 2, 1));
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900002:")));
}

#[test]
fn a_kill_between_a_parts_container_and_its_publish_reuses_that_container() {
    // Part 1 is out; part 2's container is made and on the line, and the process dies at its
    // publish. The rerun looks for part 2, finds nothing, and publishes that container.
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"");
    let body = "A sentence that is long enough to matter here. ".repeat(25);
    p.file("content/2026-11-29.md", format!("# A long one\n\n{body}\n"));
    killed_at_publish_n(&api, &p, &[Fault::Normal, Fault::Hang]);
    assert_eq!(
        counts(&api),
        (2, 2, 1),
        "part 2's container made, its publish lost"
    );
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900003:")));
    p.run(&["run", TODAY]).code(0);
    let (containers, _, parts) = counts(&api);
    assert!(parts >= 3, "{parts} parts");
    assert_eq!(containers, parts, "one container per part");
    assert_eq!(status(&api, "c17900003"), "PUBLISHED");
    let s = api.state.lock().unwrap();
    let mut texts: Vec<&String> = s.posts.iter().map(|p| &p.1).collect();
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), parts, "each part once");
}

#[test]
fn an_image_container_still_processing_is_published_later_not_made_again() {
    let api = FakeThreads::start();
    api.state.lock().unwrap().processing = true;
    let p = project(&api, "image_base_url = \"https://blog.test/\"");
    p.file("content/2026-11-29.md", "# Pic\n\n![a cat](cat.png)\n");
    p.file(
        "content/cat.png",
        crate::support::image_gen::png_with_text(),
    );
    p.run(&["run", TODAY])
        .code(75)
        .stdout_has("still being processed");
    assert_eq!(counts(&api), (1, 0, 0), "one container, nothing published");
    assert!(container(&p).is_some_and(|c| c.starts_with("c17900001:")));
    api.state.lock().unwrap().processing = false;
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (1, 1, 1));
}

#[test]
fn a_part_that_says_what_the_part_before_said_has_a_container_of_its_own() {
    // Parts 2 and 3 have the same text (no numbering). The line still names part 2's
    // container, now published, when part 3 goes: a container holds its parent too, so part
    // 3 is not taken for part 2 (which would never send it: PUBLISHED).
    let api = FakeThreads::start();
    let p = project(&api, "long = \"thread\"\nnumbering = false");
    let same = "Same words again and again here. ".repeat(14);
    let body = format!("{same}\n\n{same}\n\n{same}");
    p.file("content/2026-11-29.md", format!("# T\n\n{body}\n"));
    p.run(&["run", TODAY]).code(0).stdout_has("published");
    assert_eq!(counts(&api), (3, 3, 3), "three parts, a container each");
    let s = api.state.lock().unwrap();
    assert_eq!(s.posts[0].1, s.posts[1].1, "parts 2 and 3 say the same");
}
