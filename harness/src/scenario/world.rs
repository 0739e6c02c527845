//! Worlds of the deterministic generator (`spec/navmesh-format.md` §7) as scenarios state them,
//! range-checked (`spec/conformance.md` §1.12) before the generator sees them. This is the one
//! module of the harness that talks to `onav::generator`: worlds, their generated tiles, their
//! digests and parameter blocks.

use onav::generator::WorldSpec;
use onav::{AgentSizes, TilePos};

use super::model::{Located, TileStep, WorldStep};
use crate::limits::{
    MAX_GENERATOR_WORK, MAX_TILE_COORDINATE, MAX_TILE_LAYER, MAX_WORLD_LAYERS,
    MAX_WORLD_LINKS_PER_TILE, MAX_WORLD_QUADS, MAX_WORLD_TILES,
};

/// A number of a scenario outside the range the harness accepts (`spec/conformance.md` §1.12).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{path} is {value}, outside {min} ..= {max} ({rule})", at(*line, *column))]
pub struct RangeError {
    /// The YAML field path, `steps[i].world.quads`.
    pub path: String,
    /// The value (for a derived quantity, the value it comes to).
    pub value: i128,
    /// The smallest value accepted.
    pub min: i128,
    /// The largest value accepted.
    pub max: i128,
    /// The rule, and why.
    pub rule: &'static str,
    /// Line of the field, from 1 (0: unknown).
    pub line: u64,
    /// Column of the field, from 1 (0: unknown).
    pub column: u64,
}

fn at(line: u64, column: u64) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line} column {column}: ")
    }
}

/// W1: the tiles of a world fit one mesh.
const W1: &str = "conformance.md §1.12 W1: columns × rows × layers ≤ MAX_SLOTS";
/// W2: layers within rule T4.
const W2: &str = "conformance.md §1.12 W2: a layer is 0 ..= 255";
/// W3: quads within rule T6.
const W3: &str = "conformance.md §1.12 W3: a generated tile stays within the T6 counts";
/// W4: links within rule T6.
const W4: &str = "conformance.md §1.12 W4: polygons plus links stay within T6";
/// W5: generator work per tile.
const W5: &str =
    "conformance.md §1.12 W5: (1 + links_per_tile) × (2 × max(quads, 1) + 1)² ≤ 2^26 per tile";
/// W6: tile positions the generator can look around.
const W6: &str = "conformance.md §1.12 W6: a generated tile keeps one cell from the ends of i32";

fn range<T: Copy + Into<i128>>(
    path: String,
    v: Located<T>,
    min: i128,
    max: i128,
    rule: &'static str,
) -> Result<(), RangeError> {
    let value = v.value.into();
    if (min..=max).contains(&value) {
        return Ok(());
    }
    Err(RangeError {
        path,
        value,
        min,
        max,
        rule,
        line: v.line,
        column: v.column,
    })
}

/// The tiles of a world: columns × rows × layers (0 for a world of no columns or rows).
pub fn tile_count(w: &WorldSpec) -> u64 {
    let side = |n: i32| u64::try_from(n).unwrap_or(0);
    side(w.columns)
        .saturating_mul(side(w.rows))
        .saturating_mul(u64::from(w.layers))
}

/// The generator's work for one tile of `w` (W5).
fn work(w: &WorldSpec) -> u64 {
    let q = 2 * u64::from(w.quads.max(1)) + 1;
    (1 + u64::from(w.links_per_tile)).saturating_mul(q * q)
}

