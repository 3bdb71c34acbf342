//! `kind = "matrix"` against a real Synapse 1.163.2 on loopback (the shared harness), with
//! `faultproxy.py` in between where an answer must get lost after the server stored the
//! event. Each test posts into the harness room under a target name of its own and counts
//! what the room holds of that target by reading it (`/messages`), never by what dayrun says. Without `DAYRUN_HARNESS` every test here is
//! ignored unless asked for.

use crate::support::days::{days_ago, today};
use crate::support::harness::{self, FaultProxy, Synapse};
use crate::support::util::{Output, Project, hours_from_now, wait_or_kill};
use serde_json::Value;
use std::time::{Duration, Instant};

const SEND: &str = "/send/m.room.message/";

static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A target name no other test (or earlier test run) used: what the room holds of it is this
/// test's.
fn fresh_name() -> String {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let now = jiff::Timestamp::now().as_millisecond();
    format!("mx{now}n{n}")
}

fn project(mx: &Synapse, url: &str, room: &str, extra: &str) -> (Project, String) {
    let p = Project::new();
    let name = fresh_name();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.{name}]\nkind = \"matrix\"\nhomeserver = \"{url}\"\nroom = \"{room}\"\ntoken_file = \"secrets/matrix.token\"\n{timeout}settle_secs = 1\nconfirm_delay_secs = 1\nconfirm_polls = 3\n{extra}\n",
            timeout = match extra.contains("timeout_secs") {
                true => "",
                false => "timeout_secs = 3\n",
            }
        ),
    );
    p.secret("secrets/matrix.token", format!("{}\n", mx.token));
    (p, name)
}

fn post(p: &Project, key: &str, title: &str) {
    p.file(
        &format!("content/{key}.md"),
        format!("# {title}\n\nWritten for {key} & the *real* Synapse.\n"),
    );
}

fn printed(out: &Output) -> String {
    format!("{}{}", out.stdout, out.stderr)
}

/// The posts in `room` that carry `key`.
fn of_key(posts: &[Value], key: &str) -> usize {
    posts
        .iter()
        .filter(|e| e["content"]["app.dayrun.key"]["key"] == key)
        .count()
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_backfill_once_and_a_rerun_sends_nothing() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let proxy = FaultProxy::start(&mx.url, &[], 300);
    let (today, back) = (today(), days_ago(10));
    let (p, name) = project(&mx, &proxy.url, &room, "");
    post(&p, &today, "Today on a real Synapse");
    post(&p, &back, "Ten days ago");
    p.run(&["run", &format!("--today={today}"), "--backfill"])
        .code(0)
        .stdout_has(&format!("{today} {name} published id=$"))
        .stdout_has(&format!("{back} {name} published id=$"));
    let posts = mx.posts_of(&name);
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert_eq!((of_key(&posts, &today), of_key(&posts, &back)), (1, 1));
    assert_eq!(posts[0]["content"]["format"], "org.matrix.custom.html");

    let before = proxy.requests().len();
    let again = p.run(&["run", &format!("--today={today}"), "--backfill"]);
    again.code(0);
    assert_eq!(
        proxy.requests().len(),
        before,
        "the rerun sent nothing: {again:?}"
    );
    assert_eq!(mx.posts_of(&name).len(), 2);
}

/// Synapse stores the event, the answer never comes: the resend with the same transaction id
/// (within the window, same token) is answered with the event it stored.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_lost_answer_is_the_same_event_on_resend() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let rule = format!("PUT {SEND} first=drop_after then=pass");
    let proxy = FaultProxy::start(&mx.url, &[&rule], 300);
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "");
    post(&p, &today, "The answer was lost");
    let out = p.run(&["run", &format!("--today={today}")]);
    let posts = mx.posts_of(&name);
    assert_eq!(posts.len(), 1, "{}", printed(&out));
    out.code(0).stdout_has(&format!(
        "{today} {name} confirmed id={}",
        posts[0]["event_id"].as_str().unwrap()
    ));
    assert_eq!(proxy.forwarded("PUT", SEND), 2, "the send and its resend");
    p.run(&["run", &format!("--today={today}")]).code(0);
    assert_eq!(mx.posts_of(&name).len(), 1);
}

