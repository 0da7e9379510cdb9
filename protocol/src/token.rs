//! Join tokens: a match id, a slot and an expiry, signed with keyed blake3 of the server's
//! secret. Text form: `cohort1.<match>.<slot>.<expiry>.<mac>` where `<slot>` is a player slot
//! (0–7) or `spectator`, `<expiry>` is Unix seconds, and `<mac>` is 64 hex digits:
//! blake3 keyed with `derive_key("cohort join token v1", secret)` over the text before the last
//! dot. Checked with a constant-time comparison.

use crate::limits::{MAX_PLAYERS, MAX_TOKEN_BYTES};
use crate::message::Role;
use crate::setup::valid_match_id;

/// The first field of every token.
pub const TOKEN_PREFIX: &str = "cohort1";

/// The blake3 key-derivation context of the token key.
const KEY_CONTEXT: &str = "cohort join token v1";

/// The word a spectator token has in place of a slot.
pub const SPECTATOR: &str = "spectator";

/// What a token grants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    pub match_id: String,
    pub role: Role,
    /// Unix seconds after which the token is refused.
    pub expires: u64,
}

/// Why a token was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    #[error("the token's signature is wrong (forged, or signed with another secret)")]
    BadSignature,
    #[error("the token expired at {expires} (Unix seconds); it is now {now}")]
    Expired { expires: u64, now: u64 },
}

fn key(secret: &[u8]) -> [u8; 32] {
    blake3::derive_key(KEY_CONTEXT, secret)
}

fn role_text(role: Role) -> String {
    match role {
        Role::Player(p) => p.to_string(),
        Role::Spectator => SPECTATOR.to_string(),
    }
}

/// A signed token for `claims`. Panics on a malformed match id (a programming error: check
/// ids with [`valid_match_id`] where they come from outside).
pub fn mint(secret: &[u8], claims: &Claims) -> String {
    assert!(valid_match_id(&claims.match_id), "malformed match id");
    let body = format!(
        "{TOKEN_PREFIX}.{}.{}.{}",
        claims.match_id,
        role_text(claims.role),
        claims.expires
    );
    let mac = blake3::keyed_hash(&key(secret), body.as_bytes());
    format!("{body}.{}", mac.to_hex())
}

/// The claims of a well-formed, correctly signed, unexpired token.
pub fn verify(secret: &[u8], token: &str, now_unix: u64) -> Result<Claims, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::Malformed("too long"));
    }
    let (body, mac_hex) = token
        .rsplit_once('.')
        .ok_or(TokenError::Malformed("no signature"))?;
    let mut fields = body.split('.');
    let (Some(prefix), Some(match_id), Some(slot), Some(expiry), None) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return Err(TokenError::Malformed("not five dot-separated fields"));
    };
    if prefix != TOKEN_PREFIX {
        return Err(TokenError::Malformed("does not start with `cohort1.`"));
    }
    if !valid_match_id(match_id) {
        return Err(TokenError::Malformed("bad match id"));
    }
    let role = if slot == SPECTATOR {
        Role::Spectator
    } else {
        match slot.parse::<u8>() {
            Ok(p) if usize::from(p) < MAX_PLAYERS && p.to_string() == slot => Role::Player(p),
            _ => return Err(TokenError::Malformed("bad slot")),
        }
    };
    let expires = match expiry.parse::<u64>() {
        Ok(e) if e.to_string() == expiry => e,
        _ => return Err(TokenError::Malformed("bad expiry")),
    };
    let given = blake3::Hash::from_hex(mac_hex).map_err(|_| TokenError::Malformed("bad mac"))?;
    // blake3::Hash's equality is constant time.
    if blake3::keyed_hash(&key(secret), body.as_bytes()) != given {
        return Err(TokenError::BadSignature);
    }
    if now_unix > expires {
        return Err(TokenError::Expired {
            expires,
            now: now_unix,
        });
    }
    Ok(Claims {
        match_id: match_id.to_string(),
        role,
        expires,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(role: Role) -> Claims {
        Claims {
            match_id: "m-1".into(),
            role,
            expires: 1_000,
        }
    }

    #[test]
    fn a_minted_token_verifies_to_its_claims() {
        for role in [Role::Player(0), Role::Player(7), Role::Spectator] {
            let t = mint(b"secret", &claims(role));
            assert!(t.starts_with("cohort1.m-1."));
            assert_eq!(verify(b"secret", &t, 999), Ok(claims(role)));
        }
    }

    #[test]
    fn another_secret_is_a_bad_signature() {
        let t = mint(b"secret", &claims(Role::Player(1)));
        assert_eq!(verify(b"other", &t, 0), Err(TokenError::BadSignature));
    }

    #[test]
    fn a_changed_field_is_a_bad_signature() {
        let t = mint(b"secret", &claims(Role::Player(1)));
        let forged = t.replacen(".1.", ".2.", 1);
        assert_eq!(verify(b"secret", &forged, 0), Err(TokenError::BadSignature));
        let later = t.replacen(".1000.", ".9000.", 1);
        assert_eq!(verify(b"secret", &later, 0), Err(TokenError::BadSignature));
    }

    #[test]
    fn an_expired_token_is_refused() {
        let t = mint(b"secret", &claims(Role::Player(1)));
        assert_eq!(
            verify(b"secret", &t, 1_001),
            Err(TokenError::Expired {
                expires: 1_000,
                now: 1_001
            })
        );
    }

    #[test]
    fn malformed_tokens_are_refused_without_panicking() {
        for t in [
            "",
            "cohort1",
            "cohort2.m.0.1.00",
            "cohort1.m.8.1.00",
            "cohort1.m.01.1.00",
            "cohort1.m.0.x.00",
            "cohort1.m.0.1.zz",
            "cohort1.m!.0.1.00",
            "cohort1.m.0.1.2.00",
            "é.é.é.é.é",
        ] {
            assert!(matches!(verify(b"s", t, 0), Err(TokenError::Malformed(_))));
        }
    }
}
