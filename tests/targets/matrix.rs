//! `kind = "matrix"` against the fake homeserver (`fake_matrix.rs`): one message per post, a
//! rerun that sends nothing, lost answers found by a resend with the same transaction id
//! within the window and by a read of the room after it (or under a new token), a copy that
//! is not ours, a wrong token (exit 3, the file named), an encrypted room refused before
//! anything is sent, an alias resolved once, a rate limit waited out, an edit read back, a
//! retract proven, and an image uploaded once.

use crate::fakes::fake_matrix::{ALIAS, FakeMatrix, ROOM, SECRET_ROOM, TOKEN};
use crate::fakes::fake_posts::Fault;
use crate::support::image_gen as pics;
use crate::support::util::{Output, Project, hours_from_now};
use serde_json::json;

const KEY: &str = "2026-11-29";
const TODAY: &str = "--today=2026-11-29";

fn project(mx: &FakeMatrix, room: &str, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", mx.config(room, extra));
    p.secret("secrets/matrix.token", format!("{TOKEN}\n"));
    p.file(
        &format!("content/{KEY}.md"),
        "---\ntags: [Rust]\n---\n# Why the Date is the Key\n\nFirst *paragraph* & more.\n",
    );
    p
}

fn printed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

/// The value of `name=` on the key's state line.
fn field(p: &Project, name: &str) -> Option<String> {
    let line = p
        .state_lines("room")
        .into_iter()
        .find(|l| l.starts_with(KEY))?;
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(&format!("{name}=")))
        .map(str::to_string)
}

#[test]
fn publishes_text_and_html_with_the_key_once_and_a_rerun_sends_nothing() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ALIAS, "");
    let out = p.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} room published id=$ev"));
    let posts = mx.posts(ROOM);
    assert_eq!(posts.len(), 1, "{posts:#?}");
    let content = &posts[0]["content"];
    assert_eq!(content["msgtype"], "m.text");
    assert_eq!(
        content["body"],
        "Why the Date is the Key\n\nFirst paragraph & more."
    );
    assert_eq!(content["format"], "org.matrix.custom.html");
    assert_eq!(
        content["formatted_body"],
        "<h2>Why the Date is the Key</h2>\n<p>First <em>paragraph</em> &amp; more.</p>\n"
    );
    assert_eq!(
        content["app.dayrun.key"],
        json!({"target": "room", "key": KEY, "generation": 0, "part": 0})
    );
    assert_eq!(content["m.mentions"], json!({}));
    assert!(content.get("dayrun.images").is_none());
    assert_eq!(field(&p, "id").as_deref(), posts[0]["event_id"].as_str());
    assert!(
        field(&p, "matrix.token").is_some(),
        "{:?}",
        p.state_lines("room")
    );

    let before = mx.state.lock().unwrap().log.len();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(
        mx.state.lock().unwrap().log.len(),
        before,
        "the rerun sent nothing"
    );
    assert_eq!(mx.posts(ROOM).len(), 1);
    assert!(!printed(&out).contains(TOKEN));
    assert!(!p.read("state/room.log").contains(TOKEN));
}

#[test]
fn a_lost_answer_is_resent_with_the_same_txn_id_and_the_room_holds_one() {
    for fault in [
        Fault::CommitHang,
        Fault::CommitClose,
        Fault::CommitStatus(502),
    ] {
        let mx = FakeMatrix::start();
        mx.state.lock().unwrap().faults.push_back(fault);
        let p = project(&mx, ROOM, "");
        let out = p.run(&["run", TODAY]);
        let posts = mx.posts(ROOM);
        assert_eq!(posts.len(), 1, "{fault:?}: {}", printed(&out));
        out.code(0).stdout_has(&format!(
            "{KEY} room confirmed id={}",
            posts[0]["event_id"].as_str().unwrap()
        ));
        let sends =
            mx.count("PUT /_matrix/client/v3/rooms/%21room1%3Alocalhost/send/m.room.message/");
        assert_eq!(sends, 2, "{fault:?}: the send, and the same one again");
        assert_eq!(mx.state.lock().unwrap().sends, 1, "{fault:?}");
        // One read of the room: the look before the first send (dedup); none after it.
        assert_eq!(
            mx.count("GET /_matrix/client/v3/rooms/%21room1%3Alocalhost/messages"),
            1
        );
        p.run(&["run", TODAY]).code(0);
        assert_eq!(mx.posts(ROOM).len(), 1, "{fault:?}");
    }
}

