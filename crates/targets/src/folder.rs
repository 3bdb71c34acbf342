//! `kind = "folder"`: write `<dir>/<key>.html` and `<dir>/<key>.json`, each atomically, and
//! each image of the post beside them as `<key>-<sha16>.<ext>`.

use super::{Attempts, Batch, Context, Find, Lookup, Outgoing, Retract, Secrets, Target, Update};
use crate::clock::Clock;
use crate::error::{Class, Error};
use crate::fsutil::{Staged, write_atomic_all};
use crate::images::Image;
use crate::post::Post;
use crate::redact::Redactor;
use crate::text::mark;
use life::Key;
use life::Receipt;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Output folder, relative to the config file's folder.
    dir: PathBuf,
    /// The folder's public base URL, when it is served: a copy's URL is `<url>/<key>.html`.
    url: Option<String>,
}

pub struct Folder {
    dir: PathBuf,
    shown: PathBuf,
    clock: Clock,
    /// `url`, without a trailing `/`.
    url: Option<String>,
}

impl Folder {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Folder, Error> {
        let dir = ctx.config.from_file(&settings.dir);
        if let Some(url) = &settings.url
            && crate::outside::web_url(Some(url)).is_none_or(|u| !u.contains("://"))
        {
            return Err(Error::config(format!(
                "[targets.{}]: `url` must be the folder's public http(s) address, like \"https://blog.example.com/posts\"",
                ctx.target.name
            ))
            .at(ctx.config.show(&ctx.target.source))
            .at_line(ctx.target.line_of("url")));
        }
        Ok(Folder {
            shown: ctx.config.show(&dir),
            dir,
            clock: ctx.clock.clone(),
            url: settings.url.map(|u| u.trim_end_matches('/').to_string()),
        })
    }

    /// The key's page: its path as the id, and its public URL when the folder has one.
    fn receipt(&self, key: Key) -> Receipt {
        Receipt {
            url: self.url.as_ref().map(|base| format!("{base}/{key}.html")),
            ..Receipt::id(self.shown.join(format!("{key}.html")).to_string_lossy())
        }
    }

    fn write(&self, post: &Post) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let files = self.files(post);
        let files: Vec<(&std::path::Path, &[u8])> =
            files.iter().map(|(p, b)| (p.as_path(), &b[..])).collect();
        // Every file is fsync'd, then renamed in order, the images first and the JSON last
        // (the fingerprint in it is what `find` trusts), then the folder is fsync'd once.
        write_atomic_all(&files)?;
        // Images an earlier version of the post used, and this one does not, go.
        let used: Vec<String> = post
            .images
            .iter()
            .map(|i| image_file(post.place(), i))
            .collect();
        let stale: Vec<String> = self
            .image_files(post.place())?
            .into_iter()
            .filter(|name| !used.contains(name))
            .collect();
        for name in &stale {
            std::fs::remove_file(self.dir.join(name))?;
        }
        match stale.is_empty() {
            true => Ok(()),
            false => crate::fsutil::sync_dir(&self.dir),
        }
    }

    /// The key's files in the order they are put in place: its images, the page, the JSON.
    /// The images' bytes are the post's own, not copies.
    fn files<'a>(&self, post: &'a Post) -> Vec<(PathBuf, Cow<'a, [u8]>)> {
        let mut files: Vec<(PathBuf, Cow<'a, [u8]>)> = Vec::new();
        for image in &post.images {
            let path = self.dir.join(image_file(post.place(), image));
            files.push((path, Cow::Borrowed(&image.bytes[..])));
        }
        let html = self.dir.join(format!("{}.html", post.place()));
        files.push((html, Cow::Owned(page(post).into_bytes())));
        let meta = self.dir.join(format!("{}.json", post.place()));
        files.push((meta, Cow::Owned(self.meta(post).into_bytes())));
        files
    }

    /// The key's JSON: what `find` reads back.
    fn meta(&self, post: &Post) -> String {
        let meta = serde_json::json!({
            "key": post.place().to_string(),
            "title": post.title,
            "tags": post.tags,
            "summary": post.summary,
            "fingerprint": post.fingerprint,
            "published_at": self.clock.stamp(),
        });
        let mut meta = meta;
        if !post.images.is_empty() {
            meta["images"] = post
                .images
                .iter()
                .map(|i| {
                    serde_json::json!({
                        "file": image_file(post.place(), i),
                        "alt": i.alt,
                        "sha256": i.sha256,
                        "cover": i.cover,
                    })
                })
                .collect();
        }
        let mut json = serde_json::to_string_pretty(&meta).expect("a JSON value serialises");
        json.push('\n');
        json
    }
}

