//! A Nostr event (NIP-01): what `prepare` makes (kind, tags, content: the `Outgoing` body),
//! and that draft signed at a `created_at`. The id is the sha256 of
//! `[0, pubkey, created_at, kind, tags, content]` serialized without spaces, so the same
//! draft at the same `created_at` is the same event, whoever sends it and however often.

use super::key::{self, Keys};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The kinds dayrun sends: a short text note, a long-form article (NIP-23, addressable by
/// its `d` tag) and a deletion request (NIP-09).
pub const SHORT: u64 = 1;
pub const LONG: u64 = 30023;
pub const DELETION: u64 = 5;

/// What is signed: an event without `pubkey`, `created_at`, `id` and `sig`.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub kind: u64,
    pub tags: Vec<Vec<String>>,
    pub content: String,
}

impl Draft {
    /// As the `Outgoing` body keeps it.
    pub fn to_body(&self) -> Value {
        json!({ "kind": self.kind, "tags": self.tags, "content": self.content })
    }

    /// Read back from an `Outgoing` body (or a kept payload); `None`: not a draft.
    pub fn from_body(body: &Value) -> Option<Draft> {
        let tags = body["tags"]
            .as_array()?
            .iter()
            .map(|t| {
                t.as_array()?
                    .iter()
                    .map(|s| s.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Draft {
            kind: body["kind"].as_u64()?,
            tags,
            content: body["content"].as_str()?.to_string(),
        })
    }

    /// The first value of the tag `name` (`d`, `title`), if any.
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag(&self.tags, name)
    }

    /// The draft signed by `keys` at `created_at`.
    pub fn sign(&self, keys: &Keys, created_at: u64) -> Event {
        let digest = digest(&keys.public, created_at, self);
        Event {
            id: crate::text::hex(&digest),
            pubkey: keys.public.clone(),
            created_at,
            draft: self.clone(),
            sig: keys.sign(&digest),
        }
    }
}

/// A signed event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: String,
    pub pubkey: String,
    pub created_at: u64,
    pub draft: Draft,
    pub sig: String,
}

impl Event {
    /// As it goes on the wire.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "pubkey": self.pubkey,
            "created_at": self.created_at,
            "kind": self.draft.kind,
            "tags": self.draft.tags,
            "content": self.draft.content,
            "sig": self.sig,
        })
    }

    /// An event a relay sent, when its id is the hash of its fields and its signature is
    /// its author's: a relay's copy is believed only then. `None` otherwise.
    pub fn checked(doc: &Value) -> Option<Event> {
        let draft = Draft::from_body(doc)?;
        let pubkey = doc["pubkey"].as_str()?.to_string();
        let created_at = doc["created_at"].as_u64()?;
        let digest = digest(&pubkey, created_at, &draft);
        let id = doc["id"].as_str()?.to_string();
        let sig = doc["sig"].as_str()?.to_string();
        (id == crate::text::hex(&digest) && key::verifies(&pubkey, &digest, &sig)).then_some(
            Event {
                id,
                pubkey,
                created_at,
                draft,
                sig,
            },
        )
    }
}

/// The first value of the tag `name` in `tags`.
pub fn tag<'a>(tags: &'a [Vec<String>], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|t| t.first().is_some_and(|n| n == name))
        .and_then(|t| t.get(1))
        .map(String::as_str)
}

/// NIP-01's id: sha256 of the serialized `[0, pubkey, created_at, kind, tags, content]`.
/// serde_json writes no whitespace and escapes as NIP-01 asks for the text dayrun sends
/// (`\n`, `\"`, `\\`, `\r`, `\t`, `\b`, `\f`; other characters as they are; `content` holds no
/// other control character: `text::clean` drops them).
fn digest(pubkey: &str, created_at: u64, draft: &Draft) -> [u8; 32] {
    let serialized = json!([0, pubkey, created_at, draft.kind, draft.tags, draft.content]);
    Sha256::digest(serialized.to_string().as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_the_hash_of_the_nip01_serialization() {
        let draft = Draft {
            kind: 1,
            tags: vec![vec!["t".into(), "rust".into()]],
            content: "a \"quote\"\nand é".into(),
        };
        let text = json!([0, "ab", 5, 1, [["t", "rust"]], "a \"quote\"\nand é"]).to_string();
        assert_eq!(
            text,
            "[0,\"ab\",5,1,[[\"t\",\"rust\"]],\"a \\\"quote\\\"\\nand é\"]"
        );
        let want: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        assert_eq!(digest("ab", 5, &draft), want);
        assert_eq!(Draft::from_body(&draft.to_body()), Some(draft));
    }
}