/// The answer is lost, the run dies (the 503 lookups, then the key stays pending), and the
/// next run comes past the window: the server has forgotten the transaction id, so a resend
/// would make a second event. The room is read back to the attempt, and the copy found.
#[test]
fn past_the_window_the_room_is_read_and_the_copy_found_not_resent() {
    let mx = FakeMatrix::start();
    {
        let mut s = mx.state.lock().unwrap();
        s.faults.push_back(Fault::CommitHang);
        s.faults.push_back(Fault::Reject(503));
        s.faults.push_back(Fault::Reject(503));
        s.faults.push_back(Fault::Reject(503));
        s.messages_fail = Some(503);
    }
    let p = project(&mx, ROOM, "");
    let out = p.run(&["run", TODAY]);
    out.code(75);
    assert!(
        p.state_lines("room")[0].contains("sent=maybe")
            || p.state_lines("room")[0].contains(" pending "),
        "{:?}",
        p.state_lines("room")
    );
    assert_eq!(mx.state.lock().unwrap().sends, 1);
    mx.forget_txns();
    mx.state.lock().unwrap().messages_fail = None;
    let out = p.run_at(&hours_from_now(2), &["run", TODAY]);
    out.code(0).stdout_has("confirmed id=$ev");
    assert_eq!(mx.posts(ROOM).len(), 1, "{}", printed(&out));
    assert_eq!(mx.state.lock().unwrap().sends, 1, "nothing sent again");
    assert!(mx.count("GET /_matrix/client/v3/rooms/%21room1%3Alocalhost/messages") >= 1);
}

/// Under a renewed token (another device), the old transaction id means nothing: the room is
/// read, not resent.
#[test]
fn a_renewed_token_reads_the_room_instead_of_resending() {
    let mx = FakeMatrix::start();
    mx.state.lock().unwrap().faults.extend([
        Fault::CommitHang,
        Fault::Reject(503),
        Fault::Reject(503),
        Fault::Reject(503),
    ]);
    mx.state.lock().unwrap().messages_fail = Some(503);
    let p = project(&mx, ROOM, "");
    p.run(&["run", TODAY]).code(75);
    mx.login("syt_second_token", "DEVICE2");
    p.secret("secrets/matrix.token", "syt_second_token\n");
    mx.state.lock().unwrap().messages_fail = None;
    let out = p.run(&["run", TODAY]);
    out.code(0).stdout_has("confirmed id=$ev");
    assert_eq!(mx.posts(ROOM).len(), 1, "{}", printed(&out));
    assert_eq!(mx.state.lock().unwrap().sends, 1);
}

/// A message at the key's place with another text is not this post: nothing is sent, and a
/// person is asked.
#[test]
fn a_message_with_the_key_and_another_text_is_not_ours() {
    let mx = FakeMatrix::start();
    {
        let mut s = mx.state.lock().unwrap();
        let content = json!({"msgtype": "m.text", "body": "someone else's",
            "app.dayrun.key": {"target": "room", "key": KEY, "generation": 0, "part": 0}});
        let now = s.now_ms;
        s.rooms.get_mut(ROOM).unwrap().push(json!({"event_id": "$hand", "type": "m.room.message",
            "sender": "@alice:localhost", "origin_server_ts": now - 3_600_000, "content": content, "unsigned": {}}));
    }
    let p = project(&mx, ROOM, "dedup = \"strict\"");
    let out = p.run(&["run", "--today=2026-11-29", "--backfill"]);
    out.code(1);
    assert!(printed(&out).contains("$hand"), "{}", printed(&out));
    assert_eq!(mx.state.lock().unwrap().sends, 0);
}