/// The answer is lost, and so is every resend's within the run (the key stays pending); the
/// next run comes two hours later, past dayrun's window: it reads the room back to the
/// attempt and finds the event, sending nothing.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_past_the_window_the_room_is_read_not_resent() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let lost = ["hang_after:5"; 8].join(",");
    let rule = format!("PUT {SEND} first={lost} then=pass");
    let proxy = FaultProxy::start(&mx.url, &[&rule], 300);
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "dedup = false");
    post(&p, &today, "Found by reading the room");
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(75);
    let forwarded = proxy.forwarded("PUT", SEND);
    assert!(forwarded >= 2, "the send and a resend: {}", printed(&out));
    assert_eq!(
        mx.posts_of(&name).len(),
        1,
        "Synapse made one event of them all"
    );
    let out2 = p.run_at(&hours_from_now(2), &["run", &format!("--today={today}")]);
    out2.code(0).stdout_has("confirmed id=$");
    assert_eq!(mx.posts_of(&name).len(), 1, "{}", printed(&out2));
    assert_eq!(
        proxy.forwarded("PUT", SEND),
        forwarded,
        "nothing sent after the window"
    );
    assert!(
        proxy.forwarded("GET", "/messages") >= 1,
        "the room was read"
    );
}

/// A run killed while its send is in flight: the next run (within the window) sends the
/// same transaction id again, and the room holds one message.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_kill_mid_send_leaves_one_message() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let rule = format!("PUT {SEND} first=hang_after:20 then=pass");
    let proxy = FaultProxy::start(&mx.url, &[&rule], 300);
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "timeout_secs = 30");
    post(&p, &today, "Killed in the middle");
    let child = p
        .command(&["run", &format!("--today={today}")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (code, said) = wait_or_kill(
        child,
        || {
            std::thread::sleep(Duration::from_millis(200));
            !mx.posts_of(&name).is_empty()
        },
        Duration::from_secs(60),
    );
    assert_eq!(code, None, "killed while waiting for the answer: {said}");
    let status = p.run(&["status"]);
    assert!(status.stdout.contains("pending"), "{status:?}");
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(0).stdout_has("confirmed id=$");
    assert_eq!(mx.posts_of(&name).len(), 1, "{}", printed(&out));
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_an_edit_is_read_back_and_a_retract_proven() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let today = today();
    let (p, name) = project(&mx, &mx.url, &room, "on_edit = \"update\"");
    post(&p, &today, "Before the edit");
    p.run(&["run", &format!("--today={today}")]).code(0);
    let id = mx.posts_of(&name)[0]["event_id"]
        .as_str()
        .unwrap()
        .to_string();
    post(&p, &today, "After the edit");
    p.run(&["run", &format!("--today={today}")])
        .code(0)
        .stdout_has(&format!("{today} {name} updated id={id}"));
    let (status, event) = mx.event(&room, &id);
    assert_eq!(status, 200);
    let new = &event["unsigned"]["m.relations"]["m.replace"]["content"]["m.new_content"];
    assert!(
        new["body"].as_str().unwrap().starts_with("After the edit"),
        "{event:#}"
    );
    assert_eq!(mx.posts_of(&name).len(), 1, "an edit is no second post");

    p.run(&["retract", &today, "--yes"])
        .code(0)
        .stdout_has(&format!("{today} {name} retracted id={id}"));
    let (status, event) = mx.event(&room, &id);
    assert_eq!(status, 200, "{event}");
    assert!(
        event["unsigned"]["redacted_because"].is_object(),
        "{event:#}"
    );
    assert_eq!(event["content"], serde_json::json!({}));
    assert_eq!(mx.posts_of(&name).len(), 0);
    let edits = mx
        .events(&room)
        .into_iter()
        .filter(|e| e["content"]["m.relates_to"]["event_id"] == id.as_str())
        .count();
    assert_eq!(edits, 0, "the edit is redacted too (its content emptied)");
}

/// The upload's answer is lost after Synapse stored the bytes: the resend goes to the same
/// media id and is refused (409), so the bytes are there once, and one `m.image` is sent.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_an_image_is_uploaded_once() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let proxy = FaultProxy::start(
        &mx.url,
        &["PUT /_matrix/media/v3/upload/ first=drop_after then=pass"],
        300,
    );
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "");
    p.file(
        "content/cat.png",
        crate::support::image_gen::png_with_text(),
    );
    p.file(
        &format!("content/{today}.md"),
        "# A cat\n\nLook:\n\n![A grey cat asleep](cat.png)\n",
    );
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(0);
    let posts = mx.posts_of(&name);
    assert_eq!(posts.len(), 2, "{}\n{posts:#?}", printed(&out));
    assert_eq!(posts[0]["content"]["msgtype"], "m.image");
    assert_eq!(posts[0]["content"]["body"], "A grey cat asleep");
    assert_eq!(posts[1]["content"]["msgtype"], "m.text");
    assert_eq!(
        proxy.forwarded("POST", "/_matrix/media/v1/create"),
        1,
        "one media id"
    );
    assert_eq!(
        proxy.forwarded("PUT", "/_matrix/media/v3/upload/"),
        2,
        "the upload and its resend (409)"
    );
    p.run(&["retract", &today, "--yes"]).code(0);
    assert_eq!(
        mx.posts_of(&name).len(),
        0,
        "the image goes with the message"
    );
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_wrong_token_exits_3_and_an_encrypted_room_is_refused() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let today = today();
    let (p, name) = project(&mx, &mx.url, &room, "");
    post(&p, &today, "Never sent");
    p.secret("secrets/matrix.token", "syt_not_a_real_token\n");
    let out = p.run(&["run", &format!("--today={today}")]);
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
    assert_eq!(mx.posts_of(&name).len(), 0);

    let secret = mx.encrypted_room();
    let (p, _) = project(&mx, &mx.url, &secret, "");
    post(&p, &today, "Never sent either");
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(2);
    assert!(
        printed(&out).contains("end-to-end encrypted"),
        "{}",
        printed(&out)
    );
    let sent = mx
        .events(&secret)
        .into_iter()
        .filter(|e| e["type"] == "m.room.message")
        .count();
    assert_eq!(sent, 0);
}

