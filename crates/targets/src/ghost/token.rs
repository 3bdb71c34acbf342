//! Ghost's Admin API key (`id:secret`) and the short-lived HS256 token made from it for each
//! request: Ghost refuses a token whose `iat` is more than five minutes old, so a token made
//! once per run would fail a long run halfway.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;

/// The longest a token lives (Ghost's limit is five minutes from `iat`).
const LIFETIME_SECS: i64 = 300;

/// An Admin API key, split: the key's id (the token's `kid`, not secret) and its secret bytes.
pub(super) struct AdminKey {
    id: String,
    secret: Vec<u8>,
    /// The first part of every token made with this key (its header): what marks a token in a
    /// text, so that one echoed by a server is masked (`mask`).
    header: String,
}

impl AdminKey {
    /// `id:secret` as Ghost shows it (Settings → Integrations → a custom integration → Admin
    /// API key); the secret is hex. `Err` says what is wrong, without the key.
    pub(super) fn parse(text: &str) -> Result<AdminKey, String> {
        let Some((id, secret)) = text.trim().split_once(':') else {
            return Err("it holds no `:`; an Admin API key is `id:secret` (a Content API key has no `:` and cannot publish)".into());
        };
        if id.is_empty() || id.len() > 100 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err("the part before `:` is not a key id (letters and digits)".into());
        }
        let secret = unhex(secret)
            .filter(|s| s.len() >= 16)
            .ok_or("the part after `:` is not a secret in hex (at least 32 hex digits)")?;
        let header =
            URL_SAFE_NO_PAD.encode(json!({"alg": "HS256", "typ": "JWT", "kid": id}).to_string());
        Ok(AdminKey {
            id: id.to_string(),
            secret,
            header,
        })
    }

    /// The first part of every token made with this key (its header, not secret).
    pub(super) fn header(&self) -> &str {
        &self.header
    }

    /// The key's id (shown in messages: it names the integration, it grants nothing).
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    /// A token for one request made at `now` (seconds since the epoch): valid from `now`
    /// for five minutes, for the Admin API only.
    pub(super) fn token(&self, now: i64) -> String {
        let claims = json!({"iat": now, "exp": now + LIFETIME_SECS, "aud": "/admin/"});
        let signed = format!(
            "{}.{}",
            self.header,
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes a key of any length");
        mac.update(signed.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signed}.{signature}")
    }
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() || !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "6489f2d1c3a4b5e6f7a8b9c0:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_is_the_hs256_jwt_ghost_checks() {
        let key = AdminKey::parse(KEY).unwrap();
        let token = key.token(1_800_000_000);
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        // The same token, made by Python's hmac and base64 (the harness's ghost.py way).
        assert_eq!(
            parts[0],
            "eyJhbGciOiJIUzI1NiIsImtpZCI6IjY0ODlmMmQxYzNhNGI1ZTZmN2E4YjljMCIsInR5cCI6IkpXVCJ9"
        );
        assert_eq!(
            parts[1],
            "eyJhdWQiOiIvYWRtaW4vIiwiZXhwIjoxODAwMDAwMzAwLCJpYXQiOjE4MDAwMDAwMDB9"
        );
        assert_eq!(parts[2], "PrKecPhjhBIHomxQ9RNW2LsiRWgm-NlLKwV7EnN7zCc");
        assert!(!token.contains('='));
    }

    #[test]
    fn keys_that_cannot_sign_are_refused_with_the_reason() {
        for (text, why) in [
            ("0123456789abcdef01234567", "no `:`"),
            ("abc:xyz", "not a secret in hex"),
            ("abc:0123", "not a secret in hex"),
            (":0123456789abcdef0123456789abcdef", "not a key id"),
            ("a b:0123456789abcdef0123456789abcdef", "not a key id"),
        ] {
            let err = AdminKey::parse(text).err().unwrap();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn an_echoed_token_is_masked_by_the_redactor() {
        let key = AdminKey::parse(KEY).unwrap();
        let token = key.token(1_800_000_000);
        let mut redactor = crate::redact::Redactor::default();
        redactor.add_token_start(key.header());
        let text = format!("{{\"auth\":\"Ghost {token}\",\"x\":1}}");
        assert_eq!(redactor.redact(&text), "{\"auth\":\"Ghost ***\",\"x\":1}");
    }
}
