//! The limits of `spec/build3d.md` §16 that need large inputs, reached with lowered caps on the
//! real code paths (the integration tests reach the others with real inputs).

use crate::build::build_plan;
use crate::error::{BuildError, GeometryError, LimitKind, ObjReason};
use crate::geometry::Geometry;
use crate::limits::Caps;
use crate::plan::Plan;
use crate::settings::{Settings, SettingsSpec};
use crate::test_kit::floor_arrays;

fn settings() -> Settings {
    Settings::new(SettingsSpec {
        cell_size: 0.5,
        agent_radius: 0.5,
        tile_size: 8,
        region_min_area: 0,
        ..SettingsSpec::default()
    })
    .unwrap()
}

fn world() -> Geometry {
    floor_arrays(&[[0.0, 0.0, 10.0, 10.0, 0.0], [2.0, 2.0, 4.0, 4.0, 3.0]])
}

fn limit_with(caps: Caps) -> (LimitKind, u64) {
    let plan = Plan::with_caps(&world(), &settings(), caps);
    let e = match plan.and_then(|p| build_plan(&p)) {
        Err(e) => e,
        Ok(b) => panic!("built {} tiles", b.tiles.len()),
    };
    match e {
        BuildError::Limit { limit, max, .. } => (limit, max),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_world_builds_with_the_default_caps() {
    let plan = Plan::with_caps(&world(), &settings(), Caps::DEFAULT).unwrap();
    assert!(build_plan(&plan).unwrap().tiles.len() > 3);
}

#[test]
fn l7_tile_cells_and_tiles() {
    let caps = Caps {
        tiles: 3,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::Tiles, 3));
}

#[test]
fn l20_window_cells() {
    // Tile cells of (8 + 2·4)² = 256 window cells each.
    let cells = Plan::new(&world(), &settings()).unwrap().tile_cells().len() as u64;
    let caps = Caps {
        window_cells: cells * 256 - 1,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::WindowCells, cells * 256 - 1));
    let caps = Caps {
        window_cells: cells * 256,
        ..Caps::DEFAULT
    };
    let plan = Plan::with_caps(&world(), &settings(), caps).unwrap();
    assert!(build_plan(&plan).is_ok());
}

#[test]
fn l9_spans_per_tile() {
    let caps = Caps {
        spans_per_tile: 10,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::SpansPerTile, 10));
}

#[test]
fn l10_spans_per_column() {
    let caps = Caps {
        spans_per_column: 1,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::SpansPerColumn, 1));
}

#[test]
fn l11_regions() {
    let caps = Caps {
        regions: 0,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::Regions, 0));
}

#[test]
fn l13_vertices_and_l14_polygons() {
    let caps = Caps {
        tile_vertices: 3,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::Vertices, 3));
    let caps = Caps {
        tile_polygons: 0,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::Polygons, 0));
}

#[test]
fn l16_detail_vertices_and_l17_detail_triangles() {
    let caps = Caps {
        tile_detail_triangles: 1,
        ..Caps::DEFAULT
    };
    assert_eq!(limit_with(caps), (LimitKind::DetailTriangles, 1));
    let bumpy = floor_arrays(&[
        [0.0, 0.0, 4.75, 10.0, 0.0],
        [4.75, 0.0, 5.25, 10.0, 0.3],
        [5.25, 0.0, 10.0, 10.0, 0.0],
    ]);
    let s = Settings::new(SettingsSpec {
        cell_size: 0.25,
        cell_height: 0.05,
        agent_radius: 0.0,
        tile_size: 40,
        detail_sample_dist: 0.25,
        detail_sample_max_error: 0.1,
        ..SettingsSpec::default()
    })
    .unwrap();
    let caps = Caps {
        tile_detail_vertices: 2,
        ..Caps::DEFAULT
    };
    let plan = Plan::with_caps(&bumpy, &s, caps).unwrap();
    match build_plan(&plan).map(|b| b.stats) {
        Err(BuildError::Limit { limit, max, .. }) => {
            assert_eq!((limit, max), (LimitKind::DetailVertices, 2))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn l1_triangles_and_l2_obj_vertices() {
    let v = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    assert_eq!(
        Geometry::from_arrays_capped(&v, &[0, 1, 2, 0, 1, 2], &[1, 1], 1),
        Err(GeometryError::TooManyTriangles { count: 2, max: 1 })
    );
    let text = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nf 1 2 3\n";
    let e = crate::obj::parse(text, 3, 1).unwrap_err();
    assert_eq!((e.line, e.reason), (5, ObjReason::TooManyTriangles));
    let e = crate::obj::parse(text, 2, 10).unwrap_err();
    assert_eq!((e.line, e.reason), (3, ObjReason::TooManyVertices));
    assert!(crate::obj::parse(text, 3, 2).is_ok());
}

#[test]
fn the_format_caps_are_the_values_of_the_limits_table() {
    // L7 and L13–L17 come from onav's `limits` (one home); spec/build3d.md §16 states their
    // values, so a change there must show up here.
    use crate::limits::*;
    assert_eq!(MAX_TILES, 1_048_575);
    assert_eq!(MAX_TILE_VERTICES, 1_048_575);
    assert_eq!(MAX_TILE_POLYGONS, 1_048_575);
    assert_eq!(MAX_DETAIL_VERTICES_PER_POLYGON, 249);
    assert_eq!(MAX_TILE_DETAIL_VERTICES, 1_048_575);
    assert_eq!(MAX_TILE_DETAIL_TRIANGLES, 1_048_575);
    // B47: the reader's T17 tolerance, 1e-9 (the binary64 nearest to it).
    assert_eq!(
        crate::output::DETAIL_AREA_TOLERANCE.to_bits(),
        1e-9f64.to_bits()
    );
}

#[test]
fn l21_window_cells_per_triangle() {
    // Tile cells of (8 + 2·4)² = 256 window cells each; the measure is pairs × 256 against
    // the cap times the number of triangles.
    let plan = Plan::new(&world(), &settings()).unwrap();
    let need = plan.bins.pairs() as u64 * 256;
    let n = world().triangle_count() as u64;
    let below = (need - 1) / n;
    let caps = Caps {
        window_cells_per_triangle: below,
        ..Caps::DEFAULT
    };
    assert_eq!(
        limit_with(caps),
        (LimitKind::WindowCellsPerTriangle, below * n)
    );
    let caps = Caps {
        window_cells_per_triangle: need.div_ceil(n),
        ..Caps::DEFAULT
    };
    let plan = Plan::with_caps(&world(), &settings(), caps).unwrap();
    assert!(build_plan(&plan).is_ok());
}
