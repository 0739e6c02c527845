//! Random worlds and settings build without error: every tile passes the reader, and no
//! contour fails to triangulate or to join its holes (`spec/build3d.md` B39, B41, B49). Run with
//! `PROPTEST_CASES=2000` for a longer search.

use onav::TiledNavMesh;
use onav_build3d::{build, Geometry, Settings, SettingsSpec};
use proptest::prelude::*;

use crate::kit::Soup;

fn soup() -> impl Strategy<Value = Soup> {
    let shape = (
        0u8..5,
        -5.0..25.0f64,
        -5.0..25.0f64,
        0.05..12.0f64,
        0.05..12.0f64,
        -2.0..6.0f64,
        0.0..4.0f64,
    );
    prop::collection::vec(shape, 1..30).prop_map(|shapes| {
        let mut s = Soup::default();
        for (kind, x, z, w, d, y, h) in shapes {
            match kind {
                0 => {
                    s.floor(x, z, x + w, z + d, y);
                }
                1 => {
                    s.cuboid([x, y, z], [x + w, y + h + 0.1, z + d]);
                }
                2 => {
                    s.ramp(x, z, x + w, z + d, y, y + h);
                }
                3 => {
                    // A free triangle, tilted.
                    s.tris.push((
                        [
                            [x, y, z],
                            [x + 0.3 * w, y + h, z + d],
                            [x + w, y - 0.5 * h, z],
                        ],
                        63,
                    ));
                }
                _ => {
                    // Stairs along x.
                    for k in 0..6 {
                        let k = f64::from(k);
                        s.floor(x + k * 0.4, z, x + k * 0.4 + 0.4, z + d, y + k * 0.25);
                    }
                }
            }
        }
        s
    })
}

fn settings() -> impl Strategy<Value = SettingsSpec> {
    (
        prop::sample::select(vec![0.2f64, 0.3, 0.5]),
        prop::sample::select(vec![0.1, 0.2]),
        0.0..1.5f64,
        prop::sample::select(vec![4u32, 8, 16, 32, 48]),
        3u32..=6,
        prop::sample::select(vec![0.0f64, 1.0, 2.0]),
        (
            0u32..20,
            0u32..100,
            prop::sample::select(vec![0.0, 0.5, 1.3, 3.0]),
            prop::sample::select(vec![0.0, 2.0, 12.0]),
        ),
    )
        .prop_map(
            |(cs, ch, r, ts, nvp, sd, (min, merge, err, len))| SettingsSpec {
                cell_size: cs,
                cell_height: ch,
                agent_radius: r,
                tile_size: ts,
                verts_per_poly: nvp,
                detail_sample_dist: if sd == 0.0 { 0.0 } else { sd.max(cs) },
                detail_sample_max_error: 0.1,
                region_min_area: min,
                region_merge_area: merge,
                max_edge_error: err,
                max_edge_len: len,
                ..SettingsSpec::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_worlds_build_and_stitch(s in soup(), spec in settings()) {
        let g: Geometry = s.geometry();
        let b = build(&g, &Settings::new(spec).unwrap());
        let b = match b {
            Ok(b) => b,
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        let mut m = TiledNavMesh::new(b.params);
        for t in &b.tiles {
            m.add_tile(t.clone()).unwrap();
        }
    }
}

fn coordinate() -> impl Strategy<Value = f64> {
    prop_oneof![
        -30.0..30.0f64,
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e-300,
            -1e-300,
            5e-324,
            1e15,
            -1e15,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN
        ]),
        (-1e9..1e9f64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    /// Any finite coordinates and any valid settings give tiles or an error, never a panic.
    #[test]
    fn extreme_inputs_never_panic(
        verts in prop::collection::vec((coordinate(), coordinate(), coordinate()), 3..9),
        tris in prop::collection::vec((0usize..9, 0usize..9, 0usize..9, 0u8..64), 1..6),
        cs in prop::sample::select(vec![1e-6, 0.3, 1e6]),
        ts in prop::sample::select(vec![4u32, 1024]),
    ) {
        let v: Vec<f64> = verts.iter().flat_map(|&(x, y, z)| [x, y, z]).collect();
        let n = verts.len();
        let idx: Vec<u32> = tris.iter().flat_map(|&(a, b, c, _)| [(a % n) as u32, (b % n) as u32, (c % n) as u32]).collect();
        let areas: Vec<u8> = tris.iter().map(|t| t.3).collect();
        let g = Geometry::from_arrays(&v, &idx, &areas).unwrap();
        let spec = SettingsSpec {
            cell_size: cs,
            cell_height: cs,
            agent_radius: 0.0,
            detail_sample_dist: 0.0,
            tile_size: ts,
            ..SettingsSpec::default()
        };
        if let Ok(s) = Settings::new(spec) {
            let _ = build(&g, &s);
        }
    }
}
