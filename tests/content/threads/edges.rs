//! Threads at the edges of a key's life, as an independent review of issue 24 tried them on
//! the strict Mastodon fake: templates that link to other copies, edits while a thread is cut
//! off, a target switched between `cut` and `thread`, parts with the same text, a lost state.
use super::{KEY, TODAY, field, kill_when, latest, long_body, write_post};
use crate::fakes::fake_mastodon::{FakeMastodon, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::util::Project;

const THREAD: &str = "long = \"thread\"\nvisibility = \"unlisted\"\nsettle_secs = 0";

/// A folder site with a URL, and a Mastodon thread whose template links to the site's copy.
#[test]
fn a_thread_whose_template_links_to_a_copy_is_sent_with_the_link() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    let masto = api.config(&format!(
        "{THREAD}\ntemplate = \"{{{{ title }}}} {{{{ copies.site.url }}}}\\n\\n{{{{ body }}}}\""
    ));
    p.file(
        "dayrun.toml",
        format!("[targets.site]\nkind = \"folder\"\ndir = \"public\"\nurl = \"https://blog.example.com/posts\"\n\n{masto}"),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY]).code(0);
    let texts = api.state.lock().unwrap().sent_texts.clone();
    assert!(
        !texts.is_empty(),
        "nothing sent; masto line: {:?}",
        latest(&p, "masto")
    );
    assert!(
        texts[0].contains("https://blog.example.com/posts/2026-11-29.html"),
        "{texts:#?}"
    );
}

/// Same, but the site fails first: the key must wait (retry-safe), nothing sent.
#[test]
fn a_thread_waits_for_the_copy_its_template_links_to() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    let masto = api.config(&format!(
        "{THREAD}\ntemplate = \"{{{{ title }}}} {{{{ copies.site.url }}}}\\n\\n{{{{ body }}}}\""
    ));
    p.file(
        "dayrun.toml",
        format!(
            "[targets.site]\nkind = \"command\"\nrun = [\"sh\", \"-c\", \"exit 75\"]\n\n{masto}"
        ),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY, "--dry-run"]);
    assert!(
        p.state_lines("masto").is_empty(),
        "a dry run writes nothing"
    );
    p.run(&["run", TODAY]).code(75).stdout_has("waiting");
    assert_eq!(api.state.lock().unwrap().post_requests, 0);
}

/// A kill between parts, then the post is edited, then the rest of the kept thread goes out.
/// The thread holds the OLD text; with on_edit = "update" the edit must not be forgotten.
#[test]
fn an_edit_made_while_a_thread_was_cut_off_is_still_an_edit_afterwards() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "on_edit = \"update\"");
    kill_after_two_parts(&api, &p);
    let line = latest(&p, "masto").unwrap();
    assert_eq!(
        field(&line, "parts").unwrap().split(',').count(),
        2,
        "{line}"
    );
    api.forget_idempotency_keys();
    // The writer fixes a word meanwhile (same length: same number of parts).
    p.file(
        "content/2026-11-29.md",
        format!(
            "# T\n\n{}",
            long_body().repeat(2).replace("decides", "chooses")
        ),
    );
    p.run(&["run", TODAY]).code(0);
    p.run(&["run", TODAY]).code(0).stdout_has("updated");
    let s = api.state.lock().unwrap();
    let stale: Vec<&String> = s
        .statuses
        .iter()
        .map(|st| &s.texts[st["id"].as_str().unwrap()])
        .filter(|t| t.contains("decides"))
        .collect();
    assert!(
        stale.is_empty(),
        "the thread keeps the text before the edit and dayrun says nothing: {} stale parts; line {:?}",
        stale.len(),
        latest(&p, "masto")
    );
}

pub(super) fn slow_project(api: &FakeMastodon, extra: &str) -> Project {
    let p = Project::new();
    let config = api
        .config(&format!("{THREAD}\n{extra}\n"))
        .replace("\ntimeout_secs = 0.3\n", "\ntimeout_secs = 30\n");
    p.file("dayrun.toml", config);
    p.secret("secrets/masto.token", TOKEN);
    p.file(
        "content/2026-11-29.md",
        format!("# T\n\n{}", long_body().repeat(2)),
    );
    p
}

