//! `status --html FILE`: the calendar page. One mark per key and target, links to the copies,
//! the problems first with their command, every text from outside escaped, nothing loaded.

use crate::support::util::Project;

pub const NOW: &str = "2026-11-18T07:00:00Z";
/// A title that would run a script, close the markup or break out of an attribute.
pub const HOSTILE: &str = "</div><script>alert(1)</script><img src=x onerror=alert(2)> & \\\"q\\\"";

/// Two weeks of posts (one with a hostile title) on three targets: a folder, a script that
/// refuses the hostile post and gives web URLs, and a server that is down.
pub fn project() -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "project = \"blog <&>\"\ncatchup_days = 30\n\
         [targets.outbox]\nkind = \"folder\"\ndir = \"outbox\"\n\
         [targets.site]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n\
         [targets.mirror]\nkind = \"http\"\nurl = \"http://127.0.0.1:9/\"\nretries = 0\n",
    )
    .script(
        "publish.sh",
        "#!/bin/sh\ncat >/dev/null\n[ \"$DAYRUN_KEY\" = 2026-11-16 ] && { echo 'refused: <b>bad</b>' >&2; exit 65; }\n\
         echo \"{\\\"id\\\": \\\"$DAYRUN_KEY\\\", \\\"url\\\": \\\"https://site.example/p/$DAYRUN_KEY?a=1&b=2\\\"}\"\n",
    );
    for day in 9..=15 {
        p.post(&format!("2026-11-{day:02}"), &format!("Post {day}"));
    }
    p.file(
        "content/2026-11-16.md",
        format!("---\ntitle: \"{HOSTILE}\"\n---\n\nBody.\n"),
    );
    p.post("2026-11-25", "Later");
    p.run_at(NOW, &["run"]);
    p
}

#[test]
fn the_page_has_a_mark_per_key_and_target_and_the_problems_first() {
    let p = project();
    let out = p.run_at(NOW, &["status", "--html", "calendar.html"]);
    out.code(1)
        .stdout_has("wrote calendar.html: 27 mark(s) on 3 target(s)");
    let html = p.read("calendar.html");
    // 9 keys × 3 targets.
    assert_eq!(
        html.matches("class=\"m ").count() - 8,
        27,
        "8 are the legend's"
    );
    assert_eq!(html.matches("title=\"site: done\"").count(), 7);
    assert_eq!(html.matches("title=\"mirror: failed\"").count(), 8);
    assert_eq!(html.matches("title=\"outbox: scheduled\"").count(), 1);
    // Each copy with a web URL is a link to it, the URL escaped in its attribute.
    assert!(
        html.contains("href=\"https://site.example/p/2026-11-09?a=1&amp;b=2\""),
        "{html}"
    );
    assert_eq!(
        html.matches("<a class=\"m ").count(),
        7,
        "only site gives web URLs"
    );
    // Problems first: the refused key with its command, then the keys the next run retries.
    let problems = html.find("id=\"problems\"").unwrap();
    let calendar = html.find("id=\"calendar\"").unwrap();
    assert!(problems < calendar);
    let section = &html[problems..calendar];
    assert!(
        section.contains("<b>2026-11-16</b> on <b>site</b>: failed (rejected)"),
        "{section}"
    );
    assert!(
        section.contains("<code>dayrun retry 2026-11-16 --target site</code>"),
        "{section}"
    );
    assert!(
        section.contains("refused: &lt;b&gt;bad&lt;/b&gt;"),
        "{section}"
    );
    assert!(
        section
            .contains("8 keys, 2026-11-09 to 2026-11-16</b> on <b>mirror</b>: failed (retry-safe)"),
        "{section}"
    );
}

#[test]
fn every_text_from_outside_is_escaped_and_nothing_is_loaded() {
    let p = project();
    p.run_at(NOW, &["status", "--html", "calendar.html"]);
    let html = p.read("calendar.html");
    assert!(!html.contains("<script"), "a script in the page");
    assert!(!html.contains("<img"), "an image in the page");
    assert!(html.contains("&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; \"q\""), "{html}");
    assert!(html.contains("<h1>blog &lt;&amp;&gt;</h1>"));
    // Nothing from the network: no src, no stylesheet link, and a policy that forbids them.
    assert!(!html.contains(" src=\""), "{html}");
    assert!(!html.contains("<link"), "{html}");
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn target_narrows_the_page_and_it_is_never_written_over_a_post() {
    let p = project();
    p.run_at(
        NOW,
        &["status", "--html", "out/outbox.html", "--target", "outbox"],
    )
    .stdout_has("9 mark(s) on 1 target(s)");
    let html = p.read("out/outbox.html");
    assert!(!html.contains("title=\"site:"), "{html}");
    p.run_at(NOW, &["status", "--html", "content/2026-11-09.md"])
        .code(2)
        .stderr_has("`--html content/2026-11-09.md` is inside the content folder");
    assert!(p.read("content/2026-11-09.md").contains("Post 9"));
}
