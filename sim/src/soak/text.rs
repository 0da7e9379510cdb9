//! Writing a scene's scenario file: the tables of docs/SCENARIOS.md as text, integers and
//! decimal strings only (the sim reads them as fixed point like any scenario file).

use super::Layout;
use crate::id::EntityId;
use std::fmt::Write;

/// A block of units (`[[units]]`) of `kind`, laid out as `layout` says.
pub(super) struct Block<'a> {
    pub kind: &'a str,
    pub owner: i64,
    pub layout: Layout,
    pub name: &'a str,
}

/// What a command names besides its units.
pub(super) enum Extra<'a> {
    None,
    /// `to = [x, y]`: a point (the middle of that tile).
    To((i64, i64)),
    /// `target = "name"`.
    Named(&'a str),
    /// `target = ID`.
    Id(EntityId),
    /// `target = [x, y]`: what stands on that tile.
    Tile((i64, i64)),
    /// `formation = "…"`.
    Formation(&'a str),
    /// `kind = "…"`, `at = [x, y]`: a building to lay.
    Lay(&'a str, (i64, i64)),
}

/// One `[[commands]]` entry: at `tick`, `player` tells `units` (a TOML array's items, names
/// quoted or ids) to `action`.
pub(super) struct Order<'a> {
    pub tick: i64,
    pub player: i64,
    pub action: &'a str,
    pub units: String,
    pub extra: Extra<'a>,
}

/// Whom an order is for: at `tick`, from `player`, to `units`.
pub(super) struct Who {
    pub tick: i64,
    pub player: i64,
    pub units: String,
}

impl Who {
    /// The order to `action`, naming `extra` besides the units.
    pub fn order<'a>(&self, action: &'a str, extra: Extra<'a>) -> Order<'a> {
        Order {
            tick: self.tick,
            player: self.player,
            action,
            units: self.units.clone(),
            extra,
        }
    }
}

/// The scenario's first lines: a comment naming the seed, `name`, `ticks`.
pub(super) fn header(out: &mut String, seed: u64, kind: &str, ticks: i64) {
    let _ = writeln!(
        out,
        "# crowd soak seed {seed} ({kind}): `cohort soak --first {seed} --seeds 1`"
    );
    let _ = writeln!(out, "name = \"soak_{seed}\"\nticks = {ticks}\n");
}

/// `[[units]]`.
pub(super) fn block(out: &mut String, b: &Block) {
    let _ = writeln!(
        out,
        "[[units]]\nkind = \"{}\"\nowner = {}\nat = [{}, {}]\ncount = {}\ncolumns = {}\nspacing = \"{}.{}\"\nname = \"{}\"\n",
        b.kind,
        b.owner,
        b.layout.at.0,
        b.layout.at.1,
        b.layout.count,
        b.layout.columns,
        b.layout.spacing_tenths / 10,
        b.layout.spacing_tenths % 10,
        b.name
    );
}

/// `[[commands]]`.
pub(super) fn order(out: &mut String, o: &Order) {
    let _ = writeln!(
        out,
        "[[commands]]\ntick = {}\nplayer = {}\ndo = \"{}\"\nunits = [{}]",
        o.tick, o.player, o.action, o.units
    );
    let _ = match o.extra {
        Extra::None => Ok(()),
        Extra::To((x, y)) => writeln!(out, "to = [{x}, {y}]"),
        Extra::Named(n) => writeln!(out, "target = \"{n}\""),
        Extra::Id(id) => writeln!(out, "target = {}", id.0),
        Extra::Tile((x, y)) => writeln!(out, "target = [{x}, {y}]"),
        Extra::Formation(f) => writeln!(out, "formation = \"{f}\""),
        Extra::Lay(kind, (x, y)) => writeln!(out, "kind = \"{kind}\"\nat = [{x}, {y}]"),
    };
    out.push('\n');
}

/// A TOML array's items naming one block: `"name"`.
pub(super) fn named(name: &str) -> String {
    format!("\"{name}\"")
}

/// A TOML array's items naming units by id: `7, 8, 9`.
pub(super) fn ids(units: &[EntityId]) -> String {
    let ids: Vec<String> = units.iter().map(|u| u.0.to_string()).collect();
    ids.join(", ")
}
