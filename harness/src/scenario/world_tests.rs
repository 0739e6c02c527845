//! The world caps (`spec/conformance.md` §1.12): each bound accepted, one beyond it refused with
//! the field's path and line, and the generator run at the bounds in a build with overflow
//! checks (the test profile has them).

use super::*;
use crate::scenario::check::CheckError;
use crate::scenario::{load_str, LoadReason};

/// A scenario whose first step is `world` with these settings (line 8), then `tile` (line 9).
fn scenario(world: &str, at: &str) -> String {
    crate::scenario::test_text(
        "tile/y_w",
        "tile, layers, off-mesh-links",
        &format!(
            "  - world: {{name: w, {world}}}
  - tile: {{name: t, world: w, at: {at}}}
  - parse_tile: {{tile: t}}
"
        ),
    )
}

fn range_error(world: &str, at: &str) -> RangeError {
    match load_str("tile/y_w", &scenario(world, at)) {
        Err(LoadReason::Check(CheckError::Range(e))) => *e,
        other => panic!("{world} {at}: expected a range error, got {other:?}"),
    }
}

fn loads(world: &str, at: &str) {
    if let Err(e) = load_str("tile/y_w", &scenario(world, at)) {
        panic!("{world} {at}: {e}");
    }
}

#[test]
fn each_world_setting_is_accepted_up_to_its_cap_and_refused_beyond() {
    let at = "[0, 0, 0]";
    for (field, max, rule) in [
        ("columns", i128::from(MAX_WORLD_TILES), W1),
        ("rows", i128::from(MAX_WORLD_TILES), W1),
        ("layers", 256, W2),
        ("quads", 255, W3),
        ("links_per_tile", 788_475, W4),
    ] {
        let others = if field == "links_per_tile" {
            "quads: 0, "
        } else if field == "columns" || field == "rows" {
            "layers: 1, columns: 1, rows: 1, "
        } else {
            ""
        };
        let others = others.replace(&format!("{field}: 1, "), "");
        loads(&format!("{others}{field}: {max}"), at);
        let text = format!("{others}{field}: {}", max + 1);
        let e = range_error(&text, at);
        // Line 8 is `  - world: {name: w, ` (21 characters), then the settings.
        let column = (21 + text.find(field).unwrap() + field.len() + 3) as u64;
        assert_eq!(
            e,
            RangeError {
                path: format!("steps[0].world.{field}"),
                value: max + 1,
                min: 0,
                max,
                rule,
                line: 8,
                column,
            }
        );
        if field != "layers" && field != "quads" && field != "links_per_tile" {
            let e = range_error(&format!("{others}{field}: -1"), at);
            assert_eq!((e.value, e.min), (-1, 0), "{field}");
        }
    }
    assert_eq!(
        range_error("quads: 256", at).to_string(),
        "line 8 column 29: steps[0].world.quads is 256, outside 0 ..= 255 (conformance.md §1.12 \
         W3: a generated tile stays within the T6 counts)"
    );
}

#[test]
fn derived_caps_name_the_field_that_feeds_them() {
    let at = "[0, 0, 0]";
    // W1: 1024 × 1024 × 1 is above 1 048 575; reported at the columns.
    loads("columns: 1023, rows: 1025", at);
    let e = range_error("columns: 1024, rows: 1025", at);
    assert_eq!(e.path, "steps[0].world.columns (columns × rows × layers)");
    assert_eq!((e.value, e.max, e.line), (1_049_600, 1_048_575, 8));
    // A world like another takes its values: the product of both is checked.
    let text = scenario("columns: 512, rows: 1024", at).replace(
        "  - tile:",
        "  - world: {name: v, like: w, layers: 2}\n  - tile:",
    );
    match load_str("tile/y_w", &text) {
        Err(LoadReason::Check(CheckError::Range(e))) => {
            assert_eq!(e.path, "steps[1].world.layers (columns × rows × layers)");
            assert_eq!((e.value, e.line), (2 * 512 * 1024, 9));
        }
        other => panic!("{other:?}"),
    }
    // W5: (1 + 256) · 511² is within 2^26, (1 + 257) · 511² is not.
    loads("quads: 255, links_per_tile: 256", at);
    let e = range_error("quads: 255, links_per_tile: 257", at);
    assert_eq!(
        e.path,
        "steps[0].world.links_per_tile (generator work per tile)"
    );
    assert_eq!((e.value, e.max), (258 * 511 * 511, 1 << 26));
}

