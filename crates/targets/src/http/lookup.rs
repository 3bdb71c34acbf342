//! Looking an http copy up: `list_url` read and each item matched by its key or idempotency
//! key (where a copy is) and its fingerprint or words (whether the copy there is this post).

use super::*;

/// What a listed item is to the key looked up.
enum Item {
    /// This post: at this key's place, holding what an attempt sent.
    Ours,
    /// At this key's place, holding something else.
    Foreign,
    /// At this key's place, with nothing to compare.
    Unproven,
    /// Another key's item.
    Other,
    /// Carries none of the fields to tell.
    Blind,
}

/// What the list answered, counted item by item.
struct Tally {
    /// This post's copies.
    found: Vec<Receipt>,
    /// Items at this key's place holding something else.
    foreign: Vec<Receipt>,
    blind: usize,
    unproven: usize,
    others: usize,
    listed: usize,
    /// The oldest creation time listed; `Err` once an item has none.
    oldest: Result<Option<jiff::Timestamp>, ()>,
}

impl HttpTarget {
    /// What `item` is to this key, by the first match field it carries. A key or idempotency
    /// key says where a copy is, not that it is this post (`identity`): the item must also hold
    /// what an attempt sent (its `fingerprint`, or the `title` and `markdown` that make it).
    fn matches(&self, item: &Value, attempts: &Attempts, fields: &[&str], identity: bool) -> Item {
        let key = attempts.key.to_string();
        let Some(field) = fields
            .iter()
            .find_map(|f| Some((*f, item.get(*f)?.as_str()?)))
        else {
            return Item::Blind;
        };
        let marker = match field {
            ("key", value) => value == key,
            ("idempotency_key", value) => value == attempts.idempotency_key(&self.name),
            (_, fingerprint) => {
                return match attempts.sent_text(fingerprint) {
                    true => Item::Ours,
                    false => Item::Other,
                };
            }
        };
        if !marker {
            return Item::Other;
        }
        if !identity {
            return Item::Ours;
        }
        let sent = match (
            item.get("fingerprint").and_then(Value::as_str),
            item.get("title").and_then(Value::as_str),
            item.get("markdown").and_then(Value::as_str),
        ) {
            (Some(fingerprint), _, _) => attempts.sent_text(fingerprint),
            (None, Some(title), Some(markdown)) => {
                attempts.sent_text(&crate::post::fingerprint(title, markdown))
            }
            _ => return Item::Unproven,
        };
        match sent {
            true => Item::Ours,
            false => Item::Foreign,
        }
    }