#[test]
fn a_wrong_token_exits_3_naming_the_file_and_sends_nothing() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ROOM, "");
    p.secret("secrets/matrix.token", "syt_not_a_token\n");
    let out = p.run(&["run", TODAY]);
    out.code(3);
    assert!(
        printed(&out).contains("secrets/matrix.token"),
        "{}",
        printed(&out)
    );
    assert!(
        printed(&out).contains("M_UNKNOWN_TOKEN"),
        "{}",
        printed(&out)
    );
    assert_eq!(mx.state.lock().unwrap().sends, 0);
    assert!(!printed(&out).contains("syt_not_a_token"));
}

#[test]
fn an_encrypted_room_is_refused_before_anything_is_sent() {
    let mx = FakeMatrix::start();
    let p = project(&mx, SECRET_ROOM, "");
    let out = p.run(&["run", TODAY]);
    out.code(2);
    assert!(
        printed(&out).contains("end-to-end encrypted"),
        "{}",
        printed(&out)
    );
    assert_eq!(mx.messages(SECRET_ROOM).len(), 0);
    assert_eq!(mx.count("PUT"), 0);
}

#[test]
fn an_alias_is_resolved_once_a_run() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ALIAS, "");
    for day in ["2026-11-27", "2026-11-28"] {
        p.post(day, &format!("Post of {day}"));
    }
    p.run(&["run", TODAY, "--backfill"]).code(0);
    assert_eq!(mx.posts(ROOM).len(), 3);
    assert_eq!(mx.count("GET /_matrix/client/v3/directory/room/"), 1);
    assert_eq!(
        mx.count("GET /_matrix/client/v3/rooms/%21room1%3Alocalhost/state/"),
        1
    );
    let unknown = project(&mx, "#nowhere:localhost", "");
    let out = unknown.run(&["run", TODAY]);
    out.code(2);
    assert!(
        printed(&out).contains("knows no room `#nowhere:localhost`"),
        "{}",
        printed(&out)
    );
}

#[test]
fn a_rate_limit_is_waited_out_and_sent_once() {
    let mx = FakeMatrix::start();
    mx.state
        .lock()
        .unwrap()
        .faults
        .push_back(Fault::Reject(429));
    let p = project(&mx, ROOM, "");
    p.run(&["run", TODAY]).code(0).stdout_has("published id=");
    assert_eq!(mx.posts(ROOM).len(), 1);
}

