//! The seed corpus of the fuzz targets, built from real tiles, snapshots and mesh files.

use onav::{write_mesh, SnapshotMode, TilePos, TiledNavMesh, WorldSpec};

use crate::fixture::fixture;
use crate::model::{mesh_file, snapshot_mixed, SlotRecord, SnapModel};

/// Every named seed input that onav's integration test `fuzz_seeds` writes to
/// `fuzz/seeds/<target>/`: (target, file name, bytes).
pub fn seed_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let fx = fixture();
    let mut out = Vec::new();
    // Tiles: a few generated ones of different shapes, and a hand-made minimal one, for both
    // tile targets.
    let tiny = WorldSpec {
        columns: 1,
        rows: 1,
        quads: 1,
        ..WorldSpec::default()
    };
    for target in ["tile_parse", "tile_fast_vs_general"] {
        for (i, t) in fx.tiles.iter().enumerate().step_by(3) {
            out.push((
                target,
                format!("world_tile_{i}.ontl"),
                t.as_built_bytes().to_vec(),
            ));
        }
        out.push((
            target,
            "one_quad.ontl".into(),
            tiny.tiles()[0].as_built_bytes().to_vec(),
        ));
    }
    // Snapshots for both restore targets.
    let empty = TiledNavMesh::new(fx.world.params(16));
    let mixed_inline: Vec<bool> = (0..16).map(|i| i % 2 == 0).collect();
    let snaps: Vec<(&str, Vec<u8>)> = vec![
        ("busy_full.onps", fx.busy_full.clone()),
        ("busy_referenced.onps", fx.busy_referenced.clone()),
        ("busy_mixed.onps", snapshot_mixed(&fx.busy, &mixed_inline)),
        ("empty.onps", empty.snapshot(SnapshotMode::Full)),
        ("all_referenced.onps", fx.all_snapshots[1].clone()),
    ];
    for target in ["restore_new", "restore_in_place"] {
        for (name, b) in &snaps {
            out.push((target, (*name).to_string(), b.clone()));
        }
    }
    // Mesh files.
    out.push(("read_mesh", "busy.onms".into(), write_mesh(&fx.busy)));
    out.push(("read_mesh", "empty.onms".into(), write_mesh(&empty)));
    // A state over its landing budget (format K17), small: in one cell, a one-quad tile whose 8
    // links end in the cell, and on the layer above a tile of 18 × 18 quads (648 or more detail
    // triangles), so each link's end walks more than its budget share of 512. Valid in every
    // other respect: restores reach stage E (snapshot S30), mesh-file reads the final check (M13).
    // No mesh may hold this state, so its bytes are written from the model: slots 0 and 1 of 16.
    let cell = WorldSpec {
        columns: 1,
        rows: 1,
        layers: 2,
        vary_density: false,
        hole_chance: 0,
        ..fx.world.clone()
    };
    let at = |layer| TilePos {
        column: 0,
        row: 0,
        layer,
    };
    let dense = [
        WorldSpec {
            quads: 1,
            links_per_tile: 8,
            ..cell.clone()
        }
        .tile(at(0)),
        WorldSpec {
            quads: 18,
            links_per_tile: 0,
            ..cell
        }
        .tile(at(1)),
    ];
    let params = fx.world.params(16);
    let slots = (0..16)
        .map(|i| match dense.get(i) {
            Some(t) => SlotRecord::holding(1, t, SnapshotMode::Full),
            None => SlotRecord::free(1),
        })
        .collect();
    let over = SnapModel::new(&params, slots).encode();
    for target in ["restore_new", "restore_in_place"] {
        out.push((target, "over_landing_budget.onps".into(), over.clone()));
    }
    out.push((
        "read_mesh",
        "over_landing_budget.onms".into(),
        mesh_file(&params, &[&dense[0], &dense[1]]),
    ));
    // Decision streams for the structure-aware targets (any bytes are valid input).
    for (name, b) in [
        ("base_full", vec![0u8, 0]),
        ("base_referenced", vec![1, 0]),
        ("base_mixed", vec![2, 0xaa, 0x55, 0x0f, 0xf0, 0]),
        ("base_all", vec![3, 1, 0]),
        ("edit_and_kind", vec![0, 3, 2, 0, 3, 0, 1, 5, 7, 1, 0, 1, 2]),
        ("dup_position", vec![1, 2, 3, 0, 13, 5, 0, 1]),
    ] {
        out.push(("snapshot_structured", format!("{name}.bin"), b));
    }
    for (name, b) in [
        ("adds", vec![15u8, 0, 0, 0, 1, 1, 0, 0, 2, 0, 0, 0, 3, 0]),
        (
            "excursion",
            vec![8, 0, 1, 0, 0, 0, 1, 1, 0, 7, 0, 2, 0, 0, 2, 0, 0, 2, 0, 1],
        ),
        (
            "edits",
            vec![
                15, 0, 0, 0, 4, 0, 0, 0, 0, 1, 0, 5, 0, 0, 0, 0, 9, 8, 0, 9, 1, 3, 0,
            ],
        ),
        (
            "reseat",
            vec![3, 0, 0, 5, 1, 0, 7, 8, 1, 6, 0, 0, 1, 9, 0, 0],
        ),
    ] {
        out.push(("differential", format!("{name}.bin"), b));
    }
    out
}