/// Parts 1 and 2 answered, part 3 stored but its answer held: the run is killed there, with
/// two parts on its line.
fn kill_after_two_parts(api: &FakeMastodon, p: &Project) {
    api.state.lock().unwrap().hang = std::time::Duration::from_secs(15);
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::Normal, Fault::CommitHang]);
    kill_when(p, || api.state.lock().unwrap().post_requests == 3);
}

/// Part 3 meets a 429 whose Retry-After is past the cap: the run stops the thread there.
pub(super) fn rate_limit_part_3(api: &FakeMastodon) {
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::Normal, Fault::RateLimit(600)]);
}

/// Killed while part 3's answer is lost (part 3 is stored on the instance), then retracted: a
/// pending thread is refused (its last part is unconfirmed), saying the copies are still there,
/// never that there are none; once a run has looked it up and finished, retract removes all.
#[test]
fn a_retract_of_a_thread_cut_off_mid_send_waits_for_the_run_then_removes_every_part() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "");
    kill_after_two_parts(&api, &p);
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.run(&["retract", KEY, "--yes"])
        .code(1)
        .stdout_has("`dayrun run` looks it up first")
        .stderr_has("nothing was retracted: the copies dayrun knows of are still there");
    assert!(!api.statuses().is_empty());
    api.state.lock().unwrap().hang = std::time::Duration::ZERO;
    p.run(&["run", TODAY]).code(0);
    p.run(&["retract", KEY, "--yes"]).code(0);
    assert!(api.statuses().is_empty(), "left: {:?}", api.statuses());
}

/// Part 3 meets a 429 whose Retry-After is past the cap: the next run resumes the thread.
#[test]
fn a_rate_limit_mid_thread_resumes_the_kept_parts() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "");
    rate_limit_part_3(&api);
    p.run(&["run", TODAY]).code(75);
    // Edit meanwhile, so a fresh split would differ.
    p.file(
        "content/2026-11-29.md",
        format!(
            "# T\n\n{}",
            long_body().repeat(2).replace("decides", "chooses")
        ),
    );
    p.run(&["run", TODAY]).code(0);
    let s = api.state.lock().unwrap();
    let roots = s
        .statuses
        .iter()
        .filter(|st| st["in_reply_to_id"].is_null())
        .count();
    assert_eq!(roots, 1, "one thread");
    let mut texts: Vec<&String> = s
        .statuses
        .iter()
        .map(|st| &s.texts[st["id"].as_str().unwrap()])
        .collect();
    let n = texts.len();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), n, "no part twice");
    let mixed =
        texts.iter().any(|t| t.contains("decides")) && texts.iter().any(|t| t.contains("chooses"));
    assert!(!mixed, "half old, half new: {texts:#?}");
}

/// A copy published as one status (long = "cut"), then the target switched to threads, then a
/// small edit of a short post that fits in one part: it should update in place.
#[test]
fn a_post_published_before_long_thread_is_edited_in_place_as_one_part() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("settle_secs = 0\non_edit = \"update\"\n"),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Short", "A short body.");
    p.run(&["run", TODAY]).code(0);
    p.file(
        "dayrun.toml",
        api.config(&format!("{THREAD}\non_edit = \"update\"\n")),
    );
    write_post(&p, "Short", "A short body, fixed.");
    let out = p.run(&["run", TODAY]);
    assert_eq!(out.code, 0);
    out.stdout_has("updated");
    let s = api.state.lock().unwrap();
    assert_eq!(s.statuses.len(), 1, "still one status");
    let id = s.statuses[0]["id"].as_str().unwrap();
    assert!(
        s.texts[id].contains("fixed"),
        "edited in place: {}",
        s.texts[id]
    );
}

