//! The Nostr identity: a BIP-340 secret key read from a file (`nsec1…` or 64 hex digits),
//! checked when the target is built, masked in every form it can come back in, never printed.
//! It signs an event's id; its x-only public key is the events' `pubkey`.

use crate::Context;
use crate::error::Error;
use crate::redact::Redactor;
use crate::secret::Secret;
use k256::schnorr::{Signature, SigningKey, VerifyingKey};
use std::path::{Path, PathBuf};

/// A secret key and the public key it makes. `Debug` shows the file, never the key.
pub struct Keys {
    signing: SigningKey,
    /// The public key, 64 lower-case hex digits: every event's `pubkey`.
    pub public: String,
    /// Where the key came from (what to renew), and its fingerprint.
    pub secret: Secret,
    redactor: Redactor,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({}, {})", self.secret.file.display(), self.public)
    }
}

impl Keys {
    /// Read and check the key file: one line, `nsec1…` (NIP-19) or 64 hex digits, a valid
    /// secp256k1 secret key. Anything else is a config error naming the file, which shows
    /// what the file holds only by its kind ("an npub").
    pub fn read(ctx: &Context, file: &Path) -> Result<Keys, Error> {
        let secret = Secret::read(ctx, file, "secret key")?.one_line(ctx, "secret key")?;
        let bytes = parse(secret.expose()).map_err(|why| bad(ctx, &secret.file, &why))?;
        let signing = SigningKey::from_bytes(&bytes).map_err(|_| {
            bad(
                ctx,
                &secret.file,
                "it is not a valid secp256k1 secret key (zero, or past the curve's order)",
            )
        })?;
        let public = crate::text::hex(&signing.verifying_key().to_bytes());
        // Both forms of the key are masked: the one in the file and the other.
        let mut redactor = secret.redactor();
        redactor.add(&crate::text::hex(&bytes));
        redactor.add(&nsec(&bytes));
        redactor.register();
        Ok(Keys {
            signing,
            public,
            secret,
            redactor,
        })
    }

    /// The BIP-340 signature of an event id (32 bytes), as 128 hex digits. The auxiliary
    /// randomness is the id itself, so the same event is signed the same way every time.
    pub fn sign(&self, id: &[u8; 32]) -> String {
        let signature = self
            .signing
            .sign_prehash_with_aux_rand(id, id)
            .expect("a 32-byte digest signs");
        crate::text::hex(&signature.to_bytes())
    }

    /// What masks the key in any text from outside.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The file the key was read from, as the user wrote it.
    pub fn file(&self) -> &PathBuf {
        &self.secret.file
    }
}

/// Whether `sig` (hex) is `public`'s (hex) signature of `id`.
pub fn verifies(public: &str, id: &[u8; 32], sig: &str) -> bool {
    let (Some(public), Some(sig)) = (unhex(public), unhex(sig)) else {
        return false;
    };
    let (Ok(key), Ok(sig)) = (
        VerifyingKey::from_bytes(&public),
        Signature::try_from(sig.as_slice()),
    ) else {
        return false;
    };
    key.verify_raw(id, &sig).is_ok()
}

/// The 32 bytes of a secret key written as `nsec1…` or as 64 hex digits; `Err` says what is
/// wrong without showing the text.
fn parse(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("npub1") {
        return Err("it holds a public key (npub); dayrun needs the secret key (nsec)".into());
    }
    if lower.starts_with("nsec1") {
        let (hrp, data) = bech32::decode(text)
            .map_err(|_| "it is not a valid nsec (its checksum or characters are wrong)")?;
        if hrp.as_str() != "nsec" || data.len() != 32 {
            return Err("it is not a valid nsec (not 32 bytes)".into());
        }
        return Ok(data);
    }
    match unhex(&lower).filter(|b| b.len() == 32) {
        Some(bytes) => Ok(bytes),
        None => Err(format!(
            "it holds {} characters that are neither an nsec1… key nor 64 hex digits",
            text.chars().count()
        )),
    }
}

/// The public key (hex) an `npub1…` (NIP-19) or 64 hex digits name.
pub fn public_of(text: &str) -> Option<String> {
    let text = text.trim();
    if text.to_ascii_lowercase().starts_with("npub1") {
        let (hrp, data) = bech32::decode(text).ok()?;
        return (hrp.as_str() == "npub" && data.len() == 32).then(|| crate::text::hex(&data));
    }
    let bytes = unhex(&text.to_ascii_lowercase()).filter(|b| b.len() == 32)?;
    Some(crate::text::hex(&bytes))
}

/// `nsec1…` for 32 bytes (NIP-19).
fn nsec(bytes: &[u8]) -> String {
    let hrp = bech32::Hrp::parse("nsec").expect("a valid prefix");
    bech32::encode::<bech32::Bech32>(hrp, bytes).expect("32 bytes encode")
}

/// Hex digits as bytes.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

fn bad(ctx: &Context, file: &Path, why: &str) -> Error {
    Error::config(format!(
        "[targets.{}]: the secret key file {} is not a Nostr secret key: {why}",
        ctx.target.name,
        file.display()
    ))
    .at(file)
    .hint("write the key as nsec1… or as 64 hex digits, on one line (chmod 600)")
}

#[cfg(test)]
mod tests {
    use super::*;

    // BIP-340's test vector 0 as a Nostr key: secret 3, public key F9308A…
    const SECRET: &str = "0000000000000000000000000000000000000000000000000000000000000003";

    #[test]
    fn a_key_reads_as_hex_or_nsec_and_nothing_else() {
        let bytes = parse(SECRET).unwrap();
        assert_eq!(parse(&nsec(&bytes)).unwrap(), bytes);
        assert_eq!(parse(&SECRET.to_uppercase()).unwrap(), bytes);
        let mut broken = nsec(&bytes);
        broken.replace_range(10..11, if &broken[10..11] == "q" { "p" } else { "q" });
        for text in ["npub1xyz", "abc", &broken, &SECRET[2..]] {
            let why = parse(text).unwrap_err();
            assert!(!why.contains(text), "the text is never shown: {why}");
        }
    }

    #[test]
    fn a_signature_is_bip340_and_verifies() {
        let signing = SigningKey::from_bytes(&parse(SECRET).unwrap()).unwrap();
        let public = crate::text::hex(&signing.verifying_key().to_bytes());
        assert_eq!(
            public,
            "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
        );
        let id = [7u8; 32];
        let sig = crate::text::hex(
            &signing
                .sign_prehash_with_aux_rand(&id, &id)
                .unwrap()
                .to_bytes(),
        );
        assert!(verifies(&public, &id, &sig));
        assert!(!verifies(&public, &[8u8; 32], &sig));
    }
}
