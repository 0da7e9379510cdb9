//! What a browser watching a match is sent: frames of the view stream (docs/PROTOCOL.md,
//! "Watching in a browser"). Each frame is a 4-byte big-endian payload length, then the
//! payload: a kind byte, then little-endian fields. Derived from the server's own world; the
//! same world gives the same bytes.

use cohort_protocol::MatchConfig;
use cohort_sim::ruleset::Good;
use cohort_sim::{Fx, Ruleset, World};

/// The frame kinds.
pub const INTRO: u8 = 0;
pub const RESOURCES: u8 = 1;
pub const TURN: u8 = 2;
pub const NOTICE: u8 = 3;

/// The view stream's version, the intro's second byte.
pub const VIEW_VERSION: u8 = 1;

/// Turns between two resources frames (trees felled, mines dug out), besides the one at join.
pub const RESOURCES_EVERY_TURNS: u64 = 32;

/// Positions are sent in sixteenths of a tile.
const POSITION_SHIFT: u32 = 12;

/// The colour a resource kind is drawn in (as `cohort render` draws it).
fn good_rgb(good: Good) -> [u8; 3] {
    match good {
        Good::Wood => [0x1b, 0x4a, 0x17],
        Good::Gold => [0xf0, 0xc4, 0x19],
        Good::Stone => [0xb8, 0xb8, 0xb0],
        Good::Food => [0xc8, 0x32, 0x6e],
    }
}

/// `#rrggbb` as three bytes (grey when it is not one).
fn hex_rgb(text: &str) -> [u8; 3] {
    let v = u32::from_str_radix(text.trim_start_matches('#'), 16).unwrap_or(0x80_8080);
    let [_, r, g, b] = v.to_be_bytes();
    [r, g, b]
}

/// A position in sixteenths of a tile, clamped to what two bytes hold (maps are at most 512
/// tiles a side: 8,192 sixteenths).
fn sixteenths(v: Fx) -> u16 {
    let s = v.to_bits() >> POSITION_SHIFT;
    u16::try_from(s.clamp(0, i64::from(u16::MAX))).unwrap_or(u16::MAX)
}

fn clamp_u16(v: i64) -> u16 {
    u16::try_from(v.clamp(0, i64::from(u16::MAX))).unwrap_or(u16::MAX)
}

fn clamp_u8(v: i64) -> u8 {
    u8::try_from(v.clamp(0, i64::from(u8::MAX))).unwrap_or(u8::MAX)
}

fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// A frame being written.
struct Writer(Vec<u8>);

