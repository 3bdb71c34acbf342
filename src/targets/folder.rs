//! `kind = "folder"`: write `<dir>/<key>.html` and `<dir>/<key>.json`, each atomically.

use super::{Attempts, Context, Lookup, Outgoing, Receipt, Target, mark};
use crate::clock::Clock;
use crate::error::{Class, Error};
use crate::fsutil::{Staged, write_atomic_all};
use crate::post::Post;
use jiff::civil::Date;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Output folder, relative to the config file's folder.
    dir: PathBuf,
}

pub struct Folder {
    dir: PathBuf,
    shown: PathBuf,
    clock: Clock,
}

impl Folder {
    pub fn new(ctx: &Context, settings: Settings) -> Result<Folder, Error> {
        let dir = ctx.config.from_file(&settings.dir);
        Ok(Folder {
            shown: ctx.config.show(&dir),
            dir,
            clock: ctx.clock.clone(),
        })
    }

    fn receipt(&self, key: Date) -> Receipt {
        Receipt::id(self.shown.join(format!("{key}.html")).to_string_lossy())
    }

    fn write(&self, post: &Post) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let json = self.meta(post);
        let html = self.dir.join(format!("{}.html", post.key));
        let meta = self.dir.join(format!("{}.json", post.key));
        // Both files are fsync'd, then renamed with the JSON last (the fingerprint in it is
        // what `find` trusts), then the folder is fsync'd once for both renames.
        write_atomic_all(&[(&html, page(post).as_bytes()), (&meta, json.as_bytes())])
    }

    /// The key's JSON: what `find` reads back.
    fn meta(&self, post: &Post) -> String {
        let meta = serde_json::json!({
            "key": post.key.to_string(),
            "title": post.title,
            "tags": post.tags,
            "summary": post.summary,
            "fingerprint": post.fingerprint,
            "published_at": self.clock.stamp(),
        });
        let mut json = serde_json::to_string_pretty(&meta).expect("a JSON value serialises");
        json.push('\n');
        json
    }
}

impl Target for Folder {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        Ok(Outgoing {
            generation: 0,
            rkey: None,
            body: serde_json::json!({
                "title": post.title,
                "tags": post.tags,
                "summary": post.summary,
                "html": page(post),
            }),
            marks: vec![mark(&post.fingerprint)],
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
        Ok(self.receipt(post.key))
    }

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

    /// Its lookup is exact and immediate: backfills go in batches (`runner/batch.rs`).
    fn batches(&self) -> bool {
        true
    }

    /// The same two files as `publish`, staged: the batch syncs them, renames them (the JSON
    /// last, as `publish` does) and syncs the folder, once for all its keys.
    fn stage(&mut self, post: &Post, _: &Outgoing, files: &mut Staged) -> Result<Receipt, Error> {
        let html = self.dir.join(format!("{}.html", post.key));
        let meta = self.dir.join(format!("{}.json", post.key));
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| files.write(&html, page(post).as_bytes()))
            .and_then(|()| files.write(&meta, self.meta(post).as_bytes()))
            .map_err(|e| {
                Error::failure(
                    Class::RetrySafe,
                    format!("cannot write to {}: {e}", self.shown.display()),
                )
            })?;
        Ok(self.receipt(post.key))
    }

    fn updates(&self) -> bool {
        true
    }

    /// A folder is updated by writing the files again (each replaced atomically).
    fn update(&mut self, _: &str, post: &Post, _: &Outgoing) -> Result<Receipt, Error> {
        self.publish(
            post,
            &Outgoing {
                generation: 0,
                rkey: None,
                body: serde_json::Value::Null,
                marks: Vec::new(),
            },
        )
    }

    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let key = id
            .rsplit('/')
            .next()
            .and_then(|name| name.strip_suffix(".html"))
            .and_then(crate::clock::parse_key);
        let Some(key) = key else {
            return Ok(Lookup::CannotTell(format!(
                "`{id}` is not a file this folder wrote"
            )));
        };
        self.find(&Attempts::none_yet(key, &out.marks, &out.body))
    }

    /// Delete the key's two files (either may be gone already) and make that durable.
    fn retract(&mut self, key: Date, _: &str, _: Option<&Post>) -> Result<(), Error> {
        let removed = (|| {
            for ext in ["json", "html"] {
                match std::fs::remove_file(self.dir.join(format!("{key}.{ext}"))) {
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

    fn still_there(&mut self, key: Date, _: &str) -> Result<Lookup, Error> {
        let there = ["json", "html"]
            .iter()
            .any(|ext| self.dir.join(format!("{key}.{ext}")).exists());
        Ok(match there {
            true => Lookup::Found(vec![self.receipt(key)]),
            false => Lookup::Absent,
        })
    }

    fn timeout(&self) -> Duration {
        Duration::ZERO
    }

    fn settle(&self) -> Duration {
        Duration::ZERO
    }

    fn where_to_look(&self, key: Date) -> String {
        format!("{}", self.shown.join(format!("{key}.json")).display())
    }
}

/// A small standalone HTML page for the post.
fn page(post: &Post) -> String {
    format!(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<article>\n<h1>{}</h1>\n{}</article>\n",
        escape(&post.title),
        escape(&post.title),
        post.html
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
