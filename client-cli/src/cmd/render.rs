//! `cohort render`: a picture of a scenario after some ticks — terrain, buildings, resources,
//! units in their owner's colour, the routes they have left and (with `--trace`) the tracks they
//! walked — as SVG or PNG, by the output file's extension.

use super::picture::{Format, Scene, MAX_PICTURE_SIDE};
use super::sim::{load, Source};
use anyhow::Result;
use cohort_sim::scenario::Runner;
use cohort_sim::Vec2;
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
}

pub fn run(args: Args) -> Result<ExitCode> {
    let format = Format::of(&args.out)?;
    let scenario = load(&args.source)?;
    let mut runner = Runner::new(scenario);
    // Each unit's track: (id, owner, points), in id order.
    let mut tracks: Vec<(u64, u8, Vec<Vec2>)> = runner
        .world
        .state
        .units
        .iter()
        .map(|u| (u.id.0, u.owner, vec![u.position]))
        .collect();
    runner.run(args.ticks, |w| {
        if !args.trace {
            return;
        }
        for u in &w.state.units {
            if let Ok(i) = tracks.binary_search_by_key(&u.id.0, |t| t.0) {
                let last = *tracks[i].2.last().expect("a track starts with a point");
                if last != u.position {
                    tracks[i].2.push(u.position);
                }
            }
        }
    });
    let tracks = if args.trace { &tracks[..] } else { &[] };
    let scene = Scene::of(&runner.world, tracks, MAX_PICTURE_SIDE);
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
