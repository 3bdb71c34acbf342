//! A template rendered without sending: `dayrun check` renders every target's template against
//! every due post, and `--dry-run` shows the text a key would get. A copy the template links to
//! that is not there yet is a stand-in (its real id and URL exist only once that target
//! publishes).

use crate::error::Error;
use crate::post::CopyRef;
use crate::post::Post;
use crate::template::{Upstream, Vars, link};
use config::{Config, TargetConfig};

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
        stand_in(&mut post, name);
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

/// A stand-in for target `name`'s copy of `post`, unless the post has that copy.
pub fn stand_in(post: &mut Post, name: &str) {
    post.copies
        .entry(name.to_string())
        .or_insert_with(|| CopyRef {
            id: format!("<{name}'s id>"),
            url: Some(format!("<{name}'s url>")),
        });
}

/// Why `post` cannot be made into `cfg`'s text until a person acts, if it cannot: a copy its
/// text links to will never come by itself (`upstream`: where each stands, as
/// `copies::judge` says), or the template fails on the post (rendered with the copies there
/// and a stand-in for each still coming). The run, the dry run and `status` judge a key's
/// exit by this one answer; the run records it as a local failure when it tries.
pub fn blocked(cfg: &TargetConfig, post: &Post, upstream: &[(String, Upstream)]) -> Option<String> {
    cfg.template.as_ref()?;
    let never: Vec<&str> = upstream
        .iter()
        .filter_map(|(_, u)| match u {
            Upstream::Never(why) => Some(why.as_str()),
            _ => None,
        })
        .collect();
    if !never.is_empty() {
        return Some(format!(
            "the text links to a copy that will not come by itself: {}",
            never.join("; ")
        ));
    }
    let mut post = post.clone();
    for (name, upstream) in upstream {
        if let Upstream::There(copy) = upstream {
            post.copies.insert(name.clone(), copy.clone());
        }
    }
    preview(cfg, &post).err().map(|err| err.message)
}
