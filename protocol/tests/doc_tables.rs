//! docs/PROTOCOL.md's tables of messages, error codes and limits are what the code says: each
//! message's variant index, each error code's index and whether it closes the connection, and
//! each limit's value. A third party writes a client from those tables alone.

use cohort_protocol::codec::encode_message;
use cohort_protocol::limits::*;
use cohort_protocol::message::*;
use cohort_protocol::setup::MatchConfig;
use cohort_sim::StateHash;

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PROTOCOL.md"))
        .expect("docs/PROTOCOL.md exists")
}

/// The text of the section headed `### {title}`, up to the next heading.
fn section<'a>(doc: &'a str, title: &str) -> &'a str {
    let start = doc
        .find(&format!("\n### {title}\n"))
        .unwrap_or_else(|| panic!("no section {title}"));
    let rest = &doc[start + 1..];
    let end = rest[4..].find("\n#").map_or(rest.len(), |e| e + 4);
    &rest[..end]
}

/// The variant index the codec writes first for `message`.
fn index<T: serde::Serialize>(message: &T) -> u8 {
    encode_message(message).unwrap()[0]
}

/// Every message has its row (its codec index and name), and the table has no other rows.
fn assert_table<T: serde::Serialize>(table: &str, messages: &[(&str, T)]) {
    for (name, m) in messages {
        assert_row(table, index(m), name);
    }
    assert_eq!(table.matches("\n| ").count() - 1, messages.len(), "rows");
}

fn assert_row(text: &str, index: u8, name: &str) {
    let row = format!("| {index} | `{name}` |");
    assert!(
        text.contains(&row),
        "docs/PROTOCOL.md lacks the row `{row}`"
    );
}

#[test]
fn the_client_messages_table_has_the_codecs_indices() {
    let doc = doc();
    let table = section(&doc, "ClientMessage");
    let chunk = SnapshotChunk {
        turn: 0,
        index: 0,
        count: 1,
        bytes: vec![],
    };
    let messages = [
        (
            "Hello",
            ClientMessage::Hello(Hello {
                protocol_version: PROTOCOL_VERSION,
                ruleset_hash: [0; 32],
                token: String::new(),
                client_name: String::new(),
            }),
        ),
        (
            "Commands",
            ClientMessage::Commands(Commands {
                turn: 0,
                commands: vec![],
            }),
        ),
        (
            "TurnHash",
            ClientMessage::TurnHash(TurnHash {
                turn: 0,
                hash: StateHash([0; 32]),
            }),
        ),
        ("Ack", ClientMessage::Ack { turn: 0 }),
        ("Snapshot", ClientMessage::Snapshot(chunk)),
        ("Ping", ClientMessage::Ping(Ping { nonce: 0 })),
        ("Pong", ClientMessage::Pong(Pong { nonce: 0 })),
        (
            "Chat",
            ClientMessage::Chat {
                text: String::new(),
            },
        ),
        ("Pause", ClientMessage::Pause),
        ("Resume", ClientMessage::Resume),
        ("Leave", ClientMessage::Leave { resign: false }),
        (
            "SnapshotUnavailable",
            ClientMessage::SnapshotUnavailable {
                turn: 0,
                reason: String::new(),
            },
        ),
    ];
    assert_table(table, &messages);
}

