//! The values a template sees: the post's fields, the target's link, and the copies of the key
//! on other targets. `fit` shrinks the body, summary and tags here, never the post.

use super::copies::template_name;
use crate::post::Post;
use minijinja::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// What one render sees.
#[derive(Debug, Clone)]
pub struct Vars<'a> {
    pub post: &'a Post,
    /// The target's `link` setting filled in (`{key}`, `{slug}`), when it has one.
    pub link: Option<&'a str>,
    pub(super) body: Cow<'a, str>,
    /// The body as plain text, once `fit` cuts it; `None`: the whole body's, made for a render
    /// whose template uses it.
    pub(super) body_text: Option<Cow<'a, str>>,
    pub(super) summary: Cow<'a, str>,
    /// How many of the post's tags are kept (from the first).
    pub(super) tags: usize,
}

impl<'a> Vars<'a> {
    /// The post as it is, with the target's link.
    pub fn new(post: &'a Post, link: Option<&'a str>) -> Vars<'a> {
        Vars {
            post,
            link,
            body: Cow::Borrowed(&post.markdown),
            body_text: None,
            summary: Cow::Borrowed(&post.summary),
            tags: post.tags.len(),
        }
    }

    /// The body as plain text (`post::plain`: no markup, a link as its text and URL, images
    /// left out), as cut by `fit` if it was.
    pub(super) fn body_text(&self) -> Cow<'_, str> {
        match &self.body_text {
            Some(text) => Cow::Borrowed(text.as_ref()),
            None => Cow::Owned(crate::post::plain::plain(&self.post.markdown)),
        }
    }

    /// The context of a render: every value a template may name (see `uses::POST_VARS`);
    /// `body_text` only when the template uses it (`plain`), as it takes a pass over the body.
    pub(super) fn value(&self, plain: bool) -> Value {
        let post = self.post;
        let tags: Vec<&String> = post.tags.iter().take(self.tags).collect();
        let mut hashtags: Vec<String> = tags
            .iter()
            .filter_map(|t| crate::text::hashtag(t))
            .map(|t| format!("#{t}"))
            .collect();
        hashtags.dedup();
        let copies: BTreeMap<String, Value> = post
            .copies
            .iter()
            .map(|(name, copy)| {
                let mut fields = BTreeMap::from([("id".to_string(), Value::from(&copy.id))]);
                if let Some(url) = &copy.url {
                    fields.insert("url".into(), Value::from(url));
                }
                (template_name(name), Value::from(fields))
            })
            .collect();
        let key = post.key.to_string();
        let mut all = BTreeMap::from([
            ("title".to_string(), Value::from(&post.title)),
            ("summary".into(), Value::from(self.summary.as_ref())),
            ("body".into(), Value::from(self.body.as_ref())),
            (
                "tags".into(),
                Value::from(tags.into_iter().cloned().collect::<Vec<_>>()),
            ),
            ("hashtags".into(), Value::from(hashtags)),
            ("key".into(), Value::from(&key)),
            ("date".into(), Value::from(key)),
            ("copies".into(), Value::from(copies)),
        ]);
        if let Some(link) = self.link {
            all.insert("link".into(), Value::from(link));
        }
        if plain {
            all.insert("body_text".into(), Value::from(self.body_text().as_ref()));
        }
        Value::from(all)
    }
}

/// A target's `link` setting for `post`: `{key}` and `{slug}` (`Post::link_slug`) filled in.
pub fn link(pattern: &str, post: &Post) -> String {
    pattern
        .replace("{key}", &post.key.to_string())
        .replace("{slug}", &post.link_slug())
}