impl Writer {
    fn new(kind: u8) -> Writer {
        Writer(vec![0, 0, 0, 0, kind])
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    /// A text of at most 255 bytes (longer is cut at a character boundary).
    fn text(&mut self, s: &str) -> &mut Self {
        let mut end = s.len().min(usize::from(u8::MAX));
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.u8(u8::try_from(end).unwrap_or(u8::MAX));
        self.bytes(&s.as_bytes()[..end])
    }
    fn done(mut self) -> Vec<u8> {
        let len = u32::try_from(self.0.len() - 4).unwrap_or(u32::MAX);
        self.0[..4].copy_from_slice(&len.to_be_bytes());
        self.0
    }
}

/// The first frame: the match, the delay, the map's terrain, the palettes, the players.
pub fn intro(config: &MatchConfig, world: &World, rules: &Ruleset, delay_secs: u32) -> Vec<u8> {
    let grid = &world.state().grid;
    let mut w = Writer::new(INTRO);
    w.u8(VIEW_VERSION)
        .text(&config.match_id)
        .u32(delay_secs)
        .u32(clamp_u32(config.turn_ms()))
        .u16(clamp_u16(i64::from(grid.width())))
        .u16(clamp_u16(i64::from(grid.height())));
    w.u8(clamp_u8(i64::try_from(rules.terrains.len()).unwrap_or(0)));
    for t in &rules.terrains {
        w.bytes(&hex_rgb(&t.colour));
    }
    let tiles =
        usize::try_from(grid.width()).unwrap_or(0) * usize::try_from(grid.height()).unwrap_or(0);
    for i in 0..tiles {
        w.u8(grid.terrain_at(i));
    }
    w.u8(clamp_u8(i64::try_from(rules.resources.len()).unwrap_or(0)));
    for r in &rules.resources {
        w.bytes(&good_rgb(r.gives));
    }
    w.u8(clamp_u8(i64::try_from(rules.units.len()).unwrap_or(0)));
    for u in &rules.units {
        w.u8(clamp_u8(i64::from(sixteenths(u.radius))));
    }
    w.u8(clamp_u8(i64::try_from(config.players.len()).unwrap_or(0)));
    for p in &config.players {
        w.u8(p.slot).text(&p.name);
    }
    w.done()
}

/// The resources left (trees, mines, bushes) after `turn`: tile and kind.
pub fn resources(world: &World, turn: u64) -> Vec<u8> {
    let resources = &world.state().resources;
    let mut w = Writer::new(RESOURCES);
    w.u32(clamp_u32(turn))
        .u32(clamp_u32(u64::try_from(resources.len()).unwrap_or(0)));
    for r in resources {
        w.u16(clamp_u16(i64::from(r.tile.x)))
            .u16(clamp_u16(i64::from(r.tile.y)))
            .u8(clamp_u8(i64::from(r.kind)));
    }
    w.done()
}

/// The state after `turn`: each player's unit count, every unit (owner, kind, position) and
/// every building (owner, complete, the first tile it covers and its size in tiles).
pub fn turn(world: &World, players: usize, turn: u64) -> Vec<u8> {
    let state = world.state();
    let mut w = Writer::new(TURN);
    w.u32(clamp_u32(turn));
    let mut counts = vec![0u16; players];
    for u in &state.units {
        if let Some(c) = counts.get_mut(usize::from(u.owner)) {
            *c = c.saturating_add(1);
        }
    }
    w.u8(clamp_u8(i64::try_from(players).unwrap_or(0)));
    for c in counts {
        w.u16(c);
    }
    w.u32(clamp_u32(u64::try_from(state.units.len()).unwrap_or(0)));
    for u in &state.units {
        w.u8(u.owner)
            .u8(clamp_u8(i64::from(u.kind)))
            .u16(sixteenths(u.position.x))
            .u16(sixteenths(u.position.y));
    }
    w.u16(clamp_u16(i64::try_from(state.buildings.len()).unwrap_or(0)));
    for b in &state.buildings {
        let f = &b.footprint;
        w.u8(b.owner)
            .u8(u8::from(b.complete))
            .u16(clamp_u16(i64::from(f.origin.x) + i64::from(f.min.x)))
            .u16(clamp_u16(i64::from(f.origin.y) + i64::from(f.min.y)))
            .u8(clamp_u8(i64::from(f.width())))
            .u8(clamp_u8(i64::from(f.height())));
    }
    w.done()
}

/// A line for the page to show: why the stream ends, or why it was refused.
pub fn notice(text: &str) -> Vec<u8> {
    let mut w = Writer::new(NOTICE);
    w.text(text);
    w.done()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn world() -> (MatchConfig, World, Arc<Ruleset>) {
        let rules = Arc::new(Ruleset::default_rules());
        let config = MatchConfig::standard("w", &rules, 2);
        let world = config.world(rules.clone()).unwrap();
        (config, world, rules)
    }

    fn payload(frame: &[u8]) -> &[u8] {
        let len = u32::from_be_bytes(frame[..4].try_into().unwrap());
        assert_eq!(usize::try_from(len).unwrap(), frame.len() - 4);
        &frame[4..]
    }

    #[test]
    fn a_turn_frame_holds_every_unit_where_the_sim_has_it() {
        let (_, world, _) = world();
        let f = turn(&world, 2, 7);
        let p = payload(&f);
        assert_eq!(p[0], TURN);
        assert_eq!(u32::from_le_bytes(p[1..5].try_into().unwrap()), 7);
        assert_eq!(p[5], 2);
        let units = &world.state().units;
        let at = 6 + 2 * 2;
        let n = u32::from_le_bytes(p[at..at + 4].try_into().unwrap());
        assert_eq!(usize::try_from(n).unwrap(), units.len());
        for (i, u) in units.iter().enumerate() {
            let o = at + 4 + i * 6;
            assert_eq!(p[o], u.owner);
            let x = u16::from_le_bytes([p[o + 2], p[o + 3]]);
            let y = u16::from_le_bytes([p[o + 4], p[o + 5]]);
            assert_eq!(i64::from(x), u.position.x.to_bits() >> 12);
            assert_eq!(i64::from(y), u.position.y.to_bits() >> 12);
        }
    }

    #[test]
    fn the_intro_carries_the_map_and_the_delay() {
        let (config, world, rules) = world();
        let f = intro(&config, &world, &rules, 90);
        let p = payload(&f);
        assert_eq!((p[0], p[1]), (INTRO, VIEW_VERSION));
        assert_eq!(&p[3..4], b"w");
        assert_eq!(u32::from_le_bytes(p[4..8].try_into().unwrap()), 90);
        let grid = &world.state().grid;
        let side = usize::try_from(grid.width() * grid.height()).unwrap();
        assert!(f.len() > side, "the terrain is in the intro");
    }

    #[test]
    fn a_notice_is_cut_at_a_character_boundary() {
        let long = "é".repeat(200);
        let f = notice(&long);
        let p = payload(&f);
        assert_eq!(usize::from(p[1]), p.len() - 2);
        assert!(std::str::from_utf8(&p[2..]).is_ok());
        assert_eq!(resources(&world().1, 0)[4], RESOURCES);
    }
}
