//! Issue 32, the blog layout: with `keys = ["date", "slug"]` dayrun reads a Jekyll, Hugo or
//! Zola blog as its generator does (`_drafts/`, `published: false`, TOML front matter,
//! categories, `excerpt`, `slug:`, structure folders that are no tags, built sites never
//! scanned) and `check` warns about the generator's own markup. Without the setting a project
//! publishes exactly what it did.

use crate::fakes::fake_bluesky::{APP_PASSWORD, FakeBluesky};
use crate::support::util::Project;

const NOW: &str = "2026-12-03T09:00:00Z";
const SLUGS: &str = "keys = [\"date\", \"slug\"]\n";
const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";

fn project(top: &str, targets: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", format!("timezone = \"UTC\"\n{top}{targets}"));
    p
}

/// `(title, tags, summary)` of a key's copy in the folder target.
fn published(p: &Project, key: &str) -> (String, Vec<String>, String) {
    let json: serde_json::Value =
        serde_json::from_str(&p.read(&format!("out/{key}.json"))).unwrap();
    let tags = json["tags"].as_array().unwrap().iter();
    (
        json["title"].as_str().unwrap().to_string(),
        tags.map(|t| t.as_str().unwrap().to_string()).collect(),
        json["summary"].as_str().unwrap().to_string(),
    )
}

/// A Jekyll blog: categories become tags after the post's own, `excerpt` is the summary,
/// `published: false` and `_drafts/` are drafts (never sent), `_site/` and `node_modules/` are
/// never read, `_posts` is no tag, and a Liquid tag outside code is a warning at its line.
#[test]
fn a_jekyll_blog_publishes_its_posts_and_keeps_its_drafts() {
    let p = project(SLUGS, FOLDER);
    p.file(
        "content/_posts/2026-12-01-hello.md",
        "---\ntitle: Hello\ntags: [rust]\ncategories: web rust\nexcerpt: The excerpt.\n---\n\nFirst paragraph.\n\n{% include note.html %}\n\n`{% raw %}` is an example.\n",
    );
    p.file(
        "content/_posts/notes/2026-12-01-plain.md",
        "# Plain\n\nNo front matter.\n",
    );
    p.file(
        "content/_posts/2026-12-01-hidden.md",
        "---\ntitle: Hidden\npublished: false\n---\nx\n",
    );
    p.file(
        "content/_drafts/2026-12-02-wip.md",
        "# Work in progress\n\n{% x %}\n",
    );
    p.file(
        "content/_site/2026/12/01/2026-12-01-hello.md",
        "# A built copy\n",
    );
    p.file(
        "content/node_modules/pkg/2026-01-01-readme.md",
        "# Not a post\n",
    );
    p.run_at(NOW, &["check"])
        .code(0)
        .stdout_has("ok content/_posts/2026-12-01-hello.md key=2026-12-01-hello \"Hello\" tags=rust,web\n")
        .stdout_has("ok content/_posts/notes/2026-12-01-plain.md key=2026-12-01-plain \"Plain\" tags=notes\n")
        .stdout_has("ok content/_posts/2026-12-01-hidden.md key=2026-12-01-hidden \"Hidden\" tags= (draft)\n")
        .stdout_has("ok content/_drafts/2026-12-02-wip.md key=2026-12-02-wip \"Work in progress\" tags= (draft)\n")
        .stdout_has("ignored content/_site: a built site or installed files (blog layout): not scanned\n")
        .stdout_has("ignored content/node_modules: a built site")
        .stdout_has("4 post(s), 0 problem(s), 2 ignored file(s)")
        .stderr_has("warning: content/_posts/2026-12-01-hello.md:10: `{% include note.html %}` is a Liquid tag (Jekyll): dayrun does not render it, so it goes out as written\n");
    let check = p.run_at(NOW, &["check"]);
    assert_eq!(
        check.stderr.matches("warning:").count(),
        1,
        "code and drafts are not warned about: {}",
        check.stderr
    );
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 2 published, 2 draft");
    assert_eq!(
        published(&p, "2026-12-01-hello"),
        (
            "Hello".into(),
            vec!["rust".into(), "web".into()],
            "The excerpt.".into()
        )
    );
    assert_eq!(published(&p, "2026-12-01-plain").1, ["notes"]);
    assert!(!p.exists("out/2026-12-01-hidden.json") && !p.exists("out/2026-12-02-wip.json"));
    assert_eq!(
        p.statuses("out"),
        ["2026-12-01-hello done", "2026-12-01-plain done"]
    );
}