/// The floor: 40 bare sends to `base` with one agent (one connection, as dayrun's), nothing
/// kept; seconds.
fn bare_sends(base: &str, token: &str, room: &str, round: usize) -> f64 {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let room = room.replace('!', "%21").replace(':', "%3A");
    let started = Instant::now();
    for n in 0..40 {
        let stamp = jiff::Timestamp::now().as_millisecond();
        let url = format!(
            "{base}/_matrix/client/v3/rooms/{room}/send/m.room.message/floor-{round}-{n}-{stamp}"
        );
        let body = serde_json::json!({"msgtype": "m.text", "body": format!("floor {n}")});
        let status = agent
            .put(&url)
            .header("Authorization", &format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .send(body.to_string().as_bytes())
            .map(|r| r.status().as_u16());
        assert_eq!(status.ok(), Some(200));
    }
    started.elapsed().as_secs_f64()
}

/// Requests per post for a 40-post backfill (counted by the proxy), and its wall time beside
/// a bare-send floor in the same run: 40 `PUT`s with one agent, nothing kept. The times are
/// taken straight to Synapse, in three interleaved rounds (its time per send varies by half on
/// a busy machine), because the proxy adds a stall of its own to every answer on a connection
/// kept alive (seen with strace: about 40 ms between an answer's head and its body) which a
/// client that reconnects does not meet. Only the request count is asserted: timings are a
/// measure, not a rule a test can keep.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_40_post_backfill_costs_about_one_request_a_post() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.empty_room();
    let proxy = FaultProxy::start(&mx.url, &[], 900);
    let mut ratios = Vec::new();
    for round in 0..4 {
        let base = match round {
            0 => proxy.url.clone(),
            _ => mx.url.clone(),
        };
        let (p, name) = project(&mx, &base, &room, "");
        for n in 1..=40 {
            post(&p, &days_ago(n), &format!("Post {n} of the backfill"));
        }
        let started = Instant::now();
        p.run(&["run", "--backfill"]).code(0);
        let wall = started.elapsed().as_secs_f64();
        let posts = (mx.posts(&room).into_iter())
            .filter(|e| e["content"]["app.dayrun.key"]["target"] == name.as_str())
            .count();
        assert_eq!(posts, 40);
        if round == 0 {
            let requests = proxy.requests().len();
            let per_post = requests as f64 / 40.0;
            eprintln!("matrix backfill: {requests} requests for 40 posts ({per_post:.3} a post)");
            assert!(per_post <= 1.15, "{per_post}");
            continue;
        }
        let floor = bare_sends(&mx.url, &mx.token, &room, round);
        eprintln!(
            "matrix backfill round {round}: wall {wall:.2} s, bare sends {floor:.2} s ({:.2}x, the binary's start included)",
            wall / floor
        );
        ratios.push(wall / floor);
    }
    ratios.sort_by(f64::total_cmp);
    eprintln!("matrix backfill: median wall ratio {:.2}x", ratios[1]);
}

