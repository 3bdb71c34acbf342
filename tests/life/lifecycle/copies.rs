//! Rows 5, 6 and 9: every live copy's id stays on the line until a retract removes it, the
//! retract works from the line alone, and `merge-state` drops no id, nor an attempt that may
//! have made one.

use super::{KEY, at, blog, field, line_of, morning, printed};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::support::util::{Project, bare};

/// An http target `blog` that retracts with `DELETE /posts/{id}`, and `KEY` published (p-1).
fn published(api: &PostsApi) -> Project {
    let p = blog(api, &api.delete_url());
    morning(&p, &at(KEY, "07:00"), &[])
        .code(0)
        .stdout_has(&format!("{KEY} blog published id=p-1"));
    p
}

/// The ids the fake removed, sorted.
fn removed(api: &PostsApi) -> Vec<String> {
    let mut ids: Vec<String> = api.removed().into_iter().map(|p| p.id).collect();
    ids.sort();
    ids
}

#[test]
fn row_05_retract_after_the_post_file_was_deleted_removes_the_copy() {
    let api = PostsApi::start();
    let p = published(&api);
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    p.run_at(&at(KEY, "09:00"), &["retract", KEY, "--yes"])
        .code(0)
        .stdout_has(&format!("{KEY} blog retracted id=p-1"));
    assert_eq!(removed(&api), ["p-1"]);
    assert_eq!(api.commits_of(KEY), 0, "still on the server");
    assert_eq!(p.statuses("blog"), [format!("{KEY} retracted")]);
    morning(&p, &at(KEY, "10:00"), &[]).code(0);
    assert_eq!(api.state.lock().unwrap().post_times.len(), 1);
}

/// What a test of row 6 sees of a target: its project with `KEY` published as `ids[0]`, the
/// id its second copy gets, how many copies of the key it holds, and how many removals it got.
struct Site<'a> {
    p: Project,
    target: &'a str,
    ids: [&'a str; 2],
    live: &'a dyn Fn() -> usize,
    removals: &'a dyn Fn() -> usize,
}

/// `retry --force --new`, then `retract`: both copies go in one retract, which finishes; a
/// retract that then removes nothing says so and fails.
fn second_copy_then_retract(site: &Site) {
    let (p, target, [first, second]) = (&site.p, site.target, site.ids);
    p.run_at(&at(KEY, "08:00"), &["retry", KEY, "--force", "--new"])
        .code(0)
        .stdout_has(&format!("{KEY} {target} published id={second}"));
    assert_eq!((site.live)(), 2, "{target}: no second copy");
    // The first copy is live too: its id stays, apart from `copies=` (which means duplicates).
    let line = line_of(p, target, KEY);
    assert_eq!(field(&line, "id").as_deref(), Some(second), "{line}");
    assert_eq!(field(&line, "older").as_deref(), Some(first), "{line}");
    assert_eq!(field(&line, "copies"), None, "{line}");
    // One retract removes both and finishes.
    let out = p.run_at(&at(KEY, "09:00"), &["retract", KEY, "--yes"]);
    out.code(0)
        .stdout_has(&format!("{KEY} {target} retracted id={second}"));
    assert_eq!((site.live)(), 0, "{target}: a copy is still there");
    let line = line_of(p, target, KEY);
    assert!(
        line.contains(" retracted ") && field(&line, "older").is_none(),
        "{line}"
    );
    // A retract that removes nothing says so, and fails.
    let removals = (site.removals)();
    let out = p.run_at(&at(KEY, "10:00"), &["retract", KEY, "--yes"]);
    assert_ne!(out.code, 0, "{}", printed(&out));
    out.stderr_has("nothing was retracted");
    assert_eq!((site.removals)(), removals);
}

#[test]
fn row_06_retract_after_a_second_copy_removes_both_from_mastodon() {
    let api = FakeMastodon::start(500);
    let p = Project::new();
    p.file("dayrun.toml", api.config("settle_secs = 0"));
    p.secret("secrets/masto.token", fake_mastodon::TOKEN);
    p.post(KEY, "Today");
    morning(&p, &at(KEY, "07:00"), &[])
        .code(0)
        .stdout_has(&format!("{KEY} masto published id=110000"));
    second_copy_then_retract(&Site {
        p,
        target: "masto",
        ids: ["110000", "110001"],
        live: &|| api.statuses().len(),
        removals: &|| api.state.lock().unwrap().delete_requests,
    });
}

