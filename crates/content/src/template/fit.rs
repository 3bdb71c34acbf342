//! Fitting a rendered text to a limit: the template is rendered again with the body, then the
//! summary, shortened, then tags left out from the end, until the text fits. What is fixed (the
//! title, the link, the copies, the template's own words) never shrinks: a text that cannot fit
//! comes back `Over`, for the target to refuse (or, with `long = "thread"`, to split).

use super::{Template, Vars};
use crate::error::Error;
use std::borrow::Cow;
use unicode_segmentation::UnicodeSegmentation;

/// A cut body or summary keeps more than this many graphemes, or goes.
const MIN_KEPT: usize = 10;

/// A text fitted to a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fitted {
    /// It fits (maybe shortened).
    Fits(String),
    /// The shortest text the template makes (no body, summary or tags), still over the limit.
    Over(String),
}

#[derive(Clone, Copy)]
enum Field {
    Body,
    BodyText,
    Summary,
}

impl Template {
    /// The text, shortened until `fits` says it fits: the body first, then the summary (each
    /// cut at a word, ending in `…`, or left out when no more than a few graphemes would
    /// stay), then the tags (and hashtags) from the end.
    pub fn fit(&self, vars: Vars, fits: &dyn Fn(&str) -> bool) -> Result<Fitted, Error> {
        let mut vars = vars;
        let text = self.render(&vars)?;
        if fits(&text) {
            return Ok(Fitted::Fits(text));
        }
        let uses = self.uses();
        let fields = [
            (Field::Body, uses.body),
            (Field::BodyText, uses.body_text),
            (Field::Summary, uses.summary),
        ];
        for (field, used) in fields {
            if used && let Some(text) = self.shrink(&mut vars, field, fits)? {
                return Ok(Fitted::Fits(text));
            }
        }
        while uses.tags && vars.tags > 0 {
            vars.tags -= 1;
            let text = self.render(&vars)?;
            if fits(&text) {
                return Ok(Fitted::Fits(text));
            }
        }
        Ok(Fitted::Over(self.render(&vars)?))
    }

    /// `fit`, for a target that cannot send a text over its limit (without `long = "thread"`):
    /// a text that cannot fit is an error of the post, saying how long it is (`over`).
    pub fn fit_or_refuse(
        &self,
        vars: Vars,
        fits: &dyn Fn(&str) -> bool,
        over: &dyn Fn(&str) -> String,
    ) -> Result<String, Error> {
        let path = vars.post.path.clone();
        match self.fit(vars, fits)? {
            Fitted::Fits(text) => Ok(text),
            Fitted::Over(text) => Err(Error::failure(
                crate::error::Class::Local,
                format!(
                    "{}: the text is {} even without body, summary and tags",
                    self.what(),
                    over(&text)
                ),
            )
            .at(path)
            .hint("shorten the template's own words, or the title")),
        }
    }

    /// The longest cut of `field` whose text fits, if any does; else the field is left empty.
    fn shrink(
        &self,
        vars: &mut Vars,
        field: Field,
        fits: &dyn Fn(&str) -> bool,
    ) -> Result<Option<String>, Error> {
        let full = match field {
            Field::Body => vars.body.to_string(),
            Field::BodyText => vars.body_text().into_owned(),
            Field::Summary => vars.summary.to_string(),
        };
        let set = |vars: &mut Vars, text: String| match field {
            Field::Body => vars.body = Cow::Owned(text),
            Field::BodyText => vars.body_text = Some(Cow::Owned(text)),
            Field::Summary => vars.summary = Cow::Owned(text),
        };
        set(vars, String::new());
        if !fits(&self.render(vars)?) {
            return Ok(None);
        }
        let graphemes: Vec<&str> = full.graphemes(true).collect();
        let (mut lo, mut hi) = (0, graphemes.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            set(vars, cut(&graphemes, mid));
            match fits(&self.render(vars)?) {
                true => lo = mid,
                false => hi = mid - 1,
            }
        }
        let kept = cut(&graphemes, lo);
        let kept = match kept.graphemes(true).count() > MIN_KEPT {
            true => kept,
            false => String::new(),
        };
        set(vars, kept);
        self.render(vars).map(Some)
    }
}

/// The first `n` graphemes, ending at a word when that keeps at least half of them, and `…`.
fn cut(graphemes: &[&str], n: usize) -> String {
    match n {
        0 => return String::new(),
        n if n == graphemes.len() => return graphemes.concat(),
        _ => {}
    }
    let head = graphemes[..n].concat();
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > head.len() / 2 => head[..space].to_string(),
        _ => head,
    };
    format!("{}…", head.trim_end())
}
