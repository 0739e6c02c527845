//! Regression (`spec/security.md` §10, finding 1): with a huge tile size, the orientation test of
//! rules T12 (convex counter-clockwise polygons) and T17 (detail triangles, coverage) can
//! overflow to `inf − inf = NaN`, and every comparison with NaN is false, so `orient <= 0.0` let
//! clockwise (or degenerate) polygons through. Such a tile must be rejected: a polygon is accepted
//! only when each orientation is provably positive.

use onav::params::RawGrid;
use onav::{
    AgentSizes, DetailMesh, Edge, FormatError, FormatReason, Polygon, RawTile, SettingsDigest,
    TilePos,
};

/// A one-triangle tile in a cell of size 1.7e308 whose vertices are listed clockwise and whose
/// orientation products overflow.
fn clockwise_overflowing_triangle() -> RawTile {
    let (a, b, c) = (
        [0.0, 0.0, 0.0],
        [1.7e308, 0.0, 1.7e308],
        [1.6e308, 0.0, 1.65e308],
    );
    RawTile {
        grid: RawGrid {
            origin: [0.0; 3],
            tile_size: 1.7e308,
        },
        digest: SettingsDigest([7; 32]),
        pos: TilePos {
            column: 0,
            row: 0,
            layer: 0,
        },
        agent: AgentSizes {
            height: 2.0,
            radius: 0.5,
            climb: 0.9,
        },
        // Clockwise: a, c, b (a, b, c is counter-clockwise).
        vertices: vec![a, c, b],
        polys: vec![Polygon {
            vertex_count: 3,
            vertices: [0, 1, 2, 0, 0, 0],
            edges: [Edge::Wall; 6],
        }],
        links: Vec::new(),
        detail_meshes: vec![DetailMesh {
            vertex_base: 0,
            vertex_count: 0,
            triangle_base: 0,
            triangle_count: 1,
        }],
        detail_vertices: Vec::new(),
        detail_tris: vec![[0, 1, 2]],
        areas: vec![0],
        flags: vec![1],
    }
}

/// Writes the regression input replayed by `fuzz_replay` (run with `ONAV_WRITE_SEEDS=1`), and
/// checks the committed file matches and is rejected where the rule says: the orientation at
/// vertex 0, `(c − a) × (b − a)` of the listed a, c, b, is `inf − inf`, so T12 fails there and
/// names vertex 1, at 132 (header) + 3 · 24 (vertices) + 4 (vertex count, reserved) + 4. (The
/// rule itself, NaN orientations included, is tested in the tile reader's unit tests.)
#[test]
#[cfg_attr(miri, ignore)]
fn regression_file_matches() {
    let bytes = clockwise_overflowing_triangle().to_bytes();
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions/tile_parse/nan-orientation-clockwise.ontl");
    if std::env::var_os("ONAV_WRITE_SEEDS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(
        onav::NavTile::from_bytes(&bytes).unwrap_err(),
        FormatError::new(212, "polygon[0].vertex[1]", FormatReason::NotConvex)
    );
    onav_testkit::fuzz_tile_parse(&bytes);
}
