//! A scene written out: as SVG text, or drawn into pixels (tiny-skia) and encoded as PNG.

use super::{Colour, Format, Scene, Shape};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

impl Scene {
    /// Writes the picture to `path` in `format`.
    pub fn write(&self, format: Format, path: &Path) -> Result<()> {
        let bytes = match format {
            Format::Png => self.png()?,
            Format::Svg => self.svg().into_bytes(),
        };
        std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
    }

    pub(super) fn svg(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
            w = self.width,
            h = self.height
        );
        let stroke_attr = |stroke: &Option<(Colour, f32)>| match stroke {
            Some((c, w)) => format!(r#" stroke="{}" stroke-width="{w:.2}""#, c.svg()),
            None => String::new(),
        };
        for shape in &self.shapes {
            let _ = match shape {
                Shape::Rect {
                    x,
                    y,
                    w,
                    h,
                    fill,
                    stroke,
                } => writeln!(
                    s,
                    r#"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" fill="{}" fill-opacity="{:.3}"{}/>"#,
                    fill.svg(),
                    fill.opacity(),
                    stroke_attr(stroke)
                ),
                Shape::Circle {
                    x,
                    y,
                    r,
                    fill,
                    stroke,
                } => writeln!(
                    s,
                    r#"<circle cx="{x:.2}" cy="{y:.2}" r="{r:.2}" fill="{}" fill-opacity="{:.3}"{}/>"#,
                    fill.svg(),
                    fill.opacity(),
                    stroke_attr(stroke)
                ),
                Shape::Line {
                    points,
                    colour,
                    width,
                    dashed,
                } => {
                    let pts: Vec<String> = points
                        .iter()
                        .map(|(x, y)| format!("{x:.2},{y:.2}"))
                        .collect();
                    let dash = if *dashed {
                        format!(
                            r#" stroke-dasharray="{:.1} {:.1}""#,
                            width * 4.0,
                            width * 3.0
                        )
                    } else {
                        String::new()
                    };
                    writeln!(
                        s,
                        r#"<polyline points="{}" fill="none" stroke="{}" stroke-opacity="{:.3}" stroke-width="{width:.2}" stroke-linejoin="round"{dash}/>"#,
                        pts.join(" "),
                        colour.svg(),
                        colour.opacity()
                    )
                }
            };
        }
        s.push_str("</svg>\n");
        s
    }

    fn png(&self) -> Result<Vec<u8>> {
        self.pixmap()?.encode_png().context("cannot encode the PNG")
    }

    /// The picture drawn into pixels.
    pub fn pixmap(&self) -> Result<tiny_skia::Pixmap> {
        use tiny_skia::{
            FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform,
        };
        let mut pixmap =
            Pixmap::new(self.width, self.height).context("the picture is too large to draw")?;
        let paint = |c: Colour| {
            let (r, g, b) = c.rgb8();
            let mut p = Paint::default();
            p.set_color_rgba8(r, g, b, c.alpha);
            p.anti_alias = true;
            p
        };
        let id = Transform::identity();
        for shape in &self.shapes {
            match shape {
                Shape::Rect {
                    x,
                    y,
                    w,
                    h,
                    fill,
                    stroke,
                } => {
                    let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) else {
                        continue;
                    };
                    let mut p = paint(*fill);
                    p.anti_alias = false;
                    pixmap.fill_rect(rect, &p, id, None);
                    if let Some((c, width)) = stroke {
                        let path = PathBuilder::from_rect(rect);
                        let s = Stroke {
                            width: *width,
                            ..Stroke::default()
                        };
                        pixmap.stroke_path(&path, &paint(*c), &s, id, None);
                    }
                }
                Shape::Circle {
                    x,
                    y,
                    r,
                    fill,
                    stroke,
                } => {
                    let Some(path) = PathBuilder::from_circle(*x, *y, *r) else {
                        continue;
                    };
                    pixmap.fill_path(&path, &paint(*fill), FillRule::Winding, id, None);
                    if let Some((c, width)) = stroke {
                        let s = Stroke {
                            width: *width,
                            ..Stroke::default()
                        };
                        pixmap.stroke_path(&path, &paint(*c), &s, id, None);
                    }
                }
                Shape::Line {
                    points,
                    colour,
                    width,
                    dashed,
                } => {
                    let mut pb = PathBuilder::new();
                    let Some(&(x0, y0)) = points.first() else {
                        continue;
                    };
                    pb.move_to(x0, y0);
                    for &(x, y) in &points[1..] {
                        pb.line_to(x, y);
                    }
                    let Some(path) = pb.finish() else { continue };
                    let mut s = Stroke {
                        width: *width,
                        ..Stroke::default()
                    };
                    s.line_join = tiny_skia::LineJoin::Round;
                    if *dashed {
                        s.dash = StrokeDash::new(vec![width * 4.0, width * 3.0], 0.0);
                    }
                    pixmap.stroke_path(&path, &paint(*colour), &s, id, None);
                }
            }
        }
        Ok(pixmap)
    }
}