/// `kind = "folder"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "folder",
    publishes_to: "`<dir>/<key>.html` and `.json`, and the images",
    needs: "nothing",
    build: |ctx| Ok(Box::new(Folder::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| super::kinds::fixed::<Settings>(ctx, config::Capabilities::IN_PLACE),
    template: None,
    takes: &[],
    undrillable: Some((
        "a folder target has nothing to remove and no network to fault",
        "drill a network target (http, command, wordpress, ghost, mastodon, bluesky, matrix)",
    )),
};

impl Target for Folder {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        Ok(Outgoing {
            body: serde_json::json!({
                "title": post.title,
                "tags": post.tags,
                "summary": post.summary,
                "html": page(post),
            }),
            marks: vec![mark(&post.fingerprint)],
            ..Outgoing::default()
        })
    }

    fn publish(&mut self, post: &Post, _: &Outgoing) -> Result<Receipt, Error> {
        // Both files are replaced atomically, so a failure leaves nothing half-written:
        // retry-safe. A lone .html without its .json reads as "absent" and is rewritten.
        self.write(post).map_err(|e| {
            Error::failure(
                Class::RetrySafe,
                format!("cannot write to {}: {e}", self.shown.display()),
            )
        })?;
        Ok(self.receipt(post.place()))
    }

    fn image_plan(&self, post: &Post, image: &Image, _: &super::Media) -> String {
        let file = self.shown.join(image_file(post.place(), image));
        format!("copy as {}", file.display())
    }

    fn timeout(&self) -> Duration {
        Duration::ZERO
    }

    fn settle(&self) -> Duration {
        Duration::ZERO
    }

    fn where_to_look(&self, key: Key) -> String {
        format!("{}", self.shown.join(format!("{key}.json")).display())
    }

    /// A folder holds no secret of its own; it masks the run's.
    fn secrets(&self) -> Secrets<'_> {
        static NONE: Redactor = Redactor::new();
        Secrets {
            redactor: &NONE,
            credential: None,
        }
    }

    fn as_manage(&mut self) -> Option<&mut dyn crate::Manage> {
        Some(self)
    }

    fn as_batch(&mut self) -> Option<&mut dyn Batch> {
        Some(self)
    }
}

/// No `survey`: each lookup is one file read, exact and at once.
impl Find for Folder {
    /// The key's JSON names the fingerprint that was written: found when it is one an attempt
    /// sent. Anything else is absent, and a rewrite replaces it (a folder holds one copy).
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let json = self.dir.join(format!("{}.json", attempts.key));
        let text = match std::fs::read_to_string(&json) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Lookup::Absent),
            Err(e) => {
                return Ok(Lookup::CannotTell(format!(
                    "cannot read {}: {e}",
                    self.shown.join(format!("{}.json", attempts.key)).display()
                )));
            }
        };
        let sent = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| {
                v.get("fingerprint")?
                    .as_str()
                    .map(|f| attempts.sent_text(f))
            })
            .unwrap_or(false);
        let html = self.dir.join(format!("{}.html", attempts.key));
        Ok(match sent && html.is_file() {
            true => Lookup::Found(vec![self.receipt(attempts.key)]),
            false => Lookup::Absent,
        })
    }

    fn immediate(&self) -> bool {
        true
    }
}