#[test]
fn tile_positions_keep_one_cell_from_the_ends_of_i32() {
    let edge = MAX_TILE_COORDINATE;
    loads("quads: 1", &format!("[{edge}, -{edge}, 255]"));
    for at in [
        format!("[{}, 0, 0]", i32::MAX),
        format!("[0, {}, 0]", i32::MIN),
        "[0, 0, 256]".to_owned(),
    ] {
        let e = range_error("quads: 1", &at);
        assert_eq!((e.path.as_str(), e.line), ("steps[1].tile.at", 9), "{at}");
    }
}

/// The generator at the bounds, with overflow checks on: no panic, and the counts within T6.
#[test]
fn the_generator_runs_at_the_bounds() {
    let tile = |w: &WorldSpec, pos| onav::NavTile::from_bytes(&tile_bytes(w, pos));
    // Densest cells (quads at the cap, doubled where the density hash says so), with the most
    // links the work cap allows, on the last layer.
    let dense = WorldSpec {
        columns: 2,
        rows: 2,
        layers: MAX_WORLD_LAYERS,
        quads: MAX_WORLD_QUADS,
        vary_density: true,
        links_per_tile: 256,
        ..WorldSpec::default()
    };
    let mut doubled = false;
    for (c, r) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let pos = TilePos {
            column: c,
            row: r,
            layer: MAX_TILE_LAYER,
        };
        let raw = dense.raw_tile(pos);
        assert!(work(&dense) <= MAX_GENERATOR_WORK);
        doubled |= raw.polys.len() == (2 * MAX_WORLD_QUADS as usize).pow(2);
        assert!(raw.vertices.len() <= onav::limits::MAX_VERTS as usize);
        assert!(raw.polys.len() + raw.links.len() <= onav::limits::MAX_POLYS as usize);
        assert!(raw.detail_tris.len() <= onav::limits::MAX_DETAIL_TRIS as usize);
        let _ = raw.to_bytes();
    }
    assert!(doubled, "one of the four cells has doubled density");
    // The most links per tile, on the sparsest cells.
    let linked = WorldSpec {
        columns: 3,
        rows: 3,
        quads: 0,
        links_per_tile: MAX_WORLD_LINKS_PER_TILE,
        ..WorldSpec::default()
    };
    assert!(work(&linked) <= MAX_GENERATOR_WORK);
    let raw = linked.raw_tile(TilePos {
        column: 1,
        row: 1,
        layer: 0,
    });
    // One quad; a link whose end would be its start (landing in its own cell) is skipped.
    assert_eq!(raw.polys.len(), 1);
    assert!(raw.links.len() > MAX_WORLD_LINKS_PER_TILE as usize / 2);
    assert!(raw.polys.len() + raw.links.len() <= onav::limits::MAX_POLYS as usize);
    let _ = raw.to_bytes();
    // Tiles at the ends of the coordinate range, with links looking at their neighbours.
    let edge = WorldSpec {
        quads: 1,
        links_per_tile: 8,
        ..WorldSpec::default()
    };
    for (column, row) in [
        (MAX_TILE_COORDINATE, MAX_TILE_COORDINATE),
        (-MAX_TILE_COORDINATE, -MAX_TILE_COORDINATE),
    ] {
        let pos = TilePos {
            column,
            row,
            layer: 0,
        };
        let t = tile(&edge, pos).unwrap_or_else(|e| panic!("{pos:?}: {e}"));
        assert_eq!(t.pos(), pos);
    }
}

/// Just beyond W6 the generator overflows (with overflow checks it panics): the cap is needed.
/// Only where overflow is checked (`cargo test`; a release build wraps instead).
#[cfg(debug_assertions)]
#[test]
fn beyond_the_coordinate_cap_the_generator_overflows() {
    let w = WorldSpec {
        quads: 1,
        links_per_tile: 64,
        ..WorldSpec::default()
    };
    let r = std::panic::catch_unwind(|| {
        w.raw_tile(TilePos {
            column: i32::MAX,
            row: i32::MAX,
            layer: 0,
        })
    });
    assert!(r.is_err(), "pos.column + 1 overflows at i32::MAX");
}

#[test]
fn tiles_are_counted_without_overflow() {
    let w = WorldSpec {
        columns: i32::MAX,
        rows: i32::MAX,
        layers: u32::MAX,
        ..WorldSpec::default()
    };
    assert_eq!(tile_count(&w), u64::MAX);
    let w = WorldSpec {
        columns: -3,
        ..WorldSpec::default()
    };
    assert_eq!(tile_count(&w), 0);
    assert_eq!(tile_count(&WorldSpec::default()), 16);
}
