//! Per-target text templates (`template = "…"` or `template_file = "…"`), rendered by minijinja
//! with strict undefined values, bounded in instructions and output. A target calls `render`
//! (or `fit`, for a text with a limit); `compile` makes one when the config is read (`config`
//! finds the text and puts the targets a template links to first), and `copies` says whether
//! such a copy is there, coming, or never coming.

mod copies;
mod fit;
mod load;
mod uses;
mod vars;

pub use copies::{Upstream, judge, template_name, upstream};
pub use fit::Fitted;
pub use load::compile;
pub use uses::{Need, Uses};
pub use vars::{Vars, link};

use crate::error::{Class, Error};
use minijinja::Environment;
use std::path::PathBuf;
use std::sync::Arc;

/// Instructions one render may run: far more than any text needs, and a bound on a template
/// that loops over a hostile post's fields.
const FUEL: u64 = 500_000;
/// The longest text a render may make (a post is at most 5 MiB).
pub const MAX_OUTPUT: usize = 8 * 1024 * 1024;
/// The one template an environment holds.
const NAME: &str = "template";

/// A target's compiled template, shared by the config and the target built from it.
#[derive(Clone)]
pub struct Template(Arc<Inner>);

struct Inner {
    env: Environment<'static>,
    place: Place,
    /// A hash of the template's text, folded into the edit hash of the posts it renders.
    mark: String,
    uses: Uses,
}

/// Where a template was written, for its errors.
#[derive(Debug, Clone)]
pub struct Place {
    /// `[targets.sky] template` or `[targets.sky] template_file`.
    pub what: String,
    /// The file an error points at: the template file, or the config for an inline template.
    pub path: PathBuf,
    /// The line an error points at for an inline template (its key's); `None`: a file, whose
    /// own lines are the template's.
    pub key_line: Option<usize>,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Template({})", self.0.place.what)
    }
}

impl Template {
    /// What the template uses: the post's fields, `link`, other targets' copies.
    pub fn uses(&self) -> &Uses {
        &self.0.uses
    }

    /// A hash of the template's text (see `Post::edit_mark`).
    pub fn mark(&self) -> &str {
        &self.0.mark
    }

    /// `[targets.sky] template`, for messages.
    pub fn what(&self) -> &str {
        &self.0.place.what
    }

    /// The text for these values, trimmed. An error (an undefined value, a type error, a
    /// render past its fuel or `MAX_OUTPUT`) is local to the post, and names the template's
    /// line and column.
    pub fn render(&self, vars: &Vars) -> Result<String, Error> {
        let post = vars.post;
        if let Some(name) = self
            .0
            .uses
            .copies
            .keys()
            .find(|n| !post.copies.contains_key(*n))
        {
            return Err(Error::failure(
                Class::Local,
                format!(
                    "{}: the text links to {name}'s copy of {}, which is not there",
                    self.0.place.what, post.key
                ),
            ));
        }
        let template = self
            .0
            .env
            .get_template(NAME)
            .expect("the environment holds the template");
        let mut out = Bounded(Vec::new());
        let rendered = template.render_captured_to(vars.value(self.0.uses.body_text), &mut out);
        if let Err(err) = rendered {
            let mut error = self.error(&err);
            if err.kind() == minijinja::ErrorKind::WriteFailure {
                error.message = format!(
                    "{}: the text is longer than {} MiB",
                    self.0.place.what,
                    MAX_OUTPUT / 1024 / 1024
                );
            }
            return Err(error.hint(format!(
                "fix the template, or the post {} it fails on",
                vars.post.path.display()
            )));
        }
        let text = String::from_utf8(out.0).expect("minijinja writes UTF-8");
        Ok(text.trim().to_string())
    }

    /// A one-line text (a title): the render for `post`, its whitespace collapsed to single
    /// spaces. An empty one is an error of the post.
    pub fn title(&self, post: &crate::post::Post) -> Result<String, Error> {
        let text = self.render(&Vars::new(post, None))?;
        let title: Vec<&str> = text.split_whitespace().collect();
        if title.is_empty() {
            return Err(Error::failure(
                Class::Local,
                format!("{}: the title is empty for this post", self.0.place.what),
            )
            .at(&post.path));
        }
        Ok(title.join(" "))
    }

    /// A minijinja error as ours: the template, line and column, and what went wrong.
    fn error(&self, err: &minijinja::Error) -> Error {
        let source = self
            .0
            .env
            .get_template(NAME)
            .map(|t| t.source().to_string())
            .unwrap_or_default();
        located(&self.0.place, &source, err, true)
    }
}

/// An error of the template at `place` with text `source`: `what, line L, column C: detail`,
/// pointing at the template file's line, or at the config's `template` key. `local`: a
/// failure of one post (a render), else a config error (the template itself).
fn located(place: &Place, source: &str, err: &minijinja::Error, local: bool) -> Error {
    let (line, column) = match err.range() {
        Some(range) => position(source, range.start),
        None => (err.line().unwrap_or(1), 1),
    };
    let detail = match (err.kind(), err.range()) {
        (minijinja::ErrorKind::UndefinedError, Some(range)) => format!(
            "a value is undefined for this post (at `{}`)",
            crate::outside::escape(source.get(range).unwrap_or_default().trim(), 80)
        ),
        _ => match err.detail() {
            Some(detail) => format!("{}: {detail}", err.kind()),
            None => err.kind().to_string(),
        },
    };
    at(place, line, column, &detail, local)
}

/// An error at template line `line`, column `column`.
fn at(place: &Place, line: usize, column: usize, detail: &str, local: bool) -> Error {
    let message = format!("{}, line {line}, column {column}: {detail}", place.what);
    let err = match local {
        true => Error::failure(Class::Local, message),
        false => Error::config(message),
    };
    match place.key_line {
        Some(key_line) => err.at(&place.path).line(key_line),
        None => err.at(&place.path).line(line),
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// Output that refuses to grow past `MAX_OUTPUT`.
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_OUTPUT {
            return Err(std::io::Error::other("the text is too long"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
