//! LinkedIn images against the fake: an image initialized for the post's author, its URN on
//! the pending line before its bytes go, uploaded once, and the post naming it (`content.media`
//! for one, `content.multiImage` for two to twenty, as the MultiImage API takes them).

use super::{KEY, TODAY, printed, project};
use crate::fakes::fake_linkedin::{FakeLinkedin, MEMBER, ORG};
use crate::fakes::fake_posts::Fault;
use crate::support::image_gen as pics;

#[test]
fn an_image_is_uploaded_once_and_named_by_its_urn() {
    let li = FakeLinkedin::start();
    // The bytes arrive but their answer is lost: the image URN is already on the line, and the
    // next attempt finds the image AVAILABLE instead of uploading it again.
    li.state
        .lock()
        .unwrap()
        .upload_faults
        .push_back(Fault::CommitClose);
    let p = project(&li, ORG, "");
    p.file("content/images/a.png", pics::png_with_text());
    p.file(
        &format!("content/{KEY}.md"),
        "# Pictures\n\nA day.\n\n![A red square](images/a.png)\n",
    );
    let out = p.run(&["run", TODAY]);
    if out.code != 0 {
        assert!(
            p.state_lines("linkedin")
                .join("\n")
                .contains("urn:li:image:"),
            "recorded before the upload"
        );
        p.run(&["run", TODAY]).code(0);
    }
    let s = li.state.lock().unwrap();
    assert_eq!(
        (s.initializes, s.uploads, s.creates),
        (1, 1, 1),
        "{:?}",
        s.log
    );
    assert!(
        s.log.iter().any(|l| l.starts_with("GET /rest/images/urn")),
        "the recorded image was looked up: {:?}",
        s.log
    );
    let post = s
        .posts
        .iter()
        .find(|p| p["lifecycleState"] == "PUBLISHED")
        .unwrap();
    let urn = post["content"]["media"]["id"].as_str().unwrap();
    assert_eq!(s.images[urn].status, "AVAILABLE");
    assert_eq!(post["content"]["media"]["altText"], "A red square");
}

/// Two images: one `multiImage` post naming both, each initialized for the post's author (the
/// MultiImage API: "all images being used are owned by the author"), as a member and as a page.
#[test]
fn two_images_go_as_one_multi_image_post_owned_by_its_author() {
    for author in [MEMBER, ORG] {
        let li = FakeLinkedin::start();
        let p = project(&li, author, "");
        p.file("content/images/a.png", pics::png_with_text());
        p.file("content/images/b.jpg", pics::plain_jpeg(8, 8, [0, 90, 200]));
        p.file(
            &format!("content/{KEY}.md"),
            "# Pictures\n\nA day.\n\n![A red square](images/a.png)\n\n![A blue square](images/b.jpg)\n",
        );
        let out = p.run(&["run", TODAY]);
        out.code(0);
        let s = li.state.lock().unwrap();
        assert_eq!(
            (s.initializes, s.uploads, s.creates),
            (2, 2, 1),
            "{}",
            printed(&out)
        );
        let post = &s.posts[0];
        let images = post["content"]["multiImage"]["images"].as_array().unwrap();
        let alts: Vec<&str> = images
            .iter()
            .map(|i| i["altText"].as_str().unwrap())
            .collect();
        assert_eq!(alts, ["A red square", "A blue square"]);
        for image in images {
            let urn = image["id"].as_str().unwrap();
            assert_eq!(s.images[urn].owner, author, "{urn}");
        }
    }
}
