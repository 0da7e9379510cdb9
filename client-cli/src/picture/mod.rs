//! Pictures of a world — terrain, buildings, resources, units in their owner's colour, the
//! routes they have left, tracks walked, entities marked — as SVG, PNG or GIF frames: what
//! `cohort render` and `cohort replay --render/--animate` draw.
//!
//! - this file: the [`Scene`] — a world's shapes in pixels, back to front — and what marks it;
//! - `draw.rs`: a scene written as SVG, or drawn into pixels and written as PNG;
//! - `clip.rs`: animated GIF clips of scenes ([`Clip`]).

mod clip;
mod draw;

pub use clip::{Clip, MAX_CLIP_FRAMES, MAX_CLIP_SIDE};

use anyhow::{bail, Result};
use cohort_sim::grid::Occupant;
use cohort_sim::hash::Entry;
use cohort_sim::ruleset::Good;
use cohort_sim::{EntityId, Fx, Tile, Vec2, World};
use std::path::Path;

/// The largest picture side, in pixels: big maps are drawn with fewer pixels a tile.
pub const MAX_PICTURE_SIDE: u32 = 2048;
/// Pixels a tile when the map is small enough.
const TILE_PIXELS: u32 = 24;
/// The owners' colours, player 0 to 7 (Age of Empires II's order).
const OWNER_COLOURS: [u32; 8] = [
    0x2f5bd8, 0xd82f2f, 0x2fa84a, 0xe0d020, 0x20c0c0, 0xa040c0, 0x909090, 0xe08020,
];

/// A colour with its opacity (0 to 255).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Colour {
    rgb: u32,
    alpha: u8,
}

impl Colour {
    fn solid(rgb: u32) -> Colour {
        Colour { rgb, alpha: 255 }
    }

    fn faded(rgb: u32, alpha: u8) -> Colour {
        Colour { rgb, alpha }
    }

    fn parse(hex: &str) -> Colour {
        Colour::solid(u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0x808080))
    }

    fn rgb8(self) -> (u8, u8, u8) {
        (
            (self.rgb >> 16) as u8,
            (self.rgb >> 8) as u8,
            self.rgb as u8,
        )
    }

    fn svg(self) -> String {
        format!("#{:06x}", self.rgb & 0xff_ffff)
    }

    fn opacity(self) -> f32 {
        f32::from(self.alpha) / 255.0
    }
}

/// One thing to draw, in pixels.
#[derive(Clone, Debug)]
enum Shape {
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Colour,
        stroke: Option<(Colour, f32)>,
    },
    Circle {
        x: f32,
        y: f32,
        r: f32,
        fill: Colour,
        stroke: Option<(Colour, f32)>,
    },
    Line {
        points: Vec<(f32, f32)>,
        colour: Colour,
        width: f32,
        dashed: bool,
    },
}

/// The picture: its size and its shapes, back to front.
pub struct Scene {
    pub width: u32,
    pub height: u32,
    shapes: Vec<Shape>,
    /// Pixels a tile.
    scale: f32,
}

/// What marks an entity: a ring (or outline) of this colour, on top of everything.
const MARK_COLOUR: u32 = 0xff00ff;

/// The least a mark measures across, in pixels.
const MARK_MIN_PIXELS: f32 = 24.0;

/// The pixels between two pictures drawn side by side.
const GAP_PIXELS: u32 = 8;

/// A still picture's format, by its file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// `.svg` or `.png` (any case); anything else is refused.
    pub fn of(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("png") => Ok(Format::Png),
            Some(e) if e.eq_ignore_ascii_case("svg") => Ok(Format::Svg),
            _ => bail!("--out must end in .svg or .png"),
        }
    }
}

/// A unit's track: its id, its owner and the points it walked.
pub type Track = (u64, u8, Vec<Vec2>);

/// Every unit's track over a run, in id order (`cohort render --trace`).
pub struct Tracks(Vec<Track>);

impl Tracks {
    /// A track for every unit of `world`, starting where it stands.
    pub fn start(world: &World) -> Tracks {
        Tracks(
            world
                .state()
                .units
                .iter()
                .map(|u| (u.id.0, u.owner, vec![u.position]))
                .collect(),
        )
    }

    /// Every unit's position after a tick, added to its track when it moved (a unit born
    /// since the start has none).
    pub fn follow(&mut self, world: &World) {
        let tracks = &mut self.0;
        for u in &world.state().units {
            if let Ok(i) = tracks.binary_search_by_key(&u.id.0, |t| t.0) {
                let last = *tracks[i].2.last().expect("a track starts with a point");
                if last != u.position {
                    tracks[i].2.push(u.position);
                }
            }
        }
    }

