//! Admission: a connection's first frame must be a Hello of this protocol version carrying a
//! token signed with this server's secret and not expired. What passes goes to the match the
//! token names; the match checks the ruleset and the slot.

use cohort_protocol::codec::{decode_message, peek_hello_version};
use cohort_protocol::limits::PROTOCOL_VERSION;
use cohort_protocol::message::{ClientMessage, ErrorCode, Hello};
use cohort_protocol::token::{verify, Claims, TokenError};

/// Why a connection was refused at the door: the code and text it is sent before closing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub text: String,
}

fn refuse(code: ErrorCode, text: impl Into<String>) -> Refusal {
    Refusal {
        code,
        text: text.into(),
    }
}

/// Checks a first frame's payload.
pub fn admit(payload: &[u8], secret: &[u8], now_unix: u64) -> Result<(Hello, Claims), Refusal> {
    let hello = match decode_message::<ClientMessage>(payload) {
        Ok(ClientMessage::Hello(h)) => h,
        Ok(_) => {
            return Err(refuse(
                ErrorCode::Unexpected,
                "the first message must be Hello",
            ))
        }
        Err(e) => {
            return Err(match peek_hello_version(payload) {
                Some(v) if v != PROTOCOL_VERSION => version_mismatch(v),
                _ => refuse(
                    ErrorCode::Malformed,
                    format!("the first frame is not a Hello: {e}"),
                ),
            })
        }
    };
    if hello.protocol_version != PROTOCOL_VERSION {
        return Err(version_mismatch(hello.protocol_version));
    }
    let claims = verify(secret, &hello.token, now_unix).map_err(|e| match e {
        TokenError::Expired { .. } => refuse(ErrorCode::TokenExpired, e.to_string()),
        _ => refuse(ErrorCode::BadToken, e.to_string()),
    })?;
    Ok((hello, claims))
}

fn version_mismatch(v: u32) -> Refusal {
    refuse(
        ErrorCode::VersionMismatch,
        format!("this server speaks protocol version {PROTOCOL_VERSION}; the client speaks {v}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::codec::encode_message;
    use cohort_protocol::message::Role;
    use cohort_protocol::token::mint;

    fn hello(version: u32, token: String) -> Vec<u8> {
        encode_message(&ClientMessage::Hello(Hello {
            protocol_version: version,
            ruleset_hash: [0; 32],
            token,
            client_name: "x".into(),
        }))
        .unwrap()
    }

    fn token(secret: &[u8], expires: u64) -> String {
        mint(
            secret,
            &Claims {
                match_id: "m".into(),
                role: Role::Player(0),
                expires,
            },
        )
    }

    #[test]
    fn a_good_hello_is_admitted() {
        let (_, claims) = admit(&hello(PROTOCOL_VERSION, token(b"s", 10)), b"s", 5).unwrap();
        assert_eq!(claims.role, Role::Player(0));
    }

    #[test]
    fn each_bad_hello_gets_its_code() {
        let code = |p: &[u8]| admit(p, b"s", 5).unwrap_err().code;
        assert_eq!(
            code(&hello(PROTOCOL_VERSION + 1, token(b"s", 10))),
            ErrorCode::VersionMismatch
        );
        assert_eq!(code(&[0, 9, 0xff]), ErrorCode::VersionMismatch);
        assert_eq!(
            code(&hello(PROTOCOL_VERSION, token(b"x", 10))),
            ErrorCode::BadToken
        );
        assert_eq!(
            code(&hello(PROTOCOL_VERSION, token(b"s", 1))),
            ErrorCode::TokenExpired
        );
        assert_eq!(
            code(&hello(PROTOCOL_VERSION, "junk".into())),
            ErrorCode::BadToken
        );
        assert_eq!(code(b"\xde\xad\xbe\xef"), ErrorCode::Malformed);
        let pause = encode_message(&ClientMessage::Pause).unwrap();
        assert_eq!(code(&pause), ErrorCode::Unexpected);
    }
}
