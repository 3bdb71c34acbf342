//! Templates against the real Bluesky PDS (the shared harness): a command target stands for the
//! site, and its copy's URL feeds the Bluesky text. While the site fails, the Bluesky key waits
//! and the PDS holds nothing; the next run sends it, once, with the site's real URL. Records are
//! counted on the server (`listRecords`).

use crate::support::days::today;
use crate::support::harness;
use crate::support::util::Project;

/// The site: fails (exit 75, retry-safe) while `down` exists, else answers with its URL.
const SITE: &str = "#!/bin/sh\ncat > /dev/null\n[ -e down ] && { echo 'the site is down' >&2; exit 75; }\necho \"{\\\"id\\\":\\\"p-$DAYRUN_KEY\\\",\\\"url\\\":\\\"https://blog.example.com/$DAYRUN_KEY\\\"}\"\n";

#[test]
#[ignore = "needs the real servers: DAYRUN_HARNESS=../shared/harness cargo test -- --include-ignored (.ci/run does)"]
fn real_bluesky_text_links_to_the_sites_copy_and_waits_for_it() {
    let Some(pds) = harness::bluesky() else {
        return;
    };
    let today = today();
    let on_today = format!("--today={today}");
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "timezone = \"UTC\"\n\n[targets.bsky]\nkind = \"bluesky\"\nservice = \"{}\"\n\
             handle = \"{}\"\napp_password_file = \"secrets/bsky.password\"\ntimeout_secs = 15\n\
             template = \"{{{{ title }}}}\\n{{{{ copies.site.url }}}}\"\n\n\
             [targets.site]\nkind = \"command\"\nrun = [\"./site.sh\"]\nretries = 0\n",
            pds.url, pds.handle
        ),
    );
    p.secret("secrets/bsky.password", pds.password_file());
    p.script("site.sh", SITE);
    p.file("down", "");
    p.file(
        &format!("content/{today}.md"),
        "# Why the date is the key\n\nOne record per key.\n",
    );
    let out = p.run(&["run", &on_today]);
    out.code(75)
        .stdout_has(&format!("{today} bsky waiting waits for site's copy"));
    assert!(pds.records().is_empty(), "sent without the link: {out:?}");
    std::fs::remove_file(p.path("down")).unwrap();
    let out = p.run(&["run", &on_today]);
    out.code(0).stdout_has(&format!("{today} bsky published"));
    let records = pds.records();
    assert_eq!(records.len(), 1, "{records:#?}");
    let url = format!("https://blog.example.com/{today}");
    assert_eq!(records[0].text(), format!("Why the date is the key\n{url}"));
    assert_eq!(
        records[0].value["facets"][0]["features"][0]["uri"],
        url.as_str()
    );
    p.run(&["run", &on_today]).code(0);
    assert_eq!(pds.records().len(), 1);
}
