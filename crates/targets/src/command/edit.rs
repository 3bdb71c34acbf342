//! Editing and removing a command's copy: the script run with `update` or `retract`, and a
//! removal checked with `confirm` where the script has one.

use super::*;
use life::Key;

impl Update for CommandTarget {
    fn update(&mut self, id: &str, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let argv = self.update.clone().unwrap_or_default();
        self.argv_of(!argv.is_empty(), "update", "edits can be sent")?;
        let finished = self
            .exec(&argv, post.place(), &out.body, None, Some(id), None)
            .map_err(|e| cannot_start(&argv[0], &e))?;
        let why = how(&finished, self.timeout);
        match (finished.timed_out, finished.code) {
            (false, Some(0)) => Ok(Receipt::id(id)),
            (false, Some(EXIT_RETRY_SAFE)) => Err(Error::failure(Class::RetrySafe, why)),
            (false, Some(EXIT_AUTH)) => Err(Error::failure(Class::Auth, why)),
            (false, Some(EXIT_REJECTED)) => Err(Error::failure(Class::Rejected, why)),
            _ => Err(Error::failure(Class::Unknown, why)),
        }
    }

    /// The `confirm` command, handed the edit and the id: exit 0 = the copy holds it.
    fn read_back(&mut self, id: &str, out: &Outgoing) -> Result<Lookup, Error> {
        let Some(confirm) = self.confirm.clone() else {
            return Ok(Lookup::CannotTell("no confirm command".into()));
        };
        let key = payload_key(&out.body)?;
        let finished = self
            .exec(&confirm, key, &out.body, None, Some(id), None)
            .map_err(|e| cannot_start(&confirm[0], &e))?;
        Ok(match (finished.timed_out, finished.code) {
            (false, Some(0)) => Lookup::Found(vec![Receipt::id(id)]),
            (false, Some(1)) => Lookup::Absent,
            _ => Lookup::CannotTell(format!("confirm {}", how(&finished, self.timeout))),
        })
    }
}

impl Retract for CommandTarget {
    fn retract(&mut self, key: Key, id: &str, post: Option<&Post>) -> Result<(), Error> {
        let argv = self.retract.clone().unwrap_or_default();
        self.argv_of(!argv.is_empty(), "retract", "posts can be retracted")?;
        let input = post.map_or_else(
            || serde_json::json!({"key": key.to_string()}),
            |p| payload(p, &self.images),
        );
        let finished = self
            .exec(&argv, key, &input, None, Some(id), None)
            .map_err(|e| cannot_start(&argv[0], &e))?;
        let why = how(&finished, self.timeout);
        match (finished.timed_out, finished.code) {
            (false, Some(0)) => Ok(()),
            (false, Some(EXIT_RETRY_SAFE)) => Err(Error::failure(Class::RetrySafe, why)),
            (false, Some(EXIT_AUTH)) => Err(Error::failure(Class::Auth, why)),
            (false, Some(EXIT_REJECTED)) => Err(Error::failure(Class::Rejected, why)),
            _ => Err(Error::failure(Class::Unknown, why)),
        }
    }

    /// The `confirm` command, told the id: exit 1 proves the post gone.
    fn still_there(&mut self, key: Key, id: &str) -> Result<Lookup, Error> {
        let Some(confirm) = self.confirm.clone() else {
            return Ok(Lookup::CannotTell("no confirm command".into()));
        };
        let input = serde_json::json!({"key": key.to_string()});
        let finished = self
            .exec(&confirm, key, &input, None, Some(id), None)
            .map_err(|e| cannot_start(&confirm[0], &e))?;
        Ok(match (finished.timed_out, finished.code) {
            (false, Some(0)) => Lookup::Found(vec![Receipt::id(id)]),
            (false, Some(1)) => Lookup::Absent,
            _ => Lookup::CannotTell(format!("confirm {}", how(&finished, self.timeout))),
        })
    }
}