#[test]
fn row_06_retract_after_a_second_copy_removes_both_from_an_http_endpoint() {
    let api = PostsApi::start();
    second_copy_then_retract(&Site {
        p: published(&api),
        target: "blog",
        ids: ["p-1", "p-2"],
        live: &|| api.commits_of(KEY),
        removals: &|| api.delete_requests(),
    });
    assert_eq!(removed(&api), ["p-1", "p-2"]);
}

/// Run `dayrun merge-state O A B state/blog.state` as git does, in `p`: the exit code, what
/// it printed and the merged text.
/// Runner B beside `a`, from an empty state: its target cannot look posts up (no `list_url`),
/// so its line says what B sent and that it may have landed.
fn blind(api: &PostsApi, a: &Project) -> Project {
    let b = blog(api, &api.delete_url());
    let config = a.read("dayrun.toml");
    let blind: Vec<&str> = (config.lines())
        .filter(|l| !l.starts_with("list_url"))
        .collect();
    b.file("dayrun.toml", blind.join("\n"));
    b
}

fn merge(p: &Project, o: &str, a: &str, b: &str) -> (crate::support::util::Output, String) {
    p.file("m/O", o).file("m/A", a).file("m/B", b);
    let files = ["m/O", "m/A", "m/B"].map(|f| p.path(f).to_str().unwrap().to_string());
    let mut args = vec!["merge-state"];
    args.extend(files.iter().map(String::as_str));
    args.push("state/blog.state");
    let out = bare(&p.root, &args);
    (out, p.read("m/A"))
}

#[test]
fn row_09_merge_state_keeps_both_ids_of_one_copy_and_reports_them_but_not_older_copies() {
    let p = Project::new();
    let o = "# dayrun state format 2\n2026-11-28 done 2026-11-28T07:00:00+00:00 id=5\n";
    // One machine is updating copy 7 while the other recorded copy 9 of the same key.
    let updating = format!("{o}{KEY} pending 2026-11-29T09:00:00+00:00 op=update id=7\n");
    let done = format!("{o}{KEY} done 2026-11-29T07:00:00+00:00 id=9\n");
    for (ours, theirs) in [(&updating, &done), (&done, &updating)] {
        let (out, merged) = merge(&p, o, ours, theirs);
        let line = merged.lines().find(|l| l.starts_with(KEY)).unwrap();
        let mut ids = [field(line, "id"), field(line, "copies")];
        ids.sort();
        assert_eq!(ids, [Some("7".into()), Some("9".into())], "{line}");
        out.code(1)
            .stderr_has(&format!("{KEY} holds two copies: ids 7 and 9"));
    }
    // An earlier generation's copy is history: kept (`older=`), not reported as a duplicate.
    let second = format!("{o}{KEY} done 2026-11-29T10:00:00+00:00 id=9 generation=1\n");
    let first = format!("{o}{KEY} done 2026-11-29T07:00:00+00:00 id=7\n");
    for (ours, theirs) in [(&second, &first), (&first, &second)] {
        let (out, merged) = merge(&p, o, ours, theirs);
        out.code(0);
        assert_eq!(out.stderr, "");
        let line = merged.lines().find(|l| l.starts_with(KEY)).unwrap();
        assert_eq!(field(line, "id").as_deref(), Some("9"), "{line}");
        assert_eq!(field(line, "older").as_deref(), Some("7"), "{line}");
        assert_eq!(field(line, "copies"), None, "{line}");
    }
}

