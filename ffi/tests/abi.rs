//! The C ABI from the caller's side, called as C would call it: the sim layer builds the
//! world from the server's bytes and runs bundles to the same hashes as the server's own code;
//! bad handles, null pointers, short buffers and bad bytes get their statuses and messages.

mod common;

use cohort_ffi::client::{cohort_client_free, cohort_client_poll, CohortEvent};
use cohort_ffi::orders::{cohort_encode_commands, CohortCommand, CohortOrder};
use cohort_ffi::view::*;
use cohort_ffi::world::*;
use cohort_ffi::{cohort_last_error, cohort_ruleset_hash, CohortHandle, CohortStatus};
use cohort_protocol::codec::{decode_message, encode_message, encode_snapshot};
use cohort_protocol::message::{Commands, JoinAccepted, Membership, MembershipEvent, Role};
use cohort_protocol::setup::run_bundle;
use cohort_protocol::{ClientMessage, MatchConfig, ServerMessage};
use cohort_sim::{fx, Command, PlayerCommand, Ruleset, Vec2};
use std::ptr::{null, null_mut};
use std::sync::Arc;

fn rules() -> Arc<Ruleset> {
    Arc::new(Ruleset::default_rules())
}

fn last_error() -> String {
    let mut buf = vec![0u8; 1024];
    let n = unsafe { cohort_last_error(buf.as_mut_ptr(), buf.len()) };
    buf.truncate(n);
    String::from_utf8(buf).unwrap()
}

fn join_accepted(config: &MatchConfig) -> Vec<u8> {
    encode_message(&ServerMessage::JoinAccepted(JoinAccepted {
        config: config.clone(),
        role: Role::Player(0),
        next_turn: 0,
        input_delay: 2,
        snapshot_follows: false,
        spectator_delay_secs: 0,
    }))
    .unwrap()
}

fn bundle(turn: u64, commands: Vec<PlayerCommand>) -> cohort_protocol::message::TurnBundle {
    cohort_protocol::message::TurnBundle {
        turn,
        input_delay: None,
        events: if turn == 0 {
            (0..2)
                .map(|player| MembershipEvent {
                    player,
                    change: Membership::Joined,
                })
                .collect()
        } else {
            vec![]
        },
        commands,
        previous_hash: None,
    }
}

