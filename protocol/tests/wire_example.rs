//! The byte-level example exchange in docs/PROTOCOL.md is produced here: this test encodes
//! each message and checks the document shows exactly these bytes. Run with
//! `COHORT_BLESS=1` to rewrite the block after changing a message.

use cohort_protocol::codec::encode_frame;
use cohort_protocol::message::*;
use cohort_protocol::setup::{MapSpec, MatchConfig, PlayerSlot};
use cohort_sim::{fx, fx_ratio, Command, EntityId, PlayerCommand, StateHash, Tile, Vec2};

const BEGIN: &str = "<!-- example-exchange:begin -->";
const END: &str = "<!-- example-exchange:end -->";

fn hex_lines(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .map(|c| {
            c.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn exchange() -> String {
    let hash = [0xab; 32];
    let config = MatchConfig {
        match_id: "default".into(),
        ruleset_hash: hash,
        map: MapSpec::Generated {
            seed: 0xC04027,
            size: 120,
        },
        players: vec![
            PlayerSlot {
                slot: 0,
                name: "Ana".into(),
                team: 0,
            },
            PlayerSlot {
                slot: 1,
                name: "Bo".into(),
                team: 1,
            },
        ],
        tick_ms: 16,
        turn_ticks: 8,
        input_delay: 2,
    };
    let steps: Vec<(&str, Vec<u8>)> = vec![
        (
            "client → server: Hello (token shortened to `cohort1.default.0.1700000000.ab`)",
            encode_frame(&ClientMessage::Hello(Hello {
                protocol_version: cohort_protocol::limits::PROTOCOL_VERSION,
                ruleset_hash: hash,
                token: "cohort1.default.0.1700000000.ab".into(),
                client_name: "ana".into(),
            }))
            .unwrap(),
        ),
        (
            "server → client: JoinAccepted (player 0, next turn 0, input delay 2, no snapshot, no spectator delay)",
            encode_frame(&ServerMessage::JoinAccepted(JoinAccepted {
                config,
                role: Role::Player(0),
                next_turn: 0,
                input_delay: 2,
                snapshot_follows: false,
                spectator_delay_secs: 0,
            }))
            .unwrap(),
        ),
        (
            "server → client: TurnBundle 0 (both players joined, no commands, no previous hash)",
            encode_frame(&ServerMessage::TurnBundle(TurnBundle {
                turn: 0,
                input_delay: None,
                events: vec![
                    MembershipEvent {
                        player: 0,
                        change: Membership::Joined,
                    },
                    MembershipEvent {
                        player: 1,
                        change: Membership::Joined,
                    },
                ],
                commands: vec![],
                previous_hash: None,
            }))
            .unwrap(),
        ),
        (
            "client → server: TurnHash after turn 0 (a made-up hash: 32 × `5c`)",
            encode_frame(&ClientMessage::TurnHash(TurnHash {
                turn: 0,
                hash: StateHash([0x5c; 32]),
            }))
            .unwrap(),
        ),
        (
            "client → server: Commands for turn 2: move units 3 and 300 to (40.5, -2)",
            encode_frame(&ClientMessage::Commands(Commands {
                turn: 2,
                commands: vec![Command::Move {
                    units: vec![EntityId(3), EntityId(300)],
                    to: Vec2::new(fx(40) + fx_ratio(1, 2), fx(-2)),
                }],
            }))
            .unwrap(),
        ),
        (
            "server → client: Rescheduled (turn 2 had closed: 1 command asked for turn 2 runs at turn 3)",
            encode_frame(&ServerMessage::Rescheduled(Rescheduled {
                asked: 2,
                turn: 3,
                count: 1,
            }))
            .unwrap(),
        ),
        (
            "server → client: Ping 7",
            encode_frame(&ServerMessage::Ping(Ping { nonce: 7 })).unwrap(),
        ),
        (
            "client → server: Pong 7 (the answer to that Ping)",
            encode_frame(&ClientMessage::Pong(Pong { nonce: 7 })).unwrap(),
        ),
        (
            "client → server: Ack for turn 1 (what a client that runs no sim sends instead of TurnHash)",
            encode_frame(&ClientMessage::Ack { turn: 1 }).unwrap(),
        ),
        (
            "server → client: TurnBundle 2 (input delay now 3; player 0's move; the hash after turn 1)",
            encode_frame(&ServerMessage::TurnBundle(TurnBundle {
                turn: 2,
                input_delay: Some(3),
                events: vec![],
                commands: vec![PlayerCommand {
                    player: 0,
                    command: Command::Move {
                        units: vec![EntityId(3), EntityId(300)],
                        to: Vec2::new(fx(40) + fx_ratio(1, 2), fx(-2)),
                    },
                }],
                previous_hash: Some(StateHash([0x11; 32])),
            }))
            .unwrap(),
        ),
        (
            "client → server: Commands placing a `house` at tile (10, 12), not turned, builder 3",
            encode_frame(&ClientMessage::Commands(Commands {
                turn: 4,
                commands: vec![Command::PlaceBuilding {
                    kind: "house".into(),
                    at: Tile::new(10, 12),
                    turned: false,
                    builders: vec![EntityId(3)],
                }],
            }))
            .unwrap(),
        ),
        (
            "server → client: Error TooFarAhead, \"too far\"",
            encode_frame(&ServerMessage::error(ErrorCode::TooFarAhead, "too far")).unwrap(),
        ),
        (
            "client → server: Leave (resign)",
            encode_frame(&ClientMessage::Leave { resign: true }).unwrap(),
        ),
    ];
    let mut out = String::new();
    for (n, (title, bytes)) in steps.into_iter().enumerate() {
        out.push_str(&format!(
            "{}. {title} — {} bytes:\n\n```\n{}\n```\n\n",
            n + 1,
            bytes.len(),
            hex_lines(&bytes)
        ));
    }
    out
}

#[test]
fn the_documented_exchange_is_what_the_codec_writes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PROTOCOL.md");
    let doc = std::fs::read_to_string(path).expect("docs/PROTOCOL.md exists");
    let (head, rest) = doc.split_once(BEGIN).expect("the begin marker");
    let (_, tail) = rest.split_once(END).expect("the end marker");
    let fresh = format!("{head}{BEGIN}\n{}{END}{tail}", exchange());
    if std::env::var_os("COHORT_BLESS").is_some() {
        std::fs::write(path, fresh).unwrap();
        return;
    }
    assert!(
        fresh == doc,
        "docs/PROTOCOL.md's example differs from the codec; run with COHORT_BLESS=1"
    );
}

#[test]
fn the_documented_command_indices_are_the_codecs() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PROTOCOL.md"))
        .unwrap();
    let u = || vec![EntityId(1)];
    let to = Vec2::new(fx(1), fx(1));
    let commands = [
        ("Move", Command::Move { units: u(), to }),
        ("FormationMove", Command::FormationMove { units: u(), to }),
        (
            "Attack",
            Command::Attack {
                units: u(),
                target: EntityId(2),
            },
        ),
        ("AttackMove", Command::AttackMove { units: u(), to }),
        (
            "Follow",
            Command::Follow {
                units: u(),
                target: EntityId(2),
            },
        ),
        (
            "Gather",
            Command::Gather {
                units: u(),
                target: EntityId(2),
            },
        ),
        (
            "Build",
            Command::Build {
                units: u(),
                target: EntityId(2),
            },
        ),
        (
            "PlaceBuilding",
            Command::PlaceBuilding {
                kind: "house".into(),
                at: Tile::new(1, 1),
                turned: false,
                builders: u(),
            },
        ),
        ("Stop", Command::Stop { units: u() }),
        ("Hold", Command::Hold { units: u() }),
        (
            "SetFormation",
            Command::SetFormation {
                units: u(),
                formation: cohort_sim::FormationKind::Box,
            },
        ),
        ("Disband", Command::Disband { units: u() }),
        ("Delete", Command::Delete { units: u() }),
    ];
    for (name, command) in commands {
        let payload = cohort_protocol::codec::encode_message(&command).unwrap();
        let row = format!("| {} | `{name}` |", payload[0]);
        assert!(doc.contains(&row), "docs/PROTOCOL.md lacks the row `{row}`");
    }
}