/// A long post as a thread; the second part's answer is lost after Synapse stored it. Each
/// part is in the room once, in the root's thread, replying to the part before it.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_thread_each_part_once() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let rule = format!("PUT {SEND} first=pass,drop_after then=pass");
    let proxy = FaultProxy::start(&mx.url, &[&rule], 300);
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "long = \"thread\"");
    let para = |n: usize| format!("Paragraph {n} says something worth reading. ").repeat(20);
    let body: Vec<String> = (1..=6).map(para).collect();
    p.file(
        &format!("content/{today}.md"),
        format!("# A long post\n\n{}\n", body.join("\n\n")),
    );
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(0);
    let parts = mx.posts_of(&name);
    assert_eq!(parts.len(), 3, "{}\n{parts:#?}", printed(&out));
    for (n, part) in parts.iter().enumerate() {
        let content = &part["content"];
        assert_eq!(content["app.dayrun.key"]["part"], n);
        if n > 0 {
            assert_eq!(content["m.relates_to"]["rel_type"], "m.thread");
            assert_eq!(content["m.relates_to"]["event_id"], parts[0]["event_id"]);
            assert_eq!(
                content["m.relates_to"]["m.in_reply_to"]["event_id"],
                parts[n - 1]["event_id"]
            );
        }
    }
    p.run(&["run", &format!("--today={today}")]).code(0);
    assert_eq!(mx.posts_of(&name).len(), 3, "the rerun sends nothing");
}

/// The answer is lost (and every resend's in that run), then the token file is renewed with a
/// new login on another device: the old transaction id is not that device's, so the next run
/// reads the room instead of resending, and finds the message.
#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_matrix_a_renewed_token_reads_the_room_not_resends() {
    let Some(mx) = harness::synapse() else {
        return;
    };
    let room = mx.room.clone();
    let lost = ["hang_after:5"; 8].join(",");
    let rule = format!("PUT {SEND} first={lost} then=pass");
    let proxy = FaultProxy::start(&mx.url, &[&rule], 300);
    let today = today();
    let (p, name) = project(&mx, &proxy.url, &room, "dedup = false");
    post(&p, &today, "Found under a new token");
    p.run(&["run", &format!("--today={today}")]).code(75);
    let forwarded = proxy.forwarded("PUT", SEND);
    assert_eq!(mx.posts_of(&name).len(), 1);
    let device = format!("DAYRUN{}", std::process::id());
    p.secret("secrets/matrix.token", format!("{}\n", mx.login(&device)));
    let out = p.run(&["run", &format!("--today={today}")]);
    out.code(0).stdout_has("confirmed id=$");
    assert_eq!(mx.posts_of(&name).len(), 1, "{}", printed(&out));
    assert_eq!(proxy.forwarded("PUT", SEND), forwarded, "nothing resent");
    assert!(
        proxy.forwarded("GET", "/messages") >= 1,
        "the room was read"
    );
}
