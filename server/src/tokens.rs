//! Join tokens for a match's slots and its spectators, minted with the server's secret (the
//! format is cohort-protocol's `token`): printed at start, written to `--tokens-file`, and
//! answered by the admin API when it creates a match.

use cohort_protocol::message::Role;
use cohort_protocol::token::{mint, Claims};
use cohort_protocol::MatchConfig;
use serde::Serialize;

/// One match's tokens.
#[derive(Clone, Debug, Serialize)]
pub struct MatchTokens {
    pub match_id: String,
    /// By slot.
    pub players: Vec<String>,
    pub spectator: String,
    /// Unix seconds after which they are refused.
    pub expires: u64,
}

impl MatchTokens {
    pub fn mint(config: &MatchConfig, secret: &[u8], expires: u64) -> MatchTokens {
        let token = |role| {
            mint(
                secret,
                &Claims {
                    match_id: config.match_id.clone(),
                    role,
                    expires,
                },
            )
        };
        MatchTokens {
            match_id: config.match_id.clone(),
            players: config
                .players
                .iter()
                .map(|p| token(Role::Player(p.slot)))
                .collect(),
            spectator: token(Role::Spectator),
            expires,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::token::verify;
    use cohort_sim::Ruleset;

    #[test]
    fn every_slot_and_the_spectators_get_a_token_that_verifies() {
        let config = MatchConfig::standard("final", &Ruleset::default_rules(), 3);
        let t = MatchTokens::mint(&config, b"secret", 1_000);
        assert_eq!(t.players.len(), 3);
        let claims = verify(b"secret", &t.players[2], 999).unwrap();
        assert_eq!(
            (claims.match_id.as_str(), claims.role),
            ("final", Role::Player(2))
        );
        assert_eq!(
            verify(b"secret", &t.spectator, 999).unwrap().role,
            Role::Spectator
        );
    }
}