#[test]
fn an_edit_is_an_m_replace_read_back_and_a_retract_a_redaction_proven() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ROOM, "on_edit = \"update\"");
    p.run(&["run", TODAY]).code(0);
    let id = mx.posts(ROOM)[0]["event_id"].as_str().unwrap().to_string();
    p.file(
        &format!("content/{KEY}.md"),
        "# Why the Date is the Key\n\nAn edited paragraph.\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0)
        .stdout_has(&format!("{KEY} room updated id={id}"));
    let messages = mx.messages(ROOM);
    assert_eq!(messages.len(), 2, "{messages:#?}");
    let edit = &messages[1]["content"];
    assert_eq!(
        edit["m.relates_to"],
        json!({"rel_type": "m.replace", "event_id": id})
    );
    assert_eq!(
        edit["m.new_content"]["body"],
        "Why the Date is the Key\n\nAn edited paragraph."
    );
    assert_eq!(
        edit["body"],
        "* Why the Date is the Key\n\nAn edited paragraph."
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(mx.messages(ROOM).len(), 2, "the edit is sent once");

    let out = p.run(&["retract", KEY, "--yes"]);
    out.code(0)
        .stdout_has(&format!("{KEY} room retracted id={id}"));
    let original = &mx.messages(ROOM)[0];
    assert_eq!(original["content"], json!({}), "{original:#?}");
    assert!(original["unsigned"]["redacted_because"].is_object());
    assert_eq!(mx.posts(ROOM).len(), 0);
    let edit = &mx.messages(ROOM)[1];
    assert_eq!(
        edit["content"],
        json!({}),
        "the edit's text is redacted too: {edit:#?}"
    );
    assert_eq!(p.statuses("room"), [format!("{KEY} retracted")]);
}

#[test]
fn an_image_is_made_uploaded_once_and_sent_as_m_image_with_its_alt_text() {
    let mx = FakeMatrix::start();
    mx.state
        .lock()
        .unwrap()
        .upload_faults
        .push_back(Fault::CommitClose);
    let p = project(&mx, ROOM, "");
    p.file("content/cat.png", pics::png_with_text());
    p.file(
        &format!("content/{KEY}.md"),
        "# A cat\n\nLook:\n\n![A grey cat asleep](cat.png)\n",
    );
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let s = mx.state.lock().unwrap();
    assert_eq!(s.uploads, 1, "{}", printed(&out));
    assert_eq!(s.media.len(), 1, "one media id made: {:?}", s.log);
    drop(s);
    let posts = mx.posts(ROOM);
    assert_eq!(posts.len(), 2, "{posts:#?}");
    let image = &posts[0]["content"];
    assert_eq!(image["msgtype"], "m.image");
    assert_eq!(image["body"], "A grey cat asleep");
    assert!(
        image["url"]
            .as_str()
            .unwrap()
            .starts_with("mxc://localhost/")
    );
    assert_eq!(image["info"]["mimetype"], "image/png");
    assert_eq!(posts[1]["content"]["msgtype"], "m.text");
    assert!(
        !posts[1]["content"]["formatted_body"]
            .as_str()
            .unwrap()
            .contains("<img")
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(mx.posts(ROOM).len(), 2);
    p.run(&["retract", KEY, "--yes"]).code(0);
    assert_eq!(mx.posts(ROOM).len(), 0, "the image goes with the message");
}

/// A post of about 5,000 characters: three parts of at most 2,000.
fn long_post(p: &Project) {
    let para = |n: usize| format!("Paragraph {n} says something worth reading. ").repeat(20);
    let body: Vec<String> = (1..=6).map(para).collect();
    p.file(
        &format!("content/{KEY}.md"),
        format!("# A long post\n\n{}\n", body.join("\n\n")),
    );
}

#[test]
fn a_long_post_is_a_thread_each_part_once_even_after_a_lost_answer() {
    let mx = FakeMatrix::start();
    // The second part's answer is lost after the server stored it.
    mx.state
        .lock()
        .unwrap()
        .faults
        .extend([Fault::Normal, Fault::CommitClose]);
    let p = project(&mx, ROOM, "long = \"thread\"");
    long_post(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let posts = mx.posts(ROOM);
    assert!(posts.len() >= 3, "{}", printed(&out));
    let root = posts[0]["event_id"].as_str().unwrap();
    for (n, part) in posts.iter().enumerate() {
        let content = &part["content"];
        assert_eq!(content["app.dayrun.key"]["part"], n, "{content:#}");
        assert!(content["body"].as_str().unwrap().chars().count() <= 2000);
        if n == 0 {
            assert!(content["m.relates_to"].is_null());
            continue;
        }
        let relation = &content["m.relates_to"];
        assert_eq!(relation["rel_type"], "m.thread");
        assert_eq!(relation["event_id"], root);
        assert_eq!(relation["is_falling_back"], true);
        assert_eq!(
            relation["m.in_reply_to"]["event_id"],
            posts[n - 1]["event_id"],
            "part {n} replies to the part before it"
        );
    }
    let parts = posts.len();
    assert_eq!(
        mx.state.lock().unwrap().sends,
        parts,
        "each part stored once"
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(mx.posts(ROOM).len(), parts, "the rerun sends nothing");
}

#[test]
fn a_thread_cut_off_past_the_window_resumes_from_the_room_without_a_second_part() {
    let mx = FakeMatrix::start();
    {
        let mut s = mx.state.lock().unwrap();
        // Part 2 is stored, its answer lost, and the room cannot be read: the key stays
        // pending with the part unknown.
        s.faults.extend([Fault::Normal, Fault::CommitHang]);
        s.messages_fail = Some(503);
    }
    let p = project(&mx, ROOM, "long = \"thread\"\ndedup = false");
    long_post(&p);
    p.run(&["run", TODAY]).code(75);
    assert_eq!(mx.state.lock().unwrap().sends, 2);
    mx.forget_txns();
    mx.state.lock().unwrap().messages_fail = None;
    let out = p.run_at(&hours_from_now(2), &["run", TODAY]);
    out.code(0);
    let posts = mx.posts(ROOM);
    let parts: Vec<_> = posts
        .iter()
        .map(|e| e["content"]["app.dayrun.key"]["part"].clone())
        .collect();
    assert_eq!(parts, [json!(0), json!(1), json!(2)], "{}", printed(&out));
}

/// Synapse answers a transaction id it knows with its event, whatever was sent with it: a
/// post retracted and sent again (`retry --force`) must not reuse the first copy's id, or the
/// "new" message would be the redacted one.
#[test]
fn a_post_retracted_and_sent_again_is_a_new_message() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ROOM, "");
    p.run(&["run", TODAY]).code(0);
    p.run(&["retract", KEY, "--yes"]).code(0);
    let out = p.run(&["retry", KEY, "--force"]);
    out.code(0);
    let posts = mx.posts(ROOM);
    assert_eq!(
        posts.len(),
        1,
        "{}\n{:?}",
        printed(&out),
        p.state_lines("room")
    );
    assert_eq!(field(&p, "id").as_deref(), posts[0]["event_id"].as_str());
}

/// An edit back to an earlier text is an edit of its own (its transaction id is not the
/// earlier edit's).
#[test]
fn an_edit_back_to_an_earlier_text_is_sent() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ROOM, "on_edit = \"update\"");
    p.run(&["run", TODAY]).code(0);
    let text = |body: &str| format!("# Why the Date is the Key\n\n{body}\n");
    for body in ["Second.", "Third.", "Second."] {
        p.file(&format!("content/{KEY}.md"), text(body));
        p.run(&["run", TODAY]).code(0).stdout_has("updated id=");
    }
    let messages = mx.messages(ROOM);
    assert_eq!(messages.len(), 4, "{messages:#?}");
    let last = &messages[3]["content"]["m.new_content"]["body"];
    assert_eq!(last, "Why the Date is the Key\n\nSecond.");
}

