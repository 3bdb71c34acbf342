//! What a post's folders and front matter mean: dayrun's own layout (`keys = ["date"]`), or the
//! blog layout of Jekyll, Hugo and Zola (`keys = ["date", "slug"]`), where some folder names
//! are structure (`_posts/`), drafts (`_drafts/`) or a built site (`_site/`), never topics.

use life::Key;
use std::path::Path;

/// Which layout a project's posts follow: chosen by `keys` (`Names::layout`), so a project that
/// did not ask for slugged keys reads its files exactly as before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// `keys = ["date"]`: every folder name but a number is a tag; YAML front matter only.
    #[default]
    Dated,
    /// `keys = ["date", "slug"]`: also Jekyll's and Hugo's folders and front matter.
    Blog,
}

/// Folders a site generator writes or installs into (a built site, dependencies, processed
/// assets): never walked in the blog layout, so a built copy of a post is not a second post.
const NEVER_SCANNED: [&str; 5] = ["_site", "public", "vendor", "node_modules", "resources"];
/// Folders that hold posts because the generator wants them there: never a tag in the blog
/// layout.
const STRUCTURE: [&str; 5] = ["_posts", "_drafts", "posts", "post", "content"];
/// The folder whose posts are drafts (Jekyll's): never due in the blog layout.
const DRAFTS: &str = "_drafts";

/// Whether `name` is a page bundle's post (`index.md`, `index.markdown`): with slugged keys,
/// the post its folder names.
pub fn is_index(name: &str) -> bool {
    name == "index.md" || name == "index.markdown"
}

impl Layout {
    /// Whether the folder `name` (anywhere below the content folder) is left unread.
    pub fn never_scanned(self, name: &[u8]) -> bool {
        self == Layout::Blog && NEVER_SCANNED.iter().any(|n| n.as_bytes() == name)
    }

    /// Whether the file at `relative` (to the content folder) is a draft by where it is: below
    /// a `_drafts` folder, in the blog layout.
    pub fn in_drafts(self, relative: &Path) -> bool {
        self == Layout::Blog
            && relative
                .parent()
                .into_iter()
                .flat_map(Path::components)
                .any(|c| c.as_os_str() == DRAFTS)
    }

    /// The folder names between the content folder and the file at `relative` that are its
    /// tags when the front matter names none: never a number (`2026/11/` organises, it does not
    /// describe) nor a page bundle's own folder (the post's name); in the blog layout, never a
    /// folder of the generator's structure (`_posts`, `posts`, …).
    pub fn folder_tags(self, relative: &Path, key: Key) -> Vec<String> {
        let bundle = relative
            .file_name()
            .is_some_and(|f| is_index(&f.to_string_lossy()))
            && relative
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|f| f.to_string_lossy() == key.to_string());
        let folders = match bundle {
            true => relative.parent().and_then(Path::parent),
            false => relative.parent(),
        };
        folders
            .into_iter()
            .flat_map(Path::components)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|name| !name.bytes().all(|b| b.is_ascii_digit()))
            .filter(|name| self == Layout::Dated || !STRUCTURE.contains(&name.as_str()))
            .collect()
    }
}

/// The names that make a post (`keys` in `dayrun.toml`): `YYYY-MM-DD.md` always; with `slug`,
/// `YYYY-MM-DD-slug.md` and the `.markdown` extension too. Off by default: a project's files
/// named so are ignored until it says otherwise, so none becomes due by an upgrade.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Names {
    pub slugs: bool,
    /// `week`: `YYYY-Www.md`, an ISO week's post (issue 33).
    pub weeks: bool,
    /// `month`: `YYYY-MM.md`, a month's post.
    pub months: bool,
    /// `YYYY-MM-DD--drill-TAG.md`, a drill's post: set by `dayrun drill` for its own content
    /// folder only (no config key sets it); anywhere else such a name is refused.
    pub drill: bool,
}

impl Names {
    /// The layout these names go with: slugged keys are a blog's (Jekyll, Hugo, Zola), whose
    /// folders and front matter are read as its generator reads them.
    pub fn layout(self) -> Layout {
        match self.slugs {
            true => Layout::Blog,
            false => Layout::Dated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(layout: Layout, path: &str, key: &str) -> Vec<String> {
        layout.folder_tags(Path::new(path), key.parse().unwrap())
    }

    #[test]
    fn the_blog_layout_keeps_structure_out_of_the_tags_and_the_dated_one_does_not() {
        let cases = [
            (
                "posts/rust/2026-12-01.md",
                "2026-12-01",
                "posts,rust",
                "rust",
            ),
            ("_posts/2026-12-01-a.md", "2026-12-01-a", "_posts", ""),
            (
                "_drafts/notes/2026-12-01.md",
                "2026-12-01",
                "_drafts,notes",
                "notes",
            ),
            (
                "content/post/2026-12-01.md",
                "2026-12-01",
                "content,post",
                "",
            ),
            ("2026/11/2026-11-30.md", "2026-11-30", "", ""),
            (
                "travel/2026-12-01-a/index.md",
                "2026-12-01-a",
                "travel",
                "travel",
            ),
        ];
        for (path, key, dated, blog) in cases {
            assert_eq!(tags(Layout::Dated, path, key).join(","), dated, "{path}");
            assert_eq!(tags(Layout::Blog, path, key).join(","), blog, "{path}");
        }
    }

    #[test]
    fn drafts_and_built_sites_only_in_the_blog_layout() {
        for (path, draft) in [
            ("_drafts/2026-12-01.md", true),
            ("blog/_drafts/x/2026-12-01.md", true),
            ("_posts/2026-12-01.md", false),
            ("_drafts.md", false),
        ] {
            assert_eq!(Layout::Blog.in_drafts(Path::new(path)), draft, "{path}");
            assert!(!Layout::Dated.in_drafts(Path::new(path)));
        }
        for name in NEVER_SCANNED {
            assert!(Layout::Blog.never_scanned(name.as_bytes()));
            assert!(!Layout::Dated.never_scanned(name.as_bytes()));
        }
        assert!(!Layout::Blog.never_scanned(b"posts"));
    }
}