/// A Hugo blog (TOML front matter in a bundle, `posts/` as structure, `public/` and
/// `resources/` never read) and a Zola post (`[taxonomies]`): the same fields as YAML gives.
#[test]
fn hugo_and_zola_toml_front_matter_gives_the_fields_yaml_gives() {
    let p = project(SLUGS, FOLDER);
    p.file(
        "content/posts/2026-12-01-hugo/index.md",
        "+++\ntitle = \"From Hugo\"\ndate = 2026-12-01T08:00:00Z\ntags = [\"go\"]\ncategories = [\"web\", \"go\"]\ndescription = \"Hugo's description.\"\n+++\n\nBody.\n\n{{< figure src=\"a.png\" >}}\n",
    );
    p.file(
        "content/2026-12-01-zola.md",
        "+++\ntitle = \"From Zola\"\n\n[taxonomies]\ntags = [\"rust\"]\ncategories = [\"notes\"]\n+++\nBody.\n",
    );
    p.file(
        "content/2026-12-02-later.md",
        "+++\ntitle = \"Draft\"\ndraft = true\n+++\nx\n",
    );
    p.file("content/public/posts/2026-12-01-hugo/index.md", "# Built\n");
    p.file("content/resources/_gen/2026-12-01-zola.md", "# Processed\n");
    p.run_at(NOW, &["check"])
        .code(0)
        .stdout_has("ok content/posts/2026-12-01-hugo/index.md key=2026-12-01-hugo \"From Hugo\" tags=go,web\n")
        .stdout_has("ok content/2026-12-01-zola.md key=2026-12-01-zola \"From Zola\" tags=rust,notes\n")
        .stdout_has("\"Draft\" tags= (draft)\n")
        .stdout_has("ignored content/public: a built site")
        .stdout_has("ignored content/resources: a built site")
        .stderr_has("warning: content/posts/2026-12-01-hugo/index.md:11: `{{< figure src=\"a.png\" >}}` is a shortcode (Hugo)");
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 2 published, 1 draft");
    assert_eq!(
        published(&p, "2026-12-01-hugo"),
        (
            "From Hugo".into(),
            vec!["go".into(), "web".into()],
            "Hugo's description.".into()
        )
    );
    assert_eq!(published(&p, "2026-12-01-zola").1, ["rust", "notes"]);
}

/// A front matter that is wrong is an error naming the file and its line (counting the fence),
/// and the other posts go out.
#[test]
fn a_wrong_front_matter_is_an_error_at_its_file_line() {
    let p = project(SLUGS, FOLDER);
    p.file("content/2026-12-01-good.md", "# Good\n\nx\n");
    p.file(
        "content/2026-12-01-toml.md",
        "+++\ntitle = \"T\"\ntags = [\"a\",\n\nwords\n+++\nx\n",
    );
    p.file("content/2026-12-01-open.md", "+++\ntitle = \"T\"\n");
    p.file(
        "content/2026-12-01-pub.md",
        "---\ntitle: T\npublished: maybe\n---\nx\n",
    );
    p.file(
        "content/2026-12-01-slug.md",
        "---\ntitle: T\n\nslug: My Post\n---\nx\n",
    );
    p.run_at(NOW, &["check"])
        .code(1)
        .stderr_has("content/2026-12-01-toml.md:5: front matter is not valid TOML")
        .stderr_has("content/2026-12-01-open.md:1: front matter opened with `+++` is never closed")
        .stderr_has("content/2026-12-01-pub.md:3: front matter `published` must be true or false")
        .stderr_has("content/2026-12-01-slug.md:4: front matter `slug`: `My Post` is not a slug")
        .stderr_has("(write e.g. `my-post`)");
    p.run_at(NOW, &["run"]).code(1);
    assert!(
        p.statuses("out")
            .contains(&"2026-12-01-good done".to_string())
    );
    assert!(
        !p.exists("out/2026-12-01-pub.json"),
        "an unsure draft is never sent"
    );
}

