//! `cohort replay FILE --render TURN --out F.png|svg` and `--animate A..B --out F.gif`:
//! pictures of a replay's (or a report's) states, drawn as `cohort render` draws a scenario.

use super::{progress, read, Args, Loaded};
use anyhow::{bail, Context, Result};
use cohort_client::picture::{
    Clip, Format, Scene, MAX_CLIP_FRAMES, MAX_CLIP_SIDE, MAX_PICTURE_SIDE,
};
use cohort_client::verify::narrow::narrow;
use cohort_client::verify::{resimulate, Verdict};
use cohort_protocol::replay::TurnRecord;
use cohort_protocol::setup::run_bundle;
use cohort_sim::World;
use std::path::Path;
use std::process::ExitCode;

/// The turns a file holds, for its error messages: `0 to N`.
fn held(records: &[TurnRecord]) -> String {
    match records.len() {
        0 => "none".into(),
        n => format!("0 to {}", n - 1),
    }
}

/// `--render TURN --out F`.
pub(super) fn render(args: &Args, turn: u64, out: &Path) -> Result<ExitCode> {
    let format = Format::of(out)?;
    let (loaded, rules) = read(args)?;
    let quiet = args.quiet || args.json;
    if let Loaded::Report(report) = &loaded {
        if turn > report.turn {
            bail!(
                "turn {turn} is after the report's failing turn {}: its records end there",
                report.turn
            );
        }
        if turn == report.turn {
            let bar = progress(quiet, report.turn + 1);
            let (n, worlds) = narrow(report, rules.clone(), |d| bar.set_position(d))
                .context("re-simulating the report")?;
            bar.finish_and_clear();
            let Some(w) = worlds else {
                // No client side: the server's state alone.
                let world = World::from_snapshot(rules, report.server.snapshot.clone())
                    .context("the server's state in the report cannot be loaded")?;
                let scene = Scene::of(&world, &[], MAX_PICTURE_SIDE);
                scene.write(format, out)?;
                return told(
                    args,
                    out,
                    &scene,
                    world.tick(),
                    format!(
                        "the server's state after turn {turn} (the client sent none to compare)"
                    ),
                    0,
                );
            };
            // Both sides at half the width each, so the pair is no wider than one picture.
            let side = MAX_PICTURE_SIDE / 2;
            let mut left = Scene::of(&w.server, &[], side);
            left.mark(&w.server, &n.entities);
            let mut right = Scene::of(&w.client, &[], side);
            right.mark(&w.client, &n.entities);
            let scene = left.beside(right);
            scene.write(format, out)?;
            return told(
                args,
                out,
                &scene,
                w.server.tick(),
                format!(
                    "the server's state (left) and player {:?}'s (right) at tick {} of turn \
                     {turn}, {} differing entities ringed",
                    n.players,
                    w.server.tick(),
                    n.entities.len()
                ),
                n.entities.len(),
            );
        }
    }
    let (config, records) = loaded.config_and_records();
    let upto = usize::try_from(turn)
        .ok()
        .filter(|&i| i < records.len())
        .with_context(|| {
            format!(
                "turn {turn} is not among the file's records (turns {})",
                held(records)
            )
        })?;
    let bar = progress(quiet, turn + 1);
    let (verdict, world) = resimulate(config, rules, &records[..=upto], |d| bar.set_position(d))
        .context("re-simulating the file")?;
    bar.finish_and_clear();
    if let Verdict::Differs(d) = verdict {
        bail!(
            "turn {} does not re-simulate to the recorded hash (recorded {}, re-simulated {}): \
             the state after turn {turn} would not be the match's",
            d.turn,
            d.recorded,
            d.computed
        );
    }
    let scene = Scene::of(&world, &[], MAX_PICTURE_SIDE);
    scene.write(format, out)?;
    told(
        args,
        out,
        &scene,
        world.tick(),
        format!("the state after turn {turn}"),
        0,
    )
}

/// What a picture written says: a line, or with `--json` an object.
fn told(
    args: &Args,
    out: &Path,
    scene: &Scene,
    tick: u64,
    what: String,
    marked: usize,
) -> Result<ExitCode> {
    if args.json {
        let v = serde_json::json!({
            "verdict": "drawn",
            "out": out.display().to_string(),
            "width": scene.width,
            "height": scene.height,
            "tick": tick,
            "marked": marked,
        });
        println!("{v}");
    } else {
        println!(
            "drew {}: {what} ({}x{} px)",
            out.display(),
            scene.width,
            scene.height
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--animate A..B --out F.gif`.
pub(super) fn animate(args: &Args, (a, b): (u64, u64), out: &Path) -> Result<ExitCode> {
    if !out
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gif"))
    {
        bail!("--animate writes a GIF: --out must end in .gif");
    }
    let (loaded, rules) = read(args)?;
    let (config, records) = loaded.config_and_records();
    let last = usize::try_from(b)
        .ok()
        .filter(|&i| i < records.len())
        .with_context(|| {
            format!(
                "turn {b} is not among the file's records (turns {})",
                held(records)
            )
        })?;
    let every = args.every;
    let frames = (b - a) / every + 1;
    if frames > MAX_CLIP_FRAMES {
        bail!(
            "turns {a} to {b} every {every} are {frames} frames; a clip has at most \
             {MAX_CLIP_FRAMES} (MAX_CLIP_FRAMES): pass a larger --every or fewer turns"
        );
    }
    // Each frame is shown as long as its turns took in the match, in hundredths of a second
    // (at least 2: viewers show shorter delays slower).
    let delay =
        u16::try_from((every.saturating_mul(config.turn_ms()) / 10).max(2)).unwrap_or(u16::MAX);
    let quiet = args.quiet || args.json;
    let bar = progress(quiet, b + 1);
    let mut world = config.world(rules).context("the match cannot be set up")?;
    let mut clip: Option<Clip> = None;
    for (i, record) in records[..=last].iter().enumerate() {
        let turn = i as u64;
        if record.bundle.turn != turn {
            bail!(
                "record {i} is for turn {}; records must be turns 0, 1, 2… in order",
                record.bundle.turn
            );
        }
        run_bundle(&mut world, &record.bundle, config.turn_ticks);
        bar.set_position(turn + 1);
        if world.hash() != record.hash {
            bail!(
                "turn {turn} does not re-simulate to the recorded hash (recorded {}, \
                 re-simulated {}): the states from there on would not be the match's",
                record.hash,
                world.hash()
            );
        }
        if turn < a || !(turn - a).is_multiple_of(every) {
            continue;
        }
        let scene = Scene::of(&world, &[], MAX_CLIP_SIDE);
        let c = match &mut clip {
            Some(c) => c,
            None => clip.insert(Clip::create(out, scene.width, scene.height)?),
        };
        c.frame(&scene, delay)?;
    }
    bar.finish_and_clear();
    let clip = clip.context("no frame was drawn")?;
    let (w, h) = clip.size();
    clip.finish()?;
    if args.json {
        let v = serde_json::json!({
            "verdict": "drawn",
            "out": out.display().to_string(),
            "width": w,
            "height": h,
            "frames": frames,
            "first_turn": a,
            "last_turn": b,
            "every": every,
            "delay_cs": delay,
        });
        println!("{v}");
    } else {
        println!(
            "drew {}: {frames} frames, the state after turns {a} to {b}{} ({w}x{h} px, {} ms \
             a frame)",
            out.display(),
            if every > 1 {
                format!(" every {every}")
            } else {
                String::new()
            },
            u64::from(delay) * 10
        );
    }
    Ok(ExitCode::SUCCESS)
}
