//! The limits of `spec/build3d.md` §16 that small real inputs reach. The others (L1, L2, L9–L11,
//! L13, L14, L16, L17) are reached with lowered caps by the crate's unit tests
//! (`src/limits_tests.rs`).

use onav_build3d::{
    build, limits, BuildError, Geometry, LimitKind, Settings, SettingsSpec, VolumeSpec,
};

use crate::kit::{small_settings, Soup};

fn limit_of(e: BuildError) -> (LimitKind, u64, u64) {
    match e {
        BuildError::Limit {
            limit, value, max, ..
        } => (limit, value, max),
        other => panic!("not a limit: {other:?}"),
    }
}

fn try_build(s: &Soup, spec: SettingsSpec) -> Result<onav_build3d::BuiltMesh, BuildError> {
    build(&s.geometry(), &Settings::new(spec).unwrap())
}

#[test]
fn l3_tile_size_and_l4_radius() {
    for (ts, ok) in [(3, false), (4, true), (1024, true), (1025, false)] {
        let spec = SettingsSpec {
            tile_size: ts,
            ..SettingsSpec::default()
        };
        assert_eq!(Settings::new(spec).is_ok(), ok, "tile size {ts}");
    }
    for (r, ok) in [(255.0, true), (255.5, false)] {
        let spec = SettingsSpec {
            cell_size: 1.0,
            agent_radius: r,
            ..SettingsSpec::default()
        };
        assert_eq!(Settings::new(spec).is_ok(), ok, "radius {r}");
    }
}

#[test]
fn l5_span_height() {
    let spec = small_settings();
    let top = f64::from(limits::MAX_SPAN_HEIGHT - 2) * spec.cell_height;
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 4.0, 4.0, 0.0);
    s.floor(0.0, 0.0, 1.0, 1.0, top);
    assert!(try_build(&s, spec.clone()).is_ok());
    s.floor(0.0, 0.0, 1.0, 1.0, top * 1.0001);
    let (k, value, max) = limit_of(try_build(&s, spec.clone()).unwrap_err());
    assert_eq!(
        (k, max),
        (
            LimitKind::SpanHeight,
            u64::from(limits::MAX_SPAN_HEIGHT - 2)
        )
    );
    assert!(value > max);
    // The derived agent cells share the cap (B10).
    let tall = SettingsSpec {
        agent_height: f64::from(limits::MAX_SPAN_HEIGHT) * 0.2 * 1.01,
        ..SettingsSpec::default()
    };
    assert_eq!(Settings::new(tall).unwrap_err().field, "agent_height");
}

#[test]
fn l6_grid_cells() {
    let spec = small_settings();
    let mut s = Soup::default();
    s.floor(0.0, 0.0, 1.0, 1.0, 0.0);
    s.floor(1e9, 0.0, 1e9 + 1.0, 1.0, 0.0);
    let (k, _, max) = limit_of(try_build(&s, spec).unwrap_err());
    assert_eq!((k, max), (LimitKind::GridCells, limits::MAX_GRID_CELLS));
}

#[test]
fn l7_tiles_of_one_triangle() {
    // One triangle over 4000 × 4000 tiles of 4 cells: refused before anything is allocated.
    let spec = SettingsSpec {
        cell_size: 1.0,
        tile_size: 4,
        agent_radius: 0.0,
        ..SettingsSpec::default()
    };
    let g = Geometry::from_arrays(
        &[0.0, 0.0, 0.0, 0.0, 0.0, 16000.0, 16000.0, 0.0, 0.0],
        &[0, 1, 2],
        &[63],
    )
    .unwrap();
    let e = build(&g, &Settings::new(spec).unwrap()).unwrap_err();
    let (k, value, max) = limit_of(e);
    assert_eq!((k, max), (LimitKind::Tiles, limits::MAX_TILES));
    assert!(value > max);
}

#[test]
fn l21_one_sliver_over_thousands_of_tiles_fails_fast() {
    // One triangle, 0.1 m wide, along x over 25 000 tiles of the demo settings; and one along
    // the diagonal of 790 × 790 tiles (within L7 and L20 on its own, the worst single triangle
    // before L21: seconds of empty tiles). Both fail at planning, before any tile is built.
    let d = 25_000.0 * 14.4;
    let diag = 790.0 * 14.4;
    for v in [
        [0.0, 0.0, 0.0, d, 0.0, 0.0, d, 0.0, 0.1],
        [0.0, 0.0, 0.0, diag, 0.0, diag, diag, 0.0, diag - 0.1],
    ] {
        let g = Geometry::from_arrays(&v, &[0, 1, 2], &[63]).unwrap();
        let e = build(&g, &Settings::new(SettingsSpec::default()).unwrap()).unwrap_err();
        let (k, value, max) = limit_of(e);
        assert_eq!(
            (k, max),
            (
                LimitKind::WindowCellsPerTriangle,
                limits::MAX_WINDOW_CELLS_PER_TRIANGLE
            )
        );
        assert!(value > max && value <= limits::MAX_WINDOW_CELLS, "{value}");
    }
}