fn new_world(config: &MatchConfig) -> CohortHandle {
    let bytes = join_accepted(config);
    let mut w = 0;
    let s =
        unsafe { cohort_world_from_join_accepted(bytes.as_ptr(), bytes.len(), null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    w
}

fn units(w: CohortHandle) -> Vec<CohortUnit> {
    let mut n = 0;
    let s = unsafe { cohort_world_units(w, null_mut(), 0, &mut n) };
    assert_eq!(s, CohortStatus::BufferTooSmall);
    let mut out = vec![CohortUnit::default(); n];
    let s = unsafe { cohort_world_units(w, out.as_mut_ptr(), n, &mut n) };
    assert_eq!(s, CohortStatus::Ok);
    out
}

#[test]
fn the_sim_layer_runs_bundles_to_the_servers_hashes() {
    let config = MatchConfig::standard("abi", &rules(), 2);
    let w = new_world(&config);
    let mut reference = config.world(rules()).unwrap();
    let mut ids = vec![0u64; 16];
    let mut n = 0;
    let s = unsafe { cohort_world_player_units(w, 0, ids.as_mut_ptr(), ids.len(), &mut n) };
    assert_eq!(s, CohortStatus::Ok);
    ids.truncate(n);
    assert_eq!(ids, vec![406, 407, 408, 409], "PROTOCOL.md's ids");
    for turn in 0..12u64 {
        let commands = if turn == 1 {
            vec![PlayerCommand {
                player: 0,
                command: Command::Move {
                    units: ids.iter().map(|i| cohort_sim::EntityId(*i)).collect(),
                    to: Vec2::new(fx(30), fx(30)),
                },
            }]
        } else {
            vec![]
        };
        let b = bundle(turn, commands);
        run_bundle(&mut reference, &b, config.turn_ticks);
        let payload = encode_message(&ServerMessage::TurnBundle(b)).unwrap();
        let mut hash = [0u8; 32];
        let s = unsafe {
            cohort_world_run_bundle(w, payload.as_ptr(), payload.len(), hash.as_mut_ptr())
        };
        assert_eq!(s, CohortStatus::Ok, "{}", last_error());
        assert_eq!(hash, reference.hash().0, "turn {turn}");
    }
    let mut info = CohortWorldInfo::default();
    assert_eq!(unsafe { cohort_world_info(w, &mut info) }, CohortStatus::Ok);
    assert_eq!((info.width, info.height, info.next_turn), (120, 120, 12));
    assert_eq!(info.tick, 12 * u64::from(config.turn_ticks));
    let moved = units(w).into_iter().find(|u| u.id == 406).unwrap();
    assert_eq!(moved.order, CohortUnitOrder::Move as i32);
    assert_eq!(moved.order_x_fx, 30 << 16);
    assert_ne!(
        (moved.x_fx, moved.y_fx),
        (moved.previous_x_fx, moved.previous_y_fx),
        "it walked during the last turn"
    );

    // A bundle out of turn is refused and runs nothing.
    let late = encode_message(&ServerMessage::TurnBundle(bundle(3, vec![]))).unwrap();
    let mut hash = [0u8; 32];
    let s = unsafe { cohort_world_run_bundle(w, late.as_ptr(), late.len(), hash.as_mut_ptr()) };
    assert_eq!(s, CohortStatus::InvalidArgument);
    assert!(
        last_error().contains("bundle 3 arrived where 12 is due"),
        "{}",
        last_error()
    );

    // A snapshot of this world loads into a fresh one and plays on identically.
    let snap = encode_snapshot(&reference.snapshot()).unwrap();
    let w2 = new_world(&config);
    let s = unsafe { cohort_world_load_snapshot(w2, snap.as_ptr(), snap.len(), 11) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    let next = encode_message(&ServerMessage::TurnBundle(bundle(12, vec![]))).unwrap();
    let (mut h1, mut h2) = ([0u8; 32], [1u8; 32]);
    unsafe {
        assert_eq!(
            cohort_world_run_bundle(w, next.as_ptr(), next.len(), h1.as_mut_ptr()),
            CohortStatus::Ok
        );
        assert_eq!(
            cohort_world_run_bundle(w2, next.as_ptr(), next.len(), h2.as_mut_ptr()),
            CohortStatus::Ok
        );
    }
    assert_eq!(h1, h2);
    assert_eq!(cohort_world_free(w), CohortStatus::Ok);
    assert_eq!(cohort_world_free(w2), CohortStatus::Ok);
}

#[test]
fn the_world_reads_for_drawing() {
    let config = MatchConfig::standard("draw", &rules(), 2);
    let w = new_world(&config);
    let world = config.world(rules()).unwrap();
    let mut n = 0;
    let mut tiles = vec![0u8; 120 * 120];
    assert_eq!(
        unsafe { cohort_world_tiles(w, tiles.as_mut_ptr(), tiles.len(), &mut n) },
        CohortStatus::Ok
    );
    assert_eq!(n, 120 * 120);
    let mut name = [0u8; 64];
    let mut len = 0;
    let s = unsafe {
        cohort_world_name(
            w,
            CohortName::Terrain as i32,
            u32::from(tiles[0]),
            name.as_mut_ptr(),
            64,
            &mut len,
        )
    };
    assert_eq!(s, CohortStatus::Ok);
    assert_eq!(&name[..len], b"grass");
    let s = unsafe {
        cohort_world_name(
            w,
            CohortName::Match as i32,
            0,
            name.as_mut_ptr(),
            64,
            &mut len,
        )
    };
    assert_eq!((s, &name[..len]), (CohortStatus::Ok, &b"draw"[..]));
    let s = unsafe {
        cohort_world_name(
            w,
            CohortName::UnitKind as i32,
            999,
            name.as_mut_ptr(),
            64,
            &mut len,
        )
    };
    assert_eq!(s, CohortStatus::NotFound);
    let all = units(w);
    assert_eq!(all.len(), world.state().units.len());
    for (c, u) in all.iter().zip(&world.state().units) {
        assert_eq!(
            (c.id, c.owner, c.hit_points),
            (u.id.0, u32::from(u.owner), u.hit_points)
        );
        assert_eq!(c.x_fx, u.position.x.to_bits());
        assert_eq!(c.x, c.x_fx as f64 / 65536.0);
    }
    let mut b = vec![CohortBuilding::default(); 8];
    assert_eq!(
        unsafe { cohort_world_buildings(w, b.as_mut_ptr(), 8, &mut n) },
        CohortStatus::Ok
    );
    assert_eq!(n, 2, "a town center each");
    assert_eq!(b[0].complete, 1);
    let mut r = vec![CohortResource::default(); 2];
    assert_eq!(
        unsafe { cohort_world_resources(w, r.as_mut_ptr(), 2, &mut n) },
        CohortStatus::BufferTooSmall
    );
    assert_eq!(n, world.state().resources.len());
    let mut p = vec![CohortPlayer::default(); 2];
    assert_eq!(
        unsafe { cohort_world_players(w, p.as_mut_ptr(), 2, &mut n) },
        CohortStatus::Ok
    );
    assert_eq!(p[1].stock, [200, 200, 100, 200]);
    cohort_world_free(w);
}

#[test]
fn bad_handles_pointers_and_bytes_are_refused_with_a_reason() {
    let mut info = CohortWorldInfo::default();
    assert_eq!(
        unsafe { cohort_world_info(0, &mut info) },
        CohortStatus::InvalidHandle
    );
    assert_eq!(
        unsafe { cohort_world_info(987_654_321, &mut info) },
        CohortStatus::InvalidHandle
    );
    assert!(
        last_error().contains("not a live handle"),
        "{}",
        last_error()
    );
    let config = MatchConfig::standard("bad", &rules(), 2);
    let w = new_world(&config);
    assert_eq!(
        unsafe { cohort_world_info(w, null_mut()) },
        CohortStatus::NullPointer
    );
    let mut event = std::mem::MaybeUninit::<CohortEvent>::uninit();
    assert_eq!(
        unsafe { cohort_client_poll(w, event.as_mut_ptr()) },
        CohortStatus::InvalidHandle,
        "a world is not a client"
    );
    assert!(last_error().contains("is a world"), "{}", last_error());
    assert_eq!(cohort_client_free(w), CohortStatus::InvalidHandle);
    assert_eq!(cohort_world_free(w), CohortStatus::Ok);
    assert_eq!(
        cohort_world_free(w),
        CohortStatus::InvalidHandle,
        "freed twice"
    );
    assert_eq!(
        unsafe { cohort_world_info(w, &mut info) },
        CohortStatus::InvalidHandle
    );

    let mut h = 0;
    let junk = [0xffu8; 9];
    let s =
        unsafe { cohort_world_from_join_accepted(junk.as_ptr(), junk.len(), null(), 0, &mut h) };
    assert_eq!(s, CohortStatus::Decode);
    let ping = encode_message(&ServerMessage::Ping(cohort_protocol::message::Ping {
        nonce: 1,
    }))
    .unwrap();
    let s =
        unsafe { cohort_world_from_join_accepted(ping.as_ptr(), ping.len(), null(), 0, &mut h) };
    assert_eq!(s, CohortStatus::Decode);
    assert!(
        last_error().contains("not a JoinAccepted but Ping"),
        "{}",
        last_error()
    );
    let s = unsafe { cohort_world_new(null(), 5, null(), 0, &mut h) };
    assert_eq!(s, CohortStatus::NullPointer);
    let mut other = config.clone();
    other.ruleset_hash = [7; 32];
    let bytes = encode_message(&other).unwrap();
    let s = unsafe { cohort_world_new(bytes.as_ptr(), bytes.len(), null(), 0, &mut h) };
    assert_eq!(s, CohortStatus::Refused);
    let bad_rules = b"not = [a ruleset";
    let bytes = encode_message(&config).unwrap();
    let s = unsafe {
        cohort_world_new(
            bytes.as_ptr(),
            bytes.len(),
            bad_rules.as_ptr(),
            bad_rules.len(),
            &mut h,
        )
    };
    assert_eq!(s, CohortStatus::InvalidArgument);
    let mut hash = [0u8; 32];
    assert_eq!(
        unsafe { cohort_ruleset_hash(null(), 0, hash.as_mut_ptr()) },
        CohortStatus::Ok
    );
    assert_eq!(hash, Ruleset::default_rules().hash());
}

#[test]
fn orders_encode_as_the_wire_commands() {
    let units = [406u64, 407];
    let house = b"house";
    let mut orders = [CohortOrder {
        kind: CohortCommand::Move as i32,
        units: units.as_ptr(),
        unit_count: 2,
        x_fx: 40 << 16,
        y_fx: -2 << 16,
        target: 0,
        tile_x: 0,
        tile_y: 0,
        turned: 0,
        formation: 0,
        building: null(),
        building_len: 0,
    }; 2];
    orders[1].kind = CohortCommand::PlaceBuilding as i32;
    orders[1].building = house.as_ptr();
    orders[1].building_len = house.len();
    orders[1].tile_x = 10;
    orders[1].tile_y = 12;
    let mut len = 0;
    let mut buf = vec![0u8; 256];
    let s =
        unsafe { cohort_encode_commands(5, orders.as_ptr(), 2, buf.as_mut_ptr(), 256, &mut len) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    let back: ClientMessage = decode_message(&buf[4..len]).unwrap();
    let ids: Vec<_> = units.iter().map(|i| cohort_sim::EntityId(*i)).collect();
    assert_eq!(
        back,
        ClientMessage::Commands(Commands {
            turn: 5,
            commands: vec![
                Command::Move {
                    units: ids.clone(),
                    to: Vec2::new(fx(40), fx(-2))
                },
                Command::PlaceBuilding {
                    kind: "house".into(),
                    at: cohort_sim::Tile::new(10, 12),
                    turned: false,
                    builders: ids,
                },
            ],
        })
    );
    orders[0].kind = 99;
    let s =
        unsafe { cohort_encode_commands(5, orders.as_ptr(), 2, buf.as_mut_ptr(), 256, &mut len) };
    assert_eq!(s, CohortStatus::InvalidArgument);
    assert!(
        last_error().contains("order 0: 99 is not a CohortCommand"),
        "{}",
        last_error()
    );
}

/// docs/EMBEDDING.md's status table has every status with its value and name.
#[test]
fn the_embedding_doc_tables_every_status() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/EMBEDDING.md"))
        .expect("docs/EMBEDDING.md");
    for s in cohort_ffi::error::STATUSES {
        let row = format!("| {} | `{}` |", s as i32, s.name());
        assert!(
            doc.contains(&row),
            "docs/EMBEDDING.md lacks the row `{row}`"
        );
    }
}

/// Connecting checks its options before starting anything.
#[test]
fn bad_connect_options_are_refused_at_once() {
    use cohort_ffi::client::{cohort_client_connect, CohortConnectOptions};
    let s = |t: &'static str| (t.as_ptr(), t.len());
    let (server, server_len) = s("127.0.0.1:9");
    let (token, token_len) = s("cohort1.default.0.1.ab");
    let (name, name_len) = s("ana");
    let mut o = CohortConnectOptions {
        server,
        server_len,
        fingerprint: null(),
        fingerprint_len: 0,
        ca_file: null(),
        ca_file_len: 0,
        server_name: null(),
        server_name_len: 0,
        token,
        token_len,
        name,
        name_len,
        ruleset_toml: null(),
        ruleset_len: 0,
    };
    let mut h = 0;
    assert_eq!(
        unsafe { cohort_client_connect(&o, &mut h) },
        CohortStatus::InvalidArgument
    );
    assert!(
        last_error().contains("exactly one of fingerprint and ca_file"),
        "{}",
        last_error()
    );
    let (fp, fp_len) = s("not hex");
    o.fingerprint = fp;
    o.fingerprint_len = fp_len;
    assert_eq!(
        unsafe { cohort_client_connect(&o, &mut h) },
        CohortStatus::InvalidArgument
    );
    assert_eq!(
        unsafe { cohort_client_connect(null(), &mut h) },
        CohortStatus::NullPointer
    );
    assert_eq!(h, 0, "no handle was made");
}

/// A server that never answers: the client says so with a `CONNECTION_LOST` event (after the
/// connect timeout), orders are refused until then, and freeing it is fine at any point.
#[test]
fn a_server_that_never_answers_is_a_connection_lost_event() {
    use cohort_ffi::client::*;
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap(); // bound, never read
    let addr = socket.local_addr().unwrap().to_string();
    let fp = "00".repeat(32);
    let (token, name) = ("cohort1.default.0.1.ab", "ana");
    let o = CohortConnectOptions {
        server: addr.as_ptr(),
        server_len: addr.len(),
        fingerprint: fp.as_ptr(),
        fingerprint_len: fp.len(),
        ca_file: null(),
        ca_file_len: 0,
        server_name: null(),
        server_name_len: 0,
        token: token.as_ptr(),
        token_len: token.len(),
        name: name.as_ptr(),
        name_len: name.len(),
        ruleset_toml: null(),
        ruleset_len: 0,
    };
    let mut client = 0;
    assert_eq!(
        unsafe { cohort_client_connect(&o, &mut client) },
        CohortStatus::Ok
    );
    let ids = [1u64];
    let order = common::order(CohortCommand::Stop, &ids);
    assert_eq!(
        unsafe { cohort_client_order(client, &order, 1) },
        CohortStatus::NotReady
    );
    let mut info = CohortWorldInfo::default();
    assert_eq!(
        unsafe { cohort_world_info(client, &mut info) },
        CohortStatus::NotReady
    );
    let mut event = std::mem::MaybeUninit::<CohortEvent>::uninit();
    let mut lost = None;
    for _ in 0..300 {
        assert_eq!(cohort_client_wait(client, 100), CohortStatus::Ok);
        assert_eq!(
            unsafe { cohort_client_poll(client, event.as_mut_ptr()) },
            CohortStatus::Ok
        );
        let e = unsafe { event.assume_init_ref() };
        if e.kind != CohortEventKind::None as i32 {
            lost = Some((
                e.kind,
                String::from_utf8_lossy(&e.text[..e.text_len as usize]).to_string(),
            ));
            break;
        }
    }
    let (kind, text) = lost.expect("an event within 30 s");
    assert_eq!(kind, CohortEventKind::ConnectionLost as i32, "{text}");
    let mut status = CohortClientStatus::default();
    assert_eq!(
        unsafe { cohort_client_status(client, &mut status) },
        CohortStatus::Ok
    );
    assert_eq!(status.phase, CohortPhase::Over as i32);
    assert_eq!(
        unsafe { cohort_client_order(client, &order, 1) },
        CohortStatus::Closed
    );
    assert_eq!(cohort_client_free(client), CohortStatus::Ok);
    drop(socket);
}
