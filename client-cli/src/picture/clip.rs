//! Animated GIF clips of scenes, frame by frame (`cohort replay --animate`).

use super::Scene;
use anyhow::{bail, Context, Result};
use std::path::Path;

/// The most frames a clip holds (`cohort replay --animate`).
pub const MAX_CLIP_FRAMES: u64 = 5_000;

/// The largest side of a clip's frames, in pixels: smaller than a still picture's, so that
/// a long clip stays a file one can send.
pub const MAX_CLIP_SIDE: u32 = 720;

/// How hard the GIF encoder works to choose each frame's 256 colours: 1 (best) to 30
/// (fastest); 10 is NeuQuant's usual trade.
const CLIP_QUANTIZE_SPEED: i32 = 10;

/// An animated GIF being written, frame by frame, looping for ever.
pub struct Clip {
    encoder: gif::Encoder<std::io::BufWriter<std::fs::File>>,
    width: u16,
    height: u16,
    pub frames: u64,
}

impl Clip {
    /// A clip of frames `width` × `height` pixels, written to `path`.
    pub fn create(path: &Path, width: u32, height: u32) -> Result<Clip> {
        let side = |v: u32| u16::try_from(v).context("a clip's frames are at most 65,535 px");
        let (width, height) = (side(width)?, side(height)?);
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut encoder = gif::Encoder::new(std::io::BufWriter::new(file), width, height, &[])
            .context("cannot start the GIF")?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .context("cannot start the GIF")?;
        Ok(Clip {
            encoder,
            width,
            height,
            frames: 0,
        })
    }

    /// Appends `scene` (of the clip's size), shown for `delay_cs` hundredths of a second.
    pub fn frame(&mut self, scene: &Scene, delay_cs: u16) -> Result<()> {
        if (scene.width, scene.height) != (u32::from(self.width), u32::from(self.height)) {
            bail!(
                "a frame of {}x{} px in a clip of {}x{}",
                scene.width,
                scene.height,
                self.width,
                self.height
            );
        }
        // Every pixel is opaque (the terrain covers the picture), so the pixmap's premultiplied
        // colours are its colours.
        let mut rgba = scene.pixmap()?.take();
        let mut frame =
            gif::Frame::from_rgba_speed(self.width, self.height, &mut rgba, CLIP_QUANTIZE_SPEED);
        frame.delay = delay_cs;
        self.encoder
            .write_frame(&frame)
            .context("cannot write a GIF frame")?;
        self.frames += 1;
        Ok(())
    }

    /// The frames' width and height, in pixels.
    pub fn size(&self) -> (u16, u16) {
        (self.width, self.height)
    }

    /// Ends the GIF (its trailer) and writes what is left of it.
    pub fn finish(self) -> Result<()> {
        use std::io::Write;
        let mut file = self.encoder.into_inner().context("cannot end the GIF")?;
        file.flush().context("cannot write the GIF")
    }
}
