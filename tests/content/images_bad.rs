//! Issue 14: bad images (/work/notes/contract-issue14.md, "Errors"). Each is a `local` error for
//! its post that names the post, the line and the image as written; nothing of that post reaches
//! any target (a folder target and an http target against the fake posts API prove it), and the
//! other posts of the same run still go out. An image without alt text is a warning only.

use crate::fakes::fake_posts::PostsApi;
use crate::support::image_gen;
use crate::support::util::{Output, Project};

const TODAY: &str = "--today=2026-11-29";

/// Both targets: a folder `site` and an http `blog` against `api`. The content folder is
/// `blog/content`, so `../../etc/passwd` from a post there is `etc/passwd` in the project: a
/// real file outside the content folder that the test can create.
fn project(api: &PostsApi) -> Project {
    let p = Project::new();
    p.file(
        "dayrun.toml",
        format!(
            "content = \"blog/content\"\ntimezone = \"UTC\"\n\n[targets.site]\nkind = \"folder\"\ndir = \"site\"\n\n{}",
            api.config("blog", "settle_secs = 0\ndedup = false\n")
        ),
    );
    p
}

/// A post whose image reference is on line 5 (no front matter, heading on line 1).
fn post_with_image(p: &Project, key: &str, reference: &str) {
    p.file(
        &format!("blog/content/{key}.md"),
        format!("# Post {key}\n\nSome words first.\n\n{reference}\n\nAnd after.\n"),
    );
}

/// Everything the run printed, stdout then stderr.
fn printed(out: &Output) -> String {
    format!("{}\n{}", out.stdout, out.stderr)
}

/// Assert one printed line holds every needle.
#[track_caller]
fn line_with(out: &Output, needles: &[&str]) {
    let all = printed(out);
    assert!(
        all.lines().any(|l| needles.iter().all(|n| l.contains(n))),
        "no line holds all of {needles:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.stdout,
        out.stderr
    );
}

/// The state line of `key` on `target`.
fn state_line(p: &Project, target: &str, key: &str) -> String {
    p.state_lines(target)
        .into_iter()
        .find(|l| l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no {target} line for {key}: {:?}", p.state_lines(target)))
}

/// The files the folder target wrote for `key` (HTML, JSON and image copies).
fn site_files(p: &Project, key: &str) -> Vec<String> {
    std::fs::read_dir(p.path("site"))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(key))
                .collect()
        })
        .unwrap_or_default()
}

/// Nothing of `key` reached either target, and both record it `failed class=local`.
#[track_caller]
fn nothing_sent(p: &Project, api: &PostsApi, key: &str) {
    assert_eq!(api.commits_of(key), 0, "{key} reached the http target");
    assert_eq!(
        site_files(p, key),
        Vec::<String>::new(),
        "{key} reached the folder"
    );
    for target in ["site", "blog"] {
        let line = state_line(p, target, key);
        assert!(
            line.contains(" failed ") && line.contains("class=local"),
            "{target}: {line}"
        );
    }
}