    /// The lookup, matching items on `fields`. `older`: an item of this key that is not what
    /// was sent is an older version of it (reading an update back), not a cannot-tell.
    pub(super) fn lookup(
        &mut self,
        attempts: &Attempts,
        fields: &'static [&'static str],
        older: bool,
        identity: bool,
    ) -> Result<Lookup, Error> {
        let Some(list_url) = &self.settings.list_url else {
            return Ok(Lookup::CannotTell("no list_url to look posts up".into()));
        };
        let (url, exact) = self.list_url(list_url, attempts);
        let reply = self.http.get(&url, &self.headers)?;
        let reply = reply.success(|r| self.http.failure("list", r, self.credential_file()))?;
        let tally = match self.tally(&reply.body, attempts, fields, identity) {
            Ok(tally) => tally,
            Err(cannot_tell) => return Ok(cannot_tell),
        };
        if !tally.found.is_empty() {
            return Ok(Lookup::Found(tally.found));
        }
        if tally.blind > 0 {
            return Ok(Lookup::CannotTell(format!(
                "{} listed item(s) carry no {} to tell them apart",
                tally.blind,
                fields.join(" or ")
            )));
        }
        if tally.unproven > 0 {
            return Ok(Lookup::CannotTell(format!(
                "{} listed item(s) carry this key but no fingerprint (nor title and markdown) to show they are this post",
                tally.unproven
            )));
        }
        if !tally.foreign.is_empty() {
            return Ok(Lookup::Foreign(tally.foreign));
        }
        Ok(self.absence(&tally, attempts, exact, older))
    }

    /// Read the list answer `body` item by item, each matched on `fields`; a cannot-tell when
    /// it is not JSON or holds no array at `items_pointer`.
    fn tally(
        &self,
        body: &str,
        attempts: &Attempts,
        fields: &[&str],
        identity: bool,
    ) -> Result<Tally, Lookup> {
        let pointer = &self.settings.items_pointer;
        let created = self.settings.created_pointer.as_deref();
        let mut tally = Tally {
            found: Vec::new(),
            foreign: Vec::new(),
            blind: 0,
            unproven: 0,
            others: 0,
            listed: 0,
            oldest: Ok(None),
        };
        let walk = items::each(body, pointer, &mut |item| {
            tally.listed += 1;
            let receipt = || Receipt {
                id: id_at(&item, &self.settings.id_pointer).unwrap_or_else(|| "found".into()),
                url: crate::outside::web_url(id_at(&item, &self.settings.url_pointer).as_deref()),
                ..Default::default()
            };
            match self.matches(&item, attempts, fields, identity) {
                Item::Ours => tally.found.push(receipt()),
                Item::Foreign => tally.foreign.push(receipt()),
                Item::Unproven => tally.unproven += 1,
                Item::Other => tally.others += 1,
                Item::Blind => tally.blind += 1,
            }
            if let (Some(created), Ok(min)) = (created, tally.oldest) {
                let at = item
                    .pointer(created)
                    .and_then(Value::as_str)
                    .and_then(|t| t.parse::<jiff::Timestamp>().ok());
                tally.oldest = at.map(|t| Some(min.map_or(t, |m| m.min(t)))).ok_or(());
            }
        });
        match walk {
            Err(e) => Err(Lookup::CannotTell(format!("list answer is {e}"))),
            Ok(items::Walk::NotArray) => Err(Lookup::CannotTell(format!(
                "list answer has no array at `{pointer}`"
            ))),
            Ok(items::Walk::Array) => Ok(tally),
        }
    }

    /// What a list holding no item of this post means: absent only where the lookup covers
    /// where the post would be (an exact query, a complete list, or one that reaches back past
    /// the attempt), else a cannot-tell.
    fn absence(&self, tally: &Tally, attempts: &Attempts, exact: bool, older: bool) -> Lookup {
        if exact {
            // An exact query answers this key's posts only; anything else means the server
            // ignored the filter, or holds a copy no attempt of ours sent.
            return match tally.others {
                0 => Lookup::Absent,
                _ if older => Lookup::Absent,
                n => Lookup::CannotTell(format!(
                    "the exact query answered {n} item(s) that are not what was sent"
                )),
            };
        }
        if self.settings.list_complete {
            return Lookup::Absent;
        }
        let Some(created) = self.settings.created_pointer.as_deref() else {
            return Lookup::CannotTell(
                "a plain list_url cannot prove a post absent: use {key} in list_url, set created_pointer, or list_complete = true".into(),
            );
        };
        let reach = attempts.reach_back() - jiff::SignedDuration::from_secs(60);
        match tally.oldest {
            Err(()) => {
                Lookup::CannotTell(format!("a listed item has no RFC 3339 time at `{created}`"))
            }
            Ok(Some(oldest)) if oldest < reach => Lookup::Absent,
            // Nothing at all: a list cut to the newest items would still show ours.
            Ok(None) if tally.listed == 0 => Lookup::Absent,
            Ok(_) => Lookup::CannotTell(format!(
                "the list does not reach back past the attempt ({}): it may be cut short",
                attempts.reach_back()
            )),
        }
    }
}

/// No `survey`: the lookup is your endpoint's own query (exact with `{key}` in
/// `list_url`), made per key as configured.
impl Find for HttpTarget {
    /// Found when an item matches. Absent only when the lookup covers where the post would
    /// be: an exact query, a listing that reaches back past the attempt (`created_pointer`),
    /// or one the user declares complete. An item that cannot be told apart spoils absence.
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let fields = self.fields();
        self.lookup(attempts, fields, false, true)
    }

    /// What `outgoing` marks a send with: the post's fingerprint (a template's text is not
    /// compared), so no template is rendered for it.
    fn marks_of(&mut self, post: &Post) -> Option<Vec<String>> {
        Some(super::super::payload::outgoing_marks(post))
    }
}
