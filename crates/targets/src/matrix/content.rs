//! What a Matrix message carries: its text (`body`) and HTML (`formatted_body`), the key in a
//! namespaced field of its content (`app.dayrun.key`), and the transaction id it is sent with.

use super::Matrix;
use crate::error::Error;
use crate::post::Post;
use crate::text::mark;
use life::Key;
use serde_json::{Value, json};

/// The field of an event's content that names the key, the copy and the part it is.
pub(super) const KEY_FIELD: &str = "app.dayrun.key";

/// What `prepare` writes in its body for a post with images, and a send takes out: a resend
/// from a lookup cannot send them, so it leaves such a post to a read of the room.
pub(super) const IMAGES: &str = "dayrun.images";

/// What a part is: the post's message (0), or image `sha16`'s `m.image` event.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Part {
    Message(usize),
    Image(String),
}

impl Part {
    fn label(&self) -> Value {
        match self {
            Part::Message(n) => json!(n),
            Part::Image(sha) => json!(format!("image {sha}")),
        }
    }
}

impl Matrix {
    /// The message for `post` and the marks a lookup compares: the template's text, or the
    /// title and body as text with the same as HTML (`org.matrix.custom.html`). `m.mentions`
    /// is empty: a name in a post pings nobody.
    pub(super) fn message(&mut self, post: &Post) -> Result<(Value, Vec<String>), Error> {
        let mut body = json!({ "msgtype": "m.text", "m.mentions": {} });
        match &self.template {
            Some(template) => {
                let text = template.render(&crate::template::Vars::new(post, None))?;
                body["body"] = json!(text.trim());
            }
            None => {
                let text = crate::post::plain::plain(&post.markdown);
                let text = match text.is_empty() {
                    true => post.title.clone(),
                    false => format!("{}\n\n{text}", post.title),
                };
                let html = format!(
                    "<h2>{}</h2>\n{}",
                    escape(&post.title),
                    strip_images(&post.html)
                );
                body["body"] = json!(text);
                body["format"] = json!("org.matrix.custom.html");
                body["formatted_body"] = json!(html);
            }
        }
        let marks = vec![mark_of(&body)];
        if !post.images.is_empty() {
            body[IMAGES] = json!(post.images.len());
        }
        Ok((body, marks))
    }

    /// `body` with the key field: this target, the key, which copy and which part.
    pub(super) fn with_key(&self, key: Key, generation: u32, part: &Part, body: &Value) -> Value {
        let mut body = body.clone();
        if let Some(fields) = body.as_object_mut() {
            fields.remove(IMAGES);
        }
        body[KEY_FIELD] = json!({
            "target": self.name,
            "key": key.to_string(),
            "generation": generation,
            "part": part.label(),
        });
        body
    }

    /// Whether an event's key field names this target's `key`, copy `generation`, `part`.
    pub(super) fn carries(&self, content: &Value, key: Key, generation: u32, part: &Part) -> bool {
        let field = &content[KEY_FIELD];
        field["target"] == self.name.as_str()
            && field["key"] == key.to_string().as_str()
            && field["generation"] == generation
            && field["part"] == part.label()
    }

    /// The transaction id of `part` of copy `generation` of `key`: the same for every attempt,
    /// another for every copy and part (`net::idempotency_key`).
    pub(super) fn txn(&self, key: Key, generation: u32, part: &Part) -> String {
        match part {
            Part::Message(0) => crate::idempotency_key(&self.name, key, generation),
            Part::Message(n) => {
                crate::net::idempotency_key(&self.name, &format!("{key}#{generation}/part {n}"))
            }
            Part::Image(sha) => {
                crate::net::idempotency_key(&self.name, &format!("{key}#{generation}/image {sha}"))
            }
        }
    }
}

/// `text` as HTML text (`&`, `<`, `>` and `"` escaped).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `html` without its `<img>` tags: the images go as `m.image` events of their own, and a
/// client shows an `<img>` only from an `mxc://` URI.
fn strip_images(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<img ") {
        out.push_str(&rest[..at]);
        match rest[at..].find('>') {
            Some(end) => rest = &rest[at + end + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The mark of a message's content as the server keeps it (verbatim): its text and HTML.
pub(super) fn mark_of(content: &Value) -> String {
    mark(&format!(
        "matrix\n{}\n{}",
        content["body"].as_str().unwrap_or_default(),
        content["formatted_body"].as_str().unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_leave_the_html_and_the_rest_stays() {
        let html = "<p>A <img src=\"a.png\" alt=\"x &gt; y\" /> b</p><p><img src=\"c.png\"/></p>";
        assert_eq!(strip_images(html), "<p>A  b</p><p></p>");
        assert_eq!(strip_images("<p>no images</p>"), "<p>no images</p>");
    }
}
