//! `cohort render`: a picture of a scenario after some ticks — terrain, buildings, resources,
//! units in their owner's colour, the routes they have left and (with `--trace`) the tracks they
//! walked — as SVG or PNG, by the output file's extension.

use super::sim::{load, Source};
use anyhow::Result;
use cohort_client::picture::{Format, Scene, Tracks, ViewBox, MAX_PICTURE_SIDE};
use cohort_sim::scenario::Runner;
use std::path::PathBuf;
use std::process::ExitCode;

/// Draw a scenario after some ticks as SVG or PNG.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: Source,
    /// Ticks to run before drawing (default 0: the scenario as laid out).
    #[arg(long, default_value_t = 0)]
    ticks: u64,
    /// The picture: FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Also draw the track every unit walked.
    #[arg(long)]
    trace: bool,
    /// Draw only tiles X0 to X1 and Y0 to Y1 (inclusive, on the map), e.g. `--view 20,20,59,49`.
    #[arg(long, value_name = "X0,Y0,X1,Y1")]
    view: Option<ViewBox>,
    /// Pixels a tile, 1 to 64 (default: as many as fit 2048 pixels a side, at most 24); the
    /// picture must stay within 2048 pixels a side.
    #[arg(long, value_name = "PIXELS")]
    zoom: Option<u32>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let format = Format::of(&args.out)?;
    let scenario = load(&args.source)?;
    // The view and zoom are checked against the map before any tick runs.
    Scene::of_view(&scenario.world, &[], MAX_PICTURE_SIDE, args.view, args.zoom)?;
    let mut runner = Runner::new(scenario);
    let mut tracks = Tracks::start(&runner.world);
    runner.run(args.ticks, |w| {
        if args.trace {
            tracks.follow(w);
        }
    });
    let tracks = if args.trace { tracks.walked() } else { &[] };
    let scene = Scene::of_view(
        &runner.world,
        tracks,
        MAX_PICTURE_SIDE,
        args.view,
        args.zoom,
    )?;
    scene.write(format, &args.out)?;
    println!(
        "drew {} at tick {} ({}x{} px)",
        args.out.display(),
        runner.world.tick(),
        scene.width,
        scene.height
    );
    Ok(ExitCode::SUCCESS)
}