#[test]
fn the_server_messages_table_has_the_codecs_indices() {
    let doc = doc();
    let table = section(&doc, "ServerMessage");
    let rules = cohort_sim::Ruleset::default_rules();
    let chunk = SnapshotChunk {
        turn: 0,
        index: 0,
        count: 1,
        bytes: vec![],
    };
    let messages = [
        (
            "JoinAccepted",
            ServerMessage::JoinAccepted(JoinAccepted {
                config: MatchConfig::standard("m", &rules, 2),
                role: Role::Spectator,
                next_turn: 0,
                input_delay: 2,
                snapshot_follows: false,
                spectator_delay_secs: 0,
            }),
        ),
        (
            "TurnBundle",
            ServerMessage::TurnBundle(TurnBundle {
                turn: 0,
                input_delay: None,
                events: vec![],
                commands: vec![],
                previous_hash: None,
            }),
        ),
        (
            "Rescheduled",
            ServerMessage::Rescheduled(Rescheduled {
                asked: 0,
                turn: 1,
                count: 1,
            }),
        ),
        (
            "DesyncNotice",
            ServerMessage::DesyncNotice(DesyncNotice {
                turn: 0,
                players: vec![],
                server_hash: StateHash([0; 32]),
                continuing: true,
            }),
        ),
        (
            "SnapshotRequest",
            ServerMessage::SnapshotRequest {
                turn: 0,
                tick_hashes: vec![],
            },
        ),
        ("Snapshot", ServerMessage::Snapshot(chunk)),
        ("Ping", ServerMessage::Ping(Ping { nonce: 0 })),
        ("Pong", ServerMessage::Pong(Pong { nonce: 0 })),
        (
            "Chat",
            ServerMessage::Chat(ChatLine {
                from: Role::Spectator,
                name: String::new(),
                text: String::new(),
            }),
        ),
        (
            "Paused",
            ServerMessage::Paused(Paused {
                by: 0,
                pauses_left: 0,
                resumes_in_ms: 0,
            }),
        ),
        ("Resumed", ServerMessage::Resumed(Resumed { by: None })),
        (
            "MatchEnded",
            ServerMessage::MatchEnded(MatchEnded {
                last_turn: 0,
                reason: EndReason::TurnLimit,
            }),
        ),
        ("Error", ServerMessage::error(ErrorCode::Internal, "")),
    ];
    assert_table(table, &messages);
}

#[test]
fn the_error_codes_table_has_the_codecs_indices_and_closings() {
    use ErrorCode::*;
    let doc = doc();
    let codes = [
        VersionMismatch,
        RulesetMismatch,
        BadToken,
        TokenExpired,
        UnknownMatch,
        SlotTaken,
        MatchFull,
        MatchOver,
        FrameTooLarge,
        Malformed,
        Unexpected,
        OverLimit,
        RateLimited,
        NotAPlayer,
        TooFarAhead,
        PauseRefused,
        Lagging,
        DroppedForLag,
        BadSnapshot,
        ServerShutdown,
        Internal,
        Replaced,
    ];
    for code in codes {
        let row = format!("| {} | `{code:?}` | {}", index(&code), {
            if code.closes() {
                "yes"
            } else {
                "no"
            }
        });
        assert!(doc.contains(&row), "docs/PROTOCOL.md lacks the row `{row}`");
    }
}

/// The numbers in the value cell of the limits table's row naming `names` (one or two, joined
/// by ` / `), commas taken out.
fn documented(doc: &str, names: &[&str]) -> Vec<u64> {
    let key = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" / ");
    let row = doc
        .lines()
        .find(|l| l.starts_with(&format!("| {key} |")))
        .unwrap_or_else(|| panic!("docs/PROTOCOL.md has no limits row for {key}"));
    let cell = row.split('|').nth(2).expect("a value cell");
    cell.split(" / ")
        .map(|v| {
            let digits: String = v
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(|c| *c != ',')
                .collect();
            digits.parse().unwrap_or_else(|_| panic!("`{v}` in {row}"))
        })
        .collect()
}

