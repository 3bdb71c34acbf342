//! Editing and removing a Ghost copy: `PUT` with the version dayrun last wrote, so an edit
//! made on Ghost is never overwritten, and `DELETE`, checked by reading the post back.

use super::{Ghost, error_type};
use crate::error::{Class, Error};
use crate::net::{encode, status_class};
use crate::post::Post;
use crate::{Lookup, Outgoing, Retract, Update};
use life::Receipt;
use serde_json::{Value, json};

impl Update for Ghost {
    /// `PUT /posts/{id}/` with the new title, HTML, tags and cover, and the `updated_at`
    /// dayrun's last write left: Ghost refuses it (409) when the post changed since, so an
    /// edit made on Ghost is never overwritten. Without a recorded version (a line from
    /// `mark done --id`) nothing is sent, unless the copy already holds the edit.
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let Some(version) = super::version::kept(&out.native).map(str::to_string) else {
            let copy = self.read(id)?.ok_or_else(|| {
                Error::failure(Class::Rejected, format!("post {id} is no longer on Ghost"))
                    .hint("`dayrun retract` forgets it; `dayrun retry KEY --force --new` publishes a new copy")
            })?;
            if let Some(receipt) = holds(&copy, id, out) {
                return Ok(receipt);
            }
            return Err(self.stale(
                post.key,
                id,
                format!("update post {id}: dayrun has no record of the version it last wrote (the line has no `version=`), so it cannot tell an edit made on Ghost from its own; nothing was sent"),
            ));
        };
        let mut body = Self::fill(&out.body, &out.media)?;
        if let Some(fields) = body.as_object_mut() {
            // The slug and date stay as published, so links to the post keep working.
            for field in ["slug", "published_at", "status"] {
                fields.remove(field);
            }
            fields.insert("updated_at".into(), json!(version));
            // A cover taken out of the post is taken off the copy too.
            fields.entry("feature_image").or_insert(Value::Null);
            fields.entry("feature_image_alt").or_insert(Value::Null);
            fields.entry("custom_excerpt").or_insert(Value::Null);
        }
        let path = format!("/posts/{}/", encode(id));
        let reply = self.call(
            "PUT",
            &path,
            "source=html",
            Some(&json!({ "posts": [body] })),
        )?;
        if reply.status == 409 && error_type(&reply) == Some("UpdateCollisionError") {
            return Err(self.stale(
                post.key,
                id,
                format!("update post {id}: Ghost answered 409 UpdateCollisionError: the post was changed on Ghost since dayrun wrote it (version {version})"),
            ));
        }
        if status_class(reply.status).is_some() {
            return Err(self.failure("update post", &reply));
        }
        self.receipt(&reply)
    }

    /// The copy holds the edit when its title and HTML have the words that were sent.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let Some(copy) = self.read(id)? else {
            return Ok(Lookup::CannotTell(format!(
                "post {id} is no longer on Ghost"
            )));
        };
        Ok(match holds(&copy, id, out) {
            Some(receipt) => Lookup::Found(vec![receipt]),
            None => Lookup::Absent,
        })
    }
}

impl Retract for Ghost {
    /// `DELETE /posts/{id}/`: Ghost has no trash, the post is gone for good.
    fn retract(&mut self, _: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let path = format!("/posts/{}/", encode(id));
        let reply = self.call("DELETE", &path, "", None)?;
        // 404 NotFoundError: already where it was asked to go.
        if status_class(reply.status).is_none()
            || (reply.status == 404 && error_type(&reply) == Some("NotFoundError"))
        {
            return Ok(());
        }
        Err(self.failure("delete post", &reply))
    }

    fn still_there(&mut self, _: life::Key, id: &str) -> Result<Lookup, Error> {
        Ok(match self.read(id)? {
            Some(_) => Lookup::Found(vec![Receipt::id(id)]),
            None => Lookup::Absent,
        })
    }
}

/// The copy's receipt when its title and HTML have the words that were sent.
fn holds(copy: &Value, id: &str, out: &Outgoing) -> Option<Receipt> {
    let words = Ghost::mark(
        copy["title"].as_str().unwrap_or_default(),
        copy["html"].as_str().unwrap_or_default(),
    );
    out.marks.contains(&words).then(|| Receipt {
        id: id.to_string(),
        url: crate::outside::web_url(copy["url"].as_str()),
        note: None,
        native: super::version::of_post(copy),
    })
}