#[test]
fn l8_bin_entries() {
    // 300 triangles each over just under a million tile cells: too many pairs in total.
    let spec = SettingsSpec {
        cell_size: 1.0,
        tile_size: 4,
        agent_radius: 0.0,
        ..SettingsSpec::default()
    };
    let side = 3990.0;
    let mut v = Vec::new();
    let mut idx = Vec::new();
    for k in 0..300u32 {
        let y = f64::from(k) * 0.01;
        v.extend_from_slice(&[0.0, y, 0.0, 0.0, y, side, side, y, 0.0]);
        idx.extend_from_slice(&[3 * k, 3 * k + 1, 3 * k + 2]);
    }
    let g = Geometry::from_arrays(&v, &idx, &[63; 300]).unwrap();
    let e = build(&g, &Settings::new(spec).unwrap()).unwrap_err();
    let (k, value, max) = limit_of(e);
    assert_eq!((k, max), (LimitKind::BinEntries, limits::MAX_BIN_ENTRIES));
    assert!(value > max);
}

#[test]
fn l12_layers() {
    // 257 floors stacked over one whole 4-cell tile: each meets every other on every side, so
    // each needs a layer of its own.
    let spec = SettingsSpec {
        cell_size: 0.5,
        cell_height: 0.5,
        agent_height: 1.0,
        agent_climb: 0.0,
        agent_radius: 0.0,
        region_min_area: 0,
        region_merge_area: 0,
        detail_sample_dist: 0.0,
        tile_size: 4,
        ..SettingsSpec::default()
    };
    let mut s = Soup::default();
    // The cell (0, 0) is the tile; floors reach into the padding all round.
    for k in 0..257 {
        s.floor(-3.0, -3.0, 5.0, 5.0, f64::from(k) * 1.5);
    }
    let e = try_build(&s, spec.clone()).unwrap_err();
    assert_eq!(limit_of(e), (LimitKind::Layers, 257, 256));
    s.tris.truncate(2 * 256);
    let b = try_build(&s, spec).unwrap();
    assert_eq!(
        b.tiles
            .iter()
            .filter(|t| t.pos().column == 0 && t.pos().row == 0)
            .count(),
        256
    );
}

#[test]
fn l15_detail_vertices_per_polygon() {
    // A rough surface under large polygons with a zero detail error needs more than 249 extra
    // vertices in some polygon.
    let spec = SettingsSpec {
        cell_size: 0.25,
        cell_height: 0.05,
        agent_radius: 0.0,
        agent_climb: 0.5,
        max_slope_deg: 60.0,
        max_edge_len: 0.0,
        detail_sample_dist: 0.25,
        detail_sample_max_error: 0.0,
        tile_size: 64,
        ..SettingsSpec::default()
    };
    let n = 64;
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, z) = (f64::from(i) * 0.25, f64::from(j) * 0.25);
            let y = if (i + j) % 2 == 0 { 0.0 } else { 0.1 };
            v.extend_from_slice(&[x, y, z]);
        }
    }
    let mut idx = Vec::new();
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            idx.extend_from_slice(&[at(i, j), at(i, j + 1), at(i + 1, j)]);
            idx.extend_from_slice(&[at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)]);
        }
    }
    let areas = vec![63; idx.len() / 3];
    let g = Geometry::from_arrays(&v, &idx, &areas).unwrap();
    let e = build(&g, &Settings::new(spec.clone()).unwrap()).unwrap_err();
    let (k, _, max) = limit_of(e);
    assert_eq!((k, max), (LimitKind::DetailVerticesPerPolygon, 249));
    // With a tolerant error the same surface builds.
    let ok = SettingsSpec {
        detail_sample_max_error: 0.5,
        ..spec
    };
    assert!(build(&g, &Settings::new(ok).unwrap()).is_ok());
}

#[test]
fn l18_volumes_and_l19_corners() {
    let v = VolumeSpec {
        area: 1,
        min_y: 0.0,
        max_y: 1.0,
        polygon: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
    };
    let many = SettingsSpec {
        volumes: vec![v.clone(); limits::MAX_VOLUMES as usize + 1],
        ..SettingsSpec::default()
    };
    assert_eq!(Settings::new(many).unwrap_err().field, "volume_count");
    let enough = SettingsSpec {
        volumes: vec![v.clone(); limits::MAX_VOLUMES as usize],
        ..SettingsSpec::default()
    };
    assert!(Settings::new(enough).is_ok());
    let circle = |k: u32| -> Vec<[f64; 2]> {
        (0..k)
            .map(|i| {
                let a = f64::from(i) / f64::from(k) * std::f64::consts::TAU;
                [libm::cos(a) * 100.0, libm::sin(a) * 100.0]
            })
            .collect()
    };
    let big = SettingsSpec {
        volumes: vec![VolumeSpec {
            polygon: circle(limits::MAX_VOLUME_VERTICES + 1),
            ..v.clone()
        }],
        ..SettingsSpec::default()
    };
    assert_eq!(
        Settings::new(big).unwrap_err().field,
        "volume[0].vertex_count"
    );
    let fits = SettingsSpec {
        volumes: vec![VolumeSpec {
            polygon: circle(limits::MAX_VOLUME_VERTICES),
            ..v
        }],
        ..SettingsSpec::default()
    };
    assert!(Settings::new(fits).is_ok());
}