#[test]
fn the_limits_table_has_the_codes_values() {
    let doc = doc();
    let limits: &[(&[&str], &[u64])] = &[
        (&["PROTOCOL_VERSION"], &[PROTOCOL_VERSION.into()]),
        (&["MAX_FRAME_BYTES"], &[MAX_FRAME_BYTES as u64]),
        (&["MAX_PLAYERS"], &[MAX_PLAYERS as u64]),
        (&["MAX_SPECTATORS"], &[MAX_SPECTATORS as u64]),
        (
            &["MAX_SPECTATOR_DELAY_SECS"],
            &[MAX_SPECTATOR_DELAY_SECS.into()],
        ),
        (&["MAX_NAME_BYTES"], &[MAX_NAME_BYTES as u64]),
        (&["MAX_TOKEN_BYTES"], &[MAX_TOKEN_BYTES as u64]),
        (&["MAX_MATCH_ID_BYTES"], &[MAX_MATCH_ID_BYTES as u64]),
        (
            &["MAX_COMMANDS_PER_MESSAGE"],
            &[MAX_COMMANDS_PER_MESSAGE as u64],
        ),
        (&["MAX_COMMAND_BYTES"], &[MAX_COMMAND_BYTES as u64]),
        (&["MAX_COMMANDS_PER_TURN"], &[MAX_COMMANDS_PER_TURN as u64]),
        (
            &["MAX_COMMAND_BYTES_PER_TURN"],
            &[MAX_COMMAND_BYTES_PER_TURN as u64],
        ),
        (&["MAX_TURNS_AHEAD"], &[MAX_TURNS_AHEAD]),
        (
            &["COMMAND_RATE_PER_SECOND", "COMMAND_BURST"],
            &[COMMAND_RATE_PER_SECOND.into(), COMMAND_BURST.into()],
        ),
        (
            &["MESSAGE_RATE_PER_SECOND", "MESSAGE_BURST"],
            &[MESSAGE_RATE_PER_SECOND.into(), MESSAGE_BURST.into()],
        ),
        (&["RATE_STRIKES"], &[RATE_STRIKES.into()]),
        (&["MAX_CHAT_BYTES"], &[MAX_CHAT_BYTES as u64]),
        (&["MAX_PAUSES_PER_PLAYER"], &[MAX_PAUSES_PER_PLAYER.into()]),
        (&["MAX_PAUSE_MS"], &[MAX_PAUSE_MS]),
        (&["SNAPSHOT_CHUNK_BYTES"], &[SNAPSHOT_CHUNK_BYTES as u64]),
        (&["MAX_SNAPSHOT_BYTES"], &[MAX_SNAPSHOT_BYTES as u64]),
        (
            &["MIN_INPUT_DELAY", "MAX_INPUT_DELAY"],
            &[MIN_INPUT_DELAY.into(), MAX_INPUT_DELAY.into()],
        ),
        (&["LAG_WARN_TURNS"], &[LAG_WARN_TURNS]),
        (&["LAG_DROP_TURNS"], &[LAG_DROP_TURNS]),
        (&["TICK_HASH_TURNS"], &[TICK_HASH_TURNS]),
        (&["PING_INTERVAL_MS"], &[PING_INTERVAL_MS]),
    ];
    for (names, values) in limits {
        assert_eq!(&documented(&doc, names)[..], *values, "{names:?}");
    }
}

/// The join-token example in docs/PROTOCOL.md is what `token::mint` makes, and verifies.
#[test]
fn the_token_example_is_what_mint_makes() {
    use cohort_protocol::token::{mint, verify, Claims};
    let claims = Claims {
        match_id: "default".into(),
        role: Role::Player(0),
        expires: 1_700_000_000,
    };
    let token = mint(b"S3cret", &claims);
    println!("{token}");
    assert!(
        doc().contains(&format!("`{token}`")),
        "docs/PROTOCOL.md lacks the example token `{token}`"
    );
    assert_eq!(verify(b"S3cret", &token, 1_699_999_999), Ok(claims));
}

/// The QUIC close table in docs/PROTOCOL.md ("Transport") lists every close the server makes,
/// with its code and reason, and no other.
#[test]
fn the_close_codes_table_has_the_servers_codes_and_reasons() {
    use cohort_protocol::close::SERVER_CLOSES;
    let doc = doc();
    let start = doc
        .find("| code | reason | when |")
        .expect("the close table");
    let table: Vec<&str> = doc[start..]
        .lines()
        .skip(2)
        .map(str::trim)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(table.len(), SERVER_CLOSES.len(), "rows: {table:?}");
    for (row, close) in table.iter().zip(SERVER_CLOSES) {
        let cells = format!("| {} | `{}` |", close.code, close.reason);
        assert!(row.starts_with(&cells), "`{row}` should start `{cells}`");
    }
}
