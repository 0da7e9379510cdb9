//! Pictures of a tiny scene: their size, their pixels, their SVG, marks, pairs and clips.

use super::*;
use cohort_sim::scenario::{NoFiles, Runner, Scenario};

/// A 4 × 3 grass map, one villager of player 0 at tile (1, 1) walking to (3, 1), one of
/// player 1 standing at (3, 2).
const TINY: &str = r#"
name = "tiny"
turn_ticks = 1
ticks = 0

[map]
ascii = """
....
....
....
"""

[[units]]
kind = "villager"
owner = 0
at = [1, 1]
name = "walker"

[[units]]
kind = "villager"
owner = 1
at = [3, 2]

[[commands]]
tick = 0
player = 0
do = "move"
units = ["walker"]
to = [3, 0]
"#;

fn runner() -> Runner {
    Runner::new(Scenario::from_toml(TINY, "tiny", &NoFiles, None).expect("the tiny scene loads"))
}

fn world() -> World {
    runner().world
}

const GRASS: u32 = 0x5f8f3a;

/// The colour of the pixel at (x, y), as 0xRRGGBB (every pixel of a scene is opaque).
fn pixel(p: &tiny_skia::Pixmap, x: u32, y: u32) -> u32 {
    let c = p.pixel(x, y).expect("inside the picture");
    assert_eq!(c.alpha(), 255, "pixel ({x}, {y}) is opaque");
    (u32::from(c.red()) << 16) | (u32::from(c.green()) << 8) | u32::from(c.blue())
}

#[test]
fn a_scene_is_24_pixels_a_tile_or_fewer_to_fit_the_side_given() {
    let w = world();
    let s = Scene::of(&w, &[], MAX_PICTURE_SIDE);
    assert_eq!((s.width, s.height), (96, 72));
    let s = Scene::of(&w, &[], 40);
    assert_eq!((s.width, s.height), (40, 30), "10 px a tile fit 40 px");
    let s = Scene::of(&w, &[], 2);
    assert_eq!((s.width, s.height), (4, 3), "never under a pixel a tile");
}

#[test]
fn units_are_drawn_in_their_owners_colour_on_the_terrains() {
    let w = world();
    let p = Scene::of(&w, &[], MAX_PICTURE_SIDE).pixmap().unwrap();
    assert_eq!((p.width(), p.height()), (96, 72));
    // Tile t spans pixels 24 t to 24 t + 24: the villagers' middles, then bare grass.
    assert_eq!(
        pixel(&p, 36, 36),
        OWNER_COLOURS[0],
        "player 0's villager at (1, 1)"
    );
    assert_eq!(
        pixel(&p, 84, 60),
        OWNER_COLOURS[1],
        "player 1's villager at (3, 2)"
    );
    assert_eq!(pixel(&p, 2, 2), GRASS);
    assert_eq!(pixel(&p, 60, 12), GRASS);
}