/// `slug:` changes the post's slug in links (`{slug}` of a target's `link`), never its key:
/// the key's line, and so its copy, stay the file's.
#[test]
fn a_front_matter_slug_is_the_slug_in_links_and_the_key_stays_the_name() {
    let api = FakeBluesky::start();
    let p = project(
        SLUGS,
        &api.config("sky", "link = \"https://blog.test/{slug}/\""),
    );
    p.secret("secrets/bsky.password", format!("{APP_PASSWORD}\n"));
    p.file(
        "content/2026-12-01-from-name.md",
        "---\ntitle: Named\nslug: from-matter\n---\nx\n",
    );
    p.file("content/2026-12-01-plain.md", "# Plain Title\n\nx\n");
    p.file("content/2026-12-02.md", "# A Date Key\n\nx\n");
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("sky: 3 published");
    let mut texts: Vec<String> = api.records().iter().map(|r| r.text().to_string()).collect();
    texts.sort();
    let links: Vec<&str> = texts
        .iter()
        .filter_map(|t| t.split_whitespace().last())
        .collect();
    assert_eq!(
        links,
        [
            "https://blog.test/a-date-key/",
            "https://blog.test/from-matter/",
            "https://blog.test/plain/"
        ],
        "{texts:?}"
    );
    assert_eq!(
        p.statuses("sky"),
        [
            "2026-12-01-from-name done",
            "2026-12-01-plain done",
            "2026-12-02 done"
        ]
    );
}

/// Without the setting nothing of the above applies: `published`, `categories`, `excerpt`,
/// `slug`, `_drafts/`, `_site/`, a `posts/` tag and `+++` are read as dayrun always read them
/// (measured on the code before the blog layout: the same titles, tags, summaries and
/// fingerprints), and `check` warns about no markup.
#[test]
fn a_dated_project_publishes_exactly_what_it_did() {
    let p = project("", FOLDER);
    p.file(
        "content/2026-12-01.md",
        "---\npublished: false\ncategories: [x]\nexcerpt: An excerpt.\nslug: Not A Slug\n---\n# One\n\nFirst paragraph.\n\n{% include note.html %}\n",
    );
    p.file(
        "content/posts/2026-12-02.md",
        "# Two\n\nSecond {{< figure src=\"a.png\" >}}.\n",
    );
    p.file("content/_drafts/2026-12-03.md", "# Three\n\nThird.\n");
    p.file("content/_site/2026-11-30.md", "# Site\n\nBuilt.\n");
    p.file(
        "content/2026-11-29.md",
        "+++\ntitle = \"Toml\"\n+++\n# Heading\n\nBody.\n",
    );
    let check = p.run_at(NOW, &["check"]);
    check.code(0);
    assert_eq!(
        check.stdout,
        "ok content/2026-11-29.md \"Heading\" tags=\nok content/_site/2026-11-30.md \"Site\" tags=_site\nok content/2026-12-01.md \"One\" tags=\nok content/posts/2026-12-02.md \"Two\" tags=posts\nok content/_drafts/2026-12-03.md \"Three\" tags=_drafts\n5 post(s), 0 problem(s), 0 ignored file(s); targets: out\n"
    );
    assert_eq!(check.stderr, "");
    p.run_at(NOW, &["run", "--backfill"])
        .code(0)
        .stdout_has("out: 5 published\n");
    let expected = [
        (
            "2026-11-29",
            "Heading",
            "",
            "+++ title = \"Toml\" +++",
            "e26140b4a43eb77cfb587a2fc59d394bc950550d83b568ce7da9be5ba24d82a6",
        ),
        (
            "2026-11-30",
            "Site",
            "_site",
            "Built.",
            "ee75762ad70dc41dcad71c6da9cb79dd4bbd1072939c0d53c9ab78eeb98aac5f",
        ),
        (
            "2026-12-01",
            "One",
            "",
            "First paragraph.",
            "deae2332c612b29d607d798951ac1ed7184612476892fc5b3344f9b56993bba0",
        ),
        (
            "2026-12-02",
            "Two",
            "posts",
            "Second {{< figure src=\"a.png\" >}}.",
            "ab4c662d4ee08cafe00acc72cac742c27994e9a1c269b29ac509d76e4265128a",
        ),
        (
            "2026-12-03",
            "Three",
            "_drafts",
            "Third.",
            "943bf6f9f297d29e4a074acd5cc614fa50600f7f6c05ddc8a8ccf291593f9005",
        ),
    ];
    for (key, title, tags, summary, fingerprint) in expected {
        let json: serde_json::Value =
            serde_json::from_str(&p.read(&format!("out/{key}.json"))).unwrap();
        let (t, g, s) = published(&p, key);
        assert_eq!(
            (t.as_str(), g.join(",").as_str(), s.as_str()),
            (title, tags, summary),
            "{key}"
        );
        assert_eq!(json["fingerprint"], fingerprint, "{key}");
    }
}
