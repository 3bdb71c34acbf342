//! Where the file an image path names is: relative to the post, inside the content folder; or,
//! for a site-root path (`/img/x.png`), under the content folder and then each static folder in
//! order, the first that has it. Never outside the folder it was found in.

use crate::sources::Sources;
use std::path::{Component, Path, PathBuf};

/// A folder images may come from, resolved once for a post.
struct Folder {
    /// Its real path (symbolic links resolved): what a file must stay below.
    real: PathBuf,
    /// As shown in messages: relative to the project, with a trailing `/` (`static/`).
    shown: String,
    /// The content folder (the others are static folders).
    content: bool,
}

/// The folders a post's images may come from: the content folder first, then the static
/// folders in the order `static_dirs` names them.
pub(super) struct Folders(Vec<Folder>);

/// An image file found.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Found {
    /// Its real path.
    pub file: PathBuf,
    /// Its path as the site serves it: below the folder it was found in, with `/`
    /// (`static/img/x.png` → `img/x.png`).
    pub rel: String,
}

/// Why a destination names no image that may be read: what happened, and what to do.
#[derive(Debug)]
pub(super) struct Refused {
    pub message: String,
    pub hint: String,
}

impl Folders {
    /// The folders of `sources`, each resolved once.
    pub(super) fn new(sources: &Sources) -> Folders {
        let project =
            std::fs::canonicalize(&sources.project).unwrap_or_else(|_| sources.project.clone());
        let folder = |path: &Path, content: bool| {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let shown = real
                .strip_prefix(&project)
                .or_else(|_| path.strip_prefix(&sources.project))
                .unwrap_or(path);
            Folder {
                shown: format!("{}/", shown.display()),
                real,
                content,
            }
        };
        let statics = sources.static_dirs.iter().map(|d| folder(d, false));
        Folders(
            std::iter::once(folder(&sources.root, true))
                .chain(statics)
                .collect(),
        )
    }

    fn content(&self) -> &Folder {
        &self.0[0]
    }
}

/// The file `dest` names, for a post in the folder `post_folder`. A relative path is looked
/// for there and must stay inside the content folder; a site-root path is looked for in each of
/// `folders` in turn, and the first that has the file wins (and must keep it inside).
pub(super) fn locate(dest: &str, post_folder: &Path, folders: &Folders) -> Result<Found, Refused> {
    let decoded = percent_encoding::percent_decode_str(dest)
        .decode_utf8()
        .map(|d| d.into_owned())
        .unwrap_or_else(|_| dest.to_string());
    let path = decoded.split(['?', '#']).next().unwrap_or_default();
    let content = folders.content();
    if !path.starts_with('/') {
        let base = std::fs::canonicalize(post_folder).unwrap_or_else(|_| post_folder.to_path_buf());
        return match within(dest, &base, path, content)? {
            Some(found) => Ok(found),
            None => Err(Refused {
                message: format!("image `{dest}` not found"),
                hint: "check the path: it is relative to the post's folder, or to the content folder when it starts with `/`".into(),
            }),
        };
    }
    for folder in &folders.0 {
        if let Some(found) = within(dest, &folder.real, path, folder)? {
            return Ok(found);
        }
    }
    Err(not_found(dest, folders))
}

/// The file `path` names from `base`, if there is one, below `folder`. `..` is resolved by the
/// words first, so a path that leaves the folder is refused whether or not the file exists;
/// then symbolic links, by the file system.
fn within(dest: &str, base: &Path, path: &str, folder: &Folder) -> Result<Option<Found>, Refused> {
    let mut joined = base.to_path_buf();
    for part in Path::new(path.trim_start_matches('/')).components() {
        match part {
            Component::ParentDir if !joined.pop() => return Err(outside(dest, folder)),
            Component::Normal(p) => joined.push(p),
            _ => {}
        }
    }
    if !joined.starts_with(&folder.real) {
        return Err(outside(dest, folder));
    }
    let Ok(real) = std::fs::canonicalize(&joined) else {
        return Ok(None);
    };
    if !real.starts_with(&folder.real) {
        return Err(outside(dest, folder));
    }
    let rel = below(&real, &folder.real);
    Ok(Some(Found { file: real, rel }))
}

/// `dest` leaves `folder`.
fn outside(dest: &str, folder: &Folder) -> Refused {
    match folder.content {
        true => Refused {
            message: format!("image `{dest}` is outside the content folder"),
            hint: "keep images inside the content folder (e.g. content/images/) and name them relative to the post".into(),
        },
        false => Refused {
            message: format!("image `{dest}` is outside the static folder {}", folder.shown),
            hint: format!("keep the image inside {}, or name it relative to the post", folder.shown),
        },
    }
}

/// A site-root path found in none of `folders`: the message names each folder tried.
fn not_found(dest: &str, folders: &Folders) -> Refused {
    let shown: Vec<&str> = folders.0.iter().map(|f| f.shown.as_str()).collect();
    let tried = match shown.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    let hint = match folders.0.len() {
        1 => {
            "check the path: one that starts with `/` is below the content folder (`static_dirs` in dayrun.toml names more folders)"
        }
        _ => {
            "check the path: one that starts with `/` is looked for below the content folder, then each of `static_dirs` in order"
        }
    };
    Refused {
        message: format!("image `{dest}` not found under {tried}"),
        hint: hint.into(),
    }
}