impl Update for Folder {
    /// A folder is updated by writing the files again (each replaced atomically).
    fn update(&mut self, _: &str, post: &Post, _: &Outgoing) -> Result<Receipt, Error> {
        self.publish(
            post,
            &Outgoing {
                body: serde_json::Value::Null,
                marks: Vec::new(),
                ..Outgoing::default()
            },
        )
    }

    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let key = id
            .rsplit('/')
            .next()
            .and_then(|name| name.strip_suffix(".html"))
            .and_then(life::Key::parse);
        let Some(key) = key else {
            return Ok(Lookup::CannotTell(format!(
                "`{id}` is not a file this folder wrote"
            )));
        };
        self.find(&Attempts::none_yet(key, &out.marks, &out.body))
    }
}

impl Retract for Folder {
    /// Delete the key's two files and its images (any may be gone already), durably.
    fn retract(&mut self, key: Key, _: &str, _: Option<&Post>) -> Result<(), Error> {
        let removed = (|| {
            let mut names = vec![format!("{key}.json"), format!("{key}.html")];
            names.extend(self.image_files(key)?);
            for name in names {
                match std::fs::remove_file(self.dir.join(name)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
            crate::fsutil::sync_dir(&self.dir)
        })();
        removed.map_err(|e| {
            Error::failure(
                Class::RetrySafe,
                format!("cannot remove from {}: {e}", self.shown.display()),
            )
        })
    }

    fn still_there(&mut self, key: Key, _: &str) -> Result<Lookup, Error> {
        let there = ["json", "html"]
            .iter()
            .any(|ext| self.dir.join(format!("{key}.{ext}")).exists());
        Ok(match there {
            true => Lookup::Found(vec![self.receipt(key)]),
            false => Lookup::Absent,
        })
    }
}

impl Batch for Folder {
    /// The same files as `publish`, staged: the batch syncs them, renames them (the JSON
    /// last, as `publish` does) and syncs the folder, once for all its keys.
    fn stage(&mut self, post: &Post, _: &Outgoing, staged: &mut Staged) -> Result<Receipt, Error> {
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| {
                self.files(post)
                    .iter()
                    .try_for_each(|(path, bytes)| staged.write(path, bytes))
            })
            .map_err(|e| {
                Error::failure(
                    Class::RetrySafe,
                    format!("cannot write to {}: {e}", self.shown.display()),
                )
            })?;
        Ok(self.receipt(post.place()))
    }
}

/// The name an image of `key` is copied under: the same bytes, the same name.
fn image_file(key: Key, image: &Image) -> String {
    format!("{key}-{}.{}", image.sha16(), image.format.ext())
}

impl Folder {
    /// The images this folder holds for `key` (`<key>-<16 hex>.<ext>`).
    fn image_files(&self, key: Key) -> std::io::Result<Vec<String>> {
        let prefix = format!("{key}-");
        let entries = match std::fs::read_dir(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            entries => entries?,
        };
        let mut names = Vec::new();
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            let hashed = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.split_once('.'));
            if hashed.is_some_and(|(sha, ext)| {
                sha.len() == 16
                    && sha.bytes().all(|b| b.is_ascii_hexdigit())
                    && ["jpg", "png", "gif", "webp"].contains(&ext)
            }) {
                names.push(name);
            }
        }
        Ok(names)
    }
}

/// A small standalone HTML page for the post; its images point at their copies beside it.
fn page(post: &Post) -> String {
    let body = match post.images.is_empty() {
        true => post.html.clone(),
        false => crate::images::rewrite::html(&post.markdown, |dest| {
            post.images
                .iter()
                .find(|i| i.named_by(dest))
                .map(|i| image_file(post.place(), i))
        }),
    };
    // A cover that the text does not show itself goes under the title.
    let cover = post
        .images
        .iter()
        .find(|i| {
            i.cover
                && !post
                    .image_refs
                    .iter()
                    .any(|r| !r.cover && i.named_by(&r.dest))
        })
        .map(|i| {
            format!(
                "<p><img src=\"{}\" alt=\"{}\"></p>\n",
                image_file(post.place(), i),
                escape(&i.alt).replace('"', "&quot;")
            )
        })
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<article>\n<h1>{}</h1>\n{cover}{body}</article>\n",
        escape(&post.title),
        escape(&post.title),
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