/// A thread, then the target switched back to long = "cut", then an edit: one post cannot
/// replace a thread in place, so the edit is refused whole (rejected, exit 1, nothing changed),
/// never part 1 replaced and the rest left with the old body.
#[test]
fn a_thread_edited_after_the_target_went_back_to_cut_is_refused_whole() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(&format!("{THREAD}\non_edit = \"update\"\n")),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY]).code(0);
    let n = api.statuses().len();
    assert!(n >= 2);
    p.file(
        "dayrun.toml",
        api.config("settle_secs = 0\non_edit = \"update\"\n"),
    );
    write_post(
        &p,
        "Why the date is the key",
        &long_body().replace("decides", "chooses"),
    );
    p.run(&["run", TODAY])
        .code(1)
        .stdout_has("the copy is a thread of");
    let s = api.state.lock().unwrap();
    let texts: Vec<&String> = s
        .statuses
        .iter()
        .map(|st| &s.texts[st["id"].as_str().unwrap()])
        .collect();
    let old = texts.iter().filter(|t| t.contains("decides")).count();
    assert!(
        !(s.edit_requests > 0 && old > 0),
        "half old half new, exit 0: {texts:#?}"
    );
}

/// numbering = false and a refrain: parts 2 and 3 have the same text. Part 3's request is
/// lost before the instance stores it; the lookup must not take part 2 for part 3.
#[test]
fn a_lost_part_is_not_mistaken_for_an_earlier_part_with_the_same_text() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(&format!("{THREAD}\nnumbering = false\n")),
    );
    p.secret("secrets/masto.token", TOKEN);
    let a = "Alpha sentence about the morning run and what it does. ".repeat(6);
    let b = "Refrain: the date is the key and nothing else decides. ".repeat(6);
    let c = "Closing words about the evening and the state file. ".repeat(6);
    write_post(&p, "T", &format!("{a}\n\n{b}\n\n{b}\n\n{c}"));
    api.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::Normal, Fault::Hang]);
    // Part 3 is lost; the lookup finds only part 2's status with its text: part 3 is absent,
    // sent again in the run.
    p.run(&["run", TODAY])
        .code(0)
        .stdout_has("published id=110000")
        .stdout_has("4 parts");
    p.run(&["run", TODAY]).code(0);
    let s = api.state.lock().unwrap();
    let chain: Vec<String> = s
        .statuses
        .iter()
        .map(|st| {
            format!(
                "{} ->{} {:.30}",
                st["id"],
                st["in_reply_to_id"],
                s.texts[st["id"].as_str().unwrap()]
            )
        })
        .collect();
    assert_eq!(s.statuses.len(), 4, "every part out once: {chain:#?}");
}

/// The state folder is lost after a whole thread went out (a fresh clone, a wiped disk); an hour
/// later (idempotency keys forgotten) the run looks up part 1 and finds it: the replies must
/// not be sent a second time.
#[test]
fn a_lost_state_folder_does_not_send_the_replies_again() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file("dayrun.toml", api.config(THREAD));
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY]).code(0);
    let n = api.statuses().len();
    assert!(n >= 2);
    std::fs::remove_dir_all(p.path("state")).unwrap();
    api.forget_idempotency_keys();
    p.run(&["run", TODAY]).code(0);
    let s = api.state.lock().unwrap();
    assert_eq!(
        s.statuses.len(),
        n,
        "replies sent again: {} statuses, was {n}",
        s.statuses.len()
    );
}

/// A thread half out (a 429 past the cap at part 3), then the next run comes after the catch-up
/// window: the half thread must not be left silently.
#[test]
fn a_half_thread_past_the_catch_up_window_can_still_be_retracted() {
    let api = FakeMastodon::start(500);
    let p = slow_project(&api, "");
    rate_limit_part_3(&api);
    p.run(&["run", TODAY]).code(75);
    for day in ["--today=2026-12-05", "--today=2026-12-20"] {
        p.run(&["run", day]);
    }
    p.run(&["status"]);
    p.run(&["retract", KEY, "--yes"]).code(0);
    assert!(api.statuses().is_empty(), "left: {}", api.statuses().len());
}

#[test]
fn a_dry_run_of_a_post_over_max_parts_writes_nothing() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config(&format!("{THREAD}\nmax_parts = 1\n")),
    );
    p.secret("secrets/masto.token", TOKEN);
    write_post(&p, "Why the date is the key", &long_body());
    p.run(&["run", TODAY, "--dry-run"]);
    assert!(
        p.state_lines("masto").is_empty(),
        "{:?}",
        p.state_lines("masto")
    );
    assert!(latest(&p, "masto").is_none(), "{:?}", latest(&p, "masto"));
}
