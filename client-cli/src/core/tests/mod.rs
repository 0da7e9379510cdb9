//! The client core without sockets: messages in, messages and events out, a fake clock. The
//! helpers here; the tests by topic: turns and orders (`turns.rs`), rejoining and evidence
//! (`rejoin.rs`), pings, messages, refusals and lost connections (`connection.rs`).

mod connection;
mod rejoin;
mod turns;

use super::*;
use crate::text::parse_line;
use cohort_protocol::codec::encode_snapshot;
use cohort_protocol::limits::{PING_INTERVAL_MS, SNAPSHOT_CHUNK_BYTES};
use cohort_protocol::message::{EndReason, Membership, MembershipEvent};
use cohort_protocol::message::{MatchEnded, Ping, SnapshotChunk, TurnHash};
use cohort_protocol::setup::run_bundle;
use cohort_sim::Fx;
use cohort_sim::{fx, EntityId, PlayerCommand, Vec2};

fn rules() -> Arc<Ruleset> {
    Arc::new(Ruleset::default_rules())
}

fn config() -> MatchConfig {
    let mut c = MatchConfig::standard("core", &rules(), 2);
    c.turn_ticks = 2;
    c
}

fn options() -> ClientOptions {
    ClientOptions {
        token: "cohort1.core.1.99.ab".into(),
        name: "ana".into(),
        simulate: true,
        perturb_at_turn: None,
        perturb_at_tick: None,
    }
}

fn accepted(role: Role, next_turn: u64, snapshot_follows: bool) -> ServerMessage {
    ServerMessage::JoinAccepted(JoinAccepted {
        config: config(),
        role,
        next_turn,
        input_delay: 2,
        snapshot_follows,
        spectator_delay_secs: 0,
    })
}

fn drain(c: &mut ClientCore) -> Vec<ClientMessage> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn events(c: &mut ClientCore) -> Vec<Event> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

/// The reference: the server's side of the same turns.
struct Server {
    world: World,
    hashes: Vec<StateHash>,
    /// Each turn's tick hashes.
    ticks: Vec<Vec<TickHash>>,
}

impl Server {
    fn new() -> Server {
        Server {
            world: config().world(rules()).unwrap(),
            hashes: Vec::new(),
            ticks: Vec::new(),
        }
    }

    fn bundle(&mut self, commands: Vec<PlayerCommand>) -> TurnBundle {
        let turn = self.hashes.len() as u64;
        let b = TurnBundle {
            turn,
            input_delay: None,
            events: vec![],
            commands,
            previous_hash: self.hashes.last().copied(),
        };
        let ticks =
            cohort_protocol::setup::run_bundle_hashed(&mut self.world, &b, config().turn_ticks);
        self.ticks.push(ticks);
        self.hashes.push(self.world.hash());
        b
    }
}

fn joined(role: Role, opts: ClientOptions) -> ClientCore {
    let mut c = ClientCore::new(opts, rules());
    c.start(Instant::now());
    c.handle_message(accepted(role, 0, false), Instant::now());
    drain(&mut c);
    events(&mut c);
    c
}

fn a_move(world: &World, player: u8) -> PlayerCommand {
    let unit = world
        .state()
        .units
        .iter()
        .find(|u| u.owner == player)
        .unwrap()
        .id;
    PlayerCommand {
        player,
        command: Command::Move {
            units: vec![unit],
            to: Vec2::new(fx(50), fx(50)),
        },
    }
}
