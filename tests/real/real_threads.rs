//! `long = "thread"` on the real PDS of the harness (`@atproto/pds`), with `faultproxy.py` in
//! between where an answer must get lost after the server committed, and a SIGKILL between
//! parts. Every test counts the records on the server (`listRecords`) and checks each reply's
//! `root` and `parent` against the records' own URI and CID (`getRecord`).

use crate::content::threads::{field, kill_when_at, latest_of, long_body};
use crate::support::days::today;
use crate::support::harness::{self, FaultProxy, Pds};
use crate::support::util::Project;
use unicode_segmentation::UnicodeSegmentation;

const CREATE: &str = "com.atproto.repo.createRecord";
const IGNORED: &str = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)";

fn project(pds: &Pds, url: &str, timeout_secs: u32) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.sky]\nkind = \"bluesky\"\nservice = \"{url}\"\nhandle = \"{}\"\n\
             app_password_file = \"secrets/bsky.password\"\nlink = \"https://blog.example.com/{{key}}\"\n\
             long = \"thread\"\ntimeout_secs = {timeout_secs}\nconnect_timeout_secs = 2\n\
             confirm_delay_secs = 1\nconfirm_polls = 3\n",
            pds.handle
        ),
    );
    p.secret("secrets/bsky.password", pds.password_file());
    let key = today();
    p.file(
        &format!("content/{key}.md"),
        format!(
            "---\ntags: [rust]\n---\n# A thread on a real PDS\n\n{}\n",
            long_body()
        ),
    );
    p
}

/// The thread on the server, root first, checked: one root; every other record a reply whose
/// `root` is the root's URI and CID and whose `parent` is the previous record's; each within
/// 300 graphemes.
fn thread(pds: &Pds) -> Vec<(String, String, serde_json::Value)> {
    let records = pds.records();
    let mut all: Vec<(String, String, serde_json::Value)> = records
        .iter()
        .map(|r| {
            let doc = pds.get_record(&r.rkey).expect("listed, so there");
            let cid = doc["cid"].as_str().unwrap().to_string();
            (r.uri.clone(), cid, r.value.clone())
        })
        .collect();
    let roots: Vec<_> = all
        .iter()
        .filter(|(_, _, v)| v["reply"].is_null())
        .collect();
    assert_eq!(roots.len(), 1, "one thread: {records:#?}");
    let root = roots[0].clone();
    let mut chain = vec![root.clone()];
    all.retain(|(uri, _, _)| *uri != root.0);
    while let Some(at) = all
        .iter()
        .position(|(_, _, v)| v["reply"]["parent"]["uri"] == chain.last().unwrap().0.as_str())
    {
        let next = all.remove(at);
        let parent = chain.last().unwrap();
        assert_eq!(next.2["reply"]["parent"]["cid"], parent.1.as_str());
        assert_eq!(next.2["reply"]["root"]["uri"], root.0.as_str());
        assert_eq!(next.2["reply"]["root"]["cid"], root.1.as_str());
        chain.push(next);
    }
    assert!(all.is_empty(), "records outside the chain: {all:#?}");
    for (_, _, value) in &chain {
        let text = value["text"].as_str().unwrap();
        assert!(text.graphemes(true).count() <= 300, "{text}");
    }
    chain
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_threads_a_long_post_is_one_root_and_its_replies_and_retract_leaves_none() {
    let Some(pds) = harness::bluesky() else {
        return;
    };
    let _ = IGNORED;
    let p = project(&pds, &pds.url, 15);
    let on_today = format!("--today={}", today());
    p.run(&["run", &on_today]).code(0).stdout_has("published");
    let chain = thread(&pds);
    assert!(chain.len() >= 4, "{} parts", chain.len());
    let counts: Vec<usize> = chain
        .iter()
        .map(|(_, _, v)| v["text"].as_str().unwrap().graphemes(true).count())
        .collect();
    println!(
        "real PDS thread: {} parts, graphemes {counts:?}",
        chain.len()
    );
    let line = latest_of(&p, "sky", &today()).unwrap();
    assert_eq!(
        field(&line, "parts").unwrap().split(',').count(),
        chain.len()
    );
    p.run(&["run", &on_today]).code(0);
    assert_eq!(pds.records().len(), chain.len(), "a re-run sends nothing");
    p.run(&["retract", &today(), "--yes"])
        .code(0)
        .stdout_has("retracted");
    assert!(pds.records().is_empty());
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_threads_the_lost_answer_of_part_2_is_found_not_sent_again() {
    let Some(pds) = harness::bluesky() else {
        return;
    };
    let rule = format!("POST {CREATE} first=pass,hang_after:8 then=pass");
    let proxy = FaultProxy::start(&pds.url, &[&rule], 300);
    let p = project(&pds, &proxy.url, 2);
    let on_today = format!("--today={}", today());
    p.run(&["run", &on_today]).code(0).stdout_has("published");
    let chain = thread(&pds);
    assert_eq!(
        proxy.forwarded("POST", CREATE),
        chain.len(),
        "one create per part"
    );
    p.run(&["run", &on_today]).code(0);
    assert_eq!(pds.records().len(), chain.len());
    assert_eq!(proxy.forwarded("POST", CREATE), chain.len());
}

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_threads_a_kill_between_parts_resumes_without_a_second_thread() {
    let Some(pds) = harness::bluesky() else {
        return;
    };
    // Part 2 reaches the PDS and commits; its answer is held 40 s; dayrun is killed meanwhile.
    let rule = format!("POST {CREATE} first=pass,hang_after:40 then=pass");
    let proxy = FaultProxy::start(&pds.url, &[&rule], 300);
    let p = project(&pds, &proxy.url, 60);
    let key = today();
    kill_when_at(&p, &format!("--today={key}"), || pds.records().len() == 2);
    let line = latest_of(&p, "sky", &key).unwrap();
    assert_eq!(
        field(&line, "parts").unwrap().split(',').count(),
        1,
        "{line}"
    );
    p.run(&["run", &format!("--today={key}")])
        .code(0)
        .stdout_has("published");
    let chain = thread(&pds);
    assert_eq!(
        proxy.forwarded("POST", CREATE),
        chain.len(),
        "no part sent twice"
    );
    p.run(&["retract", &key, "--yes"]).code(0);
    assert!(pds.records().is_empty());
}