#[test]
fn the_svg_has_the_size_a_row_of_terrain_a_line_and_a_circle_per_unit() {
    let mut r = runner();
    r.run(1, |_| {});
    let svg = Scene::of(&r.world, &[], MAX_PICTURE_SIDE).svg();
    assert!(svg.starts_with(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="96" height="72" viewBox="0 0 96 72">"#
    ));
    assert!(svg.ends_with("</svg>\n"));
    // One rectangle a row of same terrain.
    assert_eq!(svg.matches("<rect ").count(), 3);
    assert!(svg.contains(
        r##"<rect x="0.00" y="0.00" width="96.00" height="24.00" fill="#5f8f3a" fill-opacity="1.000"/>"##
    ));
    assert_eq!(svg.matches("<circle ").count(), 2);
    assert!(svg.contains(r##"fill="#2f5bd8""##) && svg.contains(r##"fill="#d82f2f""##));
    // The walker's route left, dashed white.
    assert_eq!(svg.matches("<polyline ").count(), 1);
    assert!(svg.contains(r##"stroke="#ffffff""##) && svg.contains("stroke-dasharray"));
}

#[test]
fn tracks_keep_the_points_units_moved_to_and_are_drawn_in_their_colour() {
    let mut r = runner();
    let mut tracks = Tracks::start(&r.world);
    let start = r.world.state().units[0].position;
    r.run(20, |w| tracks.follow(w));
    let walked = tracks.walked();
    assert_eq!(walked.len(), 2);
    assert_eq!(walked[0].2[0], start);
    assert!(walked[0].2.len() > 2, "the walker moved: {:?}", walked[0].2);
    assert!(
        walked[0].2.windows(2).all(|p| p[0] != p[1]),
        "no point twice in a row"
    );
    assert_eq!(walked[1].2.len(), 1, "the one standing has its start alone");
    let svg = Scene::of(&r.world, walked, MAX_PICTURE_SIDE).svg();
    assert!(svg.contains(r##"stroke="#2f5bd8" stroke-opacity="0.627""##));
}

#[test]
fn a_mark_rings_a_unit_in_magenta_and_skips_what_is_not_there() {
    let w = world();
    let id = w.state().units[0].id;
    let mut s = Scene::of(&w, &[], MAX_PICTURE_SIDE);
    let before = s.shapes.len();
    s.mark(
        &w,
        &[
            Entry::Unit(id),
            Entry::Unit(EntityId(999)),
            Entry::Building(EntityId(1)),
        ],
    );
    assert_eq!(s.shapes.len(), before + 1);
    let ring = s.svg();
    assert_eq!(ring.matches(r##"stroke="#ff00ff""##).count(), 1);
    // The ring's edge, a tile and a body's radius right of the villager's middle (36, 36).
    let radius = w.rules().units[w.state().units[0].kind as usize]
        .radius
        .to_num::<f32>()
        * 24.0
        + 24.0;
    let x = (36.0 + radius).round() as u32;
    assert_eq!(pixel(&s.pixmap().unwrap(), x, 36), MARK_COLOUR);
}

#[test]
fn two_scenes_beside_each_other_have_a_gap_between() {
    let w = world();
    let pair = Scene::of(&w, &[], MAX_PICTURE_SIDE).beside(Scene::of(&w, &[], 40));
    assert_eq!((pair.width, pair.height), (96 + GAP_PIXELS + 40, 72));
    let p = pair.pixmap().unwrap();
    assert_eq!(pixel(&p, 96 + GAP_PIXELS / 2, 10), 0x202020, "the gap");
    // The right one's player 0 villager, at (1.5, 1.5) tiles of 10 px, shifted.
    assert_eq!(pixel(&p, 96 + GAP_PIXELS + 15, 15), OWNER_COLOURS[0]);
}

#[test]
fn the_format_is_told_by_the_extension() {
    assert_eq!(Format::of(Path::new("a.svg")).unwrap(), Format::Svg);
    assert_eq!(Format::of(Path::new("a/b.PNG")).unwrap(), Format::Png);
    let e = Format::of(Path::new("a.gif")).unwrap_err();
    assert_eq!(e.to_string(), "--out must end in .svg or .png");
    assert!(Format::of(Path::new("svg")).is_err());
}

#[test]
fn written_pictures_are_svg_text_and_png_of_the_scenes_size() {
    let dir = std::env::temp_dir().join(format!("cohort-picture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = Scene::of(&world(), &[], 40);
    let (svg, png) = (dir.join("t.svg"), dir.join("t.png"));
    s.write(Format::Svg, &svg).unwrap();
    s.write(Format::Png, &png).unwrap();
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), s.svg());
    let decoded = tiny_skia::Pixmap::load_png(&png).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (40, 30));
    assert_eq!(decoded.data(), s.pixmap().unwrap().data());
    let gif = dir.join("t.gif");
    let mut clip = Clip::create(&gif, 40, 30).unwrap();
    assert_eq!(clip.size(), (40, 30));
    clip.frame(&s, 5).unwrap();
    clip.frame(&s, 5).unwrap();
    let wrong = clip.frame(&Scene::of(&world(), &[], 80), 5).unwrap_err();
    assert_eq!(wrong.to_string(), "a frame of 80x60 px in a clip of 40x30");
    assert_eq!(clip.frames, 2);
    clip.finish().unwrap();
    let bytes = std::fs::read(&gif).unwrap();
    assert_eq!(&bytes[..6], b"GIF89a");
    assert_eq!(bytes.last(), Some(&0x3b), "the GIF's trailer");
    std::fs::remove_dir_all(&dir).unwrap();
}
