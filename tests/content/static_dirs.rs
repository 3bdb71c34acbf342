//! Issue 32, site-root images: with `static_dirs = ["static"]` a Hugo site's `/img/x.png` comes
//! from `static/` (after the content folder, which wins), and is served at `img/x.png`.
//! Without the setting such a path is refused exactly as before; a `static_dirs` entry that is
//! no folder, lies outside the project, or one too many, is a config error at its line.

use crate::fakes::fake_posts::PostsApi;
use crate::fakes::media::sha256_hex;
use crate::support::image_gen as pics;
use crate::support::util::Project;
use serde_json::Value;

const NOW: &str = "2026-12-03T09:00:00Z";
const KEY: &str = "2026-12-01-cat";
const POST: &str = "content/posts/2026-12-01-cat/index.md";
const FOLDER: &str = "[targets.out]\nkind = \"folder\"\ndir = \"out\"\n";

/// A Hugo site: a bundle whose TOML cover and body name site-root images, `a.png` in
/// `static/img/` and `cover.jpg` in `static/`. `top` goes first in dayrun.toml.
fn hugo(top: &str, targets: &str) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!("timezone = \"UTC\"\nkeys = [\"date\", \"slug\"]\n{top}\n{targets}"),
    );
    p.file("static/img/a.png", pics::png_with_text());
    p.file(
        "static/cover.jpg",
        pics::plain_jpeg(32, 24, [200, 200, 200]),
    );
    p.file(
        POST,
        "+++\ntitle = \"A cat\"\nimage = \"/cover.jpg\"\nimage_alt = \"The cover\"\n+++\n\n![A red square](/img/a.png)\n",
    );
    p
}

/// The folder target's JSON for the post.
fn published(p: &Project) -> Value {
    serde_json::from_str(&p.read(&format!("out/{KEY}.json"))).unwrap()
}

