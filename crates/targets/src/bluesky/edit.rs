//! Editing and removing a record: `putRecord` in place (keeping `createdAt`), and
//! `deleteRecord`, checked with `getRecord`.

use super::*;

impl Update for Bluesky {
    /// `putRecord` under the same key, keeping the original `createdAt`. Off by default
    /// (`on_edit = "update"` turns it on): the Bluesky app keeps showing the original text.
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let rkey = self.rkey_of(id)?.to_string();
        let Some(old) = self.get_record(&rkey)? else {
            return Err(Error::failure(
                Class::Rejected,
                format!("record {rkey} is no longer on the server: nothing to edit"),
            ));
        };
        let record = Self::embed(&out.body, post, &out.media)?;
        self.put_record(&rkey, &old, record)?;
        Ok(self.receipt(id))
    }

    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let rkey = self.rkey_of(id)?.to_string();
        Ok(match self.get_record(&rkey)? {
            Some(doc) if doc["value"]["text"] == out.body["text"] => {
                Lookup::Found(vec![Receipt::id(id)])
            }
            _ => Lookup::Absent,
        })
    }
}

impl Retract for Bluesky {
    /// `deleteRecord` (deleting a record that is gone answers 200 too).
    fn retract(&mut self, _: life::Key, id: &str, _: Option<&Post>) -> Result<(), Error> {
        let rkey = self.rkey_of(id)?.to_string();
        let body = json!({
            "repo": self.client.did()?,
            "collection": COLLECTION,
            "rkey": rkey,
        });
        let reply = self.client.post("com.atproto.repo.deleteRecord", &body)?;
        reply.success(|r| self.failure("deleteRecord", r))?;
        Ok(())
    }

    fn still_there(&mut self, _: life::Key, id: &str) -> Result<Lookup, Error> {
        let rkey = self.rkey_of(id)?.to_string();
        Ok(match self.get_record(&rkey)? {
            Some(_) => Lookup::Found(vec![Receipt::id(id)]),
            None => Lookup::Absent,
        })
    }
}

impl Bluesky {
    /// `putRecord` of `record` over `old`, keeping what the edit must not change: its
    /// `createdAt`, and for a thread's part the reply references it was made with.
    pub(super) fn put_record(
        &mut self,
        rkey: &str,
        old: &Value,
        mut record: Value,
    ) -> Result<(), Error> {
        record["createdAt"] = old["value"]["createdAt"].clone();
        if !old["value"]["reply"].is_null() {
            record["reply"] = old["value"]["reply"].clone();
        }
        let body = json!({
            "repo": self.client.did()?,
            "collection": COLLECTION,
            "rkey": rkey,
            "record": record,
        });
        let reply = self.client.post("com.atproto.repo.putRecord", &body)?;
        reply.success(|r| self.failure("putRecord", r))?;
        Ok(())
    }
}
