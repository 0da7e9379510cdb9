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
/// The most pixels a tile `--zoom` may ask for.
pub const MAX_ZOOM: u32 = 64;

/// A part of the map to draw (`cohort render --view X0,Y0,X1,Y1`): tiles `x0` to `x1` and `y0`
/// to `y1`, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewBox {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl std::str::FromStr for ViewBox {
    type Err = String;

    /// `X0,Y0,X1,Y1`, four whole tiles with `X0 <= X1` and `Y0 <= Y1`.
    fn from_str(text: &str) -> Result<ViewBox, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let numbers: Vec<i32> = parts
            .iter()
            .map(|p| p.parse::<i32>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{text}` is not X0,Y0,X1,Y1 (four whole tiles)"))?;
        let [x0, y0, x1, y1] = numbers[..] else {
            return Err(format!("`{text}` is not X0,Y0,X1,Y1 (four whole tiles)"));
        };
        if x0 > x1 || y0 > y1 {
            return Err(format!("`{text}`: X0 must be at most X1 and Y0 at most Y1"));
        }
        Ok(ViewBox { x0, y0, x1, y1 })
    }
}

impl ViewBox {
    /// The whole of a `width` × `height` map.
    fn whole(width: i32, height: i32) -> ViewBox {
        ViewBox {
            x0: 0,
            y0: 0,
            x1: width - 1,
            y1: height - 1,
        }
    }
}
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
    /// The pixel of the map's tile (0, 0)'s top left corner (negative when a view starts
    /// further in).
    origin: (f32, f32),
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
    fn shifted(self, dx: f32) -> Shape {
        self.moved(dx, 0.0)
    }

    /// The shape moved `dx` pixels right and `dy` down.
    fn moved(mut self, dx: f32, dy: f32) -> Shape {
        match &mut self {
            Shape::Rect { x, y, .. } | Shape::Circle { x, y, .. } => {
                *x += dx;
                *y += dy;
            }
            Shape::Line { points, .. } => points.iter_mut().for_each(|p| {
                p.0 += dx;
                p.1 += dy;
            }),
        }
        self
    }
}

impl Scene {
    /// The world drawn with at most `max_side` pixels a side (at least one a tile), with
    /// `tracks` (each unit's id, owner and the points it walked).
    pub fn of(world: &World, tracks: &[Track], max_side: u32) -> Scene {
        let grid = world.grid();
        let whole = ViewBox::whole(grid.width(), grid.height());
        let side = grid.width().max(grid.height()).max(1) as u32;
        let scale = (max_side / side).clamp(1, TILE_PIXELS);
        Scene::drawn(world, tracks, whole, scale)
    }

    /// Part of the world (`view`, tiles), `zoom` pixels a tile (1 to [`MAX_ZOOM`]) or as many
    /// as fit `max_side` (at most 24). Refused: a view reaching off the map, a zoom out of its
    /// range, a picture over `max_side` pixels a side.
    pub fn of_view(
        world: &World,
        tracks: &[Track],
        max_side: u32,
        view: Option<ViewBox>,
        zoom: Option<u32>,
    ) -> Result<Scene> {
        let grid = world.grid();
        let whole = ViewBox::whole(grid.width(), grid.height());
        let view = view.unwrap_or(whole);
        if view.x0 < 0 || view.y0 < 0 || view.x1 > whole.x1 || view.y1 > whole.y1 {
            bail!(
                "--view {},{},{},{} reaches off the map (tiles 0,0 to {},{})",
                view.x0,
                view.y0,
                view.x1,
                view.y1,
                whole.x1,
                whole.y1
            );
        }
        let side = u32::try_from((view.x1 - view.x0).max(view.y1 - view.y0) + 1).unwrap_or(1);
        let scale = match zoom {
            Some(z) if !(1..=MAX_ZOOM).contains(&z) => {
                bail!("--zoom is 1 to {MAX_ZOOM} pixels a tile, not {z}")
            }
            Some(z) if side.saturating_mul(z) > max_side => bail!(
                "--zoom {z} draws {} tiles at {} pixels a side, over {max_side}: a smaller \
                 --view or zoom",
                side,
                side.saturating_mul(z)
            ),
            Some(z) => z,
            None => (max_side / side).clamp(1, TILE_PIXELS),
        };
        Ok(Scene::drawn(world, tracks, view, scale))
    }

    fn drawn(world: &World, tracks: &[Track], view: ViewBox, scale: u32) -> Scene {
        let grid = world.grid();
        let rules = world.rules();
        let span = |a: i32, b: i32| u32::try_from(b - a + 1).unwrap_or(1);
        let (width, height) = (
            span(view.x0, view.x1) * scale,
            span(view.y0, view.y1) * scale,
        );
        let scale = scale as f32;
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
        let origin = (-(view.x0 as f32) * scale, -(view.y0 as f32) * scale);
        Scene {
            width,
            height,
            shapes: shapes
                .into_iter()
                .map(|s| s.moved(origin.0, origin.1))
                .collect(),
            scale,
            origin,
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
        let origin = self.origin;
        let ring = |p: Vec2, r: f32| Shape::Circle {
            x: px(p.x) + origin.0,
            y: px(p.y) + origin.1,
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
                            x: (f.origin.x + f.min.x) as f32 * scale - 2.0 + origin.0,
                            y: (f.origin.y + f.min.y) as f32 * scale - 2.0 + origin.1,
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
            origin: self.origin,
        }
    }
}

#[cfg(test)]
mod tests;