/// Runner A published and then retracted the key; runner B, from the state before, sent it
/// too (p-2) and never heard back. A's retract took back the copy A knew: the merge keeps B's
/// attempt beside the retracted line, the next run looks, finds p-2 and records it (nothing
/// sent), and `retract` removes it. Before, the merge dropped B's attempt and p-2 stayed live
/// on no line.
#[test]
fn row_09_a_retract_merged_with_the_other_sides_attempt_leaves_no_copy_on_no_line() {
    let api = PostsApi::start();
    let a = published(&api);
    let before = a.read("state/blog.state");
    a.run_at(&at(KEY, "08:00"), &["retract", KEY, "--yes"])
        .code(0);
    // B sends after A's retract; p-2 commits and B never hears back.
    let b = blind(&api, &a);
    api.faults(&[Fault::CommitHang]);
    morning(&b, &at(KEY, "08:30"), &[]).code(1);
    assert_eq!(api.commits_of(KEY), 1, "p-2 is out");
    let theirs = b.read("state/blog.state");
    assert!(theirs.contains(" sent=maybe"), "{theirs}");
    let ours = a.read("state/blog.state");
    let (out, merged) = merge(&a, &before, &ours, &theirs);
    out.code(0);
    let line = merged.lines().find(|l| l.starts_with(KEY)).unwrap();
    assert!(
        line.contains(" retracted ") && line.contains(" sent=maybe"),
        "{line}"
    );
    a.file("state/blog.state", &merged);
    a.run_at(&at(KEY, "09:00"), &["run", "--dry-run"])
        .stdout_has("retracted; another runner's attempt of this copy may have landed");
    a.run_at(&at(KEY, "09:00"), &["run"])
        .code(1)
        .stderr_has("DUPLICATE: the target holds copies of this retracted post (ids p-2)");
    let line = line_of(&a, "blog", KEY);
    assert_eq!(field(&line, "copies").as_deref(), Some("p-2"), "{line}");
    assert_eq!(field(&line, "sent"), None, "{line}");
    assert_eq!(api.commits_of(KEY), 1, "nothing sent: p-2 is B's");
    a.run_at(&at(KEY, "10:00"), &["retract", KEY, "--yes"])
        .code(0);
    assert_eq!(removed(&api), ["p-1", "p-2"]);
    assert_eq!(api.commits_of(KEY), 0);
}

/// Runner A published the key (p-1); runner B, from the state before, sent it too (p-2) and
/// never heard back. The merge keeps B's attempt beside A's done line (`sent=maybe`), and then
/// the post's file is deleted. The next run looks for copies beside p-1 all the same ("run,
/// post gone" in docs/life-of-a-key.md's `done sent=maybe (merged)`): it finds p-2 and records
/// it (DUPLICATE, exit 1), as its dry run and `status` said it would, and `retract` removes
/// both. Before, a run walked no done key whose post is gone: `sent=maybe` stayed on the line
/// for ever, every run exited 0, and p-2 was out on no line that a retract would take back.
#[test]
fn row_09_a_merged_attempt_is_looked_for_after_the_post_file_was_deleted() {
    let api = PostsApi::start();
    let a = published(&api);
    // B runs from the state before A's publish.
    let b = blind(&api, &a);
    api.faults(&[Fault::CommitHang]);
    morning(&b, &at(KEY, "07:30"), &[]).code(1);
    assert_eq!(api.commits_of(KEY), 2, "p-2 is out too");
    let theirs = b.read("state/blog.state");
    assert!(theirs.contains(" sent=maybe"), "{theirs}");
    let (out, merged) = merge(&a, "", &a.read("state/blog.state"), &theirs);
    out.code(0);
    let line = merged.lines().find(|l| l.starts_with(KEY)).unwrap();
    assert!(
        line.contains(" done ") && line.contains(" sent=maybe"),
        "{line}"
    );
    a.file("state/blog.state", &merged);
    std::fs::remove_file(a.path(&format!("content/{KEY}.md"))).unwrap();
    // Its dry run says the look, and `status` exits as the state implies (nothing more is
    // known to be out yet).
    a.run_at(&at(KEY, "09:00"), &["run", "--dry-run"])
        .code(0)
        .stdout_has(&format!(
            "{KEY} blog confirm published; another runner's attempt of this copy may have landed too: would look on the target for further copies"
        ));
    a.run_at(&at(KEY, "09:00"), &["status"])
        .code(0)
        .stdout_has("DELETED: the post's file is gone");
    a.run_at(&at(KEY, "09:00"), &["run"]).code(1).stderr_has(
        "DUPLICATE: the target holds further copies of this post (ids p-2) beside id=p-1",
    );
    let line = line_of(&a, "blog", KEY);
    assert_eq!(field(&line, "id").as_deref(), Some("p-1"), "{line}");
    assert_eq!(field(&line, "copies").as_deref(), Some("p-2"), "{line}");
    assert_eq!(field(&line, "sent"), None, "{line}");
    assert_eq!(api.commits_of(KEY), 2, "nothing sent: p-2 is B's");
    a.run_at(&at(KEY, "10:00"), &["retract", KEY, "--yes"])
        .code(0);
    assert_eq!(removed(&api), ["p-1", "p-2"]);
    assert_eq!(api.commits_of(KEY), 0);
}