/// `full`'s path below `folder`, with `/` between its parts.
fn below(full: &Path, folder: &Path) -> String {
    full.strip_prefix(folder)
        .unwrap_or(full)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project in a fresh temp folder with `content/`, `static/` and `theme/`, and the
    /// folders of its sources (static folders in the order given).
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let root =
                std::env::temp_dir().join(format!("dayrun-locate-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for folder in ["content/posts", "static", "theme"] {
                std::fs::create_dir_all(root.join(folder)).unwrap();
            }
            Scratch(std::fs::canonicalize(root).unwrap())
        }

        fn file(&self, path: &str) {
            let path = self.0.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }

        fn folders(&self, statics: &[&str]) -> Folders {
            Folders::new(&Sources {
                root: self.0.join("content"),
                project: self.0.clone(),
                static_dirs: statics.iter().map(|s| self.0.join(s)).collect(),
                ..Sources::default()
            })
        }

        /// Locate `dest` for a post in `content/posts`.
        fn locate(&self, dest: &str, statics: &[&str]) -> Result<Found, Refused> {
            locate(dest, &self.0.join("content/posts"), &self.folders(statics))
        }

        /// The project-relative path of what `dest` finds, and its `rel`.
        fn found(&self, dest: &str, statics: &[&str]) -> (String, String) {
            let found = self.locate(dest, statics).unwrap();
            let file = found.file.strip_prefix(&self.0).unwrap();
            (file.display().to_string(), found.rel)
        }

        fn refused(&self, dest: &str, statics: &[&str]) -> String {
            self.locate(dest, statics).unwrap_err().message
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_site_root_path_is_looked_for_in_content_then_each_static_folder_in_order() {
        let s = Scratch::new("order");
        s.file("content/img/both.png");
        s.file("static/img/both.png");
        s.file("static/img/static.png");
        s.file("theme/img/static.png");
        s.file("theme/img/theme.png");
        s.file("content/posts/rel.png");
        let both = ["static", "theme"];
        let cases = [
            (
                "/img/both.png",
                &both[..],
                "content/img/both.png",
                "img/both.png",
            ),
            (
                "/img/static.png",
                &both,
                "static/img/static.png",
                "img/static.png",
            ),
            (
                "/img/static.png",
                &["theme", "static"],
                "theme/img/static.png",
                "img/static.png",
            ),
            (
                "/img/theme.png",
                &both,
                "theme/img/theme.png",
                "img/theme.png",
            ),
            ("rel.png", &both, "content/posts/rel.png", "posts/rel.png"),
            ("/img/both.png", &[], "content/img/both.png", "img/both.png"),
        ];
        for (dest, statics, file, rel) in cases {
            let want = (file.to_string(), rel.to_string());
            assert_eq!(s.found(dest, statics), want, "{dest} with {statics:?}");
        }
    }

    #[test]
    fn without_static_folders_nothing_outside_the_content_folder_is_found() {
        let s = Scratch::new("none");
        s.file("static/img/a.png");
        let message = s.refused("/img/a.png", &[]);
        assert_eq!(message, "image `/img/a.png` not found under content/");
        // A relative path never looks in a static folder.
        let message = s.refused("img/a.png", &["static"]);
        assert_eq!(message, "image `img/a.png` not found");
        let message = s.refused("/img/b.png", &["static", "theme"]);
        assert_eq!(
            message,
            "image `/img/b.png` not found under content/, static/ or theme/"
        );
    }

    #[test]
    fn a_path_that_leaves_the_folder_is_refused_even_when_missing() {
        let s = Scratch::new("dots");
        s.file("static/img/a.png");
        s.file("secret.png");
        for statics in [&[][..], &["static"]] {
            for dest in [
                "../../../etc/passwd",
                "/../x.jpg",
                "/../secret.png",
                "/../static/img/a.png",
                "../../nope-never-there.jpg",
            ] {
                let message = s.refused(dest, statics);
                assert!(
                    message.ends_with("is outside the content folder"),
                    "{dest}: {message}"
                );
            }
        }
    }

    #[test]
    fn a_symlink_out_of_the_folder_it_was_found_in_is_refused() {
        let s = Scratch::new("links");
        s.file("secret.png");
        s.file("theme/img/t.png");
        let link = |at: &str, to: &str| {
            std::os::unix::fs::symlink(s.0.join(to), s.0.join(at)).unwrap();
        };
        std::fs::create_dir_all(s.0.join("static/img")).unwrap();
        link("static/img/out.png", "secret.png");
        link("static/img/theme.png", "theme/img/t.png");
        link("content/out.png", "secret.png");
        s.file("theme/out.png");
        let statics = ["static", "theme"];
        let message = s.refused("/img/out.png", &statics);
        assert_eq!(
            message,
            "image `/img/out.png` is outside the static folder static/"
        );
        // Into another folder images may come from: still out of the one it was found in.
        let message = s.refused("/img/theme.png", &statics);
        assert_eq!(
            message,
            "image `/img/theme.png` is outside the static folder static/"
        );
        // Found (and refused) in the content folder: never looked for further.
        let message = s.refused("/out.png", &statics);
        assert_eq!(message, "image `/out.png` is outside the content folder");
    }
}
