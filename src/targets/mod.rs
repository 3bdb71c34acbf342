//! The target trait, and the one place that builds a target from its configured kind.

use crate::clock::Clock;
use crate::config::{Config, TargetConfig};
use crate::error::Error;
use crate::post::Post;
use serde::de::DeserializeOwned;

pub mod command;
pub mod devto;
pub mod folder;
pub mod http;
pub mod mastodon;
pub mod net;
pub mod wordpress;

/// What the target answered: the id to record (and a link, where it gives one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub id: String,
    pub url: Option<String>,
    /// Anything the human should know about how it was sent (e.g. tags that were cleaned).
    pub note: Option<String>,
}

impl Receipt {
    pub fn id(id: impl Into<String>) -> Receipt {
        Receipt {
            id: id.into(),
            url: None,
            note: None,
        }
    }
}

/// A place posts are published to. Errors carry their failure class (`Error::class`).
pub trait Target {
    /// Send the post once. Retrying and confirming are the runner's job, not the target's.
    fn publish(&mut self, post: &Post) -> Result<Receipt, Error>;

    /// Look the post up: `Ok(Some)` it is there, `Ok(None)` it is provably not, `Err` cannot tell.
    fn find(&mut self, post: &Post) -> Result<Option<Receipt>, Error>;

    /// Whether `find` can answer at all (an http target without `list_url` cannot).
    fn can_find(&self) -> bool {
        true
    }

    /// Whether `find` sees a finished publish at once (a folder does; a web API may lag), so
    /// confirmation needs one look and no waiting.
    fn immediate(&self) -> bool {
        false
    }

    /// A non-secret fingerprint of the credential in use, so that an auth failure is
    /// re-attempted by itself once the credential file is renewed.
    fn credential(&self) -> Option<String> {
        None
    }
}

/// Everything a target may need besides its own settings.
pub struct Context<'a> {
    pub config: &'a Config,
    pub target: &'a TargetConfig,
    pub clock: &'a Clock,
}

/// Build the configured target. The only `match` on the kind: a new platform is one file and
/// one arm here. Reads credential files but sends nothing.
pub fn build(ctx: &Context) -> Result<Box<dyn Target>, Error> {
    Ok(match ctx.target.kind.as_str() {
        "folder" => Box::new(folder::Folder::new(ctx, settings(ctx)?)?),
        "http" => Box::new(http::HttpTarget::new(ctx, settings(ctx)?)?),
        "command" => Box::new(command::CommandTarget::new(ctx, settings(ctx)?)?),
        "wordpress" => Box::new(wordpress::WordPress::new(ctx, settings(ctx)?)?),
        "devto" => Box::new(devto::Devto::new(ctx, settings(ctx)?)?),
        "mastodon" => Box::new(mastodon::Mastodon::new(ctx, settings(ctx)?)?),
        other => {
            return Err(Error::config(format!(
                "[targets.{}]: unknown kind `{other}` (known: folder, http, command, wordpress, devto, mastodon)",
                ctx.target.name
            ))
            .at(&ctx.target.source));
        }
    })
}

/// The target's own settings from its table; unknown keys are an error naming the table.
fn settings<T: DeserializeOwned>(ctx: &Context) -> Result<T, Error> {
    T::deserialize(ctx.target.settings.clone()).map_err(|e| {
        Error::config(format!(
            "[targets.{}]: {}",
            ctx.target.name,
            e.message().trim()
        ))
        .at(ctx.config.show(&ctx.target.source))
    })
}

/// The JSON document that describes a post to http and command targets (schema in the README).
pub fn payload(post: &Post) -> serde_json::Value {
    serde_json::json!({
        "key": post.key.to_string(),
        "title": post.title,
        "tags": post.tags,
        "summary": post.summary,
        "markdown": post.markdown,
        "html": post.html,
        "fingerprint": post.fingerprint,
    })
}