#[test]
fn a_thread_is_retracted_part_by_part_and_edited_in_place() {
    let mx = FakeMatrix::start();
    let p = project(&mx, ROOM, "long = \"thread\"\non_edit = \"update\"");
    long_post(&p);
    p.run(&["run", TODAY]).code(0);
    let parts = mx.posts(ROOM).len();
    assert!(parts >= 3);
    let edited = std::fs::read_to_string(p.path(&format!("content/{KEY}.md")))
        .unwrap()
        .replace("Paragraph 1 says", "Paragraph one says");
    p.file(&format!("content/{KEY}.md"), edited);
    p.run(&["run", TODAY]).code(0).stdout_has("updated id=");
    let messages = mx.messages(ROOM);
    let edits = messages
        .iter()
        .filter(|e| e["content"]["m.relates_to"]["rel_type"] == "m.replace")
        .count();
    assert_eq!(edits, parts, "every part replaced in place");
    assert_eq!(mx.posts(ROOM).len(), parts);
    p.run(&["retract", KEY, "--yes"]).code(0);
    assert_eq!(mx.posts(ROOM).len(), 0, "{:#?}", mx.posts(ROOM));
}

/// A post deleted while its first send's outcome is unknown: the look that follows finds the
/// message the server stored; it never sends the deleted post anew.
#[test]
fn a_post_deleted_while_its_send_is_unknown_is_not_sent_by_the_lookup() {
    let mx = FakeMatrix::start();
    {
        let mut s = mx.state.lock().unwrap();
        // Nothing reaches the server, and every answer is lost: the key stays pending.
        s.faults.extend([Fault::Hang; 8]);
    }
    let p = project(&mx, ROOM, "dedup = false");
    p.run(&["run", TODAY]);
    assert_eq!(mx.state.lock().unwrap().sends, 0);
    std::fs::remove_file(p.path(&format!("content/{KEY}.md"))).unwrap();
    let out = p.run(&["run", TODAY]);
    assert_eq!(
        mx.state.lock().unwrap().sends,
        0,
        "the deleted post was sent: {}",
        printed(&out)
    );
    out.stdout_has("the lookup proves the post absent and its file is gone");
}
