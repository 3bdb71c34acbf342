//! `dayrun check`: every target's template rendered against a post, with stand-ins for the
//! copies it links to (their real ids and URLs exist only once those targets publish).

use super::{CopyRef, Vars, link};
use crate::config::Config;
use crate::error::Error;
use crate::post::Post;

/// The errors of rendering every template for `post`, one per target that fails.
pub fn render_all(config: &Config, post: &Post) -> Vec<Error> {
    let mut errors = Vec::new();
    for cfg in &config.targets {
        let Some(template) = &cfg.template else {
            continue;
        };
        let mut post = post.clone();
        for name in template.uses().copies.keys() {
            let copy = CopyRef {
                id: format!("id-of-{name}"),
                url: Some(format!("https://{name}.invalid/{}", post.key)),
            };
            post.copies.insert(name.clone(), copy);
        }
        let link = cfg
            .settings
            .get("link")
            .and_then(toml::Value::as_str)
            .map(|pattern| link(pattern, &post));
        if let Err(mut err) = template.render(&Vars::new(&post, link.as_deref())) {
            err.message = format!("{} (rendering {})", err.message, post.path.display());
            errors.push(err);
        }
    }
    errors
}