    /// The tracks, in id order.
    pub fn walked(&self) -> &[Track] {
        &self.0
    }
}

fn owner_colour(p: u8) -> u32 {
    OWNER_COLOURS[usize::from(p) % OWNER_COLOURS.len()]
}

fn good_colour(g: Good) -> u32 {
    match g {
        Good::Wood => 0x1b4a17,
        Good::Gold => 0xf0c419,
        Good::Stone => 0xb8b8b0,
        Good::Food => 0xc8326e,
    }
}

impl Shape {
    /// The shape moved `dx` pixels right.
    fn shifted(mut self, dx: f32) -> Shape {
        match &mut self {
            Shape::Rect { x, .. } | Shape::Circle { x, .. } => *x += dx,
            Shape::Line { points, .. } => points.iter_mut().for_each(|p| p.0 += dx),
        }
        self
    }
}

impl Scene {
    /// The world drawn with at most `max_side` pixels a side (at least one a tile), with
    /// `tracks` (each unit's id, owner and the points it walked).
    pub fn of(world: &World, tracks: &[Track], max_side: u32) -> Scene {
        let grid = world.grid();
        let rules = world.rules();
        let side = grid.width().max(grid.height()).max(1) as u32;
        let scale = (max_side / side).clamp(1, TILE_PIXELS) as f32;
        let (width, height) = (
            grid.width() as u32 * scale as u32,
            grid.height() as u32 * scale as u32,
        );
        // A world point to pixels: tile t spans t - 0.5 to t + 0.5.
        let px = |v: Fx| (v.to_num::<f32>() + 0.5) * scale;
        let pt = |p: Vec2| (px(p.x), px(p.y));
        let mut shapes = Vec::new();
        // Terrain, a row of same-terrain tiles at a time.
        for y in 0..grid.height() {
            let mut x = 0;
            while x < grid.width() {
                let t = grid.terrain(Tile::new(x, y)).unwrap_or(0);
                let mut end = x + 1;
                while end < grid.width() && grid.terrain(Tile::new(end, y)) == Some(t) {
                    end += 1;
                }
                shapes.push(Shape::Rect {
                    x: x as f32 * scale,
                    y: y as f32 * scale,
                    w: (end - x) as f32 * scale,
                    h: scale,
                    fill: Colour::parse(&rules.terrains[t as usize].colour),
                    stroke: None,
                });
                x = end;
            }
        }
        // Resources: trees round, mines and bushes square.
        for r in &world.state().resources {
            let kind = &rules.resources[r.kind as usize];
            let (cx, cy) = pt(Vec2::of_tile(r.tile));
            let fill = Colour::solid(good_colour(kind.gives));
            if kind.is_tree || kind.gives == Good::Wood {
                shapes.push(Shape::Circle {
                    x: cx,
                    y: cy,
                    r: scale * 0.42,
                    fill,
                    stroke: None,
                });
            } else {
                let s = scale * 0.8;
                shapes.push(Shape::Rect {
                    x: cx - s / 2.0,
                    y: cy - s / 2.0,
                    w: s,
                    h: s,
                    fill,
                    stroke: Some((Colour::solid(0x303030), (scale / 16.0).max(0.5))),
                });
            }
        }
        // Buildings: their footprint in the owner's colour; foundations faded, gates striped light.
        for b in &world.state().buildings {
            let f = b.footprint;
            let x0 = (f.origin.x + f.min.x) as f32 * scale;
            let y0 = (f.origin.y + f.min.y) as f32 * scale;
            let colour = owner_colour(b.owner);
            let gate = matches!(grid.occupant(f.origin), Occupant::Gate { .. });
            let alpha = if !b.complete {
                110
            } else if gate {
                170
            } else {
                230
            };
            shapes.push(Shape::Rect {
                x: x0 + 1.0,
                y: y0 + 1.0,
                w: f.width() as f32 * scale - 2.0,
                h: f.height() as f32 * scale - 2.0,
                fill: Colour::faded(colour, alpha),
                stroke: Some((Colour::solid(0x202020), (scale / 10.0).max(1.0))),
            });
        }
        // Tracks walked, then routes left, then the units on top.
        for (_, owner, points) in tracks {
            if points.len() > 1 {
                shapes.push(Shape::Line {
                    points: points.iter().map(|&p| pt(p)).collect(),
                    colour: Colour::faded(owner_colour(*owner), 160),
                    width: (scale / 8.0).max(1.0),
                    dashed: false,
                });
            }
        }
        for u in &world.state().units {
            if let Some(route) = &u.route {
                if !route.waypoints.is_empty() {
                    let points = std::iter::once(u.position)
                        .chain(route.waypoints.iter().copied())
                        .map(pt)
                        .collect();
                    shapes.push(Shape::Line {
                        points,
                        colour: Colour::solid(0xffffff),
                        width: (scale / 12.0).max(1.0),
                        dashed: true,
                    });
                }
            }
        }
        for u in &world.state().units {
            let (cx, cy) = pt(u.position);
            let radius = rules.units[u.kind as usize].radius.to_num::<f32>() * scale;
            shapes.push(Shape::Circle {
                x: cx,
                y: cy,
                r: radius.max(2.0),
                fill: Colour::solid(owner_colour(u.owner)),
                stroke: Some((Colour::solid(0x000000), (scale / 16.0).max(0.75))),
            });
        }
        Scene {
            width,
            height,
            shapes,
            scale,
        }
    }

