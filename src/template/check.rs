//! A template rendered without sending: `dayrun check` renders every target's template against
//! every due post, and `--dry-run` shows the text a key would get. A copy the template links to
//! that is not there yet is a stand-in (its real id and URL exist only once that target
//! publishes).

use super::{CopyRef, Vars, link};
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::post::Post;

/// The errors of rendering every template for `post`, one per target that fails.
pub fn render_all(config: &Config, post: &Post) -> Vec<Error> {
    config
        .targets
        .iter()
        .filter_map(|cfg| preview(cfg, post).err())
        .map(|mut err| {
            err.message = format!("{} (rendering {})", err.message, post.path.display());
            err
        })
        .collect()
}

/// The text `cfg`'s template makes for `post` (before a target fits it to its limit), with a
/// stand-in for each copy it links to that `post.copies` lacks; `None`: no template.
pub fn preview(cfg: &TargetConfig, post: &Post) -> Result<Option<String>, Error> {
    let Some(template) = &cfg.template else {
        return Ok(None);
    };
    let mut post = post.clone();
    for name in template.uses().copies.keys() {
        post.copies.entry(name.clone()).or_insert_with(|| CopyRef {
            id: format!("<{name}'s id>"),
            url: Some(format!("<{name}'s url>")),
        });
    }
    let link = cfg
        .settings
        .get("link")
        .and_then(toml::Value::as_str)
        .map(|pattern| link(pattern, &post));
    template
        .render(&Vars::new(&post, link.as_deref()))
        .map(Some)
}
