//! Editing and removing an http copy: `update_url` with the update method, and `delete_url`,
//! each checked with the lookup (`list_url`).

use super::*;

impl Update for HttpTarget {
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let url = self
            .update_url()?
            .replace("{id}", &encode(id))
            .replace("{key}", &encode(&post.place().to_string()));
        let reply = self
            .http
            .send(&self.settings.update_method, &url, &self.headers, &out.body)?;
        let reply = reply.success(|r| self.http.failure("update", r, self.credential_file()))?;
        Ok(Receipt {
            id: id.to_string(),
            url: serde_json::from_str::<Value>(&reply.body)
                .ok()
                .and_then(|doc| id_at(&doc, &self.settings.url_pointer))
                .and_then(|url| crate::outside::web_url(Some(&url))),
            ..Default::default()
        })
    }

    /// The lookup, matched on the fingerprint sent whatever `match_by` says: an item of this
    /// key that holds another fingerprint is the version before the edit.
    fn read_back(&mut self, _: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let key = payload_key(&out.body)?;
        let attempts = Attempts::none_yet(key, &out.marks, &out.body);
        self.lookup(&attempts, &FIELDS[2..], true, true)
    }
}

impl Retract for HttpTarget {
    fn retract(&mut self, key: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let url = self
            .delete_url()?
            .replace("{id}", &encode(id))
            .replace("{key}", &encode(&key.to_string()));
        let reply = match self.settings.delete_method.as_str() {
            "DELETE" => self.http.delete(&url, &self.headers)?,
            method => self.http.send(
                method,
                &url,
                &self.headers,
                &serde_json::json!({"key": key.to_string(), "id": id}),
            )?,
        };
        // Already gone is what was asked for.
        if reply.status == 404 || reply.status == 410 || status_class(reply.status).is_none() {
            return Ok(());
        }
        Err(self.http.failure("retract", &reply, self.credential_file()))
    }

    /// The copy with this id, by the key (whatever the copy holds, it is the one removed): an
    /// exact query by key that answers no item with this id proves it gone, though another copy
    /// of the key (an earlier generation, a duplicate) may still be listed.
    fn still_there(&mut self, key: life::Key, id: &str) -> Result<Lookup, Error> {
        let fields = self.fields();
        let attempts = Attempts::none_yet(key, &[], &Value::Null);
        Ok(match self.lookup(&attempts, fields, false, false)? {
            Lookup::Found(copies) => match copies.into_iter().find(|c| c.id == id) {
                Some(copy) => Lookup::Found(vec![copy]),
                None => Lookup::Absent,
            },
            other => other,
        })
    }
}