/// A `world` step as a world: its fields over those of `like` (else the defaults), every
/// integer range-checked (W1–W5) before anything is generated. `index` is the step's index, for
/// the field paths of errors.
pub fn world(
    index: usize,
    w: &WorldStep,
    like: Option<&WorldSpec>,
) -> Result<WorldSpec, RangeError> {
    let path = |f: &str| format!("steps[{index}].world.{f}");
    let max_side = i128::from(MAX_WORLD_TILES);
    if let Some(v) = w.columns {
        range(path("columns"), v, 0, max_side, W1)?;
    }
    if let Some(v) = w.rows {
        range(path("rows"), v, 0, max_side, W1)?;
    }
    if let Some(v) = w.layers {
        range(path("layers"), v, 0, MAX_WORLD_LAYERS.into(), W2)?;
    }
    if let Some(v) = w.quads {
        range(path("quads"), v, 0, MAX_WORLD_QUADS.into(), W3)?;
    }
    if let Some(v) = w.links_per_tile {
        range(
            path("links_per_tile"),
            v,
            0,
            MAX_WORLD_LINKS_PER_TILE.into(),
            W4,
        )?;
    }
    let s = spec(w, like);
    // Derived caps are reported at the first field of this step that feeds them (a world that
    // sets none of them has the values of `like`, which passed, or the defaults).
    let derived = |fields: &[(&str, Option<(u64, u64)>)], value: u64, max: u64, what, rule| {
        let (field, (line, column)) = fields
            .iter()
            .find_map(|&(f, p)| p.map(|p| (f, p)))
            .unwrap_or(("", (0, 0)));
        RangeError {
            path: format!("steps[{index}].world.{field} ({what})"),
            value: value.into(),
            min: 0,
            max: max.into(),
            rule,
            line,
            column,
        }
    };
    let tiles = tile_count(&s);
    if tiles > u64::from(MAX_WORLD_TILES) {
        return Err(derived(
            &[
                ("columns", place(w.columns)),
                ("rows", place(w.rows)),
                ("layers", place(w.layers)),
            ],
            tiles,
            MAX_WORLD_TILES.into(),
            "columns × rows × layers",
            W1,
        ));
    }
    let work = work(&s);
    if work > MAX_GENERATOR_WORK {
        return Err(derived(
            &[
                ("links_per_tile", place(w.links_per_tile)),
                ("quads", place(w.quads)),
            ],
            work,
            MAX_GENERATOR_WORK,
            "generator work per tile",
            W5,
        ));
    }
    Ok(s)
}

/// Where a field was written, if this step wrote it.
fn place<T>(v: Option<Located<T>>) -> Option<(u64, u64)> {
    v.map(|v| (v.line, v.column))
}

/// A `tile` step's position, range-checked (W6). `index` is the step's index.
pub fn position(index: usize, t: &TileStep) -> Result<TilePos, RangeError> {
    let (column, row, layer) = t.at.value;
    let path = format!("steps[{index}].tile.at");
    let coordinate = |v: i32, rule| {
        range(
            path.clone(),
            Located {
                value: v,
                line: t.at.line,
                column: t.at.column,
            },
            -i128::from(MAX_TILE_COORDINATE),
            MAX_TILE_COORDINATE.into(),
            rule,
        )
    };
    coordinate(column, W6)?;
    coordinate(row, W6)?;
    range(
        path.clone(),
        Located {
            value: layer,
            line: t.at.line,
            column: t.at.column,
        },
        0,
        MAX_TILE_LAYER.into(),
        W2,
    )?;
    Ok(TilePos { column, row, layer })
}

/// The world of a `world` step, without range checks (they are [`world`]'s).
fn spec(w: &WorldStep, like: Option<&WorldSpec>) -> WorldSpec {
    let mut s = like.cloned().unwrap_or_default();
    macro_rules! take {
        ($($f:ident),*) => { $( if let Some(v) = w.$f { s.$f = v; } )* };
    }
    macro_rules! take_located {
        ($($f:ident),*) => { $( if let Some(v) = w.$f { s.$f = v.value; } )* };
    }
    take!(seed, vary_density, hole_chance, area_kinds);
    take_located!(columns, rows, layers, quads, links_per_tile);
    if let Some(o) = w.origin {
        s.origin = o.map(|x| x.0);
    }
    if let Some(v) = w.tile_size {
        s.tile_size = v.0;
    }
    if let Some(v) = w.slope {
        s.slope = v.map(|x| x.0);
    }
    if let Some(v) = w.bump {
        s.bump = v.0;
    }
    if let Some(v) = w.layer_gap {
        s.layer_gap = v.0;
    }
    if let Some(a) = w.agent {
        s.agent = AgentSizes {
            height: a.height.0,
            radius: a.radius.0,
            climb: a.climb.0,
        };
    }
    s
}

/// The bytes of the generated tile at `pos`, written without any check (a world whose settings
/// make an invalid tile, such as a tile size of 0, gives an invalid tile).
pub fn tile_bytes(w: &WorldSpec, pos: TilePos) -> Vec<u8> {
    w.raw_tile(pos).to_bytes()
}

/// The bytes of every tile of the world, in (layer, row, column) order.
pub fn tiles_bytes(w: &WorldSpec) -> Vec<Vec<u8>> {
    w.positions()
        .into_iter()
        .map(|p| tile_bytes(w, p))
        .collect()
}

/// The world's settings digest (`spec/navmesh-format.md` §7.3).
pub fn digest(w: &WorldSpec) -> [u8; 32] {
    w.digest().0
}

#[cfg(test)]
#[path = "world_tests.rs"]
mod tests;
