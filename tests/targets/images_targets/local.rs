//! folder, http and command: copies under content-hash names and a rewritten `src`; the
//! payload's `images` list (`path`, `alt`, `sha256`, `content_type`, `url`, `cover`, and for
//! command `file`, the cleaned copy a script reads).

use super::{ALTS, KEY, TODAY, assert_private, pictures, sha16, shown};
use crate::fakes::fake_posts::PostsApi;
use crate::fakes::media::sha256_hex;
use crate::support::util::Project;
use serde_json::{Value, json};

/// (path as shown, alt, cover, content type) in the contract's order.
const LISTED: [(&str, &str, bool, &str); 3] = [
    ("content/images/cover.jpg", ALTS[0], true, "image/jpeg"),
    ("content/images/a.png", ALTS[1], false, "image/png"),
    ("content/images/b.jpg", ALTS[2], false, "image/jpeg"),
];

#[test]
fn folder_copies_each_image_under_its_hash_and_rewrites_src() {
    let p = Project::new();
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let json: Value = serde_json::from_str(&p.read(&format!("outbox/{KEY}.json"))).unwrap();
    let html = p.read(&format!("outbox/{KEY}.html"));
    let images = json["images"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(images.len(), 3, "{json:#}\n{}", shown(&out));
    for (image, (path, alt, cover, _)) in images.iter().zip(LISTED) {
        let file = image["file"].as_str().unwrap();
        let bytes = std::fs::read(p.path(&format!("outbox/{file}"))).unwrap();
        let sha = sha256_hex(&bytes);
        assert_eq!(image["sha256"], sha.as_str(), "{path}");
        let ext = path.rsplit('.').next().unwrap();
        assert_eq!(file, format!("{KEY}-{}.{ext}", &sha[..16]), "{path}");
        assert_eq!(image["alt"], alt);
        assert_eq!(image["cover"], cover);
        assert_private(file, &bytes);
        if !cover {
            assert!(html.contains(&format!("src=\"{file}\"")), "{html}");
        }
    }
    assert!(!html.contains("src=\"images/"), "{html}");
    assert!(html.contains("https://example.com/r.png"), "{html}");
    // Again: nothing changes.
    let tree = p.tree(&[]);
    p.run(&["run", TODAY]).code(0);
    let after = p.tree(&[]);
    let changed: Vec<_> = after
        .iter()
        .filter(|(k, v)| tree.get(*k) != Some(v) && !k.starts_with("state/"))
        .collect();
    assert!(changed.is_empty(), "{changed:?}");
}

#[test]
fn folder_dry_run_names_the_copies() {
    let p = Project::new();
    pictures(&p);
    let out = p.run(&["run", "--dry-run", TODAY]);
    out.code(0);
    let want = format!(
        "{}copy as outbox/{KEY}-",
        super::image_line("outbox", "content/images/a.png", "A red square")
    );
    assert!(out.stdout.contains(&want), "{}", shown(&out));
    assert!(!p.exists("outbox") && !p.exists("state"));
}

#[test]
fn http_payload_lists_the_images_with_public_urls() {
    let api = PostsApi::start();
    let p = Project::new();
    p.file(
        "dayrun.toml",
        api.config("api", "image_base_url = \"https://blog.example.com/\""),
    );
    pictures(&p);
    p.file("content/2026-11-28.md", "# No pictures\n\nWords.\n");
    let out = p.run(&["run", TODAY, "--backfill"]);
    out.code(0);
    let committed = api.committed();
    let body = |key: &str| {
        committed
            .iter()
            .find(|c| c.key == key)
            .unwrap_or_else(|| panic!("{key} not sent\n{}", shown(&out)))
            .body
            .clone()
    };
    assert_eq!(body("2026-11-28")["images"], json!([]), "always a list");
    let images = body(KEY)["images"].as_array().unwrap().clone();
    assert_eq!(images.len(), 3);
    for (image, (path, alt, cover, content_type)) in images.iter().zip(LISTED) {
        assert_eq!(image["path"], path);
        assert_eq!(image["alt"], alt);
        assert_eq!(image["cover"], cover);
        assert_eq!(image["content_type"], content_type);
        let rel = path.strip_prefix("content/").unwrap();
        assert_eq!(image["url"], format!("https://blog.example.com/{rel}"));
        let sha = image["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{sha}"
        );
    }
}

#[test]
fn http_payload_without_image_base_url_has_null_urls() {
    let api = PostsApi::start();
    let p = Project::new();
    p.file("dayrun.toml", api.config("api", ""));
    pictures(&p);
    p.run(&["run", TODAY]).code(0);
    let images = api.committed()[0].body["images"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(images.len(), 3);
    assert!(images.iter().all(|i| i["url"].is_null()), "{images:#?}");
}

const SCRIPT: &str = "#!/bin/sh\ncat > input.json\necho '{\"id\":\"c1\"}'\n";

#[test]
fn command_payload_points_at_cleaned_copies() {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        "[targets.cmd]\nkind = \"command\"\nrun = [\"./publish.sh\"]\n",
    );
    p.script("publish.sh", SCRIPT);
    pictures(&p);
    let out = p.run(&["run", TODAY]);
    out.code(0);
    let input: Value = serde_json::from_str(&p.read("input.json"))
        .unwrap_or_else(|e| panic!("{e}\n{}", shown(&out)));
    let images = input["images"].as_array().unwrap().clone();
    assert_eq!(images.len(), 3);
    for (image, (path, alt, cover, _)) in images.iter().zip(LISTED) {
        assert_eq!(image["path"], path);
        assert_eq!(image["alt"], alt);
        assert_eq!(image["cover"], cover);
        assert!(image["url"].is_null());
        let file = image["file"].as_str().unwrap();
        assert!(file.starts_with('/'), "absolute: {file}");
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let sha = sha256_hex(&bytes);
        assert_eq!(image["sha256"], sha.as_str());
        let ext = path.rsplit('.').next().unwrap();
        let want = p.path(&format!("state/cmd.images/{}.{ext}", sha16(&bytes)));
        assert_eq!(
            std::fs::canonicalize(file).unwrap(),
            std::fs::canonicalize(want).unwrap()
        );
        assert_private(file, &bytes);
    }
}