    /// Rings `entries` where they stand in `world` (the world this scene drew): a unit, a
    /// resource, a formation's members; a building is outlined; a player is not drawn.
    pub fn mark(&mut self, world: &World, entries: &[Entry]) {
        let scale = self.scale;
        // A ring a tile wider than what it marks (and at least MARK_MIN_PIXELS across), so it
        // is seen on a map drawn small.
        let mark_width = (scale / 4.0).max(2.5);
        let px = |v: Fx| (v.to_num::<f32>() + 0.5) * scale;
        let ring = |p: Vec2, r: f32| Shape::Circle {
            x: px(p.x),
            y: px(p.y),
            r,
            fill: Colour::faded(MARK_COLOUR, 0),
            stroke: Some((Colour::solid(MARK_COLOUR), mark_width)),
        };
        let unit_ring = |id: EntityId| {
            let u = world.state().units.iter().find(|u| u.id == id)?;
            let r = world.rules().units[u.kind as usize].radius.to_num::<f32>() * scale;
            Some(ring(u.position, (r + scale).max(MARK_MIN_PIXELS / 2.0)))
        };
        for e in entries {
            match *e {
                Entry::Unit(id) => self.shapes.extend(unit_ring(id)),
                Entry::Resource(id) => {
                    if let Some(r) = world.state().resources.iter().find(|r| r.id == id) {
                        self.shapes.push(ring(
                            Vec2::of_tile(r.tile),
                            (scale * 1.5).max(MARK_MIN_PIXELS / 2.0),
                        ));
                    }
                }
                Entry::Building(id) => {
                    if let Some(b) = world.state().buildings.iter().find(|b| b.id == id) {
                        let f = b.footprint;
                        self.shapes.push(Shape::Rect {
                            x: (f.origin.x + f.min.x) as f32 * scale - 2.0,
                            y: (f.origin.y + f.min.y) as f32 * scale - 2.0,
                            w: f.width() as f32 * scale + 4.0,
                            h: f.height() as f32 * scale + 4.0,
                            fill: Colour::faded(MARK_COLOUR, 0),
                            stroke: Some((Colour::solid(MARK_COLOUR), mark_width)),
                        });
                    }
                }
                Entry::Formation(id) => {
                    if let Some(f) = world.state().formations.iter().find(|f| f.id == id) {
                        self.shapes
                            .extend(f.members.iter().filter_map(|&m| unit_ring(m)));
                    }
                }
                Entry::Player(_) => {}
            }
        }
    }

    /// This scene on the left and `right` on the right, a dark gap between.
    pub fn beside(mut self, right: Scene) -> Scene {
        let dx = self.width + GAP_PIXELS;
        let height = self.height.max(right.height);
        self.shapes.push(Shape::Rect {
            x: self.width as f32,
            y: 0.0,
            w: GAP_PIXELS as f32,
            h: height as f32,
            fill: Colour::solid(0x202020),
            stroke: None,
        });
        self.shapes
            .extend(right.shapes.into_iter().map(|s| s.shifted(dx as f32)));
        Scene {
            width: dx + right.width,
            height,
            shapes: self.shapes,
            scale: self.scale,
        }
    }
}

#[cfg(test)]
mod tests;