/// A JPEG with a start of image and enough header to look like one, then a hole: `len` bytes on
/// disk, almost none of it allocated.
fn sparse_jpeg(path: &std::path::Path, len: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut head = image_gen::plain_jpeg(8, 8, [9, 9, 9]);
    head.truncate(200);
    std::fs::write(path, &head).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn each_bad_image_is_a_local_error_at_its_post_and_line_and_the_other_posts_go_out() {
    let api = PostsApi::start();
    let p = project(&api);
    let img = "blog/content/images";

    // Cover that does not exist (front matter line 2).
    p.file(
        "blog/content/2026-11-20.md",
        "---\nimage: images/no-cover.jpg\nimage_alt: \"A cover\"\n---\n# Post 2026-11-20\n\nText.\n",
    );
    // Body image that does not exist.
    post_with_image(&p, "2026-11-21", "![A cat](images/cat.jpg)");
    // A truncated JPEG: an error, not half an image.
    p.file(&format!("{img}/half.jpg"), image_gen::truncated_jpeg());
    post_with_image(&p, "2026-11-22", "![Half a photo](images/half.jpg)");
    // A text file named .png.
    p.file(&format!("{img}/note.png"), image_gen::not_an_image());
    post_with_image(&p, "2026-11-23", "![A note](images/note.png)");
    // 60 MiB (sparse) that starts like a JPEG.
    sparse_jpeg(&p.path(&format!("{img}/big.jpg")), 60 * 1024 * 1024);
    post_with_image(&p, "2026-11-24", "![Big](images/big.jpg)");
    // A path that leaves the content folder: from blog/content/ it is etc/passwd at the project
    // root, a real file, and a valid image: only the rule keeps it in.
    p.file("etc/passwd", image_gen::plain_jpeg(8, 8, [1, 2, 3]));
    post_with_image(&p, "2026-11-25", "![secrets](../../etc/passwd)");
    // A symlink inside content/ that leads outside it, to a valid image.
    p.file("outside/photo.jpg", image_gen::plain_jpeg(8, 8, [4, 5, 6]));
    std::fs::create_dir_all(p.path(img)).unwrap();
    std::os::unix::fs::symlink(
        p.path("outside/photo.jpg"),
        p.path(&format!("{img}/linked.jpg")),
    )
    .unwrap();
    post_with_image(&p, "2026-11-26", "![Linked](images/linked.jpg)");
    // Two good posts in the same run: one with an image with alt text, one without.
    p.file(
        &format!("{img}/fine.jpg"),
        image_gen::plain_jpeg(16, 8, [200, 10, 10]),
    );
    p.file(&format!("{img}/plain.png"), image_gen::png_with_text());
    post_with_image(&p, "2026-11-28", "![](images/plain.png)");
    post_with_image(&p, "2026-11-29", "![A fine red photo](images/fine.jpg)");

    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(1);

    let cases: [(&str, &str, &str, &str); 7] = [
        ("2026-11-20", ":2", "images/no-cover.jpg", "not found"),
        ("2026-11-21", ":5", "images/cat.jpg", "not found"),
        (
            "2026-11-22",
            ":5",
            "images/half.jpg",
            "is not a JPEG, PNG, GIF or WebP image",
        ),
        (
            "2026-11-23",
            ":5",
            "images/note.png",
            "is not a JPEG, PNG, GIF or WebP image",
        ),
        ("2026-11-24", ":5", "images/big.jpg", "; at most 20 MB"),
        (
            "2026-11-25",
            ":5",
            "../../etc/passwd",
            "is outside the content folder",
        ),
        (
            "2026-11-26",
            ":5",
            "images/linked.jpg",
            "is outside the content folder",
        ),
    ];
    for (key, line, image, says) in cases {
        let at = format!("{key}.md{line}");
        let named = format!("image `{image}`");
        line_with(&out, &[&at, &named, says]);
        nothing_sent(&p, &api, key);
    }
    line_with(
        &out,
        &[
            "2026-11-24.md:5",
            "image `images/big.jpg` is ",
            " MB; at most 20 MB",
        ],
    );
    // The good posts went out on both targets, in the same run.
    for key in ["2026-11-28", "2026-11-29"] {
        assert_eq!(api.commits_of(key), 1, "{key} on the http target");
        assert!(state_line(&p, "site", key).contains(" done "), "{key}");
        assert!(state_line(&p, "blog", key).contains(" done "), "{key}");
        assert!(p.exists(&format!("site/{key}.html")), "{key}.html");
    }
    // No alt text: a warning naming post, line and image; the image goes out with an empty alt.
    line_with(
        &out,
        &[
            "warning",
            "2026-11-28.md:5",
            "image `images/plain.png` has no alt text",
        ],
    );
    let posts = api.committed();
    let no_alt = posts.iter().find(|c| c.key == "2026-11-28").unwrap();
    let images = no_alt.body["images"].as_array().expect("an images list");
    assert_eq!(images.len(), 1, "{images:?}");
    assert_eq!(images[0]["alt"], "");
    let with_alt = posts.iter().find(|c| c.key == "2026-11-29").unwrap();
    assert_eq!(with_alt.body["images"][0]["alt"], "A fine red photo");
    // Nothing of the bad posts' images was copied into the folder target.
    for name in std::fs::read_dir(p.path("site")).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            name.starts_with("2026-11-28") || name.starts_with("2026-11-29"),
            "site/{name}"
        );
    }

    // Still reported (and still not sent) on the next run; fixing one file is all it takes.
    let again = p.run(&["run", "--backfill", TODAY]);
    again.code(1);
    line_with(
        &again,
        &["2026-11-21.md:5", "image `images/cat.jpg` not found"],
    );
    assert_eq!(api.commits_of("2026-11-21"), 0);
    p.file(
        &format!("{img}/cat.jpg"),
        image_gen::plain_jpeg(8, 8, [50, 50, 50]),
    );
    p.run(&["run", "--backfill", TODAY])
        .code(1)
        .stdout_has("2026-11-21 blog published");
    assert_eq!(api.commits_of("2026-11-21"), 1);
    for key in ["2026-11-22", "2026-11-25", "2026-11-26"] {
        assert_eq!(api.commits_of(key), 0, "{key}");
    }
}

#[test]
fn too_long_alt_text_and_too_many_images_are_local_errors() {
    let api = PostsApi::start();
    let p = project(&api);
    let long = "a".repeat(1501);
    p.file(
        "blog/content/images/one.jpg",
        image_gen::plain_jpeg(8, 8, [1, 1, 1]),
    );
    post_with_image(&p, "2026-11-27", &format!("![{long}](images/one.jpg)"));
    // 101 different images (different sizes: two files with the same bytes are one image).
    let mut many = String::new();
    for i in 0..101u32 {
        let name = format!("images/many/{i}.jpg");
        p.file(
            &format!("blog/content/{name}"),
            image_gen::plain_jpeg(8 + i, 8, [i as u8, 0, 0]),
        );
        many.push_str(&format!("![n{i}]({name})\n"));
    }
    post_with_image(&p, "2026-11-28", &many);
    p.file(
        "blog/content/images/ok.jpg",
        image_gen::plain_jpeg(8, 8, [2, 2, 2]),
    );
    // Exactly 1500 characters is allowed.
    post_with_image(
        &p,
        "2026-11-29",
        &format!("![{}](images/ok.jpg)", "b".repeat(1500)),
    );
    let out = p.run(&["run", "--backfill", TODAY]);
    out.code(1);
    line_with(
        &out,
        &[
            "2026-11-27.md:5",
            "image `images/one.jpg`",
            "1501 characters",
        ],
    );
    line_with(&out, &["2026-11-28.md", "more than 100 local images"]);
    nothing_sent(&p, &api, "2026-11-27");
    nothing_sent(&p, &api, "2026-11-28");
    assert_eq!(api.commits_of("2026-11-29"), 1, "{out:?}");
}
