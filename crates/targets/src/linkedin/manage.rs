//! Edits and retracts. An edit is the Posts API's partial update (`POST /rest/posts/{urn}` with
//! `X-RestLi-Method: PARTIAL_UPDATE` and `{"patch": {"$set": {"commentary": …}}}`): the
//! commentary only, as the docs allow; images stay as they were posted. A retract is `DELETE`,
//! then read back: gone only when LinkedIn answers 404.

use super::Linkedin;
use crate::error::Error;
use crate::post::Post;
use crate::{Lookup, Outgoing, Retract, Update};
use life::{Key, Receipt};
use serde_json::json;

impl Update for Linkedin {
    fn update(&mut self, id: &str, _: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        self.unexpired()?;
        let mut headers = self.headers();
        headers.push(("X-RestLi-Method".into(), "PARTIAL_UPDATE".into()));
        let body = json!({ "patch": { "$set": { "commentary": out.body["commentary"] } } });
        let reply = self
            .http
            .post(&self.url(&Self::post_path(id)), &headers, &body)?;
        reply.success(|r| self.failure("edit post", r))?;
        Ok(Self::receipt(id))
    }

    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let Some(post) = self.read(id)? else {
            return Ok(Lookup::CannotTell(format!(
                "post {id} is not on LinkedIn any more"
            )));
        };
        let now = post["commentary"].as_str().map(crate::text::mark);
        Ok(match now.is_some_and(|m| out.marks.contains(&m)) {
            true => Lookup::Found(vec![Self::receipt(id)]),
            false => Lookup::Absent,
        })
    }
}

impl Retract for Linkedin {
    fn retract(&mut self, _: Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        self.unexpired()?;
        let reply = self
            .http
            .delete(&self.url(&Self::post_path(id)), &self.headers())?;
        match reply.status {
            404 => Ok(()),
            _ => reply
                .success(|r| self.failure("delete post", r))
                .map(|_| ()),
        }
    }

    fn still_there(&mut self, _: Key, id: &str) -> Result<Lookup, Error> {
        Ok(match self.read(id)? {
            None => Lookup::Absent,
            Some(_) => Lookup::Found(vec![Self::receipt(id)]),
        })
    }
}