/// The file of each image the folder target copied, the cover first.
fn copies(p: &Project) -> Vec<String> {
    let json = published(p);
    let images = json["images"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"));
    images
        .iter()
        .map(|i| i["file"].as_str().unwrap().into())
        .collect()
}

/// The images the dry run names for the post on the folder target, in order, as shown
/// (`static/img/a.png`): the run reads the same (`Catalog::post`).
fn named(p: &Project) -> Vec<String> {
    let out = p.run_at(NOW, &["run", "--dry-run"]);
    out.code(0);
    let start = format!("{KEY} out image ");
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&start))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_hugo_site_publishes_its_site_root_images_from_static() {
    let api = PostsApi::start();
    let extra = "image_base_url = \"https://blog.example.com/\"";
    let p = hugo(
        "static_dirs = [\"static\"]",
        &format!("{FOLDER}\n{}", api.config("api", extra)),
    );
    p.run_at(NOW, &["check"])
        .code(0)
        .stdout_has(&format!("ok {POST} key={KEY} \"A cat\" tags=\n"))
        .stdout_has("1 post(s), 0 problem(s)");
    p.run_at(NOW, &["run", "--dry-run"])
        .code(0)
        .stdout_has(&format!(
            "{KEY} out image static/cover.jpg alt=\"The cover\" → copy as out/"
        ))
        .stdout_has(&format!(
            "{KEY} out image static/img/a.png alt=\"A red square\" → copy as out/"
        ));
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 1 published")
        .stdout_has("api: 1 published");
    let copies = copies(&p);
    assert_eq!(copies.len(), 2);
    for file in &copies {
        let bytes = std::fs::read(p.path(&format!("out/{file}"))).unwrap();
        assert!(file.contains(&sha256_hex(&bytes)[..16]), "{file}");
    }
    let html = p.read(&format!("out/{KEY}.html"));
    assert!(html.contains(&format!("src=\"{}\"", copies[1])), "{html}");
    // The site serves them below its root: `static/img/a.png` is at `img/a.png`.
    let sent = api.committed()[0].body["images"].clone();
    let listed: Vec<(&str, &str)> = (sent.as_array().unwrap().iter())
        .map(|i| (i["path"].as_str().unwrap(), i["url"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [
            ("static/cover.jpg", "https://blog.example.com/cover.jpg"),
            ("static/img/a.png", "https://blog.example.com/img/a.png")
        ]
    );
}

#[test]
fn without_static_dirs_a_site_root_image_outside_the_content_folder_is_refused_as_before() {
    let p = hugo("", FOLDER);
    let refused = format!(
        "{POST}:3: image `/cover.jpg` not found under content/\n  check the path: one that starts with `/` is below the content folder (`static_dirs` in dayrun.toml names more folders)"
    );
    p.run_at(NOW, &["check"]).code(1).stderr_has(&refused);
    p.run_at(NOW, &["run"]).code(1).stdout_has(&refused);
    assert!(!p.exists(&format!("out/{KEY}.json")));
    // Inside the content folder, a site-root path is found as it always was.
    p.file("content/cover.jpg", pics::plain_jpeg(8, 8, [1, 2, 3]));
    p.file("content/img/a.png", pics::png_with_text());
    assert_eq!(named(&p), ["content/cover.jpg", "content/img/a.png"]);
    p.run_at(NOW, &["run"])
        .code(0)
        .stdout_has("out: 1 published");
}

#[test]
fn the_content_folder_wins_then_the_static_folders_in_order() {
    let p = hugo(
        "static_dirs = [\"static\", \"themes/paper/static\"]",
        FOLDER,
    );
    p.file("content/img/a.png", pics::plain_jpeg(16, 16, [10, 200, 10]));
    p.file(
        "themes/paper/static/cover.jpg",
        pics::plain_jpeg(8, 8, [1, 2, 3]),
    );
    assert_eq!(named(&p), ["static/cover.jpg", "content/img/a.png"]);

    let p = hugo(
        "static_dirs = [\"themes/paper/static\", \"static\"]",
        FOLDER,
    );
    p.file(
        "themes/paper/static/cover.jpg",
        pics::plain_jpeg(8, 8, [1, 2, 3]),
    );
    assert_eq!(
        named(&p),
        ["themes/paper/static/cover.jpg", "static/img/a.png"]
    );
}

#[test]
fn a_static_link_out_of_its_folder_is_refused() {
    let p = hugo("static_dirs = [\"static\"]", FOLDER);
    p.file("secret/cover.jpg", pics::plain_jpeg(8, 8, [1, 2, 3]));
    std::fs::remove_file(p.path("static/cover.jpg")).unwrap();
    std::os::unix::fs::symlink(p.path("secret/cover.jpg"), p.path("static/cover.jpg")).unwrap();
    let refused = format!("{POST}:3: image `/cover.jpg` is outside the static folder static/\n");
    p.run_at(NOW, &["check"]).code(1).stderr_has(&refused);
    p.run_at(NOW, &["run"]).code(1).stdout_has(&refused);
    assert!(!p.exists(&format!("out/{KEY}.json")));
}

/// Every command reads the config first: a bad entry stops each with exit 2, at its line.
#[test]
fn a_static_dir_that_is_no_folder_in_the_project_is_a_config_error_at_its_line() {
    let many: Vec<String> = (0..17).map(|_| "\"static\"".to_string()).collect();
    let many = format!("static_dirs = [{}]", many.join(", "));
    let cases = [
        (
            "static_dirs = [\"static\", \"assets\"]",
            "dayrun.toml:3: `static_dirs`: `assets` is not a folder that can be read\n  create it, or take it out of `static_dirs`\n",
        ),
        (
            "static_dirs = [\n  \"static/img/a.png\",\n]",
            "dayrun.toml:4: `static_dirs`: `static/img/a.png` is not a folder\n",
        ),
        (
            "static_dirs = [\"..\"]",
            "dayrun.toml:3: `static_dirs`: `..` is outside the project\n  name a folder inside the project",
        ),
        (
            "static_dirs = [\"\"]",
            "dayrun.toml:3: `static_dirs`: `` is empty\n",
        ),
        (
            many.as_str(),
            "dayrun.toml:3: `static_dirs` names 17 folders; at most 16 are allowed\n",
        ),
        ("static_dirs = \"static\"", "dayrun.toml:3: "),
    ];
    for (top, said) in cases {
        let p = hugo(top, FOLDER);
        for command in [&["check"][..], &["run"], &["status"]] {
            p.run_at(NOW, command).code(2).stderr_has(said);
        }
        assert!(!p.exists("out") && !p.exists("state"), "{top}");
    }
}
