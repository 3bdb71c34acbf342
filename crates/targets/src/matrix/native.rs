//! Matrix's own data on a key's line: the fingerprint of the access token a copy was first
//! sent with (`matrix.token=`). Transaction ids belong to the token's device, so a lookup
//! resends with the same id only under the same token. The shared types carry it as
//! `life::Native`.

use crate::secret::Secret;
use life::Native;

/// Its field on the line.
const TOKEN: &str = "matrix.token";

/// What a copy is first sent with: the token in use now.
pub(super) fn chosen(token: &Secret) -> Native {
    Native::one(TOKEN, token.fingerprint.clone())
}

/// Its field naming a thread's part (`matrix.part=`), on what a part's lookup carries.
const PART: &str = "matrix.part";

/// What part `n` of a thread is sent with: the token, and its number (0 is the copy).
pub(super) fn part(token: &Secret, n: usize) -> Native {
    let mut native = chosen(token);
    if n > 0 {
        native.set(PART, n.to_string());
    }
    native
}

/// The part a lookup is for (0: the copy itself, or its thread's first part).
pub(super) fn part_of(native: &Native) -> usize {
    native.get(PART).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Whether the copy was sent with `token` (a line without the field: not known, so no).
pub(super) fn sent_with(native: &Native, token: &Secret) -> bool {
    native.get(TOKEN) == Some(token.fingerprint.as_str())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_field_is_a_platform_field() {
        assert!(life::native::is_field(super::TOKEN));
        assert!(life::native::is_field(super::PART));
    }
}
