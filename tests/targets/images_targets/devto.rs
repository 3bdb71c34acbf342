//! dev.to has no upload API: with `image_base_url` each local image becomes its public URL in
//! `body_markdown` and the cover `main_image`; without it, a post with local images is a
//! `local` error naming the post, and nothing of it is sent.

use super::{KEY, POST, TODAY, pictures, shown};
use crate::fakes::fake_devto::{FakeDevto, KEY as API_KEY};
use crate::support::util::Project;

fn project(api: &FakeDevto, extra: &str) -> Project {
    let p = Project::new();
    p.file("dayrun.toml", api.config(extra));
    p.secret("secrets/devto.key", API_KEY);
    pictures(&p);
    p
}

#[test]
fn local_images_become_public_urls_and_the_cover_main_image() {
    let api = FakeDevto::start();
    let p = project(&api, "image_base_url = \"https://blog.example.com/\"");
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let articles = api.articles();
    assert_eq!(articles.len(), 1, "{}", shown(&out));
    let a = &articles[0];
    let body = a["body_markdown"].as_str().unwrap();
    assert!(
        body.contains("![A red square](https://blog.example.com/images/a.png)"),
        "{body}"
    );
    assert!(
        body.contains("![A blue one](https://blog.example.com/images/b.jpg)"),
        "`./images/b.jpg` is content-relative images/b.jpg: {body}"
    );
    assert_eq!(
        body.matches("https://blog.example.com/images/a.png")
            .count(),
        2,
        "every reference rewritten: {body}"
    );
    assert!(body.contains("https://example.com/r.png"), "{body}");
    assert!(
        !body.contains("](images/") && !body.contains("](./images/"),
        "{body}"
    );
    assert_eq!(a["main_image"], "https://blog.example.com/images/cover.jpg");
    // Again: nothing.
    let before = api.server.request_count();
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.server.request_count(), before);
}

#[test]
fn without_image_base_url_a_post_with_local_images_is_a_local_error_and_nothing_is_sent() {
    let api = FakeDevto::start();
    let p = project(&api, "");
    p.file(
        "content/2026-11-28.md",
        "# Words only\n\nNo pictures here.\n",
    );
    let out = p.run(&["run", TODAY, "--backfill"]);
    out.code(1);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains(POST) && all.contains("has local images") && all.contains("dev.to cannot"),
        "{}",
        shown(&out)
    );
    assert!(
        all.contains("image_base_url"),
        "says what to set\n{}",
        shown(&out)
    );
    assert!(
        all.contains("[targets.devto]"),
        "names the table\n{}",
        shown(&out)
    );
    let articles = api.articles();
    assert_eq!(
        articles.len(),
        1,
        "only the post without images: {articles:#?}"
    );
    assert_eq!(articles[0]["title"], "Words only");
    let line = super::line(&p, "devto", KEY);
    assert!(line.contains("class=local"), "{line}");
}

#[test]
fn a_post_without_images_needs_no_image_base_url() {
    let api = FakeDevto::start();
    let p = project(&api, "");
    p.file(
        POST,
        "# Plain\n\nJust words and a remote ![x](https://example.com/x.png).\n",
    );
    p.run(&["run", TODAY]).code(0);
    assert_eq!(api.articles().len(), 1);
    assert!(api.articles()[0]["main_image"].is_null());
}

#[test]
fn image_base_url_must_be_http_and_end_in_a_slash() {
    let api = FakeDevto::start();
    for bad in ["https://blog.example.com", "ftp://blog.example.com/"] {
        let p = project(&api, &format!("image_base_url = \"{bad}\""));
        let out = p.run(&["run", TODAY]);
        out.code(2);
        assert!(
            format!("{}{}", out.stdout, out.stderr).contains("image_base_url"),
            "{}",
            shown(&out)
        );
    }
    assert_eq!(api.server.request_count(), 0);
}
